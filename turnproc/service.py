"""What the worker decides, and the one pass (``Service.tick``) that acts on it.

The decisions are small functions of a snapshot and ``now`` — which deadline is
due, whether the NMR guard holds, whether an early run is due, who needs a
reminder — so they are tested with a fake clock and no scheduler. ``Service``
reads each game's snapshot, decides, and applies the decision in one
transaction that holds the game row's lock; ``turnproc.worker`` only calls
``Service.tick``, ``Service.poll`` and ``Service.flush`` on a timer.

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
import hashlib
import logging
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from email.utils import parseaddr
from typing import Any, Literal
from zoneinfo import ZoneInfo

from sqlalchemy import func, select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from . import deadlines
from .app import App
from .mail.compose import DOMAIN_FALLBACK, compose, new_message_id
from .mail.outbox import Transport, queue_mail
from .reports.render import render
from .storage import models as m
from .storage.db import transaction

log = logging.getLogger(__name__)

__all__ = [
    "next_deadline_after",
    "due_deadline",
    "nmr_guard",
    "early_run_at",
    "reminder_start",
    "EmpireView",
    "GameView",
    "Decision",
    "decide",
    "anchor_time",
    "Backoff",
    "Service",
]

UTC = dt.timezone.utc

#: How long the inbox or the outbox may fail before the GM gets a mail about it.
OUTAGE_NOTICE_AFTER = dt.timedelta(minutes=30)


# -- deadline maths -------------------------------------------------------------------


def next_deadline_after(schedule: str | None, timezone: str, after: dt.datetime) -> dt.datetime | None:
    """The first deadline strictly after ``after`` (None without a schedule).

    Raises :class:`turnproc.deadlines.DeadlineError` for a bad schedule or zone.
    """
    return deadlines.next_deadline(schedule, timezone, after)


_WINDOWS = (dt.timedelta(days=1), dt.timedelta(days=8), dt.timedelta(days=32), dt.timedelta(days=367), dt.timedelta(days=1462))


def due_deadline(schedule: str | None, timezone: str, last: dt.datetime | None, now: dt.datetime) -> dt.datetime | None:
    """The latest deadline in ``(last, now]``, or None when none has passed.

    All deadlines missed since ``last`` collapse into this one: acting on it and
    recording it as ``last`` runs the turn once after any outage.
    """
    if not schedule or last is None:
        return None
    first = next_deadline_after(schedule, timezone, last)
    if first is None or first > now:
        return None
    # Walk only the recent past: an every-minute schedule after a month's
    # outage must not cost 40,000 steps. Some window holds a deadline, since
    # ``first`` is one; the widest starts at ``last`` itself.
    for window in (*_WINDOWS, None):
        start = last if window is None else max(last, now - window)
        latest: dt.datetime | None = None
        for when in deadlines.deadlines_after(schedule, timezone, start):
            if when > now:
                break
            latest = when
        if latest is not None:
            return latest
    return first  # unreachable: the last window starts at ``last``


# -- decisions -------------------------------------------------------------------------


def nmr_guard(active: int, missing: int, limit_percent: int) -> bool:
    """True when the turn must be held: more than ``limit_percent`` % of the
    active empires sent no orders (usually the mail feed broke, not the players)."""
    return active > 0 and missing * 100 > limit_percent * active


@dataclass(frozen=True)
class EmpireView:
    code: str
    name: str
    email: str
    active: bool
    orders_at: dt.datetime | None
    """When the orders on file for the current turn arrived; None: no orders."""
    wait: bool = False
    """The orders on file carry WAIT: no early run."""
    reminded: bool = False
    """A reminder for the current turn was already queued."""


@dataclass(frozen=True)
class GameView:
    """What the decisions need of one game, read in one transaction."""

    id: int
    name: str
    turn: int
    status: str
    schedule: str | None
    timezone: str
    last_deadline_at: dt.datetime | None
    opened_at: dt.datetime
    """When the current turn began: the last turn's run, else the game's creation."""
    empires: tuple[EmpireView, ...] = ()
    early_run: bool = False
    early_run_delay: int = 30
    reminder_hours: int = 24
    nmr_limit: int = 50
    deadline_override: dt.datetime | None = None
    """A deadline the GM set by hand for the current turn; replaces the schedule's."""
    staged_turn: int | None = None
    """A resolved turn waiting for the GM's release (a game on hold): no turn
    runs, no early run or reminder happens, until it is released or discarded."""

    @property
    def active_empires(self) -> list[EmpireView]:
        return [e for e in self.empires if e.active]

    @property
    def missing(self) -> list[str]:
        """Active empires with no orders on file."""
        return [e.code for e in self.empires if e.active and e.orders_at is None]

    @property
    def signature(self) -> tuple[str | None, str, str, dt.datetime | None]:
        """What, when it changes, makes deadlines count afresh from the change."""
        return (self.schedule, self.timezone, self.status, self.deadline_override)


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


def current_deadline(view: GameView, after: dt.datetime) -> dt.datetime | None:
    """The current turn's deadline after ``after``: the GM's override, else the schedule's."""
    if view.deadline_override is not None:
        return view.deadline_override if view.deadline_override > after else None
    return next_deadline_after(view.schedule, view.timezone, after)


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
    due: dt.datetime | None
    if view.deadline_override is not None:
        due = view.deadline_override if view.deadline_override <= now else None
    else:
        due = due_deadline(view.schedule, view.timezone, view.last_deadline_at, now)
    if due is not None:
        missing = tuple(view.missing)
        if not view.empires:
            return Decision("skip", due)  # a game still being set up: nothing to run
        if view.staged_turn is not None:
            # The players have not seen the last turn yet: this one waits for
            # the next deadline after the release.
            return Decision("blocked", due, missing)
        if nmr_guard(len(view.active_empires), len(missing), view.nmr_limit):
            return Decision("guard", due, missing)  # not "hold": that is the GM's staging
        return Decision("run", due, missing)
    if view.staged_turn is not None:
        return IDLE
    early = early_run_at(view)
    if early is not None and now >= early:
        return Decision("early")
    if view.reminder_hours > 0 and (view.schedule or view.deadline_override):
        coming = current_deadline(view, max(now, view.last_deadline_at or now))
        start = reminder_start(coming, view.reminder_hours, view.opened_at) if coming else None
        if coming is not None and start is not None and start <= now < coming:
            who = tuple(e.code for e in view.empires if e.active and e.orders_at is None and not e.reminded)
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


# -- back-off --------------------------------------------------------------------------


@dataclass
class Backoff:
    """Retry timing for something that fails (a server, a game): the delay
    doubles from ``base`` up to ``cap`` seconds and resets on success."""

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


def describe(exc: BaseException) -> str:
    """One line for a log or a mail: the type and the first line of the message."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _is_database_error(exc: BaseException) -> bool:
    return isinstance(exc, DBAPIError)


# -- reading a game ------------------------------------------------------------------------


def _stable_message_id(from_address: str, kind: str, game: m.Game, *parts: object) -> str:
    """A Message-ID that is the same every time for the same mail, so the
    outbox's unique Message-ID makes a second copy impossible. The digest
    includes the game's secret and id: a new game reusing a name or an id
    gets fresh ids."""
    domain = parseaddr(from_address)[1].rpartition("@")[2] or DOMAIN_FALLBACK
    digest = hashlib.sha256("|".join(map(str, (game.seed, game.id, kind, *parts))).encode()).hexdigest()[:12]
    label = ".".join(str(p) for p in parts)
    # "turnproc." marks it as ours: intake never answers a mail carrying it.
    return f"<turnproc.{kind}.{game.name}.{label}.{digest}@{domain}>"


def reminder_message_id(from_address: str, game: m.Game, turn: int, code: str) -> str:
    return _stable_message_id(from_address, "reminder", game, f"t{turn}", code)


def load_view(session: Session, game_id: int, from_address: str, *, lock: bool = False) -> tuple[m.Game, GameView] | None:
    """The game row and its snapshot; with ``lock``, the row is locked for the
    rest of the transaction (PostgreSQL; SQLite's BEGIN IMMEDIATE already is)."""
    query = select(m.Game).where(m.Game.id == game_id).execution_options(populate_existing=True)
    game = session.scalars(query.with_for_update() if lock else query).first()
    if game is None:
        return None
    orders: dict[int, tuple[dt.datetime, bool]] = {}
    for empire_id, received_at, wait in session.execute(
        select(m.OrderSet.empire_id, m.OrderSet.received_at, m.OrderSet.wait)
        .where(m.OrderSet.game_id == game.id, m.OrderSet.turn == game.turn, m.OrderSet.active.is_(True))
        .order_by(m.OrderSet.id)
    ):
        orders[empire_id] = (received_at, wait)  # the newest submission counts
    rows = session.execute(
        select(m.Empire.id, m.Empire.code, m.Empire.name, m.Empire.email, m.Empire.active)
        .where(m.Empire.game_id == game.id)
        .order_by(m.Empire.code)
    ).all()
    wanted = {reminder_message_id(from_address, game, game.turn, code): code for _, code, _, _, _ in rows}
    reminded = {
        wanted[mid]
        for mid in session.scalars(
            select(m.OutboxMail.message_id).where(
                m.OutboxMail.game_id == game.id, m.OutboxMail.kind == "reminder", m.OutboxMail.message_id.in_(list(wanted))
            )
        )
    } if wanted else set()
    last_run = session.scalar(select(func.max(m.TurnRecord.ran_at)).where(m.TurnRecord.game_id == game.id))
    staged_turn = session.scalar(
        select(func.max(m.TurnRecord.number)).where(m.TurnRecord.game_id == game.id, m.TurnRecord.staged.is_(True))
    )
    empires = tuple(
        EmpireView(
            code=code,
            name=name,
            email=email,
            active=bool(active),
            orders_at=orders[eid][0] if eid in orders else None,
            wait=orders[eid][1] if eid in orders else False,
            reminded=code in reminded,
        )
        for eid, code, name, email, active in rows
    )
    view = GameView(
        id=game.id,
        name=game.name,
        turn=game.turn,
        status=game.status,
        schedule=game.schedule or None,
        timezone=game.timezone,
        last_deadline_at=game.last_deadline_at,
        opened_at=last_run or game.created_at,
        empires=empires,
        early_run=bool(game.early_run),
        early_run_delay=game.early_run_delay,
        reminder_hours=game.reminder_hours,
        nmr_limit=game.nmr_limit,
        deadline_override=game.deadline_override,
        staged_turn=staged_turn,
    )
    return game, view


# -- mails -------------------------------------------------------------------------------


_NOTICE_DEFAULTS: dict[str, Any] = {
    "event": "",
    "game": "",
    "turn": 0,
    "early": False,
    "deadline": None,
    "next_deadline": None,
    "events": 0,
    "reports": 0,
    "missed": [],
    "inactive": [],
    "finished": False,
    "staged": False,
    "staged_turn": None,
    "active": 0,
    "missing": [],
    "limit": 0,
    "opened": None,
    "summary": "",
    "detail": "",
    "empire": "",
    "empire_name": "",
    "reply_to": "",
}


def _local_text(when: dt.datetime | None, timezone: str) -> str | None:
    if when is None:
        return None
    try:
        return deadlines.format_deadline(when.astimezone(ZoneInfo(timezone)))
    except (ValueError, KeyError):
        return deadlines.format_deadline(when.astimezone(UTC))


def queue_notice(
    session: Session,
    config: Any,
    context: dict[str, Any],
    now: dt.datetime,
    *,
    game_id: int | None,
    recipient: str | None = None,
    kind: str = "notice",
    message_id: str | None = None,
) -> bool:
    """Render templates/notice for ``context`` and queue it; to the GM unless
    ``recipient`` is given. False when there is no one to send it to, or when
    a mail with this stable ``message_id`` was queued before."""
    to = recipient if recipient is not None else config.gm_address
    if not to:
        return False
    if message_id is not None and session.scalar(select(m.OutboxMail.id).where(m.OutboxMail.message_id == message_id)):
        return False
    rendered = render("notice", {**_NOTICE_DEFAULTS, "reply_to": config.from_address, **context})
    msg = compose(
        sender=config.from_address,
        recipient=to,
        subject=rendered.subject,
        text=rendered.text,
        when=now,
        message_id=message_id or new_message_id(config.from_address),
    )
    queue_mail(session, msg, kind=kind, game_id=game_id)
    return True


# -- the service ------------------------------------------------------------------------------


Clock = Callable[[], dt.datetime]


def utcnow() -> dt.datetime:
    return dt.datetime.now(UTC)


@dataclass
class TickReport:
    """What one pass did, by game name (for tests and the debug log)."""

    actions: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)


class Service:
    """One worker's state between passes: back-offs and what it last saw of
    each game. Safe to call from the scheduler's threads: each of tick, poll
    and flush runs at most once at a time (the scheduler's max_instances=1)."""

    def __init__(
        self,
        app: App,
        *,
        clock: Clock = utcnow,
        transport: Transport | None = None,
        base_backoff: float = 5.0,
        max_backoff: float = 300.0,
        on_mail_queued: Callable[[], None] | None = None,
    ) -> None:
        self.app = app
        self.clock = clock
        self._transport = transport
        self.on_mail_queued = on_mail_queued or (lambda: None)
        # Set when new work arrives while the job is running (the scheduler
        # skips a wake-up for a job already running): the job goes round again.
        self.poll_requested = threading.Event()
        self.flush_requested = threading.Event()
        self.stopping = threading.Event()
        self._base, self._cap = base_backoff, max_backoff
        self.tick_backoff = Backoff(base_backoff, max_backoff)
        self.poll_backoff = Backoff(base_backoff, max_backoff)
        self.flush_backoff = Backoff(base_backoff, max_backoff)
        self.game_backoff: dict[int, Backoff] = {}
        self.seen: dict[int, tuple[tuple[Any, ...], dt.datetime]] = {}
        self.names: dict[int, str] = {}
        """Game names by id, for log lines about a game that failed before it was read."""

    @property
    def transport(self) -> Transport:
        if self._transport is None:
            from .intake import transport_for

            self._transport = transport_for(self.app)
        return self._transport

    # -- deadlines, early runs, reminders --

    def tick(self) -> TickReport:
        """One pass over every game. A game that fails is logged, told to the
        GM, retried later with back-off; the other games go on."""
        now = self.clock()
        report = TickReport()
        if not self.tick_backoff.ready(now):
            return report
        try:
            with self.app.sessions() as session:
                # Paused games too: a resume must be seen as a change (see anchor_time).
                game_ids = list(session.scalars(select(m.Game.id).where(m.Game.status != "finished").order_by(m.Game.id)))
        except Exception as exc:  # the database is away: nothing to decide without it
            delay = self.tick_backoff.failed(now)
            log.warning("deadlines: database unavailable (%s); retrying in %.0fs", describe(exc), delay)
            return report
        if self.tick_backoff.succeeded():
            log.info("deadlines: database reachable again")
        for game_id in game_ids:
            if self.stopping.is_set():
                break  # SIGTERM: the game in hand was finished; leave the rest
            backoff = self.game_backoff.setdefault(game_id, Backoff(self._base, self._cap))
            if not backoff.ready(now):
                continue
            try:
                name, action = self._tick_game(game_id, now)
            except Exception as exc:  # one game's failure never stops the others
                report.errors[self.names.get(game_id, f"#{game_id}")] = describe(exc)
                self._game_failed(game_id, exc, backoff, now)
                continue
            backoff.succeeded()
            if name:
                report.actions[name] = action
        return report

    def _tick_game(self, game_id: int, now: dt.datetime) -> tuple[str, str]:
        from_address = self.app.config.from_address
        seen = self.seen.get(game_id)
        # A cheap look without the lock first: most passes find nothing to do.
        with self.app.sessions() as session:
            loaded = load_view(session, game_id, from_address)
        if loaded is None:
            return "", "gone"
        view = loaded[1]
        self.names[game_id] = view.name
        anchor = anchor_time(view, seen, now)
        if anchor is None and decide(view, now).action == "idle":
            self.seen[game_id] = (view.signature, now)
            return view.name, "idle"
        # Then again under the game row's lock: a second worker, a GM's `turn
        # run` or an intake batch may have changed the game meanwhile, and
        # whatever this pass does must rest on what is true now.
        queued = False
        with transaction(self.app.sessions) as session:
            loaded = load_view(session, game_id, from_address, lock=True)
            if loaded is None:
                return "", "gone"
            game, view = loaded
            anchor = anchor_time(view, seen, now)
            if anchor is not None:
                log.info("game %s: deadlines count from %s", game.name, anchor.isoformat(timespec="seconds"))
                game.last_deadline_at = anchor
                session.flush()  # run_turn refreshes the game row
                view = replace(view, last_deadline_at=anchor)
            decision = decide(view, now)
            queued = self._apply(session, game, view, decision, now)
            signature = _signature(game)
        self.seen[game_id] = (signature, now)
        if queued:
            self._mail_queued()
        return view.name, decision.action

    def _apply(self, session: Session, game: m.Game, view: GameView, decision: Decision, now: dt.datetime) -> bool:
        """Carry out ``decision``; True when mail was queued."""
        config = self.app.config
        deadline_text = _local_text(decision.deadline, view.timezone)
        if decision.action == "idle":
            return False
        if decision.action == "skip":
            log.info("game %s: deadline %s passed with no empires; nothing to run", game.name, deadline_text)
            self._consume_deadline(game, decision.deadline)
            return False
        if decision.action == "guard":
            self._consume_deadline(game, decision.deadline)
            log.warning(
                "game %s: turn %d not run at the deadline %s: %d of %d active empires sent no orders (limit %d%%)",
                game.name, game.turn, deadline_text, len(decision.empires), len(view.active_empires), view.nmr_limit,
            )
            queue_notice(
                session,
                config,
                {
                    "event": "held",
                    "game": game.name,
                    "turn": game.turn,
                    "deadline": deadline_text,
                    "next_deadline": _local_text(current_deadline(replace(view, deadline_override=None), now), view.timezone),
                    "active": len(view.active_empires),
                    "missing": list(decision.empires),
                    "limit": view.nmr_limit,
                    "opened": _local_text(view.opened_at, view.timezone),
                },
                now,
                game_id=game.id,
            )
            return True
        if decision.action == "blocked":
            self._consume_deadline(game, decision.deadline)
            log.warning("game %s: turn %d not run at the deadline %s: turn %s is staged, waiting for release",
                        game.name, game.turn, deadline_text, view.staged_turn)
            queue_notice(
                session,
                config,
                {
                    "event": "blocked",
                    "game": game.name,
                    "turn": game.turn,
                    "staged_turn": view.staged_turn,
                    "deadline": deadline_text,
                    "next_deadline": _local_text(current_deadline(replace(view, deadline_override=None), now), view.timezone),
                },
                now,
                game_id=game.id,
            )
            return True
        if decision.action in ("run", "early"):
            return self._run(session, game, view, decision, now)
        if decision.action == "remind":
            for e in view.empires:
                if e.code in decision.empires:
                    hours_left = max(1, round((decision.deadline - now).total_seconds() / 3600)) if decision.deadline else 0
                    queue_notice(
                        session,
                        config,
                        {
                            "event": "reminder",
                            "game": game.name,
                            "turn": game.turn,
                            "empire": e.code,
                            "empire_name": e.name,
                            "deadline": deadline_text,
                            "detail": f"about {hours_left} hour{'s' if hours_left != 1 else ''}",
                        },
                        now,
                        game_id=game.id,
                        recipient=e.email,
                        kind="reminder",
                        message_id=reminder_message_id(config.from_address, game, game.turn, e.code),
                    )
            log.info("game %s: reminded %s of the deadline %s", game.name, ", ".join(decision.empires), deadline_text)
            return True
        raise AssertionError(f"unknown decision {decision!r}")

    def _consume_deadline(self, game: m.Game, deadline: dt.datetime | None) -> None:
        if deadline is None:
            return
        if game.last_deadline_at is None or deadline > game.last_deadline_at:
            game.last_deadline_at = deadline
        if game.deadline_override is not None:
            game.deadline_override = None  # acted on: the schedule takes over again

    def _run(self, session: Session, game: m.Game, view: GameView, decision: Decision, now: dt.datetime) -> bool:
        from .pipeline import run_turn

        number = game.turn
        result = run_turn(session, game, self.app.config, now)
        if decision.action == "run":
            self._consume_deadline(game, decision.deadline)
        elif game.deadline_override is not None:
            game.deadline_override = None  # the hand-set deadline was for the turn that just ran
        how = "early (every active empire had orders in)" if decision.action == "early" else "at the deadline"
        log.info(
            "game %s: turn %d ran %s: %d events, %d reports%s",
            game.name, number, how, result.events, len(result.reports),
            f"; now inactive: {', '.join(result.inactive)}" if result.inactive else "",
        )
        after = max(now, game.last_deadline_at or now)
        queue_notice(
            session,
            self.app.config,
            {
                "event": "ran",
                "game": game.name,
                "turn": number,
                "early": decision.action == "early",
                "deadline": _local_text(decision.deadline, view.timezone),
                "next_deadline": None if result.finished else _local_text(
                    next_deadline_after(view.schedule, view.timezone, after), view.timezone
                ),
                "events": result.events,
                "reports": len(result.reports),
                "missed": list(result.missed),
                "inactive": list(result.inactive),
                "finished": result.finished,
                "staged": result.staged,
                "active": len(view.active_empires),
            },
            now,
            game_id=game.id,
        )
        return True

    def _game_failed(self, game_id: int, exc: Exception, backoff: Backoff, now: dt.datetime) -> None:
        first = backoff.failures == 0
        delay = backoff.failed(now)
        name = self.names.get(game_id, f"#{game_id}")
        if _is_database_error(exc):
            log.warning("game %s: database error (%s); retrying in %.0fs", name, describe(exc), delay)
            return
        if first:
            log.exception("game %s: failed; retrying in %.0fs", name, delay)
        else:
            log.error("game %s: failed again (%s); retrying in %.0fs", name, describe(exc), delay)
        try:
            with transaction(self.app.sessions) as session:
                game = session.get(m.Game, game_id)
                if game is None:
                    return
                # One mail per game, turn and kind of error, however often it recurs.
                mid = _stable_message_id(self.app.config.from_address, "error", game, f"t{game.turn}", type(exc).__name__)
                queued = queue_notice(
                    session,
                    self.app.config,
                    {"event": "error", "game": game.name, "turn": game.turn, "summary": describe(exc), "detail": f"{exc}"},
                    now,
                    game_id=game.id,
                    message_id=mid,
                )
            if queued:
                self._mail_queued()
        except Exception:  # telling the GM must not hide the first error
            log.warning("game %s: could not queue the error notice", name, exc_info=True)

    # -- mail in and out --

    def _mail_queued(self) -> None:
        self.flush_requested.set()
        self.on_mail_queued()

    def poll(self) -> int:
        """Read the inbox, again if new mail was announced meanwhile (IMAP
        IDLE); the number of mails handled (0 while backing off)."""
        handled = 0
        while True:
            self.poll_requested.clear()
            handled += self._poll_once()
            if not self.poll_requested.is_set() or self.stopping.is_set() or self.poll_backoff.failures:
                return handled

    def _poll_once(self) -> int:
        from .intake import poll

        now = self.clock()
        if not self.poll_backoff.ready(now):
            return 0
        try:
            results = poll(self.app, now)
        except Exception as exc:  # IMAP or database away: nothing was filed, nothing is lost
            delay = self.poll_backoff.failed(now)
            log.warning("inbox: %s; retrying in %.0fs", describe(exc), delay)
            self._outage_notice("inbox", self.poll_backoff, exc, now)
            return 0
        if self.poll_backoff.succeeded():
            log.info("inbox: reachable again")
        if any(r.replies for r in results):
            self._mail_queued()
        return len(results)

    def flush(self) -> tuple[int, int]:
        """Deliver due mail, again if more was queued meanwhile: (sent, failed)."""
        sent = failed = 0
        while True:
            self.flush_requested.clear()
            s, f = self._flush_once()
            sent, failed = sent + s, failed + f
            if not self.flush_requested.is_set() or self.stopping.is_set() or self.flush_backoff.failures:
                return sent, failed

    def _flush_once(self) -> tuple[int, int]:
        from .mail.outbox import flush_outbox

        now = self.clock()
        if not self.flush_backoff.ready(now):
            return 0, 0
        try:
            # An unreachable server would cost each waiting mail one of its
            # limited attempts; find out once, before touching any of them.
            self._probe_smtp()
            sent, failed = flush_outbox(self.app.sessions, self.transport, now)
        except Exception as exc:
            delay = self.flush_backoff.failed(now)
            log.warning("outbox: %s; retrying in %.0fs", describe(exc), delay)
            self._outage_notice("outbox", self.flush_backoff, exc, now)
            return 0, 0
        if failed and not sent:
            self.flush_backoff.failed(now)
        elif self.flush_backoff.succeeded():
            log.info("outbox: delivering again")
        return sent, failed

    def _probe_smtp(self) -> None:
        if not _is_smtp(self.transport):
            return
        smtp = self.app.config.smtp
        with socket.create_connection((smtp.host, smtp.port), timeout=min(smtp.timeout, 10.0)):
            pass

    def _outage_notice(self, what: str, backoff: Backoff, exc: Exception, now: dt.datetime) -> None:
        if backoff.noticed or backoff.since is None or now - backoff.since < OUTAGE_NOTICE_AFTER:
            return
        backoff.noticed = True
        try:
            with transaction(self.app.sessions) as session:
                queue_notice(
                    session,
                    self.app.config,
                    {
                        "event": "error",
                        "summary": f"the {what} has failed since {backoff.since.isoformat(timespec='minutes')}",
                        "detail": describe(exc),
                    },
                    now,
                    game_id=None,
                )
        except Exception:  # the database may be what is down
            log.warning("could not queue the %s outage notice", what, exc_info=True)


def _signature(game: m.Game) -> tuple[Any, ...]:
    """GameView.signature of the row as this pass left it."""
    return (game.schedule or None, game.timezone, game.status, game.deadline_override)


def _is_smtp(transport: Transport) -> bool:
    from .mail.smtp import SmtpTransport

    return isinstance(transport, SmtpTransport)
