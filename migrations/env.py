"""Alembic environment, driven by ``turnproc db ...`` (see turnproc/storage/migrate.py).

The command passes an open connection in ``config.attributes["connection"]``;
SQLite gets batch mode so ALTERs work there too.
"""

from __future__ import annotations

from typing import Any

from alembic import context

from turnproc.storage.models import Base, UTCDateTime

config = context.config
target_metadata = Base.metadata


def render_item(type_: str, obj: Any, autogen_context: Any) -> str | bool:
    # Our TypeDecorators are Python-side only; migrations store their SQL type,
    # so a migration never imports the models it migrates.
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is None:
        raise RuntimeError("run migrations through `turnproc db upgrade`, not the alembic command")
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        render_item=render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    raise RuntimeError("offline (SQL script) migrations are not supported")
run_migrations_online()
