"""The player's account commands end to end: mail into a real Dovecot, the
intake's poll, the answers out over real SMTP, on SQLite and PostgreSQL.

HELP, REPORT n, PASSWORD, ADDRESS/CONFIRM, VACATION/BACK and QUIT
(docs/orders.md, "Your account by mail"), with their failure cases: wrong
password, bad address, unknown empire, vacation too long.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from imapclient import IMAPClient
from sqlalchemy import select

from tests.conftest import IMAP_PASSWORD, IMAP_USER
from tests.factories import HOST_ADDRESS, imap_app, order_mail
from turnproc.intake import poll
from turnproc.outgoing.reportmail import send_outbox
from turnproc.storage import models as m
from turnproc.storage.db import transaction
from turnproc.storage.queries import get_game, load_game_view
from turnproc.turns.run import run_turn
from turnproc.turns.schedule import decide

NOW = dt.datetime(2026, 1, 5, 19, 0, tzinfo=dt.timezone.utc)
GM = "gm@example.org"
NEW_PASSWORD = "m4ple-Syrup-77"


@dataclass(frozen=True)
class Sent:
    to: str
    subject: str
    text: str


class Host:
    """The host on loopback: mail goes into Dovecot, one poll reads it, one
    flush delivers every answer to the SMTP sink."""

    def __init__(self, app, smtp) -> None:
        self.app, self.smtp, self.seen = app, smtp, 0
        self.results: list = []

    def mail(self, *raws: bytes, now: dt.datetime = NOW) -> list[Sent]:
        c = self.app.config.imap
        client = IMAPClient(c.host, port=c.port, ssl=False)
        client.login(IMAP_USER, IMAP_PASSWORD)
        for raw in raws:
            client.append("INBOX", raw)
        client.logout()
        self.results = poll(self.app, now)
        send_outbox(self.app.sessions, self.app.config, now)
        new = self.smtp.messages[self.seen :]
        self.seen = len(self.smtp.messages)
        out = []
        for _, rcpts, raw in new:
            msg = message_from_bytes(raw, policy=policy.default)
            out.append(
                Sent(rcpts[0], str(msg["Subject"]), msg.get_body(preferencelist=("plain",)).get_content())
            )
        return out

    def outcome(self) -> str:
        assert len(self.results) == 1, self.results
        return self.results[0].outcome

    def empire(self, code: str = "RIG") -> m.Empire:
        with self.app.sessions() as session:
            row = session.scalars(select(m.Empire).where(m.Empire.code == code)).one()
            session.expunge(row)
            return row


@pytest.fixture
def host(db_url: str, imap, smtp_server):
    app = imap_app(db_url, imap.port, smtp_server.port, IMAP_USER, IMAP_PASSWORD, gm_address=GM)
    yield Host(app, smtp_server)
    app.close()


def player(body: str, **kw: object) -> bytes:
    return order_mail(body, **kw)  # type: ignore[arg-type]


def stranger(body: str, sender: str = "zed@elsewhere.example") -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, HOST_ADDRESS, "hello"
    msg["Message-ID"] = make_msgid(domain="elsewhere.example")
    msg.set_content(body + "\n")
    return msg.as_bytes()


def to(sent: list[Sent], address: str) -> list[Sent]:
    return [s for s in sent if s.to == address]


# -- HELP ----------------------------------------------------------------------------


def test_help_from_a_player_mails_the_guide_beside_the_acknowledgement(host: Host) -> None:
    sent = host.mail(player("HELP"))
    assert host.outcome() == "commands"
    ack, guide = sorted(to(sent, "ann@example.org"), key=lambda s: "how to write" in s.subject)
    assert "HELP: a short guide is on its way" in ack.text
    assert "PASSWORD <new>" in guide.text and "JOIN <game>" in guide.text and "at most 3" in guide.text


@pytest.mark.parametrize("sender", ["zed@elsewhere.example", "ann@example.org"])
def test_a_mail_that_is_only_help_gets_the_guide_from_any_address(host: Host, sender: str) -> None:
    sent = host.mail(stranger("help", sender))
    assert host.outcome() == "help"
    assert [s.to for s in sent] == [sender]
    assert "how to write to this host" in sent[0].subject


def test_help_to_strangers_is_capped_per_address(host: Host) -> None:
    host.mail(stranger("HELP"))
    assert host.mail(stranger("HELP")) == []  # one an hour per unknown address
    with host.app.sessions() as session:
        assert session.scalars(select(m.SuppressedReply.kind)).all() == ["stranger"]


# -- REPORT n --------------------------------------------------------------------------


def test_report_before_turn_one_sends_the_start(host: Host) -> None:
    sent = host.mail(player("REPORT"))
    report = next(s for s in sent if "report" in s.subject.lower() and s.text.startswith("STAR CHASE"))
    assert "turn 0 report" in report.text
    assert "the report of turn 0 is on its way" in next(s for s in sent if s is not report).text


def test_report_of_a_past_turn_and_of_one_not_run(host: Host) -> None:
    with transaction(host.app.sessions) as session:
        run_turn(session, get_game(session, "corpus"), host.app.config, NOW)
    host.mail()  # the turn's own reports
    sent = host.mail(player("REPORT 1\n"))
    assert any(s.text.startswith("STAR CHASE - game corpus - turn 1 report") for s in sent)
    sent = host.mail(player("REPORT 0"))
    assert any(s.text.startswith("STAR CHASE - game corpus - turn 0 report") for s in sent)
    (ack,) = host.mail(player("REPORT 7"))
    assert "REPORT: turn 7 has not run yet (you have reports for turns 1 to 1" in ack.text


# -- PASSWORD --------------------------------------------------------------------------


def test_password_change_takes_effect_at_once_and_is_never_echoed(host: Host) -> None:
    (ack,) = host.mail(player(f"PASSWORD {NEW_PASSWORD}\nTAX"))
    assert host.outcome() == "accepted"
    assert "PASSWORD: changed. The new password starts with m4 and has 14 characters" in ack.text
    assert NEW_PASSWORD not in ack.text
    with host.app.sessions() as session:
        stored = session.scalars(select(m.OrderSet.raw_text)).one()
    assert NEW_PASSWORD not in stored and "PASSWORD ********" in stored
    host.mail(player("ORDERS"))  # the old password
    assert host.outcome() == "wrong_password"
    host.mail(player("ORDERS", password=NEW_PASSWORD))
    assert host.outcome() == "commands"
    with host.app.sessions() as session:
        stored_hash = session.scalars(select(m.Empire.password_hash).where(m.Empire.code == "RIG")).one()
    # passwords.py: a password a person chose is hashed with four times the work.
    assert stored_hash.startswith("scrypt$16384$8$1$")


def test_weak_password_is_refused_and_the_old_one_stays(host: Host) -> None:
    (ack,) = host.mail(player("PASSWORD short"))
    assert "ERROR [weak_password]" in ack.text and "PASSWORD ********" in ack.text and "short" not in ack.text
    host.mail(player("ORDERS"))
    assert host.outcome() == "commands"


def test_password_change_needs_the_current_password(host: Host) -> None:
    told = host.mail(player(f"PASSWORD {NEW_PASSWORD}", password="guessing"))
    assert host.outcome() == "wrong_password"
    assert told and all(
        "wrong password" in t.subject and NEW_PASSWORD not in t.text for t in told
    )  # the digest
    host.mail(player("ORDERS"))
    assert host.outcome() == "commands"


def test_commands_for_an_unknown_empire_change_nothing(host: Host) -> None:
    (answer,) = host.mail(
        player(f"PASSWORD {NEW_PASSWORD}", empire="RIG").replace(b"EMPIRE RIG", b"EMPIRE RIX")
    )
    assert host.outcome() == "rejected"
    assert "has no empire 'RIX'" in answer.text and "did you mean RIG" in answer.text


# -- ADDRESS and CONFIRM -------------------------------------------------------------


def _code(sent: list[Sent], address: str) -> str:
    (confirm,) = to(sent, address)
    found = re.search(r"CONFIRM (\w+)", confirm.text)
    assert found is not None
    return found.group(1)


def _stored(row: m.OutboxMail) -> bytes:
    """What the outbox keeps of a mail: its bytes, or an answer's data."""
    return (row.body or b"") + (row.data or "").encode()


def test_address_moves_when_the_code_comes_back_from_the_new_address(host: Host) -> None:
    sent = host.mail(player("ADDRESS ann@new-home.example"))
    (ack,) = to(sent, "ann@example.org")
    assert "a confirmation code went to ann@new-home.example" in ack.text
    code = _code(sent, "ann@new-home.example")
    assert host.empire().email == "ann@example.org"
    with host.app.sessions() as session:  # the code is kept only hashed once its mail went
        assert not any(code.encode() in _stored(row) for row in session.scalars(select(m.OutboxMail)))

    # The right code from the wrong address, and a wrong code from the right one: nothing.
    (ack,) = host.mail(player(f"CONFIRM {code}", sender="eve@example.org"))
    assert "the code must come back from ann@new-home.example" in ack.text
    (ack,) = host.mail(player("CONFIRM zzzzzzzz", sender="ann@new-home.example"))
    assert "that is not the code" in ack.text and ack.to == "ann@example.org"
    assert host.empire().email == "ann@example.org"

    sent = host.mail(player(f"CONFIRM {code}", sender="ann@new-home.example"))
    assert host.empire().email == "ann@new-home.example"
    (ack,) = to(sent, "ann@new-home.example")
    assert "your empire's address is now ann@new-home.example" in ack.text
    assert "not from your registered address" not in ack.text
    (notice,) = to(sent, "ann@example.org")
    assert "changed from ann@example.org to ann@new-home.example" in notice.text
    # From now on the old address is "another address".
    (ack,) = host.mail(player("ORDERS"))
    assert ack.to == "ann@new-home.example" and "not from your registered address" in ack.text


def test_address_code_expires_after_48_hours(host: Host) -> None:
    code = _code(host.mail(player("ADDRESS ann@new-home.example")), "ann@new-home.example")
    later = NOW + dt.timedelta(hours=48, minutes=1)
    (ack,) = host.mail(player(f"CONFIRM {code}", sender="ann@new-home.example"), now=later)
    assert "the code expired" in ack.text
    assert host.empire().email == "ann@example.org"


def test_a_new_address_request_replaces_the_one_waiting(host: Host) -> None:
    first = _code(host.mail(player("ADDRESS ann@first.example")), "ann@first.example")
    second = _code(host.mail(player("ADDRESS ann@second.example")), "ann@second.example")
    (ack,) = host.mail(player(f"CONFIRM {first}", sender="ann@first.example"))
    assert "the code must come back from ann@second.example" in ack.text
    host.mail(player(f"CONFIRM {second}", sender="ann@second.example"))
    assert host.empire().email == "ann@second.example"


@pytest.mark.parametrize(
    "line,said",
    [
        ("ADDRESS ann-at-home", "ERROR [bad_address]"),
        ("ADDRESS bo@example.org", "bo@example.org is the address of another empire"),
        ("ADDRESS ann@example.org", "is your address already"),
    ],
)
def test_bad_address_changes_nothing(host: Host, line: str, said: str) -> None:
    sent = host.mail(player(line))
    assert [s.to for s in sent] == ["ann@example.org"]
    assert said in sent[0].text
    with host.app.sessions() as session:
        assert session.scalars(select(m.AddressChange)).all() == []


# -- VACATION, BACK, QUIT ------------------------------------------------------------


def test_vacation_keeps_the_guard_and_inactivity_away_and_the_report_says_so(host: Host) -> None:
    (ack,) = host.mail(player("VACATION 2", empire="VEG"))
    assert "you are on leave for turns 1 to 2" in ack.text
    assert host.empire("VEG").vacation_until == 2
    with transaction(host.app.sessions) as session:
        game = get_game(session, "corpus")
        game.nmr_limit, game.last_deadline_at = 0, NOW - dt.timedelta(days=8)
    host.mail(player("TAX"))
    with host.app.sessions() as session:
        loaded = load_game_view(session, name="corpus")
        assert loaded is not None
        view = loaded[1]
    # VEG sent nothing: without the leave the guard (limit 0%) would hold the turn.
    assert view.missing == [] and decide(view, NOW).action == "run"
    with transaction(host.app.sessions) as session:
        result = run_turn(session, get_game(session, "corpus"), host.app.config, NOW)
    assert result.missed == []
    assert host.empire("VEG").missed_turns == 0
    sent = host.mail()
    (report,) = to(sent, "bo@example.org")
    assert "You are on leave until turn 2" in report.text


def test_vacation_too_long_is_refused(host: Host) -> None:
    (ack,) = host.mail(player("VACATION 4"))
    assert "VACATION: the longest leave in game corpus is 3 turns; nothing changed" in ack.text
    assert host.empire().vacation_until is None


def test_back_ends_the_leave(host: Host) -> None:
    host.mail(player("VACATION 1"))
    (ack,) = host.mail(player("BACK"))
    assert "BACK: your leave is over" in ack.text
    assert host.empire().vacation_until is None


def test_quit_tells_the_gm_and_the_empire_goes_inactive_at_the_next_turn(host: Host) -> None:
    sent = host.mail(player("QUIT", empire="VEG"))
    (ack,) = to(sent, "bo@example.org")
    assert "QUIT: you leave the game when turn 1 runs" in ack.text
    (notice,) = to(sent, GM)
    assert "VEG" in notice.subject and "asks to leave" in notice.subject
    assert host.empire("VEG").active
    with transaction(host.app.sessions) as session:
        result = run_turn(session, get_game(session, "corpus"), host.app.config, NOW)
    assert result.inactive == ["VEG"]
    veg = host.empire("VEG")
    assert not veg.active and veg.quit_at is None


def test_back_takes_a_quit_back(host: Host) -> None:
    host.mail(player("QUIT"))
    (ack,) = host.mail(player("BACK"))
    assert "your QUIT is withdrawn" in ack.text
    with transaction(host.app.sessions) as session:
        result = run_turn(session, get_game(session, "corpus"), host.app.config, NOW)
    assert "RIG" not in result.inactive and host.empire().active


def test_password_in_the_stored_mail_log_never_appears(host: Host) -> None:
    host.mail(player(f"PASSWORD {NEW_PASSWORD}"))
    with host.app.sessions() as session:
        logged = " ".join(f"{r.subject} {r.detail}" for r in session.scalars(select(m.InboundMessage)))
        mails = b" ".join(_stored(r) for r in session.scalars(select(m.OutboxMail)))
    assert NEW_PASSWORD not in logged
    assert NEW_PASSWORD.encode() not in mails
