"""Sending a night's mail (issue 15, "mail bytes without the slow paths"): one
SMTP connection per flush, claims and sent marks in batches, CRLF on the wire,
and a connection that went stale between mails replaced without losing one."""

from __future__ import annotations

import datetime as dt

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import sessionmaker

from tests.conftest import SmtpSink
from tests.mail.test_outbox_claims import arrived, queue
from turnproc.config import SmtpConfig
from turnproc.mail import outbox, smtp
from turnproc.mail.smtp import SmtpTransport, wire_bytes
from turnproc.storage import models as m
from turnproc.storage.db import make_engine

UTC = dt.UTC


def transport(sink: SmtpSink) -> SmtpTransport:
    return SmtpTransport(SmtpConfig(host="127.0.0.1", port=sink.port, security="plain", timeout=10), "turns@turnproc.example")


@pytest.fixture
def sessions(sqlite_url: str) -> sessionmaker:  # type: ignore[type-arg]
    return sessionmaker(make_engine(sqlite_url))


def test_one_connection_carries_the_whole_flush(sqlite_url: str, sessions: sessionmaker, smtp_server: SmtpSink) -> None:  # type: ignore[type-arg]
    mails = 2 * outbox.BATCH + 3
    ids = queue(create_engine(sqlite_url), mails)
    t = transport(smtp_server)
    assert outbox.flush_outbox(sessions, t, dt.datetime.now(UTC)) == (mails, 0)
    assert arrived(smtp_server) == {mid: 1 for mid in ids}
    assert len(set(smtp_server.connections)) == 1
    assert t._client is None  # closed at the end of the flush: no idle connection left behind
    with sessions() as session:
        assert session.scalar(select(func.count()).select_from(m.OutboxMail).where(m.OutboxMail.sent_at.is_(None))) == 0


def test_a_refused_mail_does_not_cost_the_connection(sqlite_url: str, sessions: sessionmaker, smtp_server: SmtpSink) -> None:  # type: ignore[type-arg]
    queue(create_engine(sqlite_url), 5)
    smtp_server.fail_next = 1
    assert outbox.flush_outbox(sessions, transport(smtp_server), dt.datetime.now(UTC)) == (4, 1)
    assert len(set(smtp_server.connections)) == 1
    with sessions() as session:
        failed = session.scalars(select(m.OutboxMail).where(m.OutboxMail.sent_at.is_(None))).one()
        assert failed.attempts == 1 and "451" in failed.last_error and failed.claimed_until is None


def test_a_stale_connection_is_replaced_before_the_next_mail(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server restarts between two mails (an idle client dropped): the
    NOOP check notices and the second mail goes over a new connection."""
    first = SmtpSink()
    first.controller.start()
    port = first.port
    t = transport(first)
    t.deliver(b"Subject: one\n\nfirst\n", "a@example.org")
    first.controller.stop()
    second = SmtpSink()
    second.port = port
    second.controller = Controller(second, hostname="127.0.0.1", port=port)
    second.controller.start()
    try:
        monkeypatch.setattr(smtp, "IDLE_CHECK", 0.0)
        t.deliver(b"Subject: two\n\nsecond\n", "b@example.org")
        t.close()
    finally:
        second.controller.stop()
    assert [raw.split(b"\r\n", 1)[0] for _, _, raw in first.messages] == [b"Subject: one"]
    assert [raw.split(b"\r\n", 1)[0] for _, _, raw in second.messages] == [b"Subject: two"]


@pytest.mark.parametrize(
    "raw, wire",
    [
        (b"a\nb\n", b"a\r\nb\r\n"),
        (b"a\r\nb\r\n", b"a\r\nb\r\n"),
        (b"a\r\nb\nc", b"a\r\nb\r\nc"),
        (b"", b""),
    ],
)
def test_every_line_ends_in_crlf_once(raw: bytes, wire: bytes) -> None:
    assert wire_bytes(raw) == wire
