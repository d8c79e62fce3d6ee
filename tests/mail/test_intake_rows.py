"""The intake's rows (the inbound log, the orders on file, the answers) are
written together: a batch's at its end, each mail's in its savepoint when a
failure makes the poll handle the batch mail by mail, and a mail handled alone
before ``handle_mail`` returns. Whichever way, the same mails leave the same
rows and the same answers, on SQLite and on PostgreSQL; and the answers
written with one INSERT are the rows the ORM's flush writes."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from email import message_from_bytes, policy
from typing import Any

import pytest
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from tests.factories import make_game, order_mail
from turnproc.app import App, open_app
from turnproc.config import Config
from turnproc.intake import IntakeCache, handle_mail, inbox
from turnproc.mail.queueing import Deferred, queue_deferred, queue_mail
from turnproc.storage import models as m
from turnproc.storage.db import transaction
from turnproc.storage.pending import write_added

NOW = dt.datetime(2026, 1, 5, 19, 0, tzinfo=dt.timezone.utc)
POISON = b"X-Test: poison"


def _at(minutes: int, text: str, **kw: Any) -> bytes:
    msg = message_from_bytes(order_mail(text, **kw), policy=policy.default)
    del msg["Date"]
    msg["Date"] = (NOW.replace(hour=18) + dt.timedelta(minutes=minutes)).strftime(
        "%a, %d %b %Y %H:%M:%S +0000"
    )
    return msg.as_bytes()


def _mails() -> list[bytes]:
    first = _at(1, "TAX\nMOVE 101 103 1")
    return [
        first,
        _at(5, "STASH 2"),  # replaces the first, not written yet
        _at(3, "NEWCRS 101 1"),  # written before the set on file: older
        _at(6, "WAIT"),  # marks the set on file
        _at(2, "TAX", empire="VEG"),
        _at(7, "CLEAR", empire="VEG"),  # withdraws an unwritten set
        _at(8, "TAX", password="wrong-one"),
        first,  # the same bytes again
        _at(9, "HELP", sender="stranger@example.net"),  # the right password from another address
        b"From: newbie@example.net\r\nTo: turns@turnproc.example\r\nSubject: help\r\n\r\nHELP\r\n",
        _at(10, "BOGUS 1"),  # no line accepted: unchanged
        _at(11, "NAME 201 Vega Prime", empire="VEG"),
    ]


@pytest.fixture
def app(db_url: str) -> Iterator[App]:
    app = open_app(Config(database_url=db_url, from_address="Host <turns@turnproc.example>"))
    with transaction(app.sessions) as session:
        make_game(session)
    yield app
    app.close()


_OUR_ID = re.compile(rb"<[^<>\s]*turnproc\.[0-9a-f]{12}@[^>]*>")


def _rows(app: App) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The inbound log, the order sets (their mail by its digest) and the
    answers (our Message-IDs, fresh each time, left out), then emptied for
    the next way round. Keys are left out too: PostgreSQL does not hand out
    a key twice."""
    with transaction(app.sessions) as session:
        inbound = list(session.scalars(select(m.InboundMessage).order_by(m.InboundMessage.id)))
        digest = {row.id: row.sha256 for row in inbound}
        sets = list(session.scalars(select(m.OrderSet).order_by(m.OrderSet.id)))
        outbox = list(session.scalars(select(m.OutboxMail).order_by(m.OutboxMail.id)))
        found = (
            [
                (
                    r.sha256,
                    r.message_id,
                    r.sender,
                    r.subject,
                    r.game_id,
                    r.empire_id,
                    r.outcome,
                    r.detail,
                    r.received_at,
                )
                for r in inbound
            ],
            [
                (
                    r.game_id,
                    r.empire_id,
                    r.turn,
                    r.raw_text,
                    r.lines,
                    r.orders,
                    r.problems,
                    digest.get(r.message_id or 0),
                    r.received_at,
                    r.sent_at,
                    r.active,
                    r.wait,
                )
                for r in sets
            ],
            [(r.kind, r.recipient, r.subject, _OUR_ID.sub(b"<ours>", r.body or b""), r.data) for r in outbox],
        )
        for model in (m.OrderSet, m.InboundMessage, m.OutboxMail, m.SuppressedReply, m.InboundFailure):
            session.execute(delete(model))
    return found


def test_a_batch_a_batch_handled_mail_by_mail_and_mails_alone_leave_the_same_rows(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    mails = _mails()

    for raw in mails:  # each alone, in a transaction of its own
        with transaction(app.sessions) as session:
            handle_mail(session, raw, app.config, NOW)
    alone = _rows(app)
    assert [row[6] for row in alone[0]] == [
        "accepted",
        "accepted",
        "older",
        "commands",
        "accepted",
        "cleared",
        "wrong_password",
        "commands",
        "help",
        "unchanged",
        "accepted",
    ]

    def poll(batch: list[bytes]) -> None:
        cache = IntakeCache()
        try:
            inbox._handle_batch(app, list(enumerate(batch)), NOW, cache)
        finally:
            cache.passwords.close()

    poll(mails)
    assert _rows(app) == alone

    real = inbox.handle_mail

    def failing(session: Any, raw: bytes, *args: Any, **kwargs: Any) -> Any:
        result = real(session, raw, *args, **kwargs)
        if POISON in raw:
            raise RuntimeError("a bug of ours")
        return result

    # A mail that fails (after adding its rows) sends the batch round again
    # mail by mail: each mail's rows are written in its savepoint, and the
    # set on file a later mail changes is one written already.
    monkeypatch.setattr(inbox, "handle_mail", failing)
    poison = _at(12, "TAX", empire="VEG").replace(b"\nTo:", b"\n" + POISON + b"\nTo:", 1)
    poll([*mails[:3], poison, *mails[3:]])
    assert _rows(app) == alone


def _queue_answers(session: Session) -> None:
    """Outbox rows the ways a poll's transaction queues them: ORM objects
    (queue_mail) setting different columns, a Core INSERT (queue_deferred) and
    a flush (an ADDRESS confirmation) in between."""
    game_id = session.scalar(select(m.Game.id))

    def mail(n: int, **kw: Any) -> None:
        queue_mail(
            session,
            b"mail %d" % n,
            kind="ack",
            game_id=game_id,
            now=NOW,
            headers=(f"p{n}@x.example", "s", f"<{n}@t>"),
            **kw,
        )

    mail(1)
    mail(2, turn=3, held=True)
    queue_deferred(
        session, [Deferred("p3@x.example", "report", "<3@t>")], kind="report", game_id=game_id, now=NOW
    )
    session.add(
        m.OutboxMail(
            kind="bulletin",
            recipient="all",
            subject="b",
            message_id="<4@t>",
            bcc=["a@x.example"],
            created_at=NOW,
        )
    )
    mail(5)
    session.flush()
    mail(6)
    session.add(
        m.OutboxMail(
            kind="notice",
            recipient="gm@x.example",
            subject="n",
            message_id="<7@t>",
            body=b"n",
            attempts=2,
            created_at=NOW,
        )
    )
    mail(8)


def test_answers_written_in_one_insert_are_the_rows_a_flush_writes(app: App) -> None:
    """write_added inserts the poll's queued answers itself: the same rows, in
    the same order (so with the keys a flush gives them), as the ORM's flush."""

    def outbox() -> list[tuple[Any, ...]]:
        with transaction(app.sessions) as session:
            rows = session.execute(select(m.OutboxMail.__table__).order_by(m.OutboxMail.id)).all()
            session.execute(delete(m.OutboxMail))
        return [
            tuple(row)[1:] for row in rows
        ]  # the order of the keys, not the keys (PostgreSQL hands out new ones)

    with transaction(app.sessions) as session:
        _queue_answers(session)
    flushed = outbox()
    with transaction(app.sessions) as session:
        _queue_answers(session)
        write_added(session, m.OutboxMail)
        assert not session.new
    assert outbox() == flushed
    assert [row[4] for row in flushed] == [f"<{n}@t>" for n in range(1, 9)]
