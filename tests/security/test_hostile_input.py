"""The hostile-input catalogue: what an attacker (a player, a stranger, a
careless GM's file) can hand turnproc, each answered in one clear line or
refused safely, never a traceback, on SQLite and PostgreSQL where a database
is involved. Each case failed before the change that holds it.

Mail goes through a real Maildir and the real intake; the CLI runs in this
process as the GM runs it.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.factories import EMAILS, HOST_ADDRESS, PASSWORD, make_game, order_mail
from turnproc.admin import run_script
from turnproc.app import App, open_app
from turnproc.config import Config
from turnproc.intake import IntakeResult, poll
from turnproc.mail.maildir import MaildirInbox
from turnproc.storage import models as m
from turnproc.storage.db import transaction

NOW = dt.datetime(2026, 1, 5, 19, 0, tzinfo=dt.timezone.utc)


# -- mail of hostile shapes ---------------------------------------------------------------


def many_parts(parts: int, sender: str = EMAILS["RIG"], boundary: str = "b0undary") -> bytes:
    """A mail of ``parts`` one-line text parts (50,000: 2.2 MB), naming game corpus."""
    head = (
        f"From: {sender}\r\nTo: {HOST_ADDRESS}\r\nSubject: orders\r\nMIME-Version: 1.0\r\n"
        f'Content-Type: multipart/mixed; boundary="{boundary}"\r\n\r\n'
    ).encode()
    first = f"--{boundary}\r\nContent-Type: text/plain\r\n\r\nGAME corpus\r\nEMPIRE RIG {PASSWORD}\r\nTAX\r\n".encode()
    part = f"--{boundary}\r\nContent-Type: text/plain\r\n\r\nx\r\n".encode()
    return head + first + part * (parts - 1) + f"--{boundary}--\r\n".encode()


def nested(depth: int, sender: str = EMAILS["RIG"]) -> bytes:
    """Orders at the bottom of ``depth`` multiparts, one inside the other."""
    body = f"Content-Type: text/plain\r\n\r\nGAME corpus\r\nEMPIRE RIG {PASSWORD}\r\nTAX\r\n"
    for level in range(depth):
        body = f'Content-Type: multipart/mixed; boundary="n{level}"\r\n\r\n--n{level}\r\n{body}\r\n--n{level}--\r\n'
    return f"From: {sender}\r\nTo: {HOST_ADDRESS}\r\nSubject: orders\r\nMIME-Version: 1.0\r\n{body}".encode()


@dataclass
class Host:
    app: App
    inbox: MaildirInbox

    def deliver(self, *raws: bytes) -> None:
        for raw in raws:
            self.inbox.box.add(raw)

    def poll(self) -> list[IntakeResult]:
        return poll(self.app, NOW)

    def answers(self, recipient: str) -> list[m.OutboxMail]:
        with self.app.sessions() as session:
            return list(session.scalars(select(m.OutboxMail).where(m.OutboxMail.recipient == recipient)))

    def left_in_inbox(self) -> int:
        return len(list(self.inbox.pending()))


def host_for(db_url: str, tmp_path: Path, **settings: object) -> Host:
    config = Config(
        database_url=db_url, maildir_in=tmp_path / "in", maildir_out=tmp_path / "out",
        from_address=f"Host <{HOST_ADDRESS}>", gm_address="gm@example.org", **settings,  # type: ignore[arg-type]
    )  # fmt: skip
    app = open_app(config)
    with transaction(app.sessions) as session:
        make_game(session)
    return Host(app, MaildirInbox(config.maildir_in))


@pytest.fixture
def host(db_url: str, tmp_path: Path) -> Iterator[Host]:
    made = host_for(db_url, tmp_path)
    yield made
    made.app.close()


def test_ten_mails_of_50000_parts_are_refused_and_the_orders_beside_them_accepted(host: Host) -> None:
    """Ten 2.2 MB mails of 50,000 parts each held intake for 45 s; now each is
    refused before it is parsed, its sender told why, and the order mail in
    the same poll is accepted."""
    host.deliver(*(many_parts(50_000, boundary=f"b{i}") for i in range(10)), order_mail("TAX", empire="VEG"))
    results = host.poll()
    refused = [r for r in results if r.outcome == "rejected"]
    assert len(refused) == 10 and all("more than 200 MIME parts" in r.detail for r in refused)
    assert [r.outcome for r in results if r.empire == "VEG"] == ["accepted"]
    assert host.left_in_inbox() == 0
    answers = host.answers(EMAILS["RIG"])
    assert answers and all(a.kind == "unknown" for a in answers)  # answered, under the reply cap


def test_a_stranger_s_many_part_mail_is_filed_unanswered(host: Host) -> None:
    host.deliver(many_parts(5_000, sender="mallory@evil.example"))
    [result] = host.poll()
    assert result.outcome == "rejected" and "MIME parts" in result.detail
    assert host.answers("mallory@evil.example") == [] and host.left_in_inbox() == 0


def test_parts_nested_too_deep_are_refused_and_the_limit_is_a_setting(db_url: str, tmp_path: Path) -> None:
    made = host_for(db_url, tmp_path, mail_max_depth=5)
    try:
        made.deliver(nested(4), nested(8))
        shallow, deep = made.poll()
        assert shallow.outcome == "accepted"
        assert deep.outcome == "rejected" and "nested more than 5 deep" in deep.detail
    finally:
        made.app.close()


def test_a_mail_that_takes_too_long_to_read_is_refused(db_url: str, tmp_path: Path) -> None:
    """The per-mail reading budget: an HTML body of a million tags (a few
    seconds of the HTML reader) stops at mail_read_seconds."""
    made = host_for(db_url, tmp_path, mail_read_seconds=0.05)
    html = "<p>GAME corpus</p><p>EMPIRE RIG sesame</p>" + "<b></b>" * 1_000_000
    raw = (
        f"From: {EMAILS['RIG']}\r\nTo: {HOST_ADDRESS}\r\nSubject: orders\r\nMIME-Version: 1.0\r\n"
        f"Content-Type: text/html; charset=utf-8\r\n\r\n{html}\r\n"
    ).encode()
    try:
        made.deliver(raw)
        [result] = made.poll()
        assert result.outcome == "rejected" and "took more than 0.05 s to read" in result.detail
        assert made.left_in_inbox() == 0
    finally:
        made.app.close()
