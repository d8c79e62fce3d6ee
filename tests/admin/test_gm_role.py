"""Migration 0005 on a PostgreSQL server where the database user may not
create roles: the migration warns and goes on, and GM scripts run with the
parse check alone (logged), still refusing what is not DML on the game tables."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, make_url, text

from tests.factories import make_game
from turnproc.admin import run_script
from turnproc.storage import gmrole, migrate
from turnproc.storage.db import make_engine, make_sessionmaker, transaction

from .conftest import NOW, dump

pytestmark = pytest.mark.postgres


def _admin(server: str, *statements: str) -> None:
    engine = create_engine(server, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        for statement in statements:
            conn.execute(text(statement))
    engine.dispose()


@pytest.fixture
def plain_user_url(postgres_url: str) -> Iterator[str]:
    """A fresh database owned by a user with neither SUPERUSER nor CREATEROLE."""
    name = f"t_plain_{uuid.uuid4().hex[:10]}"
    _admin(
        postgres_url,
        f"CREATE ROLE {name} LOGIN NOSUPERUSER NOCREATEROLE",
        f'CREATE DATABASE "{name}" OWNER {name}',
    )
    try:
        yield make_url(postgres_url).set(username=name, database=name).render_as_string(hide_password=False)
    finally:
        _admin(postgres_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', f"DROP ROLE IF EXISTS {name}")


def test_without_createrole_scripts_fall_back_to_the_parse_check(
    plain_user_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    engine = make_engine(plain_user_url)
    try:
        with caplog.at_level(logging.WARNING, logger="turnproc.storage.gmrole"):
            migrate.upgrade(engine)
        assert any("parse check only" in r.getMessage() for r in caplog.records)
        with engine.connect() as conn:
            assert not gmrole.role_usable(conn)
        with transaction(make_sessionmaker(engine)) as session:
            make_game(session, "spring26")
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="turnproc.admin.script"):
            fix = "UPDATE empires SET vp = vp + 1 WHERE code = 'RIG';"
            assert run_script(engine, "spring26", fix, now=NOW).outcome == "committed"
        assert any("parse check only" in r.getMessage() for r in caplog.records)
        before = dump(engine, skip=("audit_log",))
        result = run_script(engine, "spring26", "DELETE FROM audit_log;", now=NOW)
        assert result.outcome == "refused" and "DELETE on audit_log is not allowed" in result.errors[0]
        assert dump(engine, skip=("audit_log",)) == before
    finally:
        engine.dispose()
