"""Intake verifies each (empire, password) at most once per poll, on a thread
pool, a batch ahead of the mails that need the answers, and a flood of
guesses costs it scrypt only for the guesses that match the empire's password tag."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from tests.factories import EMAILS
from tests.mail.test_mail_safety import GOOD, NOW, Box, box, mail_at  # noqa: F401 - box is the fixture
from turnproc.accounts.passwordkey import load_key
from turnproc.accounts.passwords import verify_password
from turnproc.intake import inbox, prepare
from turnproc.intake.ahead import FetchAhead
from turnproc.intake.cache import IntakeCache
from turnproc.storage import models as m


class Counted:
    """verify_password as intake calls it (from pool threads too), counted."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, password: str, stored: str) -> bool:
        with self._lock:
            self.calls.append(password)
        return verify_password(password, stored)


@pytest.fixture
def scrypt(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counted]:
    counted = Counted()
    monkeypatch.setattr(prepare, "verify_password", counted)
    yield counted


@pytest.fixture(params=[100, 3], ids=["one-batch", "batches-of-3"])
def batch(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """The poll's batch size: with small batches each batch's passwords are
    handed over while the batch before is handled (cache.read_ahead)."""
    monkeypatch.setattr(inbox, "BATCH", request.param)
    return int(request.param)


def test_each_empire_and_password_is_verified_once_a_poll(box: Box, scrypt: Counted, batch: int) -> None:
    rig = [mail_at(i, GOOD) for i in range(3)]
    veg_wrong = [mail_at(10 + i, "TAX", empire="VEG", password="not-it") for i in range(2)]
    veg = mail_at(20, "TAX", empire="VEG")
    box.deliver(*rig, *veg_wrong, veg)
    outcomes = [r.outcome for r in box.poll()]
    assert outcomes == ["accepted"] * 3 + ["wrong_password"] * 2 + ["accepted"]
    # RIG's password, VEG's wrong one, VEG's right one: three, not six.
    assert len(scrypt.calls) == 3
    # Nothing is kept beyond the poll: the next poll verifies again.
    box.deliver(mail_at(30, GOOD))
    assert [r.outcome for r in box.poll(NOW + dt.timedelta(minutes=30))] == ["accepted"]
    assert len(scrypt.calls) == 4


def _tag_rules_out(box: Box, code: str, passwords: list[str]) -> list[bool]:
    """Whether the empire's password tag rules out each of ``passwords`` (no scrypt)."""
    key = load_key(box.app.config)
    with box.app.sessions() as session:
        empire = session.scalars(select(m.Empire).where(m.Empire.code == code)).one()
        return [key.rules_out(empire.id, empire.password_hash, empire.password_tag, p) for p in passwords]


def test_a_flood_of_guesses_costs_scrypt_only_for_a_tag_match(box: Box, scrypt: Counted, batch: int) -> None:
    """The empire is tagged by its first correct mail (made before tags, it
    had none); then only a guess that matches the 12-bit tag reaches scrypt."""
    box.deliver(mail_at(0, GOOD))
    assert [r.outcome for r in box.poll()] == ["accepted"]
    assert len(scrypt.calls) == 1
    guesses = [f"guess{i}" for i in range(40)]
    box.deliver(
        *(mail_at(1 + i, GOOD, sender="mallory@evil.example", password=g) for i, g in enumerate(guesses))
    )
    assert [r.outcome for r in box.poll(NOW + dt.timedelta(minutes=5))] == ["wrong_password"] * 40
    ruled_out = _tag_rules_out(box, "RIG", guesses)
    assert scrypt.calls[1:] == [g for g, out in zip(guesses, ruled_out) if not out]
    assert sum(ruled_out) >= 30  # one in 4,096 matches: never ten of forty


def test_the_owners_mail_is_checked_among_any_number_of_guesses(
    box: Box, scrypt: Counted, batch: int
) -> None:
    guesses = [mail_at(i, GOOD, sender=EMAILS["RIG"], password=f"guess{i}") for i in range(12)]
    box.deliver(*guesses, mail_at(40, GOOD, sender=EMAILS["RIG"]))
    outcomes = [r.outcome for r in box.poll()]
    assert outcomes == ["wrong_password"] * 12 + ["accepted"]


def test_the_next_batchs_passwords_are_handed_over_before_this_batch_commits(
    box: Box, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches of three: the second batch's passwords go to the pool while the
    first is handled, once the second is fetched, before the first's rows are
    written; and every mail ends as it does in one batch."""
    monkeypatch.setattr(inbox, "BATCH", 3)
    events: list[str] = []
    submit, write_rows = prepare.PasswordChecks.submit, IntakeCache.write_rows

    def submitted(self: prepare.PasswordChecks, empire_id: int, stored: str, password: str) -> bool:
        handed = submit(self, empire_id, stored, password)
        if handed:
            events.append(password)
        return handed

    def written(self: IntakeCache, session: object) -> None:
        events.append("write")
        write_rows(self, session)  # type: ignore[arg-type]

    def fetched(self: FetchAhead) -> bool:
        # As on a night: the next batch is fetched long before this one is
        # handled (here three mails are handled quicker than they are fetched).
        if self._next is not None:
            self._next.exception(timeout=30)
        return True

    monkeypatch.setattr(prepare.PasswordChecks, "submit", submitted)
    monkeypatch.setattr(IntakeCache, "write_rows", written)
    monkeypatch.setattr(FetchAhead, "fetched", fetched)
    senders = [f"p{i}@example.net" for i in range(6)]
    box.deliver(*(mail_at(i, GOOD, sender=s, password=f"guess{i}") for i, s in enumerate(senders)))
    assert [r.outcome for r in box.poll()] == ["wrong_password"] * 6
    first_write = events.index("write")
    assert {"guess3", "guess4", "guess5"} <= set(events[:first_write])
    assert sorted(e for e in events if e != "write") == [f"guess{i}" for i in range(6)]  # each once


def test_a_look_at_the_next_batch_never_waits_and_raises_nothing() -> None:
    ready = False
    fetched: list[int] = []

    def batches() -> Iterator[list[tuple[int, bytes]]]:
        for i in range(2):
            fetched.append(i)
            yield [(i, b"")]
        raise OSError("the server went away while filing")

    upcoming = inbox._Upcoming(batches(), lambda: ready)
    seen = []
    with pytest.raises(OSError, match="went away"):
        for batch in upcoming:
            seen.append(batch[0][0])
            if not ready:
                assert upcoming.peek() is None and fetched == [0]  # not fetched yet: not waited for
                ready = True
            # The failure after the last batch comes out of the loop, not the look.
            assert upcoming.peek() == ([(1, b"")] if batch[0][0] == 0 else None)
    assert seen == [0, 1]


@pytest.mark.parametrize("cores, threads", [(1, 1), (2, 1), (8, 7)])
def test_the_pool_leaves_a_core_to_the_poll(
    monkeypatch: pytest.MonkeyPatch, cores: int, threads: int
) -> None:
    monkeypatch.setattr(prepare.os, "cpu_count", lambda: cores)
    assert prepare._pool_size() == threads


def test_an_answer_needed_before_the_pool_began_on_it_is_verified_by_the_poll(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One pool thread, busy with one mail's slow hash: the next mail's
    password is verified by the poll's own thread when it needs the answer,
    not waited for, and still only once."""
    from turnproc.accounts.passwords import hash_password

    started, release = threading.Event(), threading.Event()
    calls: list[tuple[str, str]] = []

    def verify(password: str, stored: str) -> bool:
        calls.append((password, threading.current_thread().name))
        if password == "slow":
            started.set()
            release.wait(10)
        return verify_password(password, stored)

    monkeypatch.setattr(prepare, "verify_password", verify)
    checks = prepare.PasswordChecks(workers=1)
    try:
        slow, quick = hash_password("slow"), hash_password("quick")
        assert checks.submit(1, slow, "slow")
        started.wait(10)
        assert checks.submit(2, quick, "quick")
        assert checks.check(2, quick, "quick") is True
        assert checks.check(2, quick, "wrong") is False
        assert calls[1] == ("quick", threading.current_thread().name)
        release.set()
        assert checks.check(1, slow, "slow") is True
        assert [p for p, _ in calls] == ["slow", "quick", "wrong"]
        assert calls[0][1].startswith("scrypt")
    finally:
        release.set()
        checks.close()
