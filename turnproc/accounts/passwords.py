"""Empire passwords: generated for the player, stored only as a salted scrypt hash."""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import os
import secrets
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

__all__ = [
    "generate_password",
    "hash_password",
    "hash_code",
    "hash_chosen_password",
    "hash_passwords",
    "verify_password",
    "GENERATED_BITS",
    "MIN_GUESSES_LOG10",
    "INTAKE_MAILS_PER_SECOND",
    "chosen_password_weakness",
    "expected_years",
]

# Words a player can read off a report and type on a phone: no 0/O, 1/l/I.
_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
# Passwords the host generates are 12 symbols from 31, drawn by `secrets`:
# 12 * log2(31) = 59.4 bits. Their hash's work factor guards little: whoever
# steals the database must still try 2**58 passwords on average, and at the
# N = 2**9 used here (r = 8: 512 KiB of memory, about 1.4 ms of one core per
# try on the 2-core test machine) that is some twelve million CPU-years per
# empire (the salt makes every empire a search of its own). Even at 400,000
# tries a second (a GPU; litecoin's scrypt ASICs compute N = 2**10 but only
# with r = 1, and cannot run r = 8) it is some 20,000 GPU-years. What the work
# factor does cost is the host's own time: every order mail is verified, on
# the same two cores that read and answer it. A night of 1,000 order mails at
# N = 2**12 (9 ms each here) was half of the intake's time; at N = 2**10
# (2.5 ms) intake measured 230-250 mails/s, at N = 2**9 300-320
# (benchmarks/intake.py). So N = 2**9: still memory-hard, still far out of
# reach for a random 59-bit secret. The factor is for that secret only: a
# password a person chose gets thirty-two times the work (below).
# A player may choose their own (the PASSWORD mail command). People choose
# guessable words, and there the work factor is what stands between a stolen
# database and the password (which the player may use elsewhere): those are
# hashed with N = 2**14 (16 MiB, thirty-two times the work); the parser
# refuses short and repetitive ones (orders/commands.py) and
# :func:`chosen_password_weakness` what zxcvbn finds guessable. Verifying
# costs more only for the empires whose players chose, and only for a
# password that matches the empire's keyed tag (turnproc/accounts/passwordkey.py): a
# flood of wrong guesses costs no scrypt.
# The address-change codes (8 symbols, about 40 bits, valid for hours) are
# shorter secrets: they keep N = 2**12, and are verified rarely.
# The parameters are stored with each hash, so changing them re-hashes
# nothing and breaks nothing: hashes made before this change (N = 2**12) keep
# verifying, at their old cost, until the password is next set. They are not
# re-hashed on verify: a hash does not tell a generated password from one a
# player chose before chosen ones had their own factor, and re-hashing those
# at N = 2**9 would weaken exactly the guessable ones.
# Intake verifies each (empire, password) at most once per poll, on a thread
# pool (scrypt lets go of the interpreter lock), and keeps the outcome only in
# memory for that poll, keyed by a SHA-256 of the password: nothing beyond the
# stored scrypt hash outlives the poll (intake/prepare.py).
_N, _R, _P = 2**9, 8, 1

#: Generated passwords: 12 symbols from :data:`_ALPHABET`.
GENERATED_BITS = 12 * math.log2(31)
#: A chosen password must take zxcvbn's estimate of at least 10**12 guesses
#: (its top score, 4, starts at 10**10): at :data:`INTAKE_MAILS_PER_SECOND`
#: a guess a mail, half of 10**12 takes years (:func:`expected_years`), where
#: 10**10 would take weeks.
MIN_GUESSES_LOG10 = 12
#: The most mails a second intake reads, all of them guesses (wrong
#: passwords, ruled out by their tag: the cheapest mail that still names an
#: empire). Every online guess costs a mail, so this bounds how fast anyone
#: guesses. benchmarks/guessing.py measured 1.64 ms of CPU a forged mail on
#: an idle 2-core machine (610 a CPU-second, at most about 1,220 a second on
#: both cores, though the poll itself runs on one); the figure is twice that,
#: rounded up, for a faster host, so the years it gives
#: (:func:`expected_years`) are lower bounds.
INTAKE_MAILS_PER_SECOND = 2500
_N_CODE = 2**12
_N_CHOSEN = 2**14


def generate_password(length: int = 12) -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(length))


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def hash_password(password: str, *, n: int = _N) -> str:
    """The stored form of a password the host generated (or of a code)."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=_R, p=_P, dklen=32)
    return f"scrypt${n}${_R}${_P}${_b64(salt)}${_b64(digest)}"


def hash_code(code: str) -> str:
    """The stored form of an address-change code: shorter than a password, so
    its hash keeps the higher work factor (see above)."""
    return hash_password(code, n=_N_CODE)


def hash_chosen_password(password: str) -> str:
    """The stored form of a password a player chose: a higher work factor."""
    return hash_password(password, n=_N_CHOSEN)


def hash_passwords(passwords: Sequence[str]) -> list[str]:
    """:func:`hash_password` of each, on every CPU: hashlib's scrypt lets go of
    the interpreter lock, so a GM importing 500 players waits for 500 / CPUs
    hashes, each at the cost argued above (the threads weaken nothing)."""
    if len(passwords) < 8:
        return [hash_password(p) for p in passwords]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return list(pool.map(hash_password, passwords))


def verify_password(password: str, stored: str) -> bool:
    """Constant-time check of ``password`` against a :func:`hash_password` value."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(digest)
        actual = hashlib.scrypt(
            password.encode("utf-8"),
            salt=base64.b64decode(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(expected),
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(actual, expected)


def chosen_password_weakness(password: str, *context: str) -> str | None:
    """Why a password a player chose may not be used, in zxcvbn's words (its
    warning, else its estimate); None when it may. ``context``: words an
    attacker would try first (the game, the empire's code and name)."""
    # Here, not at the top: its word lists cost every command that hashes or
    # checks a password a twentieth of a second, and only a chosen password needs them.
    import zxcvbn

    # zxcvbn's time grows with the length; 128 symbols (the parser's most) is milliseconds.
    found = zxcvbn.zxcvbn(password[:128], user_inputs=[c for c in context if c])
    if found["guesses_log10"] >= MIN_GUESSES_LOG10:
        return None
    feedback = found["feedback"]
    why = feedback["warning"] or f"it could be guessed in about 10^{int(found['guesses_log10'])} tries"
    hint = (
        " ".join(feedback["suggestions"])
        or "A longer one, e.g. four unrelated words joined by hyphens, is better."
    )
    return f"{why.rstrip('.')} (zxcvbn; it must take 10^{MIN_GUESSES_LOG10} tries). {hint}"


def expected_years(guesses: float, per_second: float = INTAKE_MAILS_PER_SECOND) -> float:
    """Years an online guesser needs on average to find a password among
    ``guesses`` equally likely ones (half of them), one guess a mail at
    ``per_second`` mails."""
    return guesses / 2 / per_second / (365.25 * 24 * 3600)
