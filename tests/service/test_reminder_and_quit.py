"""The reminder words the time really left, and an empire leaving (QUIT) is
not waited for: no early-run block, no reminder."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import update

from tests.service.conftest import FakeClock, Game, Outbox
from turnproc.service.worker import Service
from turnproc.storage import models as m
from turnproc.storage.db import transaction
from turnproc.turns.schedule import time_left

UTC = dt.timezone.utc
FRIDAY = dt.datetime(2026, 1, 9, 20, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "left, words",
    [
        (dt.timedelta(minutes=3), "about 3 minutes"),
        (dt.timedelta(seconds=20), "about 1 minute"),
        (dt.timedelta(minutes=59), "about 59 minutes"),
        (dt.timedelta(minutes=70), "about 1 hour"),
        (dt.timedelta(hours=23, minutes=59), "about 24 hours"),
    ],
)
def test_time_left_is_worded_from_the_real_time(left: dt.timedelta, words: str) -> None:
    assert time_left(FRIDAY, FRIDAY - left) == words


def test_a_reminder_three_minutes_before_the_deadline_says_so(
    service: Service, clock: FakeClock, game: Game, outbox: Outbox
) -> None:
    game.orders("RIG", clock.now)
    clock.set(FRIDAY - dt.timedelta(minutes=3))
    assert service.tick().actions == {"corpus": "remind"}
    [reminder] = outbox.rows("reminder")
    assert "in about 3 minutes." in reminder.body.decode()


def _quit(game: Game, code: str, when: dt.datetime) -> None:
    with transaction(game.app.sessions) as session:
        session.execute(update(m.Empire).where(m.Empire.code == code).values(quit_at=when))


def test_an_empire_that_sent_quit_does_not_block_the_early_run(
    service: Service, clock: FakeClock, game: Game, outbox: Outbox
) -> None:
    game.update(early_run=True, early_run_delay=10)
    _quit(game, "VEG", clock.now)
    game.orders("RIG", clock.now)
    clock.advance(minutes=10)
    assert service.tick().actions == {"corpus": "early"}
    assert game.turns() == [1]
    assert not game.empire("VEG").active  # gone with the turn, as QUIT says


def test_an_empire_that_sent_quit_gets_no_reminder(
    service: Service, clock: FakeClock, game: Game, outbox: Outbox
) -> None:
    _quit(game, "VEG", clock.now)
    clock.set(FRIDAY - dt.timedelta(hours=2))
    assert service.tick().actions == {"corpus": "remind"}
    assert [r.recipient for r in outbox.rows("reminder")] == ["ann@example.org"]
