"""The one Message-ID recipe (turnproc/outgoing/messageids.py): every id the
host makes is recognised as its own when it comes back, a mail that goes at
most once has the same id every time (and another game's differs), and a
capped mail's tag is found again by the caps' pattern."""

from __future__ import annotations

import datetime as dt
import re
from email.message import EmailMessage

from turnproc.mail.compose import compose
from turnproc.mail.hygiene import automatic_reason
from turnproc.outgoing.messageids import game_once_id, id_tag_pattern, message_id, once_message_id
from turnproc.storage import models as m

HOST = "Star Chase <turns@host.example>"
SHAPE = re.compile(r"^<turnproc\.([A-Za-z0-9-]+\.)*[0-9a-f]+@host\.example>$")


def like(pattern: str, text: str) -> bool:
    """SQL LIKE, as the outbox query reads the pattern (% any run, _ any one character)."""
    return (
        re.fullmatch("".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern), text)
        is not None
    )


def game(name: str, seed: str, id_: int) -> m.Game:
    return m.Game(name=name, seed=seed, id=id_)


def test_every_id_has_the_one_shape_and_our_domain() -> None:
    ids = [
        message_id(HOST),
        message_id(HOST, "address-confirm-7"),
        once_message_id(HOST, (), "set-aside", "ab12", 3),
        game_once_id(HOST, game("alpha", "s1", 1), "reminder", "t4", "E1"),
    ]
    for mid in ids:
        assert SHAPE.match(mid), mid


def test_a_mail_of_ours_that_comes_back_is_not_answered() -> None:
    for mid in (message_id(HOST), game_once_id(HOST, game("alpha", "s1", 1), "announce", "a1", "E1")):
        msg = EmailMessage()
        msg["From"] = "player@players.example"
        msg["Message-ID"] = mid
        assert automatic_reason(msg) == "our own mail came back"


def test_a_fresh_id_is_new_each_time() -> None:
    assert len({message_id(HOST) for _ in range(1000)}) == 1000


def test_a_mail_that_goes_once_has_one_id_per_game() -> None:
    alpha = game("alpha", "s1", 1)
    assert game_once_id(HOST, alpha, "deadline", "t4", "paused", "E1") == game_once_id(
        HOST, alpha, "deadline", "t4", "paused", "E1"
    )
    assert game_once_id(HOST, alpha, "deadline", "t4", "paused", "E1") != game_once_id(
        HOST, alpha, "deadline", "t4", "paused", "E2"
    )
    # A new game that reuses the name (a new seed, a new id) gets fresh ids.
    again = game("alpha", "s2", 2)
    assert game_once_id(HOST, alpha, "reminder", "t4", "E1") != game_once_id(
        HOST, again, "reminder", "t4", "E1"
    )
    # The announcement's mails are found by the start of their ids.
    assert game_once_id(HOST, alpha, "announce", "a3", "E1").startswith("<turnproc.announce.alpha.a3.")


def test_the_tag_pattern_finds_a_tagged_id_and_no_other() -> None:
    tagged = message_id(HOST, "player-quit-12")
    assert like(id_tag_pattern("player-quit-12"), tagged)
    assert not like(id_tag_pattern("player-quit-1"), tagged)
    assert not like(id_tag_pattern("player-quit-12"), message_id(HOST, "address-confirm-12"))


def test_the_id_goes_out_in_the_mail() -> None:
    mid = message_id(HOST)
    raw = compose(
        sender=HOST,
        recipient="player@players.example",
        subject="s",
        text="t",
        when=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
        message_id=mid,
    )
    assert f"Message-ID: {mid}".encode() in raw
