"""The one read-model of a game: its row, its empires and its current deadline.

Everything above storage that needs to know about a game — intake, the turn
run, the GM's commands, the worker's decisions — reads it as a
:class:`GameView`, loaded here, and asks :func:`current_deadline` when the
turn closes. Lookups a GM makes by name refuse with :class:`GMError`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from ..errors import GMError
from ..timing import deadlines
from . import models as m
from .mailkinds import MailKind

__all__ = [
    "EmpireView",
    "GameView",
    "load_game_view",
    "view_of",
    "current_deadline",
    "deadline_due",
    "consume_deadline",
    "move_deadline",
    "current_deadline_text",
    "current_deadline_or_none",
    "get_game",
    "get_empire",
    "list_games",
    "galaxy_counts",
    "orders_on_file",
    "withdraw_orders",
    "replies_last_hour",
    "replies_last_hour_to",
    "staged_record",
    "suppressed_replies",
]

Lock = Literal["share", "update"] | None


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


def view_of(
    game: m.Game,
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


def load_game_view(
    session: Session,
    *,
    game_id: int | None = None,
    name: str | None = None,
    lock: Lock = None,
    empires: bool = True,
) -> tuple[m.Game, GameView] | None:
    """The game row (by id, or by name ignoring case) and its view.

    ``lock="update"`` locks the row for the rest of the transaction (a turn
    run, the worker acting); ``lock="share"`` lets readers in but makes a turn
    run wait (intake). On SQLite, BEGIN IMMEDIATE already holds the write lock.
    """
    query = select(m.Game).execution_options(populate_existing=True)
    if game_id is not None:
        query = query.where(m.Game.id == game_id)
    elif name is not None:
        query = query.where(func.lower(m.Game.name) == name.lower())
    else:
        raise TypeError("load_game_view needs game_id or name")
    if lock is not None:
        query = query.with_for_update(read=lock == "share")
    game = session.scalars(query).first()
    if game is None:
        return None
    if not empires:
        return game, view_of(game)
    last_run = session.scalar(select(func.max(m.TurnRecord.ran_at)).where(m.TurnRecord.game_id == game.id))
    staged = session.scalar(
        select(func.max(m.TurnRecord.number)).where(
            m.TurnRecord.game_id == game.id, m.TurnRecord.staged.is_(True)
        )
    )
    return game, view_of(game, opened_at=last_run, staged_turn=staged, empires=_empires(session, game))


def _empires(session: Session, game: m.Game) -> tuple[EmpireView, ...]:
    orders: dict[int, tuple[dt.datetime, bool]] = {}
    for empire_id, received_at, wait, parsed in session.execute(
        select(m.OrderSet.empire_id, m.OrderSet.received_at, m.OrderSet.wait, m.OrderSet.orders)
        .where(m.OrderSet.game_id == game.id, m.OrderSet.turn == game.turn, m.OrderSet.active.is_(True))
        .order_by(m.OrderSet.id)
    ):
        # The newest submission counts; "orders in" means at least one order
        # (sets stored empty before migration 0004 do not count).
        if parsed:
            orders[empire_id] = (received_at, wait)
        else:
            orders.pop(empire_id, None)
    reminded = set(
        session.scalars(
            select(m.OutboxMail.recipient).where(
                m.OutboxMail.game_id == game.id,
                m.OutboxMail.kind == MailKind.REMINDER,
                m.OutboxMail.turn == game.turn,
            )
        )
    )
    rows = session.execute(
        select(
            m.Empire.id,
            m.Empire.code,
            m.Empire.name,
            m.Empire.email,
            m.Empire.active,
            m.Empire.vp,
            m.Empire.vacation_until,
            m.Empire.quit_at,
        )
        .where(m.Empire.game_id == game.id)
        .order_by(m.Empire.code)
    ).all()
    return tuple(
        EmpireView(
            id=eid,
            code=code,
            name=name,
            email=email,
            active=bool(active),
            vp=vp,
            orders_at=orders[eid][0] if eid in orders else None,
            wait=orders[eid][1] if eid in orders else False,
            reminded=email in reminded,
            on_leave=leave is not None and leave >= game.turn,
            quitting=quit_at is not None,
        )
        for eid, code, name, email, active, vp, leave, quit_at in rows
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


def get_game(session: Session, name: str) -> m.Game:
    game = session.scalar(select(m.Game).where(m.Game.name == name))
    if game is None:
        known = session.scalars(select(m.Game.name).order_by(m.Game.name)).all()
        hint = (
            f" (games: {', '.join(known)})" if known else " (there are no games yet: turnproc game new NAME)"
        )
        raise GMError(f"no game named {name!r}{hint}")
    return game


def get_empire(session: Session, game: m.Game, code: str) -> m.Empire:
    empire = session.scalar(
        select(m.Empire).where(m.Empire.game_id == game.id, m.Empire.code == code.upper())
    )
    if empire is None:
        raise GMError(f"game {game.name!r} has no empire {code.upper()!r}")
    return empire


def list_games(session: Session) -> list[m.Game]:
    return list(session.scalars(select(m.Game).order_by(m.Game.name)))


def galaxy_counts(session: Session, game_id: int) -> tuple[int, int]:
    """(systems, free homes) of a game."""
    systems, free = session.execute(
        select(
            func.count(),
            func.count().filter(m.System.home_slot.is_(True), m.System.owner_id.is_(None)),
        ).where(m.System.game_id == game_id)
    ).one()
    return int(systems), int(free)


def orders_on_file(session: Session, empire_id: int, turn: int) -> m.OrderSet | None:
    return session.scalar(
        select(m.OrderSet)
        .where(m.OrderSet.empire_id == empire_id, m.OrderSet.turn == turn, m.OrderSet.active.is_(True))
        .order_by(m.OrderSet.id.desc())
        .limit(1)
    )


def withdraw_orders(session: Session, empire_id: int, turn: int) -> bool:
    """Mark the empire's orders for ``turn`` as withdrawn; True when there were some."""
    result = session.execute(
        update(m.OrderSet)
        .where(m.OrderSet.empire_id == empire_id, m.OrderSet.turn == turn, m.OrderSet.active.is_(True))
        .values(active=False)
    )
    return bool(getattr(result, "rowcount", 0))


def replies_last_hour(session: Session, recipient: str, kind: str, now: dt.datetime) -> int:
    return (
        session.scalar(
            select(func.count())
            .select_from(m.OutboxMail)
            .where(
                m.OutboxMail.recipient == recipient,
                m.OutboxMail.kind == kind,
                m.OutboxMail.created_at >= now - dt.timedelta(hours=1),
            )
        )
        or 0
    )


def replies_last_hour_to(
    session: Session, recipients: Sequence[str], now: dt.datetime
) -> dict[tuple[str, str], int]:
    """:func:`replies_last_hour` for many recipients and every kind at once."""
    rows = session.execute(
        select(m.OutboxMail.recipient, m.OutboxMail.kind, func.count())
        .where(m.OutboxMail.recipient.in_(recipients), m.OutboxMail.created_at >= now - dt.timedelta(hours=1))
        .group_by(m.OutboxMail.recipient, m.OutboxMail.kind)
    )
    return {(recipient, kind): count for recipient, kind, count in rows}


def suppressed_replies(session: Session, game_id: int, limit: int = 5) -> list[m.SuppressedReply]:
    """The latest answers not sent for a game, newest first."""
    return list(
        session.scalars(
            select(m.SuppressedReply)
            .where(m.SuppressedReply.game_id == game_id)
            .order_by(m.SuppressedReply.at.desc(), m.SuppressedReply.id.desc())
            .limit(limit)
        )
    )


def staged_record(session: Session, game_id: int) -> m.TurnRecord | None:
    return session.scalar(
        select(m.TurnRecord).where(m.TurnRecord.game_id == game_id, m.TurnRecord.staged.is_(True))
    )
