"""The mail commands: REPORT, ORDERS, CLEAR and WAIT."""

from __future__ import annotations

import datetime as dt
from email import message_from_bytes, policy

import pytest
from sqlalchemy import select

from tests.factories import make_game, order_mail
from tests.mailrows import with_bodies
from turnproc.app import open_app
from turnproc.config import Config
from turnproc.intake import handle_mail
from turnproc.storage import models as m
from turnproc.storage.db import transaction
from turnproc.turns.run import run_turn

NOW = dt.datetime(2026, 1, 5, 19, 0, tzinfo=dt.timezone.utc)


@pytest.fixture
def app(sqlite_url: str):
    app = open_app(Config(database_url=sqlite_url, from_address="Host <turns@turnproc.example>"))
    with transaction(app.sessions) as session:
        make_game(session)
    yield app
    app.close()


def mail(body: str, n: int) -> bytes:
    return order_mail(body, subject=f"mail {n}", message_id=f"<cmd-{n}@example.org>")


def send(app, body: str, n: int):
    with transaction(app.sessions) as session:
        return handle_mail(session, mail(body, n), app.config, NOW)


def outbox(app) -> list[m.OutboxMail]:
    with app.sessions() as session:
        return with_bodies(
            session,
            list(session.scalars(select(m.OutboxMail).order_by(m.OutboxMail.id))),
            app.config.from_address,
        )


def on_file(app) -> list[str]:
    with app.sessions() as session:
        rows = session.scalars(select(m.OrderSet).where(m.OrderSet.active.is_(True))).all()
        return [line for row in rows for line in row.lines]


def text_of(row: m.OutboxMail) -> str:
    return (
        message_from_bytes(row.body, policy=policy.default).get_body(preferencelist=("plain",)).get_content()
    )


def test_orders_command_lists_what_is_on_file_and_changes_nothing(app) -> None:
    send(app, "DISTSQ 101 104\nTAX", 1)
    result = send(app, "ORDERS", 2)
    assert result.outcome == "commands"
    assert on_file(app) == ["DISTSQ 101 104", "TAX"]
    body = text_of(outbox(app)[-1])
    assert "Orders now on file (2/16 slots)" in body and "DISTSQ 101 104" in body


def test_clear_withdraws_this_turns_orders(app) -> None:
    send(app, "DISTSQ 101 104", 1)
    assert send(app, "CLEAR", 2).outcome == "cleared"
    assert on_file(app) == []
    assert "withdrawn" in text_of(outbox(app)[-1])


def test_wait_alone_keeps_the_orders_on_file(app) -> None:
    send(app, "DISTSQ 101 104\nTAX", 1)
    assert send(app, "WAIT", 2).outcome == "commands"
    assert on_file(app) == ["DISTSQ 101 104", "TAX"]
    with app.sessions() as session:
        assert session.scalars(select(m.OrderSet).where(m.OrderSet.active.is_(True))).one().wait


def test_wait_is_stored_with_the_orders(app) -> None:
    send(app, "WAIT\nDISTSQ 101 104", 1)
    with app.sessions() as session:
        row = session.scalars(select(m.OrderSet).where(m.OrderSet.active.is_(True))).one()
        assert row.wait and row.lines == ["DISTSQ 101 104"]


def test_report_command_mails_the_latest_report_again(app) -> None:
    send(app, "DISTSQ 101 104", 1)
    with transaction(app.sessions) as session:
        run_turn(session, session.scalars(select(m.Game)).one(), app.config, NOW)
    before = len(outbox(app))
    send(app, "REPORT", 2)
    new = outbox(app)[before:]
    kinds = sorted(row.kind for row in new)
    assert kinds == ["ack", "report_copy"]
    report = next(row for row in new if row.kind == "report_copy")
    assert report.recipient == "ann@example.org"
    msg = message_from_bytes(report.body, policy=policy.default)
    names = sorted(part.get_filename() for part in msg.iter_attachments())
    assert names == ["corpus-turn1-RIG-map.svg", "corpus-turn1-RIG.json"]
    assert "The distance squared from 101 to 104" in msg.get_body(preferencelist=("plain",)).get_content()


def test_stale_turn_is_refused_naming_the_current_turn(app) -> None:
    result = send(app, "TURN 7\nDISTSQ 101 104", 1)
    assert result.outcome == "rejected"
    assert on_file(app) == []
    assert "taking orders for turn 1" in text_of(outbox(app)[-1])
