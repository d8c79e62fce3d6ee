"""What a turn run, a rollback and a rerun read by turn is found through an
index on the turn, and the turns' marks the public pages and ``game show``
read through an index that holds them, not by reading every turn's rows of
the game: SQLite's plan for the very statements they send names the index."""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import Session, sessionmaker

from tests.factories import make_game
from turnproc.config import Config
from turnproc.games.publish import public_game
from turnproc.storage.convert import orders_for_turn
from turnproc.storage.db import make_engine, make_sessionmaker, transaction
from turnproc.storage.queries import get_game, load_game_view, staged_record
from turnproc.turns.control import rollback
from turnproc.turns.run import run_turn

NOW = dt.datetime(2026, 1, 5, 12, 0, tzinfo=dt.timezone.utc)


def _plans(sessions: sessionmaker[Session], action: Callable[[Session], Any], table: str) -> list[str]:
    """SQLite's plan of each SELECT ``action`` sends that reads ``table``."""
    sent: list[tuple[str, Any]] = []

    def listen(conn: Any, cursor: Any, sql: str, params: Any, context: Any, many: bool) -> None:
        if sql.lstrip().startswith("SELECT") and re.search(rf"\b(FROM|JOIN) {table}\b", sql):
            sent.append((sql, params))

    engine = sessions.kw["bind"]
    event.listen(engine, "before_cursor_execute", listen)
    try:
        with transaction(sessions) as session:
            action(session)
    finally:
        event.remove(engine, "before_cursor_execute", listen)
    assert sent, f"nothing read {table}"
    with engine.connect() as conn:
        raw = conn.connection.driver_connection
        assert raw is not None
        return [
            " ".join(str(row[-1]) for row in raw.execute(f"EXPLAIN QUERY PLAN {sql}", params))
            for sql, params in sent
        ]


def test_turn_reads_use_the_turn_indexes(sqlite_url: str, tmp_path: Any) -> None:
    engine = make_engine(sqlite_url)
    sessions = make_sessionmaker(engine)
    config = Config(database_url=sqlite_url, maildir_out=tmp_path / "out")
    try:
        with transaction(sessions) as session:
            game = make_game(session)
            for week in range(3):
                run_turn(session, game, config, NOW + dt.timedelta(days=7 * week))
        for plan in _plans(sessions, lambda s: staged_record(s, game.id), "turns"):
            assert "ix_turns_game_staged" in plan, plan
        for plan in _plans(sessions, lambda s: orders_for_turn(s, get_game(s, "corpus")), "orders"):
            # By game and turn, or by each empire and the turn: never every turn's.
            assert "ix_orders_game_turn" in plan or "ix_orders_empire_turn" in plan, plan
        plans = _plans(
            sessions,
            lambda s: rollback(s, get_game(s, "corpus"), 2, NOW + dt.timedelta(days=30), config),
            "reports",
        )
        assert any("ix_reports_game_turn" in plan for plan in plans), plans
    finally:
        engine.dispose()


def _traced_plans(raw: sqlite3.Connection, action: Callable[[], Any]) -> list[str]:
    """SQLite's plan of each SELECT of the turns table that ``action`` sends
    over ``raw``, however it sends it (SQLAlchemy or the DB-API alone)."""
    sent: list[str] = []
    raw.set_trace_callback(
        lambda sql: sent.append(sql) if sql.lstrip().startswith("SELECT") and " turns" in sql else None
    )
    try:
        action()
    finally:
        raw.set_trace_callback(None)
    assert sent, "nothing read turns"
    return [" ".join(str(row[-1]) for row in raw.execute(f"EXPLAIN QUERY PLAN {sql}")) for sql in sent]


def test_the_turn_marks_are_read_from_their_index_alone(sqlite_url: str, tmp_path: Path) -> None:
    """The public pages' refresh and ``game show`` read every turn's number,
    staged flag and time: from the index that holds them, never from the
    turns' rows, whose saved states (the whole galaxy) come first on SQLite."""
    engine = make_engine(sqlite_url)
    sessions = make_sessionmaker(engine)
    config = Config(database_url=sqlite_url, maildir_out=tmp_path / "out")
    try:
        with transaction(sessions) as session:
            game = make_game(session)
            for week in range(3):
                run_turn(session, game, config, NOW + dt.timedelta(days=7 * week))
        with sessions() as session:
            game = get_game(session, "corpus")
            raw = session.connection().connection.driver_connection
            assert isinstance(raw, sqlite3.Connection)
            plans = _traced_plans(raw, lambda: public_game(session, game, NOW, tmp_path / "site"))
            plans += _traced_plans(raw, lambda: load_game_view(session, name="corpus"))
        marks = [p for p in plans if "ix_turns_game_marks" in p]
        assert len(marks) >= 2, plans
        assert all("COVERING INDEX ix_turns_game_marks" in p for p in marks), marks
    finally:
        engine.dispose()
