"""Turn deadlines from a game's cron schedule and time zone."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from apscheduler.triggers.cron import CronTrigger

__all__ = ["DeadlineError", "cron_trigger", "next_deadline", "format_deadline"]


class DeadlineError(ValueError):
    pass


def cron_trigger(schedule: str, timezone: str) -> CronTrigger:
    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise DeadlineError(f"unknown time zone {timezone!r} (use an IANA name like Europe/London)") from None
    try:
        return CronTrigger.from_crontab(schedule, timezone=zone)
    except ValueError as exc:
        raise DeadlineError(f"bad cron expression {schedule!r}: {exc}") from None


def next_deadline(schedule: str | None, timezone: str, now: dt.datetime) -> dt.datetime | None:
    """The first deadline strictly after ``now``, in the game's zone."""
    if not schedule:
        return None
    trigger = cron_trigger(schedule, timezone)
    return trigger.get_next_fire_time(None, now.astimezone(ZoneInfo(timezone)))


def format_deadline(when: dt.datetime | None) -> str | None:
    if when is None:
        return None
    return when.strftime("%A %d %B %Y, %H:%M %Z")
