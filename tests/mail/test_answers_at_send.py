"""Answers to players' mails are built when they are sent (deploy/OPERATIONS.md,
"Outbox"): intake queues what an acknowledgement says (``outbox.data``) and
no bytes; the outbox builds the mail just before delivery from that alone, so
the same answer built twice is the same bytes, threaded under the player's
mail; old sent answers keep no data. On SQLite and PostgreSQL, over real SMTP."""

from __future__ import annotations

import datetime as dt
import json
from email import message_from_bytes, policy
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.conftest import IMAP_PASSWORD, IMAP_USER, SmtpSink
from tests.factories import imap_app, order_mail
from tests.mail.test_render_at_send import lf, plain
from tests.servers import free_port
from turnproc.intake import handle_mail
from turnproc.mail.outbox import Claimed, purge_sent_bodies
from turnproc.outgoing import reportmail
from turnproc.outgoing.reportmail import mail_bytes, send_outbox
from turnproc.outgoing.templated import queue_notice
from turnproc.storage import models as m
from turnproc.storage.db import transaction

NOW = dt.datetime(2026, 1, 5, 19, 0, tzinfo=dt.UTC)


def test_an_answer_is_built_when_sent_threaded_and_the_same_every_time(
    db_url: str, smtp_server: SmtpSink
) -> None:
    app = imap_app(db_url, free_port(), smtp_server.port, IMAP_USER, IMAP_PASSWORD)
    try:
        raw = order_mail("TAX\nBOGUS 1", subject="my orders", message_id="<turn-one@players.example>")
        with transaction(app.sessions) as session:
            handle_mail(session, raw, app.config, NOW)
        with app.sessions() as session:
            (row,) = session.scalars(select(m.OutboxMail))
            # Queued as what it says, not as bytes.
            assert row.kind == "ack" and row.body is None and row.data is not None
            data = json.loads(row.data)
            assert data["in_reply_to"] == "<turn-one@players.example>"
            assert row.subject == "Re: my orders"
            built = mail_bytes(session, row, app.config.from_address)
            assert mail_bytes(session, row, app.config.from_address) == built
            message_id = row.message_id
        msg = message_from_bytes(built, policy=policy.default)
        assert msg["Subject"] == "Re: my orders" and msg["Message-ID"] == message_id
        assert msg["In-Reply-To"] == "<turn-one@players.example>"
        assert msg["To"] == "ann@example.org"
        text = plain(built)
        assert "Orders received for game corpus, empire RIG" in text
        assert "[unknown_action]" in text and "1 line had errors and was not stored" in text

        assert send_outbox(app.sessions, app.config, NOW) == (1, 0)
        ((_, _, received),) = smtp_server.messages
        assert lf(received) == lf(built)

        # Sent and older than outbox_keep_days: neither bytes nor data kept.
        assert purge_sent_bodies(app.sessions, NOW + dt.timedelta(days=31), 30) == 1
        with app.sessions() as session:
            (row,) = session.scalars(select(m.OutboxMail))
            assert row.sent_at is not None and row.body == b"" and row.data is None
    finally:
        app.close()


@pytest.mark.slow
def test_a_big_batch_of_answers_is_built_on_the_process_pool_the_same_as_in_process(sqlite_url: str) -> None:
    app = imap_app(sqlite_url, free_port(), free_port(), IMAP_USER, IMAP_PASSWORD)
    try:
        for n in range(reportmail.PARALLEL_FROM + 2):
            with transaction(app.sessions) as session:
                handle_mail(session, order_mail(f"STASH {n + 1}"), app.config, NOW + dt.timedelta(seconds=n))
        with app.sessions() as session:
            rows = list(session.scalars(select(m.OutboxMail).order_by(m.OutboxMail.id)))
            assert len(rows) == reportmail.PARALLEL_FROM + 2 and all(r.data is not None for r in rows)
            one_by_one = {r.id: mail_bytes(session, r, app.config.from_address) for r in rows}
        with reportmail.builder(app.sessions, app.config.from_address) as build:
            pooled = build([Claimed.of(r) for r in rows])
        assert pooled == one_by_one
        assert f"STASH {reportmail.PARALLEL_FROM + 2}" in plain(one_by_one[rows[-1].id])
    finally:
        app.close()


def test_a_rejection_is_queued_as_data_too(sqlite_url: str) -> None:
    """deploy/OPERATIONS.md: answers (acknowledgements, rejections) are built when sent."""
    app = imap_app(sqlite_url, free_port(), free_port(), IMAP_USER, IMAP_PASSWORD)
    try:
        with transaction(app.sessions) as session:
            handle_mail(session, order_mail("TAX", turn=7), app.config, NOW)
        with app.sessions() as session:
            answers = [r for r in session.scalars(select(m.OutboxMail)) if r.kind == "reject"]
            assert len(answers) == 1 and answers[0].body is None and answers[0].data is not None
            text = plain(mail_bytes(session, answers[0], app.config.from_address))
        assert "could not be accepted" in text and "these orders are for turn 7" in text
    finally:
        app.close()


def test_the_guide_names_the_batch_built_on_every_cpu() -> None:
    """deploy/OPERATIONS.md: a batch is rendered on every CPU from PARALLEL_FROM mails."""
    guide = " ".join(
        (Path(__file__).parents[2] / "deploy" / "OPERATIONS.md").read_text(encoding="utf-8").split()
    )
    assert f"every CPU when the batch is big ({reportmail.PARALLEL_FROM} mails or more)" in guide


def test_a_notice_is_queued_as_what_it_says_and_built_when_sent_too(
    sqlite_url: str, smtp_server: SmtpSink
) -> None:
    """Every mail is built when it is sent (turnproc/outgoing/mails.py): a
    notice to the GM as an answer is, from its template and context."""
    app = imap_app(sqlite_url, free_port(), smtp_server.port, IMAP_USER, IMAP_PASSWORD)
    try:
        context = {
            "digest": "ab" * 32,
            "attempts": 3,
            "error": "a disk was full",
            "headers": "From: ann@example.org",
        }
        with transaction(app.sessions) as session:
            assert queue_notice(
                session, app.config, "mail_set_aside", context, NOW, game_id=None, recipient="gm@example.org"
            )
        with app.sessions() as session:
            (row,) = session.scalars(select(m.OutboxMail))
            assert (
                row.kind == "notice"
                and row.body is None
                and json.loads(row.data)["template"] == "mail_set_aside"
            )
            assert row.subject == "turnproc: a mail could not be handled and was set aside (a disk was full)"
            built = mail_bytes(session, row, app.config.from_address)
        msg = message_from_bytes(built, policy=policy.default)
        assert msg["Subject"] == row.subject and msg["To"] == "gm@example.org"
        assert "From: ann@example.org" in plain(built)
        assert send_outbox(app.sessions, app.config, NOW) == (1, 0)
        ((_, _, received),) = smtp_server.messages
        assert lf(received) == lf(built)
    finally:
        app.close()
