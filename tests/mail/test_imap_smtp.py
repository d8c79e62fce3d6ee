"""Intake over a real IMAP server (a private Dovecot) and delivery over a real
SMTP server (aiosmtpd), both on loopback."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from imapclient import IMAPClient
from sqlalchemy import select

from tests.conftest import IMAP_PASSWORD, IMAP_USER
from tests.factories import imap_app
from turnproc.intake import inbox, poll
from turnproc.mail.imap import ImapMailbox
from turnproc.outgoing.reportmail import send_outbox
from turnproc.storage import models as m

CORPUS = Path(__file__).parent / "corpus"
NOW = dt.datetime(2026, 1, 5, 19, 0, tzinfo=dt.timezone.utc)


@pytest.fixture
def app(sqlite_url: str, imap, smtp_server):
    app = imap_app(sqlite_url, imap.port, smtp_server.port, IMAP_USER, IMAP_PASSWORD)
    yield app
    app.close()


def _client(app) -> IMAPClient:
    c = app.config.imap
    client = IMAPClient(c.host, port=c.port, ssl=False)
    client.login(IMAP_USER, IMAP_PASSWORD)
    return client


def _append(app, *names: str) -> None:
    client = _client(app)
    for name in names:
        client.append("INBOX", (CORPUS / name).read_bytes())
    client.logout()


def _folder(app, folder: str) -> dict[int, tuple[bytes, ...]]:
    client = _client(app)
    if not client.folder_exists(folder):
        client.logout()
        return {}
    client.select_folder(folder, readonly=True)
    flags = {uid: data[b"FLAGS"] for uid, data in client.fetch(client.search(["ALL"]), ["FLAGS"]).items()}
    client.logout()
    return flags


def test_poll_files_mail_after_commit_and_acks_go_out_over_smtp(app, smtp_server) -> None:
    _append(app, "gmail_alternative.eml", "outlook_html_1252.eml", "bounce.eml", "unknown_game.eml")
    results = poll(app, NOW)
    # The Outlook mail was written (17:03) before the Gmail one (18:02) that came first: it is
    # answered but the later orders stay on file.
    assert sorted(r.outcome for r in results) == ["accepted", "ignored", "older", "rejected"]
    assert _folder(app, "INBOX") == {}
    processed = _folder(app, "Processed")
    assert len(processed) == 2 and all(b"\\Seen" in f for f in processed.values())
    assert len(_folder(app, "Rejected")) == 2
    sent, failed = send_outbox(app.sessions, app.config, NOW)
    assert (sent, failed) == (2, 0)  # the stranger naming no game here is not answered
    recipients = sorted(r for _, rcpts, _ in smtp_server.messages for r in rcpts)
    assert recipients == ["ann@example.org", "ann@example.org"]
    # Sent once: a second flush sends nothing.
    assert send_outbox(app.sessions, app.config, NOW) == (0, 0)
    assert len(smtp_server.messages) == 2


def test_a_poll_of_many_batches_files_every_mail(app, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inbox, "BATCH", 2)  # three batches: fetched ahead, filed after each commit
    _append(
        app,
        "gmail_alternative.eml",
        "outlook_html_1252.eml",
        "bounce.eml",
        "unknown_game.eml",
        "base64_body.eml",
    )
    results = poll(app, NOW)
    assert len(results) == 5 and "failed" not in {r.outcome for r in results}
    assert _folder(app, "INBOX") == {}
    filed = {**_folder(app, "Processed"), **{-uid: f for uid, f in _folder(app, "Rejected").items()}}
    assert len(filed) == 5 and all(b"\\Seen" in f for f in filed.values())
    assert poll(app, NOW) == []


def test_poll_twice_stores_nothing_twice(app) -> None:
    _append(app, "thunderbird_plain.eml")
    poll(app, NOW)
    assert poll(app, NOW) == []
    with app.sessions() as session:
        assert len(session.scalars(select(m.OrderSet)).all()) == 1
        assert len(session.scalars(select(m.OutboxMail)).all()) == 1


def test_killed_between_commit_and_move_applies_nothing_twice(app, monkeypatch: pytest.MonkeyPatch) -> None:
    _append(app, "thunderbird_plain.eml", "base64_body.eml")

    def die(self, uids, folder):
        raise SystemExit("killed")

    monkeypatch.setattr(ImapMailbox, "file_many", die)
    with pytest.raises(SystemExit):
        poll(app, NOW)
    monkeypatch.undo()
    # Both mails committed, neither was moved; they are still unseen on the server.
    inbox = _folder(app, "INBOX")
    assert len(inbox) == 2 and not any(b"\\Seen" in f for f in inbox.values())
    results = poll(app, NOW)
    assert [r.outcome for r in results] == ["duplicate", "duplicate"]
    with app.sessions() as session:
        assert len(session.scalars(select(m.OrderSet)).all()) == 2
        assert len(session.scalars(select(m.OutboxMail)).all()) == 2
    assert _folder(app, "INBOX") == {}


def test_smtp_failure_is_retried_later_and_sent_once(app, smtp_server) -> None:
    _append(app, "thunderbird_plain.eml")
    poll(app, NOW)
    smtp_server.fail_next = 1
    assert send_outbox(app.sessions, app.config, NOW) == (0, 1)
    # Not due yet: back-off.
    assert send_outbox(app.sessions, app.config, NOW) == (0, 0)
    later = NOW + dt.timedelta(minutes=5)
    assert send_outbox(app.sessions, app.config, later) == (1, 0)
    assert len(smtp_server.messages) == 1


def test_imap_login_failure_is_an_error_not_a_loss(app) -> None:
    from dataclasses import replace

    app.config = replace(app.config, imap=replace(app.config.imap, password="wrong"))
    _append(app, "thunderbird_plain.eml")
    from turnproc.errors import ServerUnavailable

    with pytest.raises(
        ServerUnavailable,
        match=r"IMAP login as 'turns' on 127\.0\.0\.1:\d+ refused: \[AUTHENTICATIONFAILED\]",
    ):
        poll(app, NOW)
    assert len(_folder(app, "INBOX")) == 1
