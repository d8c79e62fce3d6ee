"""``run_turn`` through a real database: the same inputs give byte-identical
output, and a crash half-way through a turn leaves the database as it was —
on SQLite and on PostgreSQL."""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event, func, select, text
from sqlalchemy.orm import Session, sessionmaker

from tests.conftest import SqliteTemplates
from tests.factories import make_generated_game
from turnproc.config import Config
from turnproc.intake import submit_orders
from turnproc.rules.events import Event, events_to_json
from turnproc.rules.serialize import state_to_json
from turnproc.rules.state import GameState
from turnproc.storage import convert
from turnproc.storage import models as m
from turnproc.storage.convert import load_state
from turnproc.storage.db import make_engine, make_sessionmaker, transaction
from turnproc.storage.queries import get_empire, get_game
from turnproc.turns.run import run_turn

GAME = "pipeline"
CODES = ("AAA", "BBB", "CCC")
START = dt.datetime(2026, 3, 2, 18, 0, tzinfo=dt.timezone.utc)
CONFIG = Config(from_address="Host <turns@turnproc.example>")


@pytest.fixture
def sessions(db_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(db_url)
    yield make_sessionmaker(engine)
    engine.dispose()


def _sessions_for(url: str) -> tuple[Any, sessionmaker[Session]]:
    engine = make_engine(url)
    return engine, make_sessionmaker(engine)


def orders_for(state: GameState, code: str) -> str:
    """A busy turn for one empire, valid for any turn: moves out of BASE,
    building, money, a DISTSQ and a stance."""
    owned = state.owned_by(code)
    if not owned:
        return "TAX"
    base = state.empires[code].base
    star = state.systems[base] if base is not None and state.systems[base].owner == code else owned[0]
    lines = []
    for n in state.neighbours(star.code)[:3]:
        if state.systems[n].star is None:
            lines.append(f"MOVE {star.code} {n} 2")
    far = sorted(c for c in state.seen[code] if state.systems[c].is_star and c != star.code)
    if far:
        lines.append(f"DISTSQ {star.code} {far[-1]}")
    lines += [f"NEWCRS {star.code} 1", f"BUILD {star.code} 1", "TAX", "STASH 2", "TECH DRIVE"]
    lines.append(f"STANDOFF {star.code}")
    return "\n".join(lines)


def setup_game(factory: sessionmaker[Session]) -> None:
    with transaction(factory) as session:
        make_generated_game(session, GAME, CODES, "pipeline-seed")


def submit_turn(factory: sessionmaker[Session], when: dt.datetime) -> None:
    with transaction(factory) as session:
        game = get_game(session, GAME)
        state = load_state(session, game)
        for code in CODES:
            parsed, _ = submit_orders(
                session, game, get_empire(session, game, code), orders_for(state, code), when
            )
            assert not parsed.errors, parsed.errors


def play(factory: sessionmaker[Session], turns: int) -> dict[str, Any]:
    """Set up the game, play ``turns`` turns; every turn's events, reports and
    the final state, as text."""
    setup_game(factory)
    out: dict[str, Any] = {"events": [], "reports": []}
    for turn in range(turns):
        now = START + dt.timedelta(days=turn)
        submit_turn(factory, now)
        with transaction(factory) as session:
            result = run_turn(session, get_game(session, GAME), CONFIG, now + dt.timedelta(hours=1))
            out["reports"].append(result.reports)
    with factory() as session:
        game = get_game(session, GAME)
        for record in session.scalars(
            select(m.TurnRecord).where(m.TurnRecord.game_id == game.id).order_by(m.TurnRecord.number)
        ):
            out["events"].append(events_to_json([Event.from_dict(e) for e in record.events]))
        out["state"] = state_to_json(load_state(session, game))
    return out


def test_same_inputs_give_byte_identical_output(
    db_url: str, tmp_path: Path, sqlite_templates: SqliteTemplates
) -> None:
    """Two fresh databases (the second always SQLite, so on PostgreSQL this also
    shows the backend changes nothing), the same game, seed and orders: the
    events JSON, the state JSON and every report are byte for byte the same."""
    engine_a, first = _sessions_for(db_url)
    shutil.copyfile(sqlite_templates.get(), tmp_path / "second.db")  # migrated, like db_url
    engine_b, second = _sessions_for(f"sqlite:///{tmp_path / 'second.db'}")
    try:
        a = play(first, turns=2)
        b = play(second, turns=2)
    finally:
        engine_a.dispose()
        engine_b.dispose()
    assert len(a["events"]) == 2
    assert '"kind":"battle"' in a["events"][0] or '"kind":"capture"' in a["events"][0]
    assert a["events"] == b["events"]
    assert a["state"] == b["state"]
    assert a["reports"] == b["reports"]


# -- a crash mid-turn ----------------------------------------------------------------------


def dump(factory: sessionmaker[Session]) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, in a stable order (sequences are not rows:
    PostgreSQL never rolls them back, and nothing reads them)."""
    tables: dict[str, list[tuple[Any, ...]]] = {}
    with factory() as session:
        for table in m.Base.metadata.sorted_tables:
            # Sorted here, not in SQL: PostgreSQL cannot order by a JSON column.
            rows = session.execute(select(table)).all()
            tables[table.name] = sorted((tuple(row) for row in rows), key=repr)
        tables["alembic_version"] = [tuple(r) for r in session.execute(text("SELECT * FROM alembic_version"))]
    return tables


def _ready_game(factory: sessionmaker[Session]) -> None:
    setup_game(factory)
    submit_turn(factory, START)


def _crash_in_run_turn(factory: sessionmaker[Session]) -> None:
    with pytest.raises(RuntimeError, match="crash"), transaction(factory) as session:
        run_turn(session, get_game(session, GAME), CONFIG, START + dt.timedelta(hours=1))


def _after_turn_runs_cleanly(factory: sessionmaker[Session]) -> None:
    with transaction(factory) as session:
        result = run_turn(session, get_game(session, GAME), CONFIG, START + dt.timedelta(hours=1))
    assert result.turn == 1 and set(result.reports) == set(CODES)
    with factory() as session:
        assert get_game(session, GAME).turn == 2


def crash_in_save_state(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """save_state has written the game row, empires and systems, then dies."""
    real = convert._save_forces

    def boom(session: Session, *args: Any) -> None:
        real(session, *args)
        session.flush()
        raise RuntimeError("crash while saving the state")

    monkeypatch.setattr(convert, "_save_forces", boom)
    return lambda: None


def crash_in_reports(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """The turn dies as it queues the report mails: the state, the turn record
    and the reports are written (they really reach the database), then the
    outbox INSERT fails. Hooked on the SQL any version of run_turn sends, not
    on the names of its helpers."""
    seen_reports: list[str] = []

    def before(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.startswith("INSERT INTO reports"):
            seen_reports.append(statement)
        elif statement.startswith("INSERT INTO outbox") and seen_reports:
            raise RuntimeError("crash while queuing the report mails")

    event.listen(Engine, "before_cursor_execute", before)
    return lambda: event.remove(Engine, "before_cursor_execute", before)


@pytest.mark.parametrize(
    "crash, written",
    [
        (crash_in_save_state, {"games", "empires", "forces"}),
        (crash_in_reports, {"games", "empires", "forces", "turns", "reports"}),
    ],
    ids=["save_state", "reports"],
)
def test_crash_mid_turn_leaves_the_database_unchanged(
    sessions: sessionmaker[Session],
    monkeypatch: pytest.MonkeyPatch,
    crash: Callable[[pytest.MonkeyPatch], Callable[[], None]],
    written: set[str],
) -> None:
    _ready_game(sessions)
    before = dump(sessions)
    assert before["orders"] and before["systems"] and not before["turns"]

    engine = sessions.kw["bind"]
    tables: set[str] = set()

    def note_writes(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        words = statement.split()
        if words[0] in ("INSERT", "UPDATE", "DELETE"):
            tables.add(words[2] if words[0] != "UPDATE" else words[1])

    event.listen(engine, "before_cursor_execute", note_writes)
    cleanup = crash(monkeypatch)
    try:
        _crash_in_run_turn(sessions)
    finally:
        event.remove(engine, "before_cursor_execute", note_writes)
        cleanup()
    # The crash came after real writes, else this test would prove nothing.
    assert written <= tables
    assert dump(sessions) == before

    monkeypatch.undo()
    _after_turn_runs_cleanly(sessions)
    assert dump(sessions) != before


def test_the_turn_reads_the_parsed_orders_on_file_not_their_text(sessions: sessionmaker[Session]) -> None:
    """Orders are parsed once, at intake: the turn takes the stored parsed
    form, numbered by place, and the text lines are only for people to read."""
    setup_game(sessions)
    submit_turn(sessions, START)
    with transaction(sessions) as session:
        game = get_game(session, GAME)
        order_set = session.scalars(select(m.OrderSet).join(m.Empire).where(m.Empire.code == "AAA")).one()
        expected = [o["action"] for o in order_set.orders]
        assert [o["line"] for o in order_set.orders] == list(range(1, len(expected) + 1))
        order_set.lines = ["this text is never parsed again"]
        result = run_turn(session, game, CONFIG, START + dt.timedelta(hours=1))
        record = session.scalars(select(m.TurnRecord).where(m.TurnRecord.game_id == game.id)).one()
    ran = [e["data"]["action"] for e in record.events if e["kind"] == "order" and e["empire"] == "AAA"]
    assert sorted(ran) == sorted(expected) and result.turn == 1


def test_two_turn_runs_started_together_run_one_turn(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two `turnproc turn run` for the same game at once (a cron job and a GM's
    hand): the second, which started while turn 1 was current, refuses in one
    line instead of running turn 2 as well."""
    import threading

    import turnproc.turns.run as turns

    setup_game(sessions)
    in_turn, second_read = threading.Event(), threading.Event()
    real_resolve, real_transaction = turns.resolve, turns.transaction

    def slow_resolve(*args: Any, **kwargs: Any) -> Any:
        in_turn.set()
        assert second_read.wait(20)  # the second run has read "turn 1" and now waits for the lock
        return real_resolve(*args, **kwargs)

    def transaction_after_read(factory: Any) -> Any:
        if threading.current_thread().name == "second":
            second_read.set()
        return real_transaction(factory)

    monkeypatch.setattr(turns, "resolve", slow_resolve)
    monkeypatch.setattr(turns, "transaction", transaction_after_read)
    outcomes: dict[str, object] = {}

    def run(name: str) -> None:
        if name == "second":
            assert in_turn.wait(20)
        try:
            outcomes[name] = turns.run_current_turn(sessions, GAME, CONFIG, START).turn
        except turns.GMError as exc:
            outcomes[name] = str(exc)

    threads = [threading.Thread(target=run, args=(n,), name=n) for n in ("first", "second")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert outcomes["first"] == 1
    assert outcomes["second"] == f"turn 1 of game {GAME} has already run (the game is at turn 2 now)"
    with sessions() as session:
        assert get_game(session, GAME).turn == 2
        assert session.scalar(select(func.count()).select_from(m.TurnRecord)) == 1
    # Run again later: that is the next turn, on purpose.
    monkeypatch.undo()
    assert turns.run_current_turn(sessions, GAME, CONFIG, START + dt.timedelta(days=1)).turn == 2


def test_the_turn_holds_the_garbage_collector_off_and_gives_it_back(
    sessions: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """turnproc.runtime.collector: no collection walks a thousand empires' objects in the
    middle of a turn; afterwards, and after a failed turn, collection is on."""
    import gc

    import turnproc.turns.run

    _ready_game(sessions)
    seen: list[bool] = []
    real = turnproc.turns.run.resolve

    def watching(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(turnproc.turns.run, "resolve", watching)
    assert gc.isenabled()
    with transaction(sessions) as session:
        run_turn(session, get_game(session, GAME), CONFIG, START + dt.timedelta(hours=1))
    assert seen == [False] and gc.isenabled()
    monkeypatch.setattr(
        turnproc.turns.run, "resolve", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom"))
    )
    with pytest.raises(RuntimeError), transaction(sessions) as session:
        run_turn(session, get_game(session, GAME), CONFIG, START + dt.timedelta(hours=1))
    assert gc.isenabled()
