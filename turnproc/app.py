"""The running application: config, engine and session factory, opened once."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from .config import Config
from .storage.db import make_engine, make_sessionmaker
from .storage.migrate import ensure_schema

__all__ = ["App", "open_app"]


@dataclass
class App:
    config: Config
    engine: Engine
    sessions: sessionmaker[Session]

    def close(self) -> None:
        self.engine.dispose()


def open_app(config: Config, *, migrate: bool = True) -> App:
    engine = make_engine(config.database_url)
    if migrate:
        ensure_schema(engine)
    return App(config=config, engine=engine, sessions=make_sessionmaker(engine))
