"""The games the GM-tool tests edit, in a migrated database (SQLite and
PostgreSQL): ``spring26`` (the codes the example scripts in deploy/admin/ name,
so they run there unchanged) and ``autumn``, the other game a stray script must
not touch; and a dump of every row, to prove a database unchanged."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import Engine, inspect, select, text
from sqlalchemy.orm import Session, sessionmaker

from tests.conftest import Fill
from tests.factories import make_game
from turnproc.storage import models as m
from turnproc.storage.db import make_engine, make_sessionmaker, transaction

NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.timezone.utc)


@dataclass
class Games:
    engine: Engine
    sessions: sessionmaker[Session]
    spring: int
    autumn: int


def _two_games(url: str) -> None:
    engine = make_engine(url)
    with transaction(make_sessionmaker(engine)) as session:
        make_game(session, "spring26")
        make_game(session, "autumn", {"RIG": "cy@example.org", "VEG": "di@example.org"})
    engine.dispose()


@pytest.fixture
def db_template() -> tuple[str, Fill | None]:
    """Every database here starts with the two games (built once per session)."""
    return "admin-games", _two_games


@pytest.fixture
def games(db_url: str) -> Iterator[Games]:
    engine = make_engine(db_url)
    sessions = make_sessionmaker(engine)
    with sessions() as session:
        ids = {name: id_ for name, id_ in session.execute(select(m.Game.name, m.Game.id))}
    yield Games(engine, sessions, ids["spring26"], ids["autumn"])
    engine.dispose()


def dump(engine: Engine, *, skip: tuple[str, ...] = ()) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, in primary-key order: two equal dumps mean an
    unchanged database (as far as data goes)."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    names = sorted(set(inspect(engine).get_table_names()) - set(skip))
    with engine.connect() as conn:
        for name in names:
            table = m.Base.metadata.tables.get(name)
            order = ", ".join(c.name for c in table.primary_key.columns) if table is not None else "1"
            out[name] = [tuple(r) for r in conn.execute(text(f"SELECT * FROM {name} ORDER BY {order}"))]
    return out
