"""A password a player chooses must be hard to guess: zxcvbn's estimate and a
length floor, with the reason in the answer (docs/orders.md "PASSWORD"), on
SQLite and PostgreSQL. The guessing cost the documents state is computed here."""

from __future__ import annotations

import math
import re

import pytest
from sqlalchemy import select

from tests.factories import PASSWORD
from tests.security.host import NOW, deliver, mail, outbox, text_of
from turnproc.accounts.passwords import (
    GENERATED_BITS,
    INTAKE_MAILS_PER_SECOND,
    MIN_GUESSES_LOG10,
    expected_years,
    verify_password,
)
from turnproc.app import App
from turnproc.intake import poll_maildir
from turnproc.storage import models as m

#: The ten most common passwords (the head of zxcvbn's own frequency list).
MOST_COMMON = [
    "123456",
    "password",
    "12345678",
    "qwerty",
    "123456789",
    "12345",
    "1234",
    "111111",
    "1234567",
    "dragon",
]


def hash_of(app: App) -> str:
    with app.sessions() as session:
        return session.scalars(select(m.Empire.password_hash).where(m.Empire.code == "RIG")).one()


@pytest.mark.parametrize("weak", ["password12", *MOST_COMMON])
def test_a_common_password_is_refused_with_the_reason(app: App, weak: str) -> None:
    deliver(app, mail(f"PASSWORD {weak}"))
    [result] = poll_maildir(app, NOW)
    assert result.outcome == (
        "unchanged" if len(weak) < 10 else "commands"
    )  # the parser's refusal is an error line
    [ack] = outbox(app, "ack")
    text = text_of(ack)
    short = len(weak) < 10
    reason = (
        f"The new password cannot be used: it has {len(weak)} characters; a password needs at least 10"
        if short
        else "PASSWORD: not changed, the password is too easy to guess:"
        " This is a very common password (zxcvbn"
    )
    assert reason in text, text
    assert f"PASSWORD {weak}" not in text  # never echoed
    assert verify_password(PASSWORD, hash_of(app))


def test_a_password_zxcvbn_finds_guessable_is_refused_with_its_words(app: App) -> None:
    deliver(app, mail("PASSWORD corpus-RIG-2026"))
    poll_maildir(app, NOW)
    text = text_of(outbox(app, "ack")[0])
    assert "PASSWORD: not changed, the password is too easy to guess:" in text
    assert f"it must take 10^{MIN_GUESSES_LOG10} tries" in text
    assert verify_password(PASSWORD, hash_of(app))


def test_a_strong_chosen_password_is_taken(app: App) -> None:
    deliver(app, mail("PASSWORD quartz-lantern-odyssey-47"))
    poll_maildir(app, NOW)
    assert "PASSWORD: changed." in text_of(outbox(app, "ack")[0])
    assert verify_password("quartz-lantern-odyssey-47", hash_of(app))


def _sentence(path: str, start: str) -> str:
    with open(path, encoding="utf-8") as file:
        text = " ".join(file.read().split())
    found = re.search(re.escape(start) + r"[^.]*(?:\.\d[^.]*)*\.", text)
    assert found, f"{path} has no sentence starting {start!r}"
    return found.group(0)


def test_the_documented_guessing_cost_is_what_the_numbers_give() -> None:
    """docs/gm-handbook.md and docs/orders.md state the years an online
    guesser needs, at the most mails intake reads (benchmarks/guessing.py):
    computed here from the password space and the measured rate."""
    generated = f"{expected_years(2**GENERATED_BITS):,.0f}"
    chosen = f"{expected_years(10**MIN_GUESSES_LOG10):,.0f}"
    rate = f"{INTAKE_MAILS_PER_SECOND:,}"
    for path in ("docs/gm-handbook.md", "docs/orders.md"):
        sentence = _sentence(path, "Guessing by mail")
        assert f"{rate} mails a second" in sentence, sentence
        assert f"{generated} years" in sentence and f"{chosen} years" in sentence, sentence
    assert f"over {math.floor(GENERATED_BITS * 10) / 10} bits" in _sentence(
        "docs/gm-handbook.md", "A generated password"
    )
