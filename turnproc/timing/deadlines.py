"""Turn deadlines from a game's cron schedule and time zone.

Deadlines follow the zone's wall clock. On a daylight-saving fall-back a
schedule naming its hours fires once, at the first of the two repeated times
(a wildcard hour fires by elapsed time, so in both); in a spring-forward gap
the deadline comes at the same offset past the gap. None is skipped or doubled.

APScheduler is imported where a schedule is read, not with this module: a
game without one (and the commands that only show dates) never needs it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

if TYPE_CHECKING:
    # For the annotations only (see the module's docstring).
    from apscheduler.triggers.cron import CronTrigger

__all__ = [
    "DeadlineError",
    "cron_trigger",
    "deadlines_after",
    "next_deadline",
    "due_deadline",
    "format_deadline",
    "in_zone",
    "local_text",
]

_UTC = dt.timezone.utc


class DeadlineError(ValueError):
    pass


_DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")


def _standard_day_of_week(field: str) -> str:
    """Standard cron counts days from Sunday = 0 (7 too); APScheduler 3 from
    Monday = 0. A GM writes standard cron, so numbers become day names."""
    return re.sub(r"(?<![/\w])([0-7])(?![\w])", lambda mt: _DAY_NAMES[int(mt.group(1)) % 7], field)


def cron_trigger(schedule: str, timezone: str) -> CronTrigger:
    # Here, not at the top (see the module's docstring).
    from apscheduler.triggers.cron import CronTrigger

    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise DeadlineError(f"unknown time zone {timezone!r} (use an IANA name like Europe/London)") from None
    try:
        fields = schedule.split()
        if len(fields) != 5:
            raise ValueError(f"expected 5 fields (minute hour day month weekday), got {len(fields)}")
        minute, hour, day, month, weekday = fields
        return CronTrigger(
            minute=minute,
            hour=hour,
            day=day,
            month=month,
            day_of_week=_standard_day_of_week(weekday),
            timezone=zone,
        )
    except ValueError as exc:
        raise DeadlineError(f"bad cron expression {schedule!r}: {exc}") from None


@lru_cache(maxsize=256)
def _trigger(schedule: str, timezone: str) -> tuple[CronTrigger, ZoneInfo, bool]:
    trigger = cron_trigger(schedule, timezone)
    # A schedule naming its hours fires by the wall clock: once per local time.
    # One with a wildcard hour fires by elapsed time: a repeated hour runs again.
    wall_clock = schedule.split()[1] not in ("*", "*/1")
    return trigger, ZoneInfo(timezone), wall_clock


def deadlines_after(schedule: str, timezone: str, after: dt.datetime) -> Iterator[dt.datetime]:
    """The schedule's deadlines strictly after ``after``, in order, in the game's zone."""
    trigger, zone, wall_clock = _trigger(schedule, timezone)
    cursor = after.astimezone(zone)
    while True:
        # Passing the cursor as the previous fire time makes APScheduler search
        # from cursor + 1 µs in UTC; with previous=None it can step backwards
        # inside a repeated hour and never get out.
        fire: dt.datetime | None = trigger.get_next_fire_time(cursor, cursor)
        if fire is None:
            return
        # Compare in UTC: two datetimes of one zone compare by wall clock,
        # blind to the fold, so 01:00 (second time) would look before 01:30.
        if fire.astimezone(_UTC) <= cursor.astimezone(_UTC):  # a defence against an endless loop
            # Here, not at the top (see the module's docstring); loaded with the trigger.
            from apscheduler.util import datetime_utc_add

            cursor = datetime_utc_add(cursor, dt.timedelta(seconds=1))
            continue
        cursor = fire
        local = fire.astimezone(zone)
        if wall_clock and local.fold == 1:
            continue  # the second 01:30 of a fall-back night: already fired at the first
        yield local


def next_deadline(schedule: str | None, timezone: str, now: dt.datetime) -> dt.datetime | None:
    """The first deadline strictly after ``now``, in the game's zone: the one
    the worker acts on, so acknowledgements and reports name that one."""
    if not schedule:
        return None
    return next(deadlines_after(schedule, timezone, now), None)


_WINDOWS = (
    dt.timedelta(days=1),
    dt.timedelta(days=8),
    dt.timedelta(days=32),
    dt.timedelta(days=367),
    dt.timedelta(days=1462),
)


def due_deadline(
    schedule: str | None, timezone: str, last: dt.datetime | None, now: dt.datetime
) -> dt.datetime | None:
    """The latest deadline in ``(last, now]``, or None when none has passed.

    All deadlines missed since ``last`` collapse into this one: acting on it and
    recording it as ``last`` runs the turn once after any outage.
    """
    if not schedule or last is None:
        return None
    first = next_deadline(schedule, timezone, last)
    if first is None or first > now:
        return None
    # Walk only the recent past: an every-minute schedule after a month's
    # outage must not cost 40,000 steps. Some window holds a deadline, since
    # ``first`` is one; the widest starts at ``last`` itself.
    for window in (*_WINDOWS, None):
        start = last if window is None else max(last, now - window)
        latest: dt.datetime | None = None
        for when in deadlines_after(schedule, timezone, start):
            if when > now:
                break
            latest = when
        if latest is not None:
            return latest
    return first  # unreachable: the last window starts at ``last``


def format_deadline(when: dt.datetime | None) -> str | None:
    if when is None:
        return None
    return when.strftime("%A %d %B %Y, %H:%M %Z")


def in_zone(when: dt.datetime, timezone: str) -> dt.datetime:
    """``when`` in the game's zone (UTC if the zone is unknown: a GM's SQL may
    have put a bad one in, and no player's mail must fail on it)."""
    try:
        zone: dt.tzinfo = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        zone = _UTC
    return when.astimezone(zone)


def local_text(when: dt.datetime | None, timezone: str) -> str | None:
    """``when`` as players read it, in the game's zone."""
    return None if when is None else format_deadline(in_zone(when, timezone))
