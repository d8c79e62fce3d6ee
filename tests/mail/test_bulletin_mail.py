"""The turn bulletin on the wire (docs/orders.md, "Your report and the turn
bulletin"): in a game of more empires than ``bulletin_threshold`` the roundup
and the public press go once a turn, as one mail to every active player in
one SMTP transaction with the recipients hidden; ``REPORT`` sends the turn's
bulletin again with the report; smaller games have none. Real SMTP (aiosmtpd)
and SQLite and PostgreSQL; the threshold is lowered so the two-empire test
game counts as big."""

from __future__ import annotations

import datetime as dt
import re
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

from sqlalchemy import func, select

from tests.conftest import IMAP_PASSWORD, IMAP_USER, SmtpSink
from tests.factories import EMAILS, imap_app, order_mail
from tests.servers import free_port
from turnproc.config import Config
from turnproc.intake import handle_mail
from turnproc.outgoing.reportmail import send_outbox
from turnproc.storage import models as m
from turnproc.storage.db import transaction
from turnproc.turns.run import run_current_turn

NOW = dt.datetime(2026, 1, 9, 20, 0, tzinfo=dt.UTC)
GUIDE = (Path(__file__).parents[2] / "docs" / "orders.md").read_text(encoding="utf-8")


def parsed(raw: bytes) -> EmailMessage:
    msg = message_from_bytes(raw, policy=policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def plain(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def test_the_guide_states_the_default_threshold() -> None:
    assert "more than 50 empires" in GUIDE and Config().bulletin_threshold == 50


def test_a_big_game_mails_one_bulletin_to_every_player_with_the_recipients_hidden(
    db_url: str, smtp_server: SmtpSink
) -> None:
    app = imap_app(db_url, free_port(), smtp_server.port, IMAP_USER, IMAP_PASSWORD, bulletin_threshold=1)
    try:
        run_current_turn(app.sessions, "corpus", app.config, NOW)
        with app.sessions() as session:
            assert session.scalar(select(func.count()).select_from(m.Bulletin)) == 1
            row = session.scalars(select(m.OutboxMail).where(m.OutboxMail.kind == "bulletin")).one()
            assert row.body is None and sorted(row.bcc or []) == sorted(EMAILS.values())
        assert send_outbox(app.sessions, app.config, NOW) == (3, 0)
    finally:
        app.close()
    bulletins = [
        (to, parsed(raw)) for _, to, raw in smtp_server.messages if "bulletin" in str(parsed(raw)["Subject"])
    ]
    # One transaction to all: one message, every player in the envelope only.
    assert len(bulletins) == 1
    recipients, msg = bulletins[0]
    assert sorted(recipients) == sorted(EMAILS.values())
    head = str(msg).split("\n\n", 1)[0]
    assert not any(address in head for address in EMAILS.values())
    assert msg["To"] == "undisclosed-recipients:;"
    text = plain(msg)
    assert "Rigel League" in text and "Vegan Collective" in text
    reports = [
        parsed(raw) for _, _, raw in smtp_server.messages if "report for" in str(parsed(raw)["Subject"])
    ]
    assert len(reports) == 2
    for report in reports:
        # The report points to the bulletin by its subject.
        assert str(msg["Subject"]) in " ".join(plain(report).split())


def test_report_sends_the_turns_bulletin_again(db_url: str, smtp_server: SmtpSink) -> None:
    """docs/orders.md: REPORT n sends the report of turn n and that turn's
    bulletin again; plain REPORT (the latest) too; REPORT 0 has no bulletin."""
    app = imap_app(db_url, free_port(), smtp_server.port, IMAP_USER, IMAP_PASSWORD, bulletin_threshold=1)
    try:
        run_current_turn(app.sessions, "corpus", app.config, NOW)
        assert "`REPORT n` sends you the report of turn n and that turn's bulletin again" in GUIDE
        for n, body in enumerate(("REPORT 1", "REPORT", "REPORT 0")):
            with transaction(app.sessions) as session:
                result = handle_mail(
                    session, order_mail(body, message_id=f"<again-{n}@example.org>"), app.config, NOW
                )
            assert result.outcome == "commands", result
        with app.sessions() as session:
            kinds = [k for (k,) in session.execute(select(m.OutboxMail.kind).order_by(m.OutboxMail.id))]
            copies = session.scalars(select(m.OutboxMail).where(m.OutboxMail.kind == "bulletin_copy")).all()
            assert len(copies) == 2 and all(c.recipient == EMAILS["RIG"] and c.bcc is None for c in copies)
        assert kinds.count("report_copy") == 3
        sent, failed = send_outbox(app.sessions, app.config, NOW)
        assert failed == 0
    finally:
        app.close()
    acks = [
        plain(parsed(raw))
        for _, _, raw in smtp_server.messages
        if "the report and the bulletin of turn 1" in plain(parsed(raw))
    ]
    assert len(acks) == 2
    copies = [
        parsed(raw)
        for _, to, raw in smtp_server.messages
        if to == [EMAILS["RIG"]] and "bulletin" in str(parsed(raw)["Subject"])
    ]
    assert len(copies) == 2 and all(c["To"] == EMAILS["RIG"] for c in copies)


def test_a_game_at_the_threshold_has_no_bulletin(sqlite_url: str, smtp_server: SmtpSink) -> None:
    """docs/orders.md: up to the threshold, the whole roundup and all the
    press are in every report, and there is no bulletin."""
    app = imap_app(sqlite_url, free_port(), smtp_server.port, IMAP_USER, IMAP_PASSWORD, bulletin_threshold=2)
    try:
        run_current_turn(app.sessions, "corpus", app.config, NOW)
        with app.sessions() as session:
            assert session.scalar(select(func.count()).select_from(m.Bulletin)) == 0
            assert all("bulletin" not in r.data for r in session.scalars(select(m.Report)))
        assert send_outbox(app.sessions, app.config, NOW) == (2, 0)
    finally:
        app.close()
    subjects = [str(parsed(raw)["Subject"]) for _, _, raw in smtp_server.messages]
    assert not any(re.search("bulletin", s) for s in subjects)


class _FewRecipients(SmtpSink):
    """A server that takes at most one recipient per transaction (452 for the rest)."""

    async def handle_RCPT(
        self, server: object, session: object, envelope: object, address: str, options: list[str]
    ) -> str:
        if envelope.rcpt_tos:
            return "452 4.5.3 too many recipients"
        envelope.rcpt_tos.append(address)  # type: ignore[attr-defined]
        return "250 OK"


def test_a_server_taking_fewer_recipients_gets_the_rest_in_further_transactions(sqlite_url: str) -> None:
    """RFC 5321 4.5.3.1.10: after a 452 the client sends the rest again."""
    sink = _FewRecipients()
    sink.controller.start()
    app = imap_app(sqlite_url, free_port(), sink.port, IMAP_USER, IMAP_PASSWORD, bulletin_threshold=1)
    try:
        run_current_turn(app.sessions, "corpus", app.config, NOW)
        assert send_outbox(app.sessions, app.config, NOW) == (3, 0)
    finally:
        app.close()
        sink.controller.stop()
    bulletin = [to for _, to, raw in sink.messages if "bulletin" in str(parsed(raw)["Subject"])]
    assert (
        sorted(address for to in bulletin for address in to) == sorted(EMAILS.values()) and len(bulletin) == 2
    )
