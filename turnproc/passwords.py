"""Empire passwords: generated for the player, stored only as a salted scrypt hash."""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

__all__ = ["generate_password", "hash_password", "hash_chosen_password", "hash_passwords", "verify_password"]

# Words a player can read off a report and type on a phone: no 0/O, 1/l/I.
_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
# Passwords the host generates are 12 symbols from 31 (about 59 bits): a random
# 59-bit secret is out of reach of brute force at any work factor, so their
# hash's cost guards little. N = 2**12 keeps scrypt memory-hard while a poll of
# 2,000 mails from 200 empires verifies in seconds.
# A player may choose their own (the PASSWORD mail command). People choose
# guessable words, and there the work factor is what stands between a stolen
# database and the password (which the player may use elsewhere): those are
# hashed with N = 2**14 (16 MiB, four times the work), and the command refuses
# short and repetitive ones (rules/commands.py). Verifying costs more only for
# the empires whose players chose; a poll checks each empire's password once.
# The parameters are stored with each hash, so raising them later re-hashes
# nothing and breaks nothing.
_N, _R, _P = 2**12, 8, 1
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


def hash_chosen_password(password: str) -> str:
    """The stored form of a password a player chose: a higher work factor."""
    return hash_password(password, n=_N_CHOSEN)


def hash_passwords(passwords: Sequence[str]) -> list[str]:
    """:func:`hash_password` of each, on every CPU: hashlib's scrypt lets go of
    the interpreter lock, so a GM importing 500 players waits for 500 / CPUs
    hashes, each at the full cost above (nothing is weakened for speed)."""
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
