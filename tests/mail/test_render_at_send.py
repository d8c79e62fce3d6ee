"""Reports are rendered when they are sent (deploy/OPERATIONS.md, "Outbox"):
``turn run`` stores each report's data once and queues its mail without
bytes; the outbox builds the mail just before delivery, from the stored data
alone, so the same mail built twice is the same bytes, and what the player
gets is what ``REPORT`` sends again. On SQLite and PostgreSQL, over real SMTP."""

from __future__ import annotations

import datetime as dt
import os
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest
from sqlalchemy import inspect, select

from tests.conftest import IMAP_PASSWORD, IMAP_USER, SmtpSink
from tests.factories import imap_app
from tests.servers import free_port
from turnproc.outgoing.reportmail import mail_bytes, send_outbox
from turnproc.reports.render import render_report_text
from turnproc.storage import models as m
from turnproc.turns.run import run_current_turn

NOW = dt.datetime(2026, 1, 9, 20, 0, tzinfo=dt.UTC)


def plain(raw: bytes) -> str:
    msg = message_from_bytes(raw, policy=policy.default)
    assert isinstance(msg, EmailMessage)
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def lf(raw: bytes) -> bytes:
    return raw.replace(b"\r\n", b"\n").rstrip(b"\n")


def test_a_report_mail_is_built_when_sent_and_the_same_every_time(db_url: str, smtp_server: SmtpSink) -> None:
    app = imap_app(db_url, free_port(), smtp_server.port, IMAP_USER, IMAP_PASSWORD)
    try:
        run_current_turn(app.sessions, "corpus", app.config, NOW)
        with app.sessions() as session:
            rows = list(session.scalars(select(m.OutboxMail).where(m.OutboxMail.kind == "report")))
            assert len(rows) == 2
            # Queued without bytes: only the reference to the stored report.
            assert all(r.body is None and r.report_id is not None for r in rows)
            built = {r.message_id: mail_bytes(session, r, app.config.from_address) for r in rows}
            assert built == {r.message_id: mail_bytes(session, r, app.config.from_address) for r in rows}
            data = {r.message_id: session.get_one(m.Report, r.report_id).data for r in rows}
        # The report's text is not stored beside its data: one source.
        assert "text" not in {c["name"] for c in inspect(app.engine).get_columns("reports")}
        sent, failed = send_outbox(app.sessions, app.config, NOW)
        assert (sent, failed) == (2, 0)
        received = {
            str(message_from_bytes(raw, policy=policy.default)["Message-ID"]).strip(): raw
            for _, _, raw in smtp_server.messages
        }
        for message_id, raw in built.items():
            assert lf(received[message_id]) == lf(raw)
            # The report's text, and under it the footer saying where the rules are.
            text = plain(raw)
            assert text.startswith(render_report_text(data[message_id]))
            assert (
                "\n-- \nturnproc for game " + data[message_id]["game"] + "\n"
                in text[len(render_report_text(data[message_id])) :]
            )
        with app.sessions() as session:
            assert all(r.sent_at is not None for r in session.scalars(select(m.OutboxMail)))
    finally:
        app.close()


def test_a_mail_whose_report_is_gone_fails_and_is_not_sent(sqlite_url: str, smtp_server: SmtpSink) -> None:
    """A rollback deletes a turn's reports and their unsent mails; a mail
    left pointing at nothing is a failure to retry, never an empty mail."""
    app = imap_app(sqlite_url, free_port(), smtp_server.port, IMAP_USER, IMAP_PASSWORD)
    try:
        run_current_turn(app.sessions, "corpus", app.config, NOW)
        with app.sessions() as session, session.begin():
            row = session.scalars(select(m.OutboxMail).where(m.OutboxMail.kind == "report")).first()
            assert row is not None
            row.report_id = None
        sent, failed = send_outbox(app.sessions, app.config, NOW)
        assert failed == 1 and sent >= 1
        with app.sessions() as session:
            row = session.scalars(
                select(m.OutboxMail).where(m.OutboxMail.report_id.is_(None), m.OutboxMail.kind == "report")
            ).one()
            assert row.sent_at is None and "no longer stored" in row.last_error
    finally:
        app.close()


@pytest.mark.slow
def test_a_big_batch_is_built_on_the_process_pool_the_same_as_in_process(
    sqlite_url: str, monkeypatch
) -> None:
    """A batch of PARALLEL_FROM or more reports is rendered by the rendering
    processes; each mail is the same bytes as built here, one by one."""
    from tests.factories import make_generated_game
    from turnproc.app import open_app
    from turnproc.config import Config
    from turnproc.mail.outbox import Claimed
    from turnproc.outgoing import reportmail
    from turnproc.storage.db import transaction

    codes = [f"E{chr(65 + i // 26)}{chr(65 + i % 26)}" for i in range(reportmail.PARALLEL_FROM + 2)]
    app = open_app(Config(database_url=sqlite_url, from_address="Host <turns@turnproc.example>"))
    try:
        with transaction(app.sessions) as session:
            make_generated_game(session, "pool", codes, "pool-seed")
        run_current_turn(app.sessions, "pool", app.config, NOW)
        with app.sessions() as session:
            rows = list(session.scalars(select(m.OutboxMail).where(m.OutboxMail.kind == "report")))
            one_by_one = {r.id: mail_bytes(session, r, app.config.from_address) for r in rows}
        claimed = [Claimed.of(r) for r in rows]
        used: list[object] = []
        real = reportmail.ProcessPoolExecutor

        def counting(*args: object, **kwargs: object) -> object:
            pool = real(*args, **kwargs)
            used.append(pool)
            return pool

        monkeypatch.setattr(reportmail, "ProcessPoolExecutor", counting)
        with reportmail.builder(app.sessions, app.config.from_address) as build:
            pooled = build(claimed)
            # deploy/OPERATIONS.md: they run below the worker's priority.
            niceness = used[0].submit(os.nice, 0).result()  # type: ignore[attr-defined]
            assert niceness == os.nice(0) + reportmail.RENDER_NICENESS
        assert len(used) == 1 and len(claimed) >= reportmail.PARALLEL_FROM
        assert pooled == one_by_one
        # deploy/OPERATIONS.md: the rendering processes end with the flush.
        with pytest.raises(RuntimeError):
            used[0].submit(int)  # type: ignore[attr-defined]
    finally:
        app.close()
