"""Who a mail is from, read as mail programs read it, and the names a
stranger may give (docs/orders.md, "Who a mail is from"). A From that names
one address in a mail program's eyes and another in ours, or none, or two,
is from nobody: filed, never answered, its orders never stored. JOIN names
that hide what they say are refused. Real Dovecot and SMTP, SQLite and
PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from tests.factories import HOST_ADDRESS, PASSWORD
from tests.mail.test_player_commands import Host, host  # noqa: F401 (the fixture)
from tests.mail.test_signup import cli, requests
from tests.mail.test_signup import host as signup_host  # noqa: F401 (the fixture)
from turnproc.storage import models as m
from turnproc.storage.db import transaction

ATTACKER = "attacker@evil.example"


def raw_mail(sender: str, body: str) -> bytes:
    """A mail with ``sender`` written into From as it stands (no library would write these)."""
    return (
        f"From: {sender}\r\nTo: {HOST_ADDRESS}\r\nSubject: orders\r\n"
        f"Message-ID: <{abs(hash(sender + body))}@evil.example>\r\n\r\n{body}\r\n"
    ).encode()


@pytest.mark.parametrize(
    "sender",
    [
        f"ann@example.org <{ATTACKER}>",
        f"Ann <ann@example.org> <{ATTACKER}>",
        f"ann@example.org;{ATTACKER}",
        f"ann@example.org, {ATTACKER}",
    ],
)
def test_a_from_with_two_readings_is_from_nobody(host: Host, sender: str) -> None:
    """Read as ann's before, these passed the password check as hers and got
    no "came from another address" warning, though a mail program shows
    (and DMARC checks) the attacker's address."""
    sent = host.mail(raw_mail(sender, f"GAME corpus\r\nEMPIRE RIG {PASSWORD}\r\nTAX"))
    assert host.outcome() == "rejected" and "no From address" in host.results[0].detail
    assert not [s for s in sent if s.to == ATTACKER]
    with host.app.sessions() as session:
        assert session.scalars(select(m.OrderSet)).all() == []
        assert session.scalar(select(m.InboundMessage.sender)) == ""


def test_a_from_is_stored_in_its_normal_form(host: Host) -> None:
    (ack,) = host.mail(raw_mail("Ann <ann@EXAMPLE.ORG>", f"GAME corpus\r\nEMPIRE RIG {PASSWORD}\r\nTAX"))
    assert host.outcome() == "accepted" and "not from your registered address" not in ack.text
    with host.app.sessions() as session:
        assert session.scalar(select(m.InboundMessage.sender)) == "ann@example.org"


def test_an_escape_code_in_from_is_never_stored_nor_mailed(
    signup_host: Host, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(capsys, "game", "signup", "spring26", "--open")[0] == 0
    hostile = '"\x1b]2;HACKED\x07\x1b[2J"@evil.example'
    sent = signup_host.mail(raw_mail(hostile, 'JOIN spring26 BIG "Big Empire"'))
    assert sent == [] and requests(signup_host) == []
    with signup_host.app.sessions() as session:
        assert "\x1b" not in (session.scalar(select(m.InboundMessage.sender)) or "")


@pytest.mark.parametrize(
    "name",
    ["Rigel\u202eeugaeL", "Zed\u200bonian", "\ufeffZedonian", "Zed\x1b[2Jonian", "rigel league"],
)
def test_join_names_that_hide_what_they_say_are_refused(
    signup_host: Host, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    assert cli(capsys, "game", "signup", "spring26", "--open")[0] == 0
    (answer,) = signup_host.mail(raw_mail("zed@elsewhere.example", f'JOIN spring26 ZED "{name}"'))
    assert answer.to == "zed@elsewhere.example"
    assert "U+202E" in answer.text or "the name 'rigel league' is taken" in answer.text
    assert requests(signup_host) == []


def test_the_cli_escapes_stored_text_and_check_flags_an_address_mail_cannot_reach(
    signup_host: Host, capsys: pytest.CaptureFixture[str]
) -> None:
    """A name or address written in with SQL (or stored before these checks)
    reaches the GM's terminal as text, never as escape codes; `turnproc check`
    says the address would not work."""
    with transaction(signup_host.app.sessions) as session:
        spring = session.scalars(select(m.Game).where(m.Game.name == "spring26")).one()
        row = session.scalars(
            select(m.Empire).where(m.Empire.code == "RIG", m.Empire.game_id == spring.id)
        ).one()
        row.name, row.email = "Rigel\x1b]2;HACKED\x07\u202e", '"\x1b[2J"@evil.example'
    for args in (("empire", "list", "spring26"), ("game", "show", "spring26"), ("check", "spring26")):
        code, out, err = cli(capsys, *args)
        assert "\x1b" not in out + err and "\x07" not in out + err and "\u202e" not in out + err, args
    assert "\\u001b]2;HACKED\\u0007\\u202e" in cli(capsys, "empire", "list", "spring26")[1]
    code, out, _ = cli(capsys, "check", "spring26")
    assert code == 1 and "email_invalid: empire RIG" in out
