"""Deadline maths: cron schedules in IANA zones, daylight saving, catch-up."""

from __future__ import annotations

import datetime as dt
from itertools import islice, pairwise
from zoneinfo import ZoneInfo

import pytest

from turnproc.timing.deadlines import DeadlineError, deadlines_after, due_deadline, next_deadline

UTC = dt.timezone.utc
LONDON = ZoneInfo("Europe/London")
NEW_YORK = ZoneInfo("America/New_York")


def utc(*args: int) -> dt.datetime:
    return dt.datetime(*args, tzinfo=UTC)


def fires(schedule: str, zone: str, start: dt.datetime, n: int) -> list[dt.datetime]:
    return [f.astimezone(UTC) for f in islice(deadlines_after(schedule, zone, start), n)]


def test_weekday_numbers_are_standard_cron_and_times_are_local() -> None:
    # 5 = Friday in standard cron; 20:00 London is 20:00 UTC in winter, 19:00 UTC in summer.
    assert fires("0 20 * * 5", "Europe/London", utc(2026, 1, 5), 1) == [utc(2026, 1, 9, 20)]
    assert fires("0 20 * * 5", "Europe/London", utc(2026, 7, 1), 1) == [utc(2026, 7, 3, 19)]


def test_strictly_after() -> None:
    assert next_deadline("0 3 * * *", "UTC", utc(2026, 1, 5, 3)) == utc(2026, 1, 6, 3)
    assert next_deadline(None, "UTC", utc(2026, 1, 5)) is None


@pytest.mark.parametrize(
    "zone, schedule, start, expected",
    [
        # London springs forward at 01:00 GMT on 29 March 2026: 01:30 does not
        # exist that night; the deadline comes an hour of wall time later, once.
        (
            "Europe/London",
            "30 1 * * *",
            utc(2026, 3, 27, 12),
            [utc(2026, 3, 28, 1, 30), utc(2026, 3, 29, 1, 30), utc(2026, 3, 30, 0, 30)],
        ),
        # London falls back at 01:00 GMT on 25 October: 01:30 happens twice; the
        # deadline fires at the first, not again at the second.
        (
            "Europe/London",
            "30 1 * * *",
            utc(2026, 10, 23, 12),
            [utc(2026, 10, 24, 0, 30), utc(2026, 10, 25, 0, 30), utc(2026, 10, 26, 1, 30)],
        ),
        # New York springs forward on 8 March 2026 (02:00 → 03:00).
        (
            "America/New_York",
            "30 2 * * *",
            utc(2026, 3, 6, 12),
            [utc(2026, 3, 7, 7, 30), utc(2026, 3, 8, 7, 30), utc(2026, 3, 9, 6, 30)],
        ),
        # New York falls back on 1 November 2026 (01:00-02:00 twice).
        (
            "America/New_York",
            "30 1 * * *",
            utc(2026, 10, 30, 12),
            [utc(2026, 10, 31, 5, 30), utc(2026, 11, 1, 5, 30), utc(2026, 11, 2, 6, 30)],
        ),
    ],
    ids=["london-spring", "london-autumn", "new-york-spring", "new-york-autumn"],
)
def test_daylight_saving_neither_skips_nor_doubles(
    zone: str, schedule: str, start: dt.datetime, expected: list[dt.datetime]
) -> None:
    assert fires(schedule, zone, start, 3) == expected


def test_a_wildcard_hour_runs_by_elapsed_time_through_the_repeated_hour() -> None:
    # Every 30 minutes means every 30 minutes of real time, also in the hour
    # the clocks repeat.
    got = fires("*/30 * * * *", "Europe/London", utc(2026, 10, 24, 23, 45), 6)
    assert got == [utc(2026, 10, 25, 0, 0) + dt.timedelta(minutes=30 * i) for i in range(6)]
    assert len(set(got)) == 6


@pytest.mark.parametrize("zone", ["Europe/London", "America/New_York"])
@pytest.mark.parametrize("month, day", [(3, 1), (10, 20)])
def test_a_clock_walking_through_a_transition_sees_each_daily_deadline_once(
    zone: str, month: int, day: int
) -> None:
    """The worker's view: a tick every 7 minutes for three weeks around each
    transition, recording the due deadline as the worker does."""
    schedule = "30 1 * * *" if month == 10 else "30 2 * * *"
    now = utc(2026, month, day)
    last = now
    runs: list[dt.datetime] = []
    for _ in range(3 * 7 * 24 * 60 // 7):
        now += dt.timedelta(minutes=7)
        due = due_deadline(schedule, zone, last, now)
        if due is not None:
            runs.append(due)
            last = due
    local_days = [r.astimezone(ZoneInfo(zone)).date() for r in runs]
    assert len(runs) == 21
    assert len(set(local_days)) == 21  # one a day, every day
    assert all(b - a <= dt.timedelta(hours=25) for a, b in pairwise(runs))


def test_catch_up_is_one_deadline_the_latest() -> None:
    # Down from Monday to the next Wednesday: three Fridays... no, one Friday passed; then a month.
    last = utc(2026, 1, 5, 12)
    assert due_deadline("0 20 * * 5", "Europe/London", last, utc(2026, 1, 9, 19, 59)) is None
    assert due_deadline("0 20 * * 5", "Europe/London", last, utc(2026, 1, 9, 20, 0)) == utc(2026, 1, 9, 20)
    assert due_deadline("0 20 * * 5", "Europe/London", last, utc(2026, 2, 4)) == utc(2026, 1, 30, 20)
    # Once recorded, nothing more is due until the next Friday.
    assert due_deadline("0 20 * * 5", "Europe/London", utc(2026, 1, 30, 20), utc(2026, 2, 4)) is None


def test_catch_up_after_a_long_outage_on_a_busy_schedule_is_quick() -> None:
    last = utc(2025, 1, 1)
    now = utc(2026, 1, 1, 0, 7, 30)
    assert due_deadline("* * * * *", "UTC", last, now) == utc(2026, 1, 1, 0, 7)
    # A yearly deadline found across several years.
    assert due_deadline("0 0 29 2 *", "UTC", utc(2020, 3, 1), utc(2026, 1, 1)) == utc(2024, 2, 29)


def test_no_schedule_or_no_anchor_is_never_due() -> None:
    assert due_deadline(None, "UTC", utc(2026, 1, 1), utc(2026, 2, 1)) is None
    assert due_deadline("0 3 * * *", "UTC", None, utc(2026, 2, 1)) is None


@pytest.mark.parametrize(
    "schedule, zone", [("0 3 * *", "UTC"), ("0 25 * * *", "UTC"), ("0 3 * * *", "Mars/Olympus")]
)
def test_bad_schedules_are_errors(schedule: str, zone: str) -> None:
    with pytest.raises(DeadlineError):
        next_deadline(schedule, zone, utc(2026, 1, 1))


def test_the_deadline_players_are_told_is_the_one_the_worker_runs() -> None:
    """Acknowledgements and reports name ``next_deadline``: in the hour between
    the two 01:30s of a fall-back night it must not name the second one."""
    after_first = utc(2026, 10, 25, 0, 45)  # 01:45 BST, the 01:30 deadline has just run
    assert next_deadline("30 1 * * *", "Europe/London", after_first) == utc(2026, 10, 26, 1, 30)
    assert due_deadline("30 1 * * *", "Europe/London", utc(2026, 10, 25, 0, 30), utc(2026, 10, 26, 0)) is None
    # Strictly after: at the deadline itself, the next one.
    assert next_deadline("0 3 * * *", "UTC", utc(2026, 1, 5, 3)) == utc(2026, 1, 6, 3)
