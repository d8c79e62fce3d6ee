"""Turn deadlines from a game's cron schedule and time zone."""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from apscheduler.triggers.cron import CronTrigger

__all__ = ["DeadlineError", "cron_trigger", "next_deadline", "format_deadline"]


class DeadlineError(ValueError):
    pass


_DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")


def _standard_day_of_week(field: str) -> str:
    """Standard cron counts days from Sunday = 0 (7 too); APScheduler 3 from
    Monday = 0. A GM writes standard cron, so numbers become day names."""
    return re.sub(r"(?<![/\w])([0-7])(?![\w])", lambda mt: _DAY_NAMES[int(mt.group(1)) % 7], field)


def cron_trigger(schedule: str, timezone: str) -> CronTrigger:
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
            minute=minute, hour=hour, day=day, month=month,
            day_of_week=_standard_day_of_week(weekday), timezone=zone,
        )
    except ValueError as exc:
        raise DeadlineError(f"bad cron expression {schedule!r}: {exc}") from None


def next_deadline(schedule: str | None, timezone: str, now: dt.datetime) -> dt.datetime | None:
    """The first deadline strictly after ``now``, in the game's zone."""
    if not schedule:
        return None
    trigger = cron_trigger(schedule, timezone)
    fire: dt.datetime | None = trigger.get_next_fire_time(None, now.astimezone(ZoneInfo(timezone)))
    return fire


def format_deadline(when: dt.datetime | None) -> str | None:
    if when is None:
        return None
    return when.strftime("%A %d %B %Y, %H:%M %Z")
