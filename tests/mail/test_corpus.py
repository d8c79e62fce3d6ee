"""Order mails in the shapes real clients send: each yields the right orders or
the right error, and an acknowledgement at the registered address; machine
mail gets no answer at all."""

from __future__ import annotations

import datetime as dt
import mailbox
from email import message_from_bytes, policy
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.factories import make_game, order_mail
from tests.mailrows import with_bodies
from turnproc.app import open_app
from turnproc.config import Config
from turnproc.intake import poll_maildir
from turnproc.storage import models as m
from turnproc.storage.db import transaction

CORPUS = Path(__file__).parent / "corpus"
NOW = dt.datetime(2026, 1, 5, 19, 0, tzinfo=dt.timezone.utc)
GOOD = ["MOVE 101 103 2", "DISTSQ 101 104", "NAME 101 New Haven", "MESSAGE ALL Greetings from Rigel"]


@pytest.fixture
def app(sqlite_url: str, tmp_path: Path):
    config = Config(
        database_url=sqlite_url,
        maildir_in=tmp_path / "in",
        maildir_out=tmp_path / "out",
        from_address="Host <turns@turnproc.example>",
    )
    app = open_app(config)
    with transaction(app.sessions) as session:
        make_game(session)
    yield app
    app.close()


def _deliver(app, name: str) -> None:
    mailbox.Maildir(app.config.maildir_in, create=True).add((CORPUS / name).read_bytes())


def _orders(app) -> list[str] | None:
    with app.sessions() as session:
        row = session.scalar(
            select(m.OrderSet).where(m.OrderSet.active.is_(True)).order_by(m.OrderSet.id.desc())
        )
        return None if row is None else list(row.lines)


def _outbox(app) -> list[m.OutboxMail]:
    with app.sessions() as session:
        return with_bodies(
            session,
            list(session.scalars(select(m.OutboxMail).order_by(m.OutboxMail.id))),
            app.config.from_address,
        )


def _body(mail: m.OutboxMail) -> str:
    msg = message_from_bytes(mail.body, policy=policy.default)
    return msg.get_body(preferencelist=("plain",)).get_content()


@pytest.mark.parametrize(
    "name, expected",
    [
        ("thunderbird_plain.eml", GOOD),
        ("gmail_alternative.eml", GOOD),
        ("outlook_html_1252.eml", [*GOOD[:3], "MESSAGE ALL Greetings from Rigel \u2013 caf\u00e9"]),
        ("applemail_qp.eml", [*GOOD[:3], "MESSAGE ALL Greetings from Rigel \u2014 \u00e0 bient\u00f4t"]),
        ("base64_body.eml", GOOD),
        ("bom.eml", GOOD),
        ("reply_quoting_report.eml", GOOD),
        ("txt_attachment.eml", GOOD),
        ("latin1.eml", [GOOD[0], GOOD[1], "NAME 101 Caf\u00e9 Sol", GOOD[3]]),
        (
            "format_flowed.eml",
            [
                *GOOD[:3],
                "MESSAGE ALL Greetings from Rigel, this is a long message that a mail client wraps at "
                "seventy-two characters using format flowed soft breaks",
            ],
        ),
    ],
)
def test_client_shapes_give_the_orders(app, name: str, expected: list[str]) -> None:
    _deliver(app, name)
    [result] = poll_maildir(app, NOW)
    assert result.outcome == "accepted", result.detail
    assert _orders(app) == expected
    [ack] = _outbox(app)
    assert ack.recipient == "ann@example.org"
    body = _body(ack)
    assert "Orders received for game corpus, empire RIG, turn 1" in body
    assert "ERROR" not in body
    assert "Orders now on file (2/16 slots)" in body
    msg = message_from_bytes(ack.body, policy=policy.default)
    assert str(msg["Subject"]).startswith("Re: ")
    assert msg["In-Reply-To"] and msg["References"]
    assert "Friday" in body  # the deadline, in the game's time zone


def test_outlook_html_paragraphs_are_numbered_as_the_player_sees_them(app) -> None:
    """Outlook writes each line as <p class=MsoNormal> with a line break in the
    source between </p> and <p>: no line a mail program shows (docs/orders.md
    promises the acknowledgement's numbers are the lines the player sees)."""
    _deliver(app, "outlook_html_paragraphs.eml")
    [result] = poll_maildir(app, NOW)
    assert result.outcome == "accepted", result.detail
    assert _orders(app) == ["MOVE 101 103 2", "DISTSQ 101 104"]
    body = _body(_outbox(app)[0])
    assert "   6  MOVE 101 103 2" in body and "   7  DISTSQ 101 104" in body
    assert "   8  MOVX 101 104 1" in body and "ERROR [unknown_action]" in body


def test_mixed_errors_store_the_valid_lines_and_explain_each_bad_one(app) -> None:
    _deliver(app, "mixed_errors.eml")
    [result] = poll_maildir(app, NOW)
    assert result.outcome == "accepted"
    assert _orders(app) == ["MOVE 101 103 2", "DISTSQ 101 104"]
    body = _body(_outbox(app)[0])
    assert "   4  MVOE 101 103 1" in body and "unknown_action" in body and "MOVE" in body
    assert "   5  DISTSQ 101 102" in body and "target_is_planet" in body
    assert "   6  TECH WEAPNS 1" in body and "WEAPONS" in body
    assert "   7  MOVE 101 999 1" in body and "unknown_system" in body
    assert "4 lines had errors and were not stored" in body


def test_truncated_mail_keeps_what_arrived(app) -> None:
    _deliver(app, "truncated.eml")
    [result] = poll_maildir(app, NOW)
    assert result.outcome == "accepted"
    assert _orders(app) == ["DISTSQ 101 104"]
    assert "line" in _body(_outbox(app)[0]).lower()


def test_wrong_password_stores_nothing_and_tells_the_owner(app) -> None:
    _deliver(app, "wrong_password.eml")
    [result] = poll_maildir(app, NOW)
    assert result.outcome == "wrong_password"
    assert _orders(app) is None
    [reply] = _outbox(app)
    assert reply.recipient == "ann@example.org"  # never the sender
    assert "mallory@evil.example" in _body(reply) and "wrong password" in _body(reply)


def test_wrong_passwords_are_told_once_in_a_digest(app) -> None:
    raw = (CORPUS / "wrong_password.eml").read_bytes()
    box = mailbox.Maildir(app.config.maildir_in, create=True)
    for i in range(25):
        box.add(raw.replace(b"wrongpw-0012", f"wrongpw-{i}".encode()))
    results = poll_maildir(app, NOW)
    # Never a sender locked out, never an answer per mail (docs/orders.md): one digest.
    assert [r.outcome for r in results] == ["wrong_password"] * 25
    [digest] = _outbox(app)
    assert digest.kind == "guessing" and digest.recipient == "ann@example.org"
    assert "25 mails with a wrong password for RIG" in digest.subject and "mallory@evil.example: 25" in _body(
        digest
    )


def test_other_sender_with_the_right_password_is_accepted_and_the_owner_told(app) -> None:
    _deliver(app, "other_sender.eml")
    [result] = poll_maildir(app, NOW)
    assert result.outcome == "accepted"
    [ack] = _outbox(app)
    assert ack.recipient == "ann@example.org"
    assert "ann.rigg@work.example" in _body(ack)


def test_unknown_game_from_a_player_gets_one_helpful_reply_and_is_rejected(app, tmp_path: Path) -> None:
    raw = (CORPUS / "unknown_game.eml").read_bytes().replace(b"newbie@example.net", b"ann@example.org")
    mailbox.Maildir(app.config.maildir_in, create=True).add(raw)
    [result] = poll_maildir(app, NOW)
    assert result.outcome == "rejected" and result.folder == "Rejected"
    [reply] = _outbox(app)
    assert reply.recipient == "ann@example.org"
    assert "no game called 'nosuchgame'" in _body(reply)
    rejected = mailbox.Maildir(app.config.maildir_in, create=False).get_folder("Rejected")
    assert len(rejected) == 1


def test_unknown_game_from_a_stranger_gets_no_reply(app) -> None:
    """No backscatter: an address that plays nowhere, naming no game here, could
    be anyone's forged From."""
    _deliver(app, "unknown_game.eml")
    [result] = poll_maildir(app, NOW)
    assert result.outcome == "rejected"
    assert _outbox(app) == []


@pytest.mark.parametrize("name", ["autoresponder.eml", "bounce.eml"])
def test_machine_mail_gets_no_reply(app, name: str) -> None:
    _deliver(app, name)
    [result] = poll_maildir(app, NOW)
    assert result.outcome == "ignored"
    assert _outbox(app) == []
    assert _orders(app) is None


def test_a_later_mail_replaces_the_earlier_one_whole(app) -> None:
    _deliver(app, "thunderbird_plain.eml")
    poll_maildir(app, NOW)
    _deliver(app, "other_sender.eml")
    poll_maildir(app, NOW)
    assert _orders(app) == ["DISTSQ 101 104"]
    assert "replace the orders you sent earlier" in _body(_outbox(app)[-1])


def test_polling_twice_applies_each_mail_once(app) -> None:
    _deliver(app, "thunderbird_plain.eml")
    poll_maildir(app, NOW)
    assert poll_maildir(app, NOW) == []
    assert len(_outbox(app)) == 1


def test_crash_between_commit_and_filing_applies_nothing_twice(app, monkeypatch: pytest.MonkeyPatch) -> None:
    """The process dies after the transaction committed but before the mail was
    moved out of the inbox: the next poll must not store or answer it again."""
    from turnproc.mail.maildir import MaildirInbox

    _deliver(app, "thunderbird_plain.eml")

    def die(self, key, folder):
        raise SystemExit("killed")

    monkeypatch.setattr(MaildirInbox, "file", die)
    with pytest.raises(SystemExit):
        poll_maildir(app, NOW)
    monkeypatch.undo()
    [result] = poll_maildir(app, NOW)
    assert result.outcome == "duplicate"
    assert len(_outbox(app)) == 1
    with app.sessions() as session:
        assert len(session.scalars(select(m.OrderSet)).all()) == 1
    assert len(mailbox.Maildir(app.config.maildir_in, create=False)) == 0


def test_a_mail_that_fails_is_rolled_back_alone_and_left_for_the_next_poll(
    app, monkeypatch: pytest.MonkeyPatch
) -> None:
    import turnproc.intake.inbox as intake

    real = intake.handle_mail

    def flaky(session, raw, *args, **kwargs):
        result = real(session, raw, *args, **kwargs)
        if b"b64-0005" in raw:
            raise RuntimeError("database hiccup")
        return result

    _deliver(app, "thunderbird_plain.eml")
    _deliver(app, "base64_body.eml")
    monkeypatch.setattr(intake, "handle_mail", flaky)
    results = poll_maildir(app, NOW)
    assert [r.outcome for r in results] == ["accepted", "failed"]  # the poll's summary counts it
    assert len(_outbox(app)) == 1  # the failed mail's ack was rolled back with it
    assert len(mailbox.Maildir(app.config.maildir_in, create=False)) == 1
    monkeypatch.undo()
    assert [r.outcome for r in poll_maildir(app, NOW)] == ["accepted"]
    assert len(_outbox(app)) == 2


def test_mail_we_cannot_place_gets_one_answer_an_hour(app) -> None:
    raw = (CORPUS / "unknown_game.eml").read_bytes().replace(b"newbie@example.net", b"ann@example.org")
    box = mailbox.Maildir(app.config.maildir_in, create=True)
    for i in range(4):
        box.add(raw.replace(b"unknown-0014", f"unknown-{i}".encode()))
    results = poll_maildir(app, NOW)
    assert [r.outcome for r in results] == ["rejected"] * 4
    assert len(_outbox(app)) == 1


def test_oversized_mail_is_answered_and_stores_nothing(app) -> None:
    raw = order_mail("TAX\n" * 70_000, subject="huge", message_id="<huge@example.org>")
    mailbox.Maildir(app.config.maildir_in, create=True).add(raw)
    [result] = poll_maildir(app, NOW)
    assert result.outcome == "rejected"
    assert _orders(app) is None
    assert "longer than 256 KiB" in _body(_outbox(app)[0])


def test_the_same_mail_twice_in_one_poll_is_applied_once(app) -> None:
    _deliver(app, "thunderbird_plain.eml")
    _deliver(app, "thunderbird_plain.eml")
    results = poll_maildir(app, NOW)
    assert sorted(r.outcome for r in results) == ["accepted", "duplicate"]
    assert len(_outbox(app)) == 1
