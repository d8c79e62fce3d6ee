"""JOIN is double opt-in (docs/orders.md, "Joining a game by mail";
docs/gm-handbook.md, "Sign-up by mail"): forged sign-ups, which can never
answer the code mailed to the address they name, take no home, tell the GM
nothing, and refusing one mails nobody. Real Dovecot and SMTP, SQLite and
PostgreSQL."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select

from tests.mail.test_player_commands import GM, Host, _stored, stranger, to
from tests.mail.test_signup import JOIN, NOW, ZED, cli, host, join, requests  # noqa: F401 (the fixture)
from turnproc.games.signup import UNCONFIRMED_PER_GAME
from turnproc.storage import models as m


def forged(count: int, start: int = 0) -> list[bytes]:
    return [
        stranger(
            f'JOIN spring26 F{chr(65 + i % 26)}{chr(65 + i // 26)} "Fake {i}"', f"victim{i}@third.example"
        )
        for i in range(start, start + count)
    ]


def test_forged_sign_ups_never_fill_the_game(host: Host, capsys: pytest.CaptureFixture[str]) -> None:
    """Before, 27 forged JOINs took every free home as requests waiting for
    the GM, each told the GM, and a real JOIN got "game is full"."""
    assert cli(capsys, "game", "signup", "spring26", "--open")[0] == 0
    sent = host.mail(*forged(6), stranger(JOIN, "zed-forged@third.example"))  # the real one's code too
    assert to(sent, GM) == []  # the GM hears of a request only once its code came back
    assert len(sent) == 7 and all("CONFIRM" in s.text for s in sent)  # each code to the address it names
    sent = join(host)
    assert host.outcome() == "signup"
    assert "is with the game master" in to(sent, ZED)[0].text and len(to(sent, GM)) == 1
    code, out, _ = cli(capsys, "game", "show", "spring26")
    assert "1 request(s) waiting" in out and "Fake" not in out


def test_refusing_an_unconfirmed_sign_up_mails_nobody(host: Host, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "game", "signup", "spring26", "--open")
    host.mail(*forged(1))
    code, out, _ = cli(capsys, "empire", "refuse", "spring26", "FAA")
    assert code == 0
    assert host.mail() == []
    assert cli(capsys, "empire", "approve", "spring26", "FAA")[0] == 1


def test_refusing_a_confirmed_sign_up_mails_once(host: Host, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "game", "signup", "spring26", "--open")
    join(host)
    assert cli(capsys, "empire", "refuse", "spring26", "ZED")[0] == 0
    assert [s.to for s in host.mail()] == [ZED]
    assert cli(capsys, "empire", "refuse", "spring26", "ZED")[0] == 1
    assert host.mail() == []


def test_unconfirmed_sign_ups_are_capped_per_game_and_per_address(
    host: Host, capsys: pytest.CaptureFixture[str]
) -> None:
    cli(capsys, "game", "signup", "spring26", "--open")
    host.mail(*forged(UNCONFIRMED_PER_GAME))
    (answer,) = host.mail(*forged(1, start=UNCONFIRMED_PER_GAME))
    assert "too many sign-ups wait for their codes" in answer.text
    # One request per address: a second JOIN from it (past the hour) replaces the first.
    host.mail(
        stranger('JOIN spring26 FAA "Fake again"', "victim0@third.example"), now=NOW + dt.timedelta(hours=2)
    )
    with host.app.sessions() as session:
        names = session.scalars(
            select(m.SignupRequest.name).where(m.SignupRequest.email == "victim0@third.example")
        ).all()
    assert names == ["Fake again"]


def test_a_wrong_code_or_one_from_another_address_confirms_nothing(
    host: Host, capsys: pytest.CaptureFixture[str]
) -> None:
    cli(capsys, "game", "signup", "spring26", "--open")
    host.mail(stranger(JOIN))
    later = NOW + dt.timedelta(hours=2)  # past the hour's one answer to the address
    (answer,) = host.mail(stranger("CONFIRM zzzzzzzz"), now=later)
    assert "that is not the code" in answer.text
    assert (
        host.mail(stranger("CONFIRM zzzzzzzz", "eve@elsewhere.example"), now=later) == []
    )  # nothing waits there: unanswered
    assert requests(host) == [("ZED", ZED, "pending")]
    code, out, _ = cli(capsys, "game", "show", "spring26")
    assert "request(s) waiting" not in out or "0 request(s) waiting" in out


def test_a_code_works_for_48_hours(host: Host, capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "game", "signup", "spring26", "--open")
    (mail,) = host.mail(stranger(JOIN))
    secret = mail.text.split("CONFIRM ")[1].split()[0]
    with host.app.sessions() as session:  # delivered, the code is no longer stored in clear
        assert not any(secret.encode() in _stored(row) for row in session.scalars(select(m.OutboxMail)))
    # Expired, it waits nowhere: like any stranger's mail naming no game, unanswered.
    assert host.mail(stranger(f"CONFIRM {secret}"), now=NOW + dt.timedelta(hours=48, minutes=1)) == []
    assert requests(host) == [("ZED", ZED, "pending")]  # never confirmed: the GM cannot approve it
    assert cli(capsys, "empire", "approve", "spring26", "ZED")[0] == 1


def test_one_code_an_hour_goes_to_an_address_however_spelled(
    host: Host, capsys: pytest.CaptureFixture[str]
) -> None:
    cli(capsys, "game", "signup", "spring26", "--open")
    assert len(host.mail(stranger(JOIN))) == 1
    assert host.mail(stranger('JOIN spring26 ZZZ "Zed Again"', "Zed+x@Elsewhere.example")) == []
