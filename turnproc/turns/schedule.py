"""What the worker decides: small functions of a game's view and ``now``.

Which deadline is due, whether the missed-orders guard stops the turn, whether
an early run is due, who needs a reminder, and when deadlines must count
afresh. They read a :class:`GameView` and a clock and change nothing, so they
are tested with a fake clock and no scheduler; ``turnproc.service.worker`` applies
what they decide.

Rules the GM's handbook (deploy/OPERATIONS.md) explains:

* A deadline is a fire time of the game's cron schedule in its time zone. On a
  daylight-saving fall-back a wall-clock schedule (a fixed hour) fires once,
  at the first of the two repeated times; a spring-forward gap moves the
  deadline to the same offset past the gap. No deadline is skipped or doubled.
* Catch-up: every deadline passed since ``Game.last_deadline_at`` counts as
  one: after an outage the turn runs once, not once per missed deadline.
* A schedule the worker sees change (SQL or CLI), and a game resumed, count
  deadlines only from then on; a new schedule never runs a turn retroactively.
* An early run moves the turn forward, never the schedule: the next turn's
  deadline is the next scheduled one, as every acknowledgement says.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Literal

from ..storage.queries import GameView, current_deadline, deadline_due

__all__ = [
    "nmr_guard",
    "Refusal",
    "run_refusal",
    "early_run_at",
    "reminder_start",
    "time_left",
    "Action",
    "Decision",
    "IDLE",
    "decide",
    "anchor_time",
]

UTC = dt.timezone.utc


def nmr_guard(active: int, missing: int, limit_percent: int) -> bool:
    """True when the turn must be held: more than ``limit_percent`` % of the
    active empires sent no orders (usually the mail feed broke, not the players)."""
    return active > 0 and missing * 100 > limit_percent * active


@dataclass(frozen=True)
class Refusal:
    """Why the current turn must not run now, in one line."""

    kind: Literal["blocked", "guard", "too_soon"]
    """blocked: a staged turn waits for the GM's release; guard: the
    missed-orders guard; too_soon: the last turn ran less than the minimum
    interval ago (a second ``turn run`` by hand, a cron job beside the GM)."""
    text: str
    empires: tuple[str, ...] = ()
    """guard and blocked: the expected empires without orders."""

    @property
    def forcible(self) -> bool:
        """A GM may run the turn anyway (``turn run --force``); never past a
        staged turn, which must be released or discarded first."""
        return self.kind != "blocked"


def run_refusal(
    view: GameView, now: dt.datetime, *, min_interval: dt.timedelta | None = None
) -> Refusal | None:
    """Whether the current turn may run now: None, or why not. The one guard
    of both runners: the worker at a deadline (no ``min_interval``: its
    schedule spaces the turns) and ``turnproc turn run`` by hand."""
    missing = tuple(view.missing)
    if view.staged_turn is not None:
        return Refusal(
            "blocked",
            f"turn {view.staged_turn} of game {view.name} is staged for the GM: "
            f"turnproc turn release {view.name} (or turn discard) first",
            missing,
        )
    if min_interval is not None and view.last_run_at is not None and now - view.last_run_at < min_interval:
        ago = max(0, int((now - view.last_run_at).total_seconds()))
        return Refusal(
            "too_soon",
            f"turn {view.turn - 1} of game {view.name} ran {_duration(ago)} ago, less than the "
            f"{_duration(int(min_interval.total_seconds()))} a turn must wait (min_turn_interval): "
            f"turn {view.turn} is not run",
        )
    active = len(view.active_empires)
    if nmr_guard(active, len(missing), view.nmr_limit):
        return Refusal(
            "guard",
            f"the missed-orders guard holds turn {view.turn} of game {view.name}: {len(missing)} of {active} "
            f"active empires have no orders on file (more than {view.nmr_limit} %)",
            missing,
        )
    return None


def _duration(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    minutes = round(seconds / 60)
    if minutes < 120:
        return f"{minutes} minutes"
    return f"{round(minutes / 60)} hours"


def time_left(deadline: dt.datetime, now: dt.datetime) -> str:
    """How long until ``deadline``, as a reminder words it: "about 3 minutes",
    "about 1 hour", "about 20 hours" (never "1 hour" for 3 minutes)."""
    minutes = max(1, round((deadline - now).total_seconds() / 60))
    if minutes < 60:
        return f"about {minutes} minute{'s' if minutes != 1 else ''}"
    hours = round(minutes / 60)
    return f"about {hours} hour{'s' if hours != 1 else ''}"


def early_run_at(view: GameView) -> dt.datetime | None:
    """When the early run is due: ``early_run_delay`` minutes after the last
    active empire's orders came in; None when it is off, someone is missing,
    or an empire sent WAIT."""
    if not view.early_run:
        return None
    active = view.active_empires
    if not active or any(e.orders_at is None for e in active):
        return None
    with_orders = [e for e in view.empires if e.orders_at is not None]
    if any(e.wait for e in with_orders):
        return None
    latest = max(e.orders_at for e in with_orders if e.orders_at is not None)
    return latest + dt.timedelta(minutes=view.early_run_delay)


def reminder_start(deadline: dt.datetime, hours: int, opened_at: dt.datetime | None) -> dt.datetime | None:
    """When reminders for ``deadline`` may go out: ``hours`` before it, but not
    before half the turn has passed (a daily game with the default 24 hours
    would otherwise remind everyone the moment the reports went out)."""
    if hours <= 0:
        return None
    deadline = deadline.astimezone(UTC)  # elapsed hours, not wall-clock ones, across a clock change
    start = deadline - dt.timedelta(hours=hours)
    if opened_at is not None and opened_at < deadline:
        start = max(start, opened_at + (deadline - opened_at) / 2)
    return start


Action = Literal["idle", "run", "guard", "skip", "blocked", "early", "remind"]


@dataclass(frozen=True)
class Decision:
    action: Action
    deadline: dt.datetime | None = None
    """run/guard/skip/blocked: the deadline acted on; remind: the one coming."""
    empires: tuple[str, ...] = ()
    """run/guard/blocked: the active empires without orders; remind: who to remind."""


IDLE = Decision("idle")


def decide(view: GameView, now: dt.datetime) -> Decision:
    """What to do for one game now; at most one action per pass."""
    if view.status != "active":
        return IDLE
    due = deadline_due(view, now)
    if due is not None:
        if not view.empires:
            return Decision("skip", due)  # a game still being set up: nothing to run
        refusal = run_refusal(view, now)
        # blocked: the players have not seen the last turn yet, so this one
        # waits for the next deadline after the release. guard: not "hold",
        # which is the GM's staging.
        if refusal is not None:
            return Decision("blocked" if refusal.kind == "blocked" else "guard", due, refusal.empires)
        return Decision("run", due, tuple(view.missing))
    if view.staged_turn is not None:
        return IDLE
    early = early_run_at(view)
    if early is not None and now >= early:
        return Decision("early")
    if view.reminder_hours > 0 and (view.schedule or view.deadline_override):
        coming = current_deadline(view, now)
        start = reminder_start(coming, view.reminder_hours, view.opened_at) if coming else None
        if coming is not None and start is not None and start <= now < coming:
            who = tuple(e.code for e in view.active_empires if e.orders_at is None and not e.reminded)
            if who:
                return Decision("remind", coming, who)
    return IDLE


def anchor_time(
    view: GameView, seen: tuple[tuple[Any, ...], dt.datetime] | None, now: dt.datetime
) -> dt.datetime | None:
    """A new ``last_deadline_at`` when deadlines must count afresh, else None.

    ``seen`` is this process's last look at the game: (signature, when). A game
    scheduled for the first time counts from now; one whose schedule, zone,
    status or override changed since the last look counts from that look (the
    change happened after it), so a deadline between the change and this pass
    still runs and none before the change ever does. A change made while no
    worker was running cannot be told from an outage: the catch-up rule applies.
    """
    if not view.schedule:
        return None
    if view.last_deadline_at is None:
        return seen[1] if seen is not None and seen[0] != view.signature else now
    if seen is not None and seen[0] != view.signature and seen[1] > view.last_deadline_at:
        return seen[1]
    return None
