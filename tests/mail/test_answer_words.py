"""What the answers to a player's mail say, through the real intake on SQLite
and PostgreSQL (docs/orders.md holds each promise): the count of lines with
errors, a phone's signature, the subject, WAIT, and where the rules are."""

from __future__ import annotations

import datetime as dt
import mailbox
from collections.abc import Iterator
from email import message_from_bytes, policy
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.factories import PASSWORD, make_game, order_mail
from tests.mailrows import with_bodies
from turnproc.app import App, open_app
from turnproc.config import Config
from turnproc.intake import poll_maildir
from turnproc.outgoing.reportmail import mail_bytes
from turnproc.storage import models as m
from turnproc.storage.db import transaction

NOW = dt.datetime(2026, 1, 5, 19, 0, tzinfo=dt.timezone.utc)
SITE = "https://games.example.org/starchase/"


@pytest.fixture
def app(db_url: str, tmp_path: Path) -> Iterator[App]:
    config = Config(
        database_url=db_url,
        maildir_in=tmp_path / "in",
        maildir_out=tmp_path / "out",
        from_address="Host <turns@turnproc.example>",
        gm_address="gm@example.org",
    )
    app = open_app(config)
    with transaction(app.sessions) as session:
        make_game(session)
    yield app
    app.close()


def _answers(app: App, raw: bytes) -> list[m.OutboxMail]:
    with app.sessions() as session:
        before = session.scalar(select(m.OutboxMail.id).order_by(m.OutboxMail.id.desc()).limit(1)) or 0
    mailbox.Maildir(app.config.maildir_in, create=True).add(raw)
    poll_maildir(app, NOW)
    with app.sessions() as session:
        rows = list(
            session.scalars(select(m.OutboxMail).where(m.OutboxMail.id > before).order_by(m.OutboxMail.id))
        )
        return with_bodies(session, rows, app.config.from_address)


def _ack(app: App, raw: bytes) -> tuple[str, str]:
    """(subject, text) of the acknowledgement of ``raw``."""
    [ack] = [mail for mail in _answers(app, raw) if mail.kind == "ack"]
    msg = message_from_bytes(ack.body, policy=policy.default)
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(msg["Subject"]), str(part.get_content())


def _on_file(app: App) -> list[str]:
    with app.sessions() as session:
        row = session.scalar(
            select(m.OrderSet).where(m.OrderSet.active.is_(True)).order_by(m.OrderSet.id.desc())
        )
        return [] if row is None else list(row.lines)


def test_the_count_is_of_lines_with_errors_not_of_errors(app: App) -> None:
    _, text = _ack(app, order_mail("MOVE 9 X 3\nTAX\nMOVX 101 103 1\nEND"))
    assert text.count("ERROR [") == 3  # two on the first line, one on the third
    assert "2 lines had errors and were not stored" in text
    _, text = _ack(app, order_mail("MOVE 9 X 3\nTAX\nEND"))
    assert "1 line had errors and was not stored" in text


@pytest.mark.parametrize(
    "signature",
    [
        "Sent from my iPhone",
        "Sent from my Galaxy",
        "Get Outlook for Android",
        "Get Outlook for iOS",
        "Sent from Outlook for iOS",
        "Von meinem iPhone gesendet",
        "Envoyé de mon iPhone",
    ],
)
def test_a_phone_signature_without_end_ends_the_orders_quietly(app: App, signature: str) -> None:
    _, text = _ack(app, order_mail(f"TAX\nMOVE 101 103 2\n\n{signature}"))
    assert _on_file(app) == ["TAX", "MOVE 101 103 2"]
    assert "ERROR" not in text and "send the whole set again" not in text and "Not read" not in text


def test_answers_never_say_re_twice(app: App) -> None:
    for subject, expected in (
        ("orders", "Re: orders"),
        ("Re: orders", "Re: orders"),
        ("RE: Re: orders", "Re: orders"),
        ("AW: orders", "Re: orders"),
        ("Re[2]: orders", "Re: orders"),
    ):
        got, _ = _ack(app, order_mail("TAX", subject=subject))
        assert got == expected


def test_wait_is_in_the_acknowledgement_and_the_orders_answer(app: App) -> None:
    _, text = _ack(app, order_mail("TAX\nWAIT\nEND"))
    assert (
        "Orders now on file (1/16 slots):\n  TAX\n  WAIT: the turn does not run early; it waits for the "
        "deadline." in text
    )
    _, text = _ack(app, order_mail("ORDERS"))
    assert "  TAX\n  WAIT: the turn does not run early" in text
    _, text = _ack(app, order_mail("MOVE 101 103 2\nEND"))
    assert "WAIT" not in text  # new orders without WAIT: the turn may run early again


def test_help_says_where_the_rules_are(app: App, tmp_path: Path) -> None:
    [guide] = [mail for mail in _answers(app, order_mail("HELP")) if mail.kind == "help"]
    text = _body(guide)
    # No site_url: no link that leads nowhere, and no path of the source tree.
    assert "docs/" not in text and "http" not in text
    assert "ask the game master (gm@example.org) for them, or send HELP" in text
    app.config = Config(**{**app.config.__dict__, "site_url": SITE})
    [guide] = [
        mail
        for mail in _answers(app, order_mail("HELP", message_id="<help2@players.example>"))
        if mail.kind == "help"
    ]
    text = _body(guide)
    assert "The rulebook:        https://games.example.org/starchase/corpus/rules.html" in text
    assert "How to send orders:  https://games.example.org/starchase/corpus/orders.html" in text
    assert "The game's site:     https://games.example.org/starchase/corpus/" in text
    assert "The order desk:      https://games.example.org/starchase/corpus/orders/" in text


def _body(mail: m.OutboxMail) -> str:
    msg = message_from_bytes(mail.body, policy=policy.default)
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def test_every_report_mail_ends_with_the_links(app: App) -> None:
    """The report's footer, text and HTML, as a player gets it (REPORT by mail)."""
    app.config = Config(**{**app.config.__dict__, "site_url": SITE})
    [report] = [mail for mail in _answers(app, order_mail("REPORT")) if mail.kind == "report_copy"]
    with app.sessions() as session:
        row = session.get_one(m.OutboxMail, report.id)
        raw = mail_bytes(session, row, app.config.from_address, SITE)
    msg = message_from_bytes(raw, policy=policy.default)
    text = str(msg.get_body(preferencelist=("plain",)).get_content())  # type: ignore[union-attr]
    html = str(msg.get_body(preferencelist=("html",)).get_content())  # type: ignore[union-attr]
    assert "The game's site:     https://games.example.org/starchase/corpus/\n" in text
    assert text.rstrip().endswith("The order desk:      https://games.example.org/starchase/corpus/orders/")
    assert "\n-- \nturnproc for game corpus\nThe rulebook:" in text
    assert '<a href="https://games.example.org/starchase/corpus/rules.html">' in html
    assert '<a href="https://games.example.org/starchase/corpus/orders/">' in html
    assert PASSWORD not in text
