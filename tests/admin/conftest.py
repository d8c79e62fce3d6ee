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
from sqlalchemy import Engine, inspect, text
from sqlalchemy.orm import Session, sessionmaker

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


@pytest.fixture
def games(db_url: str) -> Iterator[Games]:
    engine = make_engine(db_url)
    sessions = make_sessionmaker(engine)
    with transaction(sessions) as session:
        spring = make_game(session, "spring26").id
        autumn = make_game(session, "autumn", {"RIG": "cy@example.org", "VEG": "di@example.org"}).id
    yield Games(engine, sessions, spring, autumn)
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
