"""A migrated database (SQLite and PostgreSQL) holding the two test games."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from turnproc.storage import migrate
from turnproc.storage.db import make_engine, make_sessionmaker, transaction

from .game import make_game


@dataclass
class Games:
    engine: Engine
    sessions: sessionmaker[Session]
    spring: int
    autumn: int


@pytest.fixture
def games(db_url: str) -> Iterator[Games]:
    engine = make_engine(db_url)
    migrate.upgrade(engine)
    sessions = make_sessionmaker(engine)
    with transaction(sessions) as session:
        spring = make_game(session, "spring26").id
        autumn = make_game(session, "autumn", {"RIG": "cy@example.org", "VEG": "di@example.org"}).id
    yield Games(engine, sessions, spring, autumn)
    engine.dispose()
