"""The one read-model of a game and the one home of its deadline, with no
SQLAlchemy in it: the views every layer above storage reads (:class:`GameView`,
:class:`EmpireView`), what ``game show`` prints (:class:`GameSummary`,
:class:`PlayerSummary`), what is due and what is coming, and the only two
functions that use a deadline up or move one.

Both readers build these: the ORM's (``queries``) and the DB-API's
(``plainread``, the GM's prompt, which loads no SQLAlchemy), so the types live
where neither drags the other in.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..timing import deadlines

if TYPE_CHECKING:
    # For the annotations only: the models load SQLAlchemy.
    from . import models as m

__all__ = [
    "EmpireView",
    "GameView",
    "GameSummary",
    "PlayerSummary",
    "GameColumns",
    "view_of",
    "current_deadline",
    "deadline_due",
    "consume_deadline",
    "move_deadline",
    "current_deadline_text",
    "current_deadline_or_none",
]


@dataclass(frozen=True)
class EmpireView:
    id: int
    code: str
    name: str
    email: str
    active: bool
    vp: int = 0
    orders_at: dt.datetime | None = None
    """When the orders on file for the current turn arrived; None: no orders."""
    wait: bool = False
    """The orders on file carry WAIT: no early run."""
    reminded: bool = False
    """A reminder for the current turn was already queued."""
    on_leave: bool = False
    """On leave (VACATION) for the current turn: not expected to send orders."""
    quitting: bool = False
    """Sent QUIT: goes inactive when this turn runs, so not expected to send orders."""

    def as_row(self) -> dict[str, Any]:
        """The empire as ``empire list --json`` and ``game show --json`` print it."""
        return {
            "code": self.code,
            "name": self.name,
            "email": self.email,
            "active": self.active,
            "vp": self.vp,
            "orders_in": self.orders_at is not None,
            "wait": self.wait,
        }


@dataclass(frozen=True)
class GameView:
    """A game as every layer above storage sees it, read in one transaction."""

    id: int
    name: str
    turn: int
    status: str
    schedule: str | None
    timezone: str
    last_deadline_at: dt.datetime | None
    opened_at: dt.datetime
    """When the current turn began: the last turn's run, else the game's creation."""
    last_run_at: dt.datetime | None = None
    """When the last turn on record ran; None before the first."""
    modules: str = ""
    ruleset: int = 2
    """Rule-set version (rules.md §19)."""
    deadline_override: dt.datetime | None = None
    """A deadline the GM set by hand for the current turn; replaces the schedule's."""
    early_run: bool = False
    early_run_delay: int = 30
    reminder_hours: int = 24
    inactive_after: int = 5
    nmr_limit: int = 50
    hold: bool = False
    staged_turn: int | None = None
    """A resolved turn waiting for the GM's release (a game on hold): no turn
    runs, no early run or reminder happens, until it is released or discarded."""
    empires: tuple[EmpireView, ...] = ()
    """Loaded only when asked for (``load_game_view(..., empires=True)``)."""

    @property
    def active_empires(self) -> list[EmpireView]:
        """The empires expected to send orders: active, not on leave, and not
        leaving when this turn runs (QUIT)."""
        return [e for e in self.empires if e.active and not e.on_leave and not e.quitting]

    @property
    def missing(self) -> list[str]:
        """Expected empires with no orders on file."""
        return [e.code for e in self.active_empires if e.orders_at is None]

    @property
    def signature(self) -> tuple[str | None, str, str, dt.datetime | None]:
        """What, when it changes, makes deadlines count afresh from the change."""
        return (self.schedule, self.timezone, self.status, self.deadline_override)


@dataclass(frozen=True)
class GameSummary:
    """What ``game show`` prints: the game, its galaxy's size, its empires."""

    view: GameView
    systems: int
    free_homes: int
    next_deadline: dt.datetime | None
    """In the game's time zone; None without a schedule or while paused."""
    suppressed: tuple[tuple[dt.datetime, str, str, str], ...] = ()
    """The latest answers not sent: (when, recipient, kind, why)."""
    turn_limit: int = 30
    vp_target: int = 100

    def as_dict(self) -> dict[str, Any]:
        """The summary as ``game show --json`` prints it (the handbook lists the keys)."""
        v = self.view
        deadline = self.next_deadline
        return {
            "name": v.name,
            "turn": v.turn,
            "status": v.status,
            "rules": v.modules,
            "turn_limit": self.turn_limit,
            "vp_target": self.vp_target,
            "schedule": v.schedule,
            "timezone": v.timezone,
            "next_deadline": deadline.isoformat(timespec="minutes") if deadline else None,
            "next_deadline_utc": deadline.astimezone(dt.timezone.utc).isoformat(timespec="minutes")
            if deadline
            else None,
            "deadline_set_by_gm": v.deadline_override is not None,
            "hold": v.hold,
            "staged_turn": v.staged_turn,
            "early_run": v.early_run,
            "early_run_delay": v.early_run_delay,
            "reminder_hours": v.reminder_hours,
            "inactive_after": v.inactive_after,
            "nmr_limit": v.nmr_limit,
            "systems": self.systems,
            "free_homes": self.free_homes,
            "waiting": [e.code for e in v.empires if e.wait and e.orders_at is not None],
            "missing": v.missing,
            "empires": [e.as_row() for e in v.empires],
            "suppressed": [
                {"at": at.isoformat(timespec="seconds"), "recipient": r, "kind": k, "reason": why}
                for at, r, k, why in self.suppressed
            ],
        }


@dataclass(frozen=True)
class PlayerSummary:
    """What ``game show`` says about sign-up, leave and quitting."""

    signup_open: bool
    signup_limit: int | None
    pending: tuple[tuple[str, str, str], ...]
    """(code, name, address) of each request waiting for the GM."""
    vacation_limit: int
    on_leave: tuple[tuple[str, int], ...]
    """(code, last turn of leave) of each empire on leave now."""
    quitting: tuple[str, ...]
    """Empires that sent QUIT: inactive when the current turn runs."""


class GameColumns(Protocol):
    """A game's row as :func:`view_of` reads it: the ORM's ``models.Game`` or
    ``plainread.GameRow``."""

    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def turn(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def modules(self) -> str | None: ...
    @property
    def ruleset(self) -> int: ...
    @property
    def schedule(self) -> str | None: ...
    @property
    def timezone(self) -> str: ...
    @property
    def last_deadline_at(self) -> dt.datetime | None: ...
    @property
    def deadline_override(self) -> dt.datetime | None: ...
    @property
    def early_run(self) -> bool: ...
    @property
    def early_run_delay(self) -> int: ...
    @property
    def reminder_hours(self) -> int: ...
    @property
    def inactive_after(self) -> int: ...
    @property
    def nmr_limit(self) -> int: ...
    @property
    def hold(self) -> bool: ...
    @property
    def created_at(self) -> dt.datetime: ...


def view_of(
    game: GameColumns,
    *,
    opened_at: dt.datetime | None = None,
    staged_turn: int | None = None,
    empires: tuple[EmpireView, ...] = (),
) -> GameView:
    """The view of a row already in hand (its columns as they are now)."""
    return GameView(
        id=game.id,
        name=game.name,
        turn=game.turn,
        status=game.status,
        modules=game.modules or "",
        ruleset=game.ruleset,
        schedule=game.schedule or None,
        timezone=game.timezone,
        last_deadline_at=game.last_deadline_at,
        deadline_override=game.deadline_override,
        early_run=bool(game.early_run),
        early_run_delay=game.early_run_delay,
        reminder_hours=game.reminder_hours,
        inactive_after=game.inactive_after,
        nmr_limit=game.nmr_limit,
        hold=bool(game.hold),
        opened_at=opened_at or game.created_at,
        last_run_at=opened_at,
        staged_turn=staged_turn,
        empires=empires,
    )


def current_deadline(view: GameView, now: dt.datetime) -> dt.datetime | None:
    """When the current turn closes, in the game's zone: the GM's hand-set
    deadline if there is one (even one just passed: the turn runs at once),
    else the schedule's next deadline. None without either.

    The schedule counts from the last deadline acted on when that is later
    than ``now`` (clocks of two hosts may disagree), so it never names a
    deadline that was already used.

    Raises :class:`turnproc.timing.deadlines.DeadlineError` for a bad schedule.
    """
    if view.deadline_override is not None:
        return deadlines.in_zone(view.deadline_override, view.timezone)
    after = max(now, view.last_deadline_at or now)
    return deadlines.next_deadline(view.schedule, view.timezone, after)


def deadline_due(view: GameView, now: dt.datetime) -> dt.datetime | None:
    """The deadline that has passed and not been acted on, or None: the GM's
    hand-set deadline once it has passed, else the schedule's latest deadline
    since the last one acted on (after an outage every deadline missed
    collapses into this one, so the turn runs once).

    With :func:`current_deadline` (the one coming) and the two writers below,
    the one home of a game's deadline: nothing else reads or writes its fields.
    """
    if view.deadline_override is not None:
        return view.deadline_override if view.deadline_override <= now else None
    return deadlines.due_deadline(view.schedule, view.timezone, view.last_deadline_at, now)


def consume_deadline(game: m.Game, used: dt.datetime | None = None) -> None:
    """The current turn's deadline is used up: a turn ran (at ``used``, its
    deadline, or early, or by hand), the guard or a staged turn kept it
    (``used``), or the game went back to an earlier turn. The schedule counts
    on from ``used`` (never back), and a deadline the GM set by hand, which
    was for this turn only, is gone."""
    if used is not None and (game.last_deadline_at is None or used > game.last_deadline_at):
        game.last_deadline_at = used
    game.deadline_override = None


def move_deadline(
    game: m.Game, *, to: dt.datetime | None = None, count_from: dt.datetime | None = None
) -> None:
    """The deadline moves without a turn: the GM sets this turn's deadline by
    hand (``to``, until the turn runs), or the schedule counts afresh from
    ``count_from`` (a new schedule, a resumed game, a worker that first sees a
    change) so that no deadline before it ever runs."""
    if to is not None:
        game.deadline_override = to.astimezone(dt.UTC)
    if count_from is not None:
        game.last_deadline_at = count_from


def current_deadline_or_none(view: GameView, now: dt.datetime) -> dt.datetime | None:
    """:func:`current_deadline`, or None for a broken schedule (the worker
    reports that to the GM; a player's report must not fail on it)."""
    try:
        return current_deadline(view, now)
    except deadlines.DeadlineError:
        return None


def current_deadline_text(view: GameView, now: dt.datetime) -> str | None:
    """:func:`current_deadline` as players read it; None for a broken schedule
    (the worker reports that to the GM; a player's mail must not fail on it)."""
    try:
        return deadlines.format_deadline(current_deadline(view, now))
    except deadlines.DeadlineError:
        return None
