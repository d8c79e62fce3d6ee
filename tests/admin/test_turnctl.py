"""Preview, hold/release/discard, rollback and rerun, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session, sessionmaker

from tests.conftest import Fill
from turnproc.errors import GMError
from turnproc.outgoing.reportmail import send_outbox
from turnproc.reports.render import render_report_text
from turnproc.rules.serialize import SYSTEM_FIELDS, state_from_dict, state_to_dict, state_to_json
from turnproc.storage import models as m
from turnproc.storage.db import make_engine, make_sessionmaker, transaction
from turnproc.storage.queries import get_game
from turnproc.turns.control import discard_turn, release_turn, rerun_turn, rollback, set_hold
from turnproc.turns.run import preview_turn, run_turn

from .conftest import dump
from .play import (
    CODES,
    CONFIG,
    new_played_game,
    play,
    state_json,
    submit_scripted,
    turn_events,
    when,
)


class Sink:
    def __init__(self) -> None:
        self.mails: list[tuple[str, bytes]] = []

    def deliver(self, raw: bytes, recipient: str) -> None:
        self.mails.append((recipient, raw))


def _war(url: str) -> None:
    engine = make_engine(url)
    new_played_game(make_sessionmaker(engine))
    engine.dispose()


@pytest.fixture
def db_template() -> tuple[str, Fill | None]:
    """Every database here starts with the generated game "war" (built once per session)."""
    return "turnctl-war", _war


@pytest.fixture
def db(db_url: str) -> Iterator[tuple[Engine, sessionmaker[Session]]]:
    engine = make_engine(db_url)
    sessions = make_sessionmaker(engine)
    yield engine, sessions
    engine.dispose()


def _count(sessions: sessionmaker[Session], model: type, *where: object) -> int:
    with sessions() as session:
        return session.scalar(select(func.count()).select_from(model).where(*where)) or 0


# -- rollback and rerun -----------------------------------------------------------------------


def test_rollback_then_rerun_with_the_same_orders_is_byte_identical(db) -> None:
    _, sessions = db
    play(sessions, "war", 3)
    events = {n: turn_events(sessions, "war", n) for n in (1, 2, 3)}
    final = state_json(sessions, "war")
    with sessions() as session:
        game = get_game(session, "war")
        before_2 = session.scalar(
            select(m.TurnRecord.state_before).where(m.TurnRecord.game_id == game.id, m.TurnRecord.number == 2)
        )
        before_3 = session.scalar(
            select(m.TurnRecord.state_before).where(m.TurnRecord.game_id == game.id, m.TurnRecord.number == 3)
        )
    assert any(json.loads(events[n]) for n in events)

    with transaction(sessions) as session:
        result = rollback(session, get_game(session, "war"), 2, when(4), CONFIG)
    assert (result.turn, result.archived) == (2, [2, 3])
    assert state_json(sessions, "war") == state_to_json(state_from_dict(before_2))
    with sessions() as session:
        game = get_game(session, "war")
        assert game.turn == 2
        assert session.scalars(select(m.TurnRecord.number).where(m.TurnRecord.game_id == game.id)).all() == [
            1
        ]
        archived = session.scalars(
            select(m.ArchivedTurn).where(m.ArchivedTurn.game_id == game.id).order_by(m.ArchivedTurn.number)
        ).all()
        assert [(a.number, a.reason) for a in archived] == [(2, "rollback to 2"), (3, "rollback to 2")]
        assert archived[0].state_after == before_3
        assert state_to_json(state_from_dict(archived[1].state_after)) == final
        assert set(archived[1].reports) == set(CODES)
        assert session.scalar(select(func.max(m.Report.turn)).where(m.Report.game_id == game.id)) == 1

    with transaction(sessions) as session:
        rolled, rerun = rerun_turn(session, get_game(session, "war"), 2, CONFIG, when(4))
    assert rolled is None and rerun.turn == 2
    assert turn_events(sessions, "war", 2) == events[2]
    assert state_json(sessions, "war") == state_to_json(state_from_dict(before_3))
    # Turn 3's orders were kept on file: running it again gives the same game.
    with transaction(sessions) as session:
        run_turn(session, get_game(session, "war"), CONFIG, when(5))
    assert turn_events(sessions, "war", 3) == events[3]
    assert state_json(sessions, "war") == final


def test_a_turn_record_keeps_the_systems_as_rows_under_their_field_names(db) -> None:
    """docs/gm-schema.md: ``state_before`` holds each system as one list of
    values under ``systems.fields``; the rest as the golden files have it."""
    _, sessions = db
    play(sessions, "war", 2)
    final = state_json(sessions, "war")
    with sessions() as session:
        game = get_game(session, "war")
        before_2 = session.scalar(
            select(m.TurnRecord.state_before).where(m.TurnRecord.game_id == game.id, m.TurnRecord.number == 2)
        )
    assert before_2["systems"]["fields"] == list(SYSTEM_FIELDS)
    as_dicts = state_to_dict(state_from_dict(before_2))
    assert [dict(zip(SYSTEM_FIELDS, row, strict=True)) for row in before_2["systems"]["rows"]] == as_dicts[
        "systems"
    ]
    assert {k: v for k, v in before_2.items() if k != "systems"} == {
        k: v for k, v in as_dicts.items() if k != "systems"
    }
    # A record written before the rows (each system a dict) still rolls back.
    with transaction(sessions) as session:
        game = get_game(session, "war")
        record = session.scalar(
            select(m.TurnRecord).where(m.TurnRecord.game_id == game.id, m.TurnRecord.number == 2)
        )
        record.state_before = as_dicts
    with transaction(sessions) as session:
        rollback(session, get_game(session, "war"), 2, when(3), CONFIG)
    assert state_json(sessions, "war") == state_to_json(state_from_dict(before_2))
    with sessions() as session:
        archived = session.scalar(select(m.ArchivedTurn).where(m.ArchivedTurn.number == 2))
        assert archived.state_before == as_dicts
        assert state_to_json(state_from_dict(archived.state_after)) == final


def test_rerun_of_an_earlier_turn_rolls_back_and_marks_reports_corrected(db) -> None:
    _, sessions = db
    play(sessions, "war", 2)
    sink = Sink()
    assert send_outbox(sessions, CONFIG, when(3), sink) == (6, 0)
    events_2, after = turn_events(sessions, "war", 2), state_json(sessions, "war")
    with transaction(sessions) as session:
        rolled, _ = rerun_turn(session, get_game(session, "war"), 2, CONFIG, when(3))
    assert (
        rolled is not None
        and rolled.archived == [2]
        and rolled.sent_mails == 3
        and rolled.cancelled_mails == 0
    )
    assert turn_events(sessions, "war", 2) == events_2 and state_json(sessions, "war") == after
    with sessions() as session:
        game = get_game(session, "war")
        subjects = session.scalars(
            select(m.OutboxMail.subject).where(
                m.OutboxMail.game_id == game.id, m.OutboxMail.sent_at.is_(None)
            )
        ).all()
        assert len(subjects) == 3 and all("(corrected)" in s for s in subjects)
        assert all(r.data["corrected"] for r in session.scalars(select(m.Report).where(m.Report.turn == 2)))
        assert "CORRECTED" in render_report_text(
            session.scalars(select(m.Report.data).where(m.Report.turn == 2)).first()
        )
        entry = session.scalars(select(m.AuditEntry).order_by(m.AuditEntry.id.desc())).first()
        assert (entry.action, entry.script) == ("rerun", "turn rerun war 2")
        assert session.scalar(select(m.ArchivedTurn.reason)) == "rerun of 2"


def test_rerun_with_orders_fixed_by_the_gm(db) -> None:
    from turnproc.intake import submit_orders

    _, sessions = db
    play(sessions, "war", 2)
    events_2 = turn_events(sessions, "war", 2)
    with transaction(sessions) as session:
        rollback(session, get_game(session, "war"), 2, when(3), CONFIG)
    with transaction(sessions) as session:
        game = get_game(session, "war")
        rig = session.scalar(select(m.Empire).where(m.Empire.game_id == game.id, m.Empire.code == "RIG"))
        submit_orders(session, game, rig, "CLEAR", when(3))  # the GM withdraws RIG's orders
    with transaction(sessions) as session:
        rerun_turn(session, get_game(session, "war"), 2, CONFIG, when(3))
    rerun = json.loads(turn_events(sessions, "war", 2))
    assert turn_events(sessions, "war", 2) != events_2
    assert not [e for e in rerun if e["kind"] == "order" and e["empire"] == "RIG"]


def test_rollback_cancels_unsent_reports_and_counts_sent_ones(db) -> None:
    _, sessions = db
    play(sessions, "war", 1)
    send_outbox(sessions, CONFIG, when(2), Sink())
    play(sessions, "war", 1)
    with transaction(sessions) as session:
        result = rollback(session, get_game(session, "war"), 1, when(3), CONFIG)
    assert (result.archived, result.sent_mails, result.cancelled_mails) == ([1, 2], 3, 3)
    # Left unsent: only the rollback's notice to each of the 3 active players.
    assert _count(sessions, m.OutboxMail, m.OutboxMail.sent_at.is_(None)) == 3
    assert _count(sessions, m.OutboxMail, m.OutboxMail.sent_at.is_(None), m.OutboxMail.kind != "notice") == 0
    assert (
        _count(sessions, m.OutboxMail, m.OutboxMail.sent_at.is_not(None)) == 3
    )  # the sent ones stay as the record of what went out


@pytest.mark.parametrize(
    "to, message", [(3, "collecting orders for turn 3"), (0, "turns count from 1"), (5, "earlier turn")]
)
def test_rollback_mistakes(db, to: int, message: str) -> None:
    engine, sessions = db
    play(sessions, "war", 2)
    before = dump(engine)
    with pytest.raises(GMError, match=message), transaction(sessions) as session:
        rollback(session, get_game(session, "war"), to, when(3), CONFIG)
    assert dump(engine) == before


def test_rerun_mistakes(db) -> None:
    _, sessions = db
    play(sessions, "war", 1)
    with (
        pytest.raises(GMError, match="turn 2 of game war has never been run"),
        transaction(sessions) as session,
    ):
        rerun_turn(session, get_game(session, "war"), 2, CONFIG, when(2))
    with pytest.raises(GMError, match="turn 3 has not been run yet"), transaction(sessions) as session:
        rerun_turn(session, get_game(session, "war"), 3, CONFIG, when(2))


# -- preview ---------------------------------------------------------------------------------


def test_preview_changes_nothing_and_shows_what_the_run_will_do(db) -> None:
    engine, sessions = db
    play(sessions, "war", 1)
    with transaction(sessions) as session:
        submit_scripted(session, "war")
    before = dump(engine)
    preview = preview_turn(engine, "war", CONFIG, when(2), empire="veg")
    assert dump(engine) == before
    lines = preview.summary()
    assert lines[0].startswith(f"game war: turn 2 would produce {len(preview.events)} events")
    assert [s[0] for s in preview.standings] == sorted(CODES)
    assert preview.report is not None and "turn 2 report" in preview.report and "(VEG)" in preview.report
    with transaction(sessions) as session:
        real = run_turn(session, get_game(session, "war"), CONFIG, when(2))
    assert real.report_text("VEG") == preview.report
    assert json.loads(turn_events(sessions, "war", 2)) == [e.to_dict() for e in preview.events]


def test_preview_of_an_unknown_empire(db) -> None:
    engine, _ = db
    with pytest.raises(GMError, match="no empire 'XYZ'"):
        preview_turn(engine, "war", CONFIG, when(1), empire="XYZ")


# -- hold, release, discard ------------------------------------------------------------------


def test_hold_stages_the_turn_and_release_sends_it(db) -> None:
    _, sessions = db
    with transaction(sessions) as session:
        set_hold(session, get_game(session, "war"), True, when(1))
    [result] = play(sessions, "war", 1)
    assert result.staged
    sink = Sink()
    assert send_outbox(sessions, CONFIG, when(1), sink) == (0, 0)
    assert _count(sessions, m.OutboxMail, m.OutboxMail.held.is_(True)) == 3
    with pytest.raises(GMError, match="turn 1 of game war is staged"), transaction(sessions) as session:
        run_turn(session, get_game(session, "war"), CONFIG, when(2))
    with transaction(sessions) as session:
        released = release_turn(session, get_game(session, "war"), when(1))
    assert (released.turn, released.mails) == (1, 3)
    assert send_outbox(sessions, CONFIG, when(1), sink) == (3, 0) and len(sink.mails) == 3
    with transaction(sessions) as session:
        assert _count(sessions, m.TurnRecord, m.TurnRecord.staged.is_(True)) == 0
        with pytest.raises(GMError, match="no staged turn"):
            release_turn(session, get_game(session, "war"), when(1))
    with sessions() as session:
        actions = session.scalars(select(m.AuditEntry.action).order_by(m.AuditEntry.id)).all()
    assert actions == ["hold", "release"]


def test_discard_puts_the_game_back_and_a_new_run_is_the_same_turn(db) -> None:
    _, sessions = db
    play(sessions, "war", 1)
    with transaction(sessions) as session:
        set_hold(session, get_game(session, "war"), True, when(2))
        submit_scripted(session, "war")
    before = state_json(sessions, "war")
    with transaction(sessions) as session:
        staged = run_turn(session, get_game(session, "war"), CONFIG, when(2))
    assert staged.staged
    events = turn_events(sessions, "war", 2)
    with transaction(sessions) as session:
        result = discard_turn(session, get_game(session, "war"), when(2))
    assert result.archived == [2] and result.cancelled_mails == 3
    assert state_json(sessions, "war") == before
    assert _count(sessions, m.OutboxMail, m.OutboxMail.held.is_(True)) == 0
    with sessions() as session:
        assert get_game(session, "war").turn == 2
        assert session.scalar(select(m.ArchivedTurn.reason)) == "discarded"
    with transaction(sessions) as session:
        again = run_turn(session, get_game(session, "war"), CONFIG, when(2))
    assert again.staged and turn_events(sessions, "war", 2) == events


def test_hold_off_runs_turns_as_usual(db) -> None:
    _, sessions = db
    with transaction(sessions) as session:
        set_hold(session, get_game(session, "war"), True, when(1))
        set_hold(session, get_game(session, "war"), False, when(1))
    [result] = play(sessions, "war", 1)
    assert not result.staged and _count(sessions, m.OutboxMail, m.OutboxMail.held.is_(False)) == 3
