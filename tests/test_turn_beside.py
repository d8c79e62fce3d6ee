"""A big game's turn builds its reports and its turn record's JSON in forked
children while it writes the state (turnproc.runtime.sidework, ``turns.BESIDE_FROM``):
what it stores and queues is byte for byte what the same turn built in one
process stores and queues, bulletin, announcements, leave and a correction's
reason included; and a turn that fails half-way leaves no child behind. On
SQLite and on PostgreSQL."""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import String, cast, select
from sqlalchemy.orm import Session, sessionmaker

from tests.conftest import SqliteTemplates, reaped
from tests.test_turn_pipeline import CODES, GAME, START, sessions, setup_game, submit_turn  # noqa: F401 - sessions is the fixture
from turnproc.runtime import sidework
from turnproc.turns import run as turns
from turnproc.config import Config
from turnproc.storage import convert
from turnproc.storage import models as m
from turnproc.storage.db import make_engine, make_sessionmaker, transaction
from turnproc.storage.queries import get_empire, get_game
from turnproc.turns.run import run_turn

#: A bulletin in a game of three: the bulletin's path is taken too.
CONFIG = Config(from_address="Host <turns@turnproc.example>", bulletin_threshold=2)


@pytest.fixture
def second(tmp_path: Path, sqlite_templates: SqliteTemplates) -> Iterator[sessionmaker[Session]]:
    shutil.copyfile(sqlite_templates.get(), tmp_path / "second.db")
    engine = make_engine(f"sqlite:///{tmp_path / 'second.db'}")
    yield make_sessionmaker(engine)
    engine.dispose()


def _play(factory: sessionmaker[Session], forks: list[int]) -> list[dict[str, Any]]:
    """Two turns, the second corrected with a reason; an announcement made
    during the first, and an empire on leave. What each run returned."""
    setup_game(factory)
    with transaction(factory) as session:
        game = get_game(session, GAME)
        session.add(m.Announcement(game_id=game.id, turn=1, subject="Welcome", text="Play nicely.", created_at=START))
        get_empire(session, game, CODES[1]).vacation_until = 3
    results = []
    for turn in range(2):
        now = START + dt.timedelta(days=turn)
        submit_turn(factory, now)
        with transaction(factory) as session:
            result = run_turn(
                session, get_game(session, GAME), CONFIG, now + dt.timedelta(hours=1),
                corrected=turn == 1, reason="a lost order found" if turn == 1 else None,
            )  # fmt: skip
            # deploy/OPERATIONS.md: the children have ended before the turn commits.
            assert all(reaped(pid) for pid in forks)
            results.append({code: result.reports[code] for code in result.reports})
    return results


def _stored(factory: sessionmaker[Session]) -> dict[str, list[tuple[Any, ...]]]:
    """The turn's rows as stored text (the JSON as written, not re-read)."""
    text = lambda column: cast(column, String)  # noqa: E731
    with factory() as session:
        return {
            "turns": session.execute(
                select(m.TurnRecord.number, text(m.TurnRecord.state_before), text(m.TurnRecord.events), text(m.TurnRecord.orders))
                .order_by(m.TurnRecord.number)
            ).all(),
            "reports": session.execute(
                select(m.Report.turn, m.Report.empire_id, text(m.Report.data)).order_by(m.Report.turn, m.Report.empire_id)
            ).all(),
            "bulletins": session.execute(select(m.Bulletin.turn, text(m.Bulletin.data)).order_by(m.Bulletin.turn)).all(),
            "outbox": session.execute(
                select(m.OutboxMail.kind, m.OutboxMail.recipient, m.OutboxMail.subject, m.OutboxMail.turn)
                .where(m.OutboxMail.kind.in_(("report", "bulletin")))
                .order_by(m.OutboxMail.turn, m.OutboxMail.kind, m.OutboxMail.recipient)
            ).all(),
        }


def test_reports_built_beside_are_those_built_in_one_process(
    sessions: sessionmaker[Session], second: sessionmaker[Session], forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turns, "BESIDE_FROM", len(CODES))
    beside = _play(sessions, forks)
    assert len(forks) == 4  # the reports and the record, each turn
    monkeypatch.setattr(turns, "BESIDE_FROM", 10**9)
    here = _play(second, forks)
    assert len(forks) == 4
    assert beside == here
    a, b = _stored(sessions), _stored(second)
    assert a == b
    assert len(a["reports"]) == 2 * len(CODES) and len(a["bulletins"]) == 2
    assert '"announcements":[{"subject":"Welcome"' in a["bulletins"][0][1]
    assert '"correction_reason":"a lost order found"' in a["bulletins"][1][1]
    assert sum('"on_leave_until":3' in row[2] for row in a["reports"]) == 2
    assert all(subject.startswith(f"[{GAME}] Turn ") for kind, _, subject, _ in a["outbox"] if kind == "report")


def test_a_turn_that_fails_while_its_reports_are_built_leaves_no_child(
    sessions: sessionmaker[Session], forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turns, "BESIDE_FROM", 1)
    setup_game(sessions)
    submit_turn(sessions, START)

    def boom(*args: Any) -> None:
        raise RuntimeError("crash while saving the state")

    monkeypatch.setattr(turns, "save_state", boom)
    with pytest.raises(RuntimeError, match="crash"), transaction(sessions) as session:
        run_turn(session, get_game(session, GAME), CONFIG, START + dt.timedelta(hours=1))
    assert len(forks) == 2
    assert all(reaped(pid) for pid in forks)
    monkeypatch.setattr(turns, "save_state", convert.save_state)
    with transaction(sessions) as session:
        assert run_turn(session, get_game(session, GAME), CONFIG, START + dt.timedelta(hours=1)).turn == 1
    assert len(forks) == 4


def test_the_operations_guide_gives_the_size_and_the_stall() -> None:
    guide = " ".join((Path(__file__).parents[1] / "deploy" / "OPERATIONS.md").read_text(encoding="utf-8").split())
    assert f"A turn of a game of {turns.BESIDE_FROM} empires or more also forks two short-lived children" in guide
    assert f"uses no CPU for {sidework.STALL_SECONDS:g} seconds, is ended" in guide


def test_what_the_children_run_reaches_no_database_and_no_mail() -> None:
    """deploy/OPERATIONS.md: the children touch no database or mail. What they
    run (turnproc.reports.turnout) and everything it imports, at any depth,
    imports neither the storage layer nor a database or mail library."""
    import ast

    from tests.test_layers import MODULES, imports

    forbidden = ("sqlalchemy", "psycopg", "sqlite3", "imapclient", "smtplib", "imaplib", "aiosmtpd")
    seen: set[str] = set()
    todo = ["turnproc.reports.turnout"]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo.extend(target for _, target, _ in imports(module))
        tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module and not n.level]
        bad = [name for name in names if name.split(".")[0] in forbidden]
        assert not bad, f"{module} imports {bad}"
    assert not [m for m in seen if m.startswith(("turnproc.storage", "turnproc.mail", "turnproc.app"))], sorted(seen)
    assert "turnproc.reports.context" in seen and "turnproc.rules.serialize" in seen
