"""Retry timing for something that fails (a server, a game)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

__all__ = ["Backoff"]


@dataclass
class Backoff:
    """The delay doubles from ``base`` up to ``cap`` seconds and resets on success."""

    base: float = 5.0
    cap: float = 300.0
    failures: int = 0
    retry_at: dt.datetime | None = None
    since: dt.datetime | None = None
    """When the current run of failures began."""
    noticed: bool = False
    """The GM has been told about this run of failures."""

    def ready(self, now: dt.datetime) -> bool:
        return self.retry_at is None or now >= self.retry_at

    def failed(self, now: dt.datetime) -> float:
        self.failures += 1
        if self.since is None:
            self.since = now
        delay = min(self.cap, self.base * 2.0 ** (self.failures - 1))
        self.retry_at = now + dt.timedelta(seconds=delay)
        return delay

    def succeeded(self) -> bool:
        """Reset; True when this ends a run of failures."""
        was_failing = self.failures > 0
        self.failures, self.retry_at, self.since, self.noticed = 0, None, None, False
        return was_failing
