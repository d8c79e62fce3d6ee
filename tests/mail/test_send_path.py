"""Sending a night's mail, without the slow paths: one
SMTP connection per flush, claims and sent marks in batches, CRLF on the wire,
and a connection that went stale between mails replaced without losing one."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import create_engine, event, func, select
from sqlalchemy.orm import sessionmaker

from tests.conftest import SmtpSink
from tests.mail.test_outbox_claims import arrived, queue
from turnproc.config import SmtpConfig
from turnproc.mail import outbox, smtp
from turnproc.mail.smtp import SmtpTransport, crlf_lines
from turnproc.storage import models as m
from turnproc.storage.db import make_engine

UTC = dt.UTC


def transport(sink: SmtpSink) -> SmtpTransport:
    """One connection at most (several at once: tests/mail/test_lanes.py)."""
    config = SmtpConfig(host="127.0.0.1", port=sink.port, security="plain", timeout=10, connections=1)
    return SmtpTransport(config, "turns@turnproc.example")


@pytest.fixture
def sessions(sqlite_url: str) -> sessionmaker:  # type: ignore[type-arg]
    return sessionmaker(make_engine(sqlite_url))


def test_one_connection_carries_the_whole_flush(
    sqlite_url: str, sessions: sessionmaker, smtp_server: SmtpSink
) -> None:  # type: ignore[type-arg]
    mails = 2 * outbox.BATCH + 3
    ids = queue(create_engine(sqlite_url), mails)
    t = transport(smtp_server)
    assert outbox.flush_outbox(sessions, t, dt.datetime.now(UTC)) == (mails, 0)
    assert arrived(smtp_server) == {mid: 1 for mid in ids}
    assert len(set(smtp_server.connections)) == 1
    assert t._client is None  # closed at the end of the flush: no idle connection left behind
    with sessions() as session:
        assert (
            session.scalar(
                select(func.count()).select_from(m.OutboxMail).where(m.OutboxMail.sent_at.is_(None))
            )
            == 0
        )


def test_a_refused_mail_does_not_cost_the_connection(
    sqlite_url: str, sessions: sessionmaker, smtp_server: SmtpSink
) -> None:  # type: ignore[type-arg]
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
        (b".a\n..b\nc.\n.\n", b".a\r\n..b\r\nc.\r\n.\r\n"),
    ],
)
def test_every_line_ends_in_crlf_once(raw: bytes, wire: bytes) -> None:
    assert crlf_lines(raw) == wire


def test_lines_of_dots_arrive_as_they_were_written(smtp_server: SmtpSink) -> None:
    """A line that is one dot would end the mail early if it were not doubled
    on the wire (RFC 5321 4.5.2); the server takes the second dot off again."""
    body = b"Subject: dots\n\n.\n..\n.TAX\nlast.\n"
    t = transport(smtp_server)
    t.deliver(body, "Ann <ann@example.org>")
    t.deliver_many(body + b"no end of line.", ["bob@example.org", "Cy <cy@example.org>"])
    t.close()
    assert [(sender, rcpts, raw) for sender, rcpts, raw in smtp_server.messages] == [
        ("turns@turnproc.example", ["ann@example.org"], body.replace(b"\n", b"\r\n")),
        (
            "turns@turnproc.example",
            ["bob@example.org", "cy@example.org"],
            body.replace(b"\n", b"\r\n") + b"no end of line.\r\n",
        ),
    ]


def test_sent_mails_older_than_the_setting_lose_their_bytes_not_their_rows(
    sqlite_url: str,
    sessions: sessionmaker,
    smtp_server: SmtpSink,  # type: ignore[type-arg]
) -> None:
    """gm-handbook, `outbox_keep_days`: after that many days only the row is kept."""
    engine = create_engine(sqlite_url)
    queue(engine, 3)
    now = dt.datetime.now(UTC)
    with sessions() as session, session.begin():
        old, recent, unsent = session.scalars(select(m.OutboxMail).order_by(m.OutboxMail.id)).all()
        old.sent_at = now - dt.timedelta(days=31)
        recent.sent_at = now - dt.timedelta(days=29)
        old_id, recent_id, unsent_id = old.id, recent.id, unsent.id
    assert outbox.flush_outbox(sessions, transport(smtp_server), now, keep_days=30) == (1, 0)
    with sessions() as session:
        bodies = {
            mail_id: body for mail_id, body in session.execute(select(m.OutboxMail.id, m.OutboxMail.body))
        }
    assert bodies[old_id] == b"" and bodies[recent_id] and bodies[unsent_id]
    assert outbox.purge_sent_bodies(sessions, now + dt.timedelta(days=40), 0) == 0  # 0 keeps everything
    assert outbox.purge_sent_bodies(sessions, now + dt.timedelta(days=40), 30) == 2


def test_the_purge_reads_only_the_mails_it_empties(sessions: sessionmaker) -> None:  # type: ignore[type-arg]
    """The purge after every flush finds the old mails still holding bytes
    through the index of those alone (SQLite's plan for the very statement
    it sends), not by reading every mail ever sent: a 100-turn game has
    200,000 of them, long emptied."""
    engine = sessions.kw["bind"]
    sent: list[str] = []

    def listen(conn: Any, cursor: Any, sql: str, params: Any, context: Any, many: bool) -> None:
        if sql.lstrip().startswith("UPDATE outbox"):
            sent.append(cursor.connection.execute(f"EXPLAIN QUERY PLAN {sql}", params).fetchall())

    event.listen(engine, "before_cursor_execute", listen)
    try:
        outbox.purge_sent_bodies(sessions, dt.datetime.now(UTC), 30)
    finally:
        event.remove(engine, "before_cursor_execute", listen)
    assert len(sent) == 1
    plan = " ".join(str(row[-1]) for row in sent[0])
    assert "USING INDEX ix_outbox_unpurged" in plan, plan


def test_the_keep_days_setting_is_read_and_checked(tmp_path: Path) -> None:
    from turnproc.config import ConfigError, load_config

    path = tmp_path / "turnproc.toml"
    path.write_text("")
    assert load_config(path).outbox_keep_days == 30
    path.write_text("outbox_keep_days = 7\n")
    assert load_config(path).outbox_keep_days == 7
    path.write_text("outbox_keep_days = -1\n")
    with pytest.raises(ConfigError, match="outbox_keep_days -1 is not a whole number from 0 to 3650"):
        load_config(path)


def test_the_operations_guide_states_the_batch_the_code_uses() -> None:
    """deploy/OPERATIONS.md, "Outbox": the batch size and the seconds between marks."""
    guide = " ".join(
        (Path(__file__).parents[2] / "deploy" / "OPERATIONS.md").read_text(encoding="utf-8").split()
    )
    assert f"a batch of at most {outbox.BATCH} mails" in guide
    assert f"at the latest every {outbox.BATCH_SECONDS:g} seconds of delivering" in guide
    assert f"keep it longer than {(outbox.AHEAD + 1) * outbox.BATCH} SMTP deliveries can take" in guide
    assert outbox.AHEAD == 1 and "it has already claimed the next batch and is building it" in guide
    assert "they work a batch ahead" in guide
