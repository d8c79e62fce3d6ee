"""Password hashes: the work factor each kind of secret gets, and hashes made
with other parameters (before a change) still verify."""

from __future__ import annotations

import hashlib

from turnproc.accounts.passwords import (
    generate_password,
    hash_chosen_password,
    hash_code,
    hash_password,
    hash_passwords,
    verify_password,
)


def _n(stored: str) -> int:
    return int(stored.split("$")[1])


def test_generated_passwords_chosen_ones_and_codes_get_their_own_work_factor() -> None:
    password = generate_password()
    assert len(password) == 12
    assert _n(hash_password(password)) == 2**9
    assert _n(hash_chosen_password("a long chosen phrase")) == 2**14
    assert _n(hash_code(generate_password(8))) == 2**12
    assert all(_n(h) == 2**9 for h in hash_passwords([generate_password() for _ in range(9)]))


def test_a_hash_made_with_the_old_parameters_still_verifies() -> None:
    # N = 2**12 was every generated password's factor before; such hashes stay in running games.
    old = hash_password("abcdefghjkmn", n=2**12)
    assert old.startswith("scrypt$4096$8$1$")
    assert verify_password("abcdefghjkmn", old)
    assert not verify_password("abcdefghjkmp", old)


def test_each_hash_has_its_own_salt_and_only_the_password_verifies() -> None:
    first, second = hash_password("same"), hash_password("same")
    assert first != second
    assert verify_password("same", first) and verify_password("same", second)
    assert not verify_password("Same", first)
    assert not verify_password("same", "scrypt$broken")
    assert not verify_password("same", "md5$" + hashlib.md5(b"same").hexdigest())
