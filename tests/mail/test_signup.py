"""Sign-up by mail end to end: the GM opens a game (``game signup``), a JOIN
mail from an unknown address goes through the real Dovecot, the GM approves
or refuses it on the command line, and every answer goes out over real SMTP;
on SQLite and PostgreSQL. Also ``game set`` and what ``game show`` says.
"""

from __future__ import annotations

import datetime as dt
import re
from email import message_from_bytes, policy

import pytest
from sqlalchemy import select

from tests.conftest import IMAP_PASSWORD, IMAP_USER
from tests.factories import imap_app
from tests.mail.test_player_commands import GM, Host, Sent, _stored, player, stranger, to
from turnproc.accounts.passwords import verify_password
from turnproc.cli import main
from turnproc.games.game import add_empire, new_game
from turnproc.storage import models as m
from turnproc.storage.db import transaction

NOW = dt.datetime(2026, 1, 5, 19, 0, tzinfo=dt.timezone.utc)
ZED = "zed@elsewhere.example"
JOIN = 'JOIN spring26 ZED "Zedonian Reach"'


@pytest.fixture
def host(db_url: str, imap, smtp_server, monkeypatch: pytest.MonkeyPatch, tmp_path):
    app = imap_app(
        db_url,
        imap.port,
        smtp_server.port,
        IMAP_USER,
        IMAP_PASSWORD,
        gm_address=GM,
        stranger_replies_per_hour=50,
    )
    with transaction(app.sessions) as session:
        game, _ = new_game(session, "spring26", players=3, seed="signup-seed")
        add_empire(session, game, "RIG", "Rigel League", "ann@example.org")
    # The CLI reads the same database and mails through the same SMTP sink.
    config = tmp_path / "turnproc.toml"
    config.write_text(
        f'database_url = "{db_url}"\ntransport = "imap"\nfrom_address = "{app.config.from_address}"\n'
        f'gm_address = "{GM}"\n[smtp]\nhost = "127.0.0.1"\nport = {smtp_server.port}\nsecurity = "plain"\n'
        f'[imap]\nhost = "127.0.0.1"\nport = {imap.port}\nsecurity = "plain"\n'
        f'user = "{IMAP_USER}"\npassword = "{IMAP_PASSWORD}"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("TURNPROC_CONFIG", str(config))
    yield Host(app, smtp_server)
    app.close()


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def join(host: Host, line: str = JOIN, sender: str = ZED, now: dt.datetime = NOW) -> list[Sent]:
    """A JOIN and the code it mails back, confirmed: what the second mail's poll sent."""
    (confirm,) = to(host.mail(stranger(line, sender), now=now), sender)
    found = re.search(r"CONFIRM (\w+)", confirm.text)
    assert found is not None, confirm.text
    return host.mail(stranger(f"CONFIRM {found.group(1)}", sender), now=now)


def requests(host: Host) -> list[tuple[str, str, str]]:
    with host.app.sessions() as session:
        return [
            (r.code, r.email, r.status)
            for r in session.scalars(select(m.SignupRequest).order_by(m.SignupRequest.id))
        ]


def test_join_while_sign_up_is_closed_is_refused(host: Host) -> None:
    (answer,) = host.mail(stranger(JOIN))
    assert answer.to == ZED and "game spring26 is not taking sign-ups now" in answer.text
    assert requests(host) == []


def test_join_approved_creates_the_empire_and_mails_the_password(host: Host, capsys) -> None:
    assert cli(capsys, "game", "signup", "spring26", "--open", "--limit", "3")[0] == 0
    sent = join(host)
    assert host.outcome() == "signup"
    (received,) = to(sent, ZED)
    assert "is with the game master" in received.text
    (request,) = to(sent, GM)
    assert "turnproc empire approve spring26 ZED" in request.text
    assert requests(host) == [("ZED", ZED, "pending")]
    code, out, _ = cli(capsys, "game", "show", "spring26")
    assert code == 0 and "sign-up: open, at most 3 empires; 1 request(s) waiting" in out
    assert "waiting: ZED Zedonian Reach <zed@elsewhere.example>" in out

    code, out, _ = cli(capsys, "empire", "approve", "spring26", "zed")
    assert code == 0 and "empire ZED (Zedonian Reach) added to spring26" in out
    assert "password" not in out.split(";")[0]
    (welcome,) = host.mail()
    assert welcome.to == ZED and "Your password: " in welcome.text
    password = welcome.text.split("Your password: ")[1].split()[0]
    with host.app.sessions() as session:
        empire = session.scalars(select(m.Empire).where(m.Empire.code == "ZED")).one()
        assert empire.email == ZED and verify_password(password, empire.password_hash)
        # The welcome's figures are the empire's (as REPORT 0 and the acknowledgement give them).
        assert f"Balance for turn 1:  {empire.balance} BP" in welcome.text and empire.treasury == 50
        assert f"# Balance {empire.balance} BP, treasury 50 BP" in welcome.text
    assert requests(host) == [("ZED", ZED, "approved")]
    # The new player's mail is now a player's mail.
    host.mail(player("ORDERS", game="spring26", empire="ZED", password=password, sender=ZED))
    assert host.outcome() == "commands"


def test_refusal_tells_the_applicant_the_reason(host: Host, capsys) -> None:
    cli(capsys, "game", "signup", "spring26", "--open")
    join(host)
    code, out, _ = cli(capsys, "empire", "refuse", "spring26", "ZED", "--reason", "club members only")
    assert code == 0 and "refused" in out
    (answer,) = host.mail()
    assert answer.to == ZED and "Reason: club members only" in answer.text
    assert requests(host) == [("ZED", ZED, "refused")]
    assert cli(capsys, "empire", "approve", "spring26", "ZED")[0] == 1  # nothing waits any more


@pytest.mark.parametrize(
    "line,sender,reason",
    [
        ('JOIN spring26 RIG "Second Rigel"', ZED, "the code RIG is taken in game spring26"),
        (
            'JOIN spring26 ANN "Ann Again"',
            "ann@example.org",
            "ann@example.org already plays in game spring26",
        ),
        ('JOIN spring26 R1G "Digits"', ZED, '"R1G" is not an empire code'),
    ],
)
def test_join_failures_are_answered_with_the_reason(
    host: Host, capsys, line: str, sender: str, reason: str
) -> None:
    cli(capsys, "game", "signup", "spring26", "--open")
    sent = host.mail(stranger(line, sender))
    assert [s.to for s in sent] == [sender]
    assert reason in sent[0].text
    assert requests(host) == []


def test_a_full_game_refuses_more_requests(host: Host, capsys) -> None:
    cli(capsys, "game", "signup", "spring26", "--open", "--limit", "2")
    join(host)
    (answer,) = host.mail(stranger('JOIN spring26 YON "Yonder"', "yo@elsewhere.example"))
    assert "game spring26 is full" in answer.text
    assert [r[0] for r in requests(host)] == ["ZED"]


def test_a_second_request_from_the_same_address_is_refused(host: Host, capsys) -> None:
    cli(capsys, "game", "signup", "spring26", "--open")
    join(host)
    (answer,) = host.mail(stranger('JOIN spring26 ZZZ "Again"'), now=NOW + dt.timedelta(hours=2))
    assert host.outcome() == "rejected"
    assert f"{ZED} already has a request waiting in game spring26" in answer.text
    assert [r[0] for r in requests(host)] == ["ZED"]


def test_join_for_a_game_not_here_is_not_answered(host: Host) -> None:
    assert host.mail(stranger('JOIN nosuch ZED "Z"')) == []
    assert host.outcome() == "rejected"


def test_game_set_changes_the_settings_and_refuses_bad_values(host: Host, capsys) -> None:
    code, out, _ = cli(
        capsys, "game", "set", "spring26", "--turn-limit", "40", "--vp-target", "120", "--vacation-limit", "1"
    )
    assert code == 0 and "turn limit 40, VP target 120, vacations of at most 1 turns" in out
    code, _, err = cli(capsys, "game", "set", "spring26", "--vacation-limit", "101")
    assert code == 1 and "--vacation-limit 101" in err
    code, _, err = cli(capsys, "game", "set", "spring26", "--name", "corpus")
    assert code == 1 and "already exists" in err
    code, out, _ = cli(capsys, "game", "set", "spring26", "--name", "autumn26")
    assert code == 0 and out.startswith("game autumn26:")
    with host.app.sessions() as session:
        game = session.scalars(select(m.Game).where(m.Game.name == "autumn26")).one()
        assert (game.turn_limit, game.vp_target, game.vacation_limit) == (40, 120, 1)


def test_game_show_lists_vacations_and_quits(host: Host, capsys) -> None:
    host.mail(player("VACATION 2"), player("QUIT", empire="VEG"))
    code, out, _ = cli(capsys, "game", "show", "corpus")
    assert code == 0
    assert "vacations (at most 3 turns): RIG until turn 2" in out
    assert "leaving when this turn runs (QUIT): VEG" in out
    assert "sign-up: closed" in out


def test_approval_prints_no_password_and_mails_it_to_the_applicant(host: Host, capsys) -> None:
    cli(capsys, "game", "signup", "spring26", "--open")
    join(host)
    code, out, err = cli(capsys, "empire", "approve", "spring26", "ZED")
    assert code == 0
    (welcome,) = host.mail()
    password = welcome.text.split("Your password: ")[1].split()[0]
    assert password not in out + err
    raw = host.smtp.messages[-1][2]
    assert message_from_bytes(raw, policy=policy.default)["To"] == ZED
    # Delivered: the outbox keeps no copy of the password.
    with host.app.sessions() as session:
        bodies = [_stored(row) for row in session.scalars(select(m.OutboxMail))]
    assert bodies and not any(password.encode() in body for body in bodies)


def test_a_join_beyond_the_answer_cap_is_not_kept(host: Host, capsys) -> None:
    """Its code could not be mailed, so it could never be confirmed."""
    cli(capsys, "game", "signup", "spring26", "--open")
    host.mail(stranger("HELP"))  # this address's one answer this hour
    sent = host.mail(stranger(JOIN))
    assert sent == []
    assert requests(host) == []
    with host.app.sessions() as session:
        assert session.scalars(select(m.SuppressedReply.kind)).all() == ["stranger"]
