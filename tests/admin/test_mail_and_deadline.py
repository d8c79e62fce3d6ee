"""What players see of the GM tools: a staged turn's report is not mailed before
release, and a hand-set deadline shows in acknowledgements until the turn runs."""

from __future__ import annotations

from email import message_from_bytes, policy

from sqlalchemy import func, select

from tests.factories import order_mail
from tests.mailrows import with_bodies
from turnproc.admin import run_script
from turnproc.config import Config
from turnproc.intake import handle_mail
from turnproc.storage import models as m
from turnproc.storage.db import transaction
from turnproc.storage.queries import get_game
from turnproc.turns.control import release_turn, set_hold
from turnproc.turns.run import run_turn

from .conftest import NOW, Games

CONFIG = Config(from_address="Host <turns@turnproc.example>")


def _send(games: Games, body: str, n: int) -> list[m.OutboxMail]:
    """Mail ``body`` as RIG; the mails queued in answer."""
    with games.sessions() as session:
        last = session.scalar(select(func.max(m.OutboxMail.id))) or 0
    with transaction(games.sessions) as session:
        handle_mail(
            session, order_mail(body, game="spring26", message_id=f"<gm-{n}@example.org>"), CONFIG, NOW
        )
    with games.sessions() as session:
        rows = list(
            session.scalars(select(m.OutboxMail).where(m.OutboxMail.id > last).order_by(m.OutboxMail.id))
        )
        return with_bodies(session, rows, CONFIG.from_address)


def _text(row: m.OutboxMail) -> str:
    return (
        message_from_bytes(row.body, policy=policy.default).get_body(preferencelist=("plain",)).get_content()
    )


def test_a_staged_report_is_not_sent_on_request_before_release(games: Games) -> None:
    with transaction(games.sessions) as session:
        set_hold(session, get_game(session, "spring26"), True, NOW)
        run_turn(session, get_game(session, "spring26"), CONFIG, NOW)
    # Until the release the player gets the report before it: here the start (turn 0).
    before = _send(games, "REPORT", 1)
    assert sorted(row.kind for row in before) == ["ack", "report_copy"]
    assert "Turn 0 report" in next(row for row in before if row.kind == "report_copy").subject
    with transaction(games.sessions) as session:
        release_turn(session, get_game(session, "spring26"), NOW)
    sent = _send(games, "REPORT", 2)
    assert sorted(row.kind for row in sent) == ["ack", "report_copy"]
    report = next(row for row in sent if row.kind == "report_copy")
    assert "Turn 1 report" in report.subject and not report.held


def test_an_extended_deadline_shows_in_acks_until_the_turn_runs(games: Games) -> None:
    (ack,) = _send(games, "DISTSQ 101 104", 1)
    assert "Friday" in _text(ack)
    # A deadline set with SQL (turnproc game extend also mails the players).
    extend = "UPDATE games SET deadline_override = '2026-12-05 20:00:00+00' WHERE name = 'spring26';"
    result = run_script(games.engine, "spring26", extend, now=NOW)
    assert result.outcome == "committed", result.detail()
    (ack,) = _send(games, "DISTSQ 101 104", 2)
    assert "Saturday 05 December 2026, 20:00 GMT" in _text(ack)
    with transaction(games.sessions) as session:
        run_turn(session, get_game(session, "spring26"), CONFIG, NOW)
    with games.sessions() as session:
        assert get_game(session, "spring26").deadline_override is None
    (ack,) = _send(games, "DISTSQ 101 104", 3)
    assert "Saturday 05 December" not in _text(ack) and "Friday" in _text(ack)
