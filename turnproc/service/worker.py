"""``turnproc worker``: the one pass that acts.

:class:`Service` holds one worker's state between passes (back-offs, what it
last saw of each game) and does three jobs: ``tick`` (for every game: read its
view, ask :mod:`turnproc.turns.schedule` what is due, and carry it out under the
game row's lock), ``poll`` (the inbox) and ``flush`` (the outbox).
:mod:`.process` runs them as the long-running service.
"""

from __future__ import annotations

import datetime as dt
import logging
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.orm import Session

from ..app import App
from ..errors import ServerUnavailable, one_line
from ..games.notices import notify_guard
from ..games.publish import refresh_site
from ..intake import IntakeResult, poll
from ..mail.outbox import OutboxError, Transport, claimant_tag
from ..mail.smtp import SmtpTransport
from ..mail.transport import outbound
from ..outgoing import mails
from ..outgoing.reportmail import send_outbox
from ..storage import models as m
from ..storage.db import transaction
from ..storage.queries import (
    GameView,
    consume_deadline,
    current_deadline,
    load_game_view,
    move_deadline,
    view_of,
)
from ..timing.deadlines import local_text
from ..timing.retry import Backoff
from ..turns.run import run_turn
from ..turns.schedule import Decision, anchor_time, decide, time_left

log = logging.getLogger(__name__)

__all__ = ["Service", "TickReport", "brief"]

UTC = dt.timezone.utc

#: How long the inbox or the outbox may fail before the GM gets a mail about it.
OUTAGE_NOTICE_AFTER = dt.timedelta(minutes=30)


# -- one pass ---------------------------------------------------------------------------------


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
        self.claimant = claimant_tag()
        """This worker's name on the outbox mails it claims."""
        self.game_backoff: dict[int, Backoff] = {}
        self.seen: dict[int, tuple[tuple[Any, ...], dt.datetime]] = {}
        self.names: dict[int, str] = {}
        """Game names by id, for log lines about a game that failed before it was read."""

    @property
    def transport(self) -> Transport:
        if self._transport is None:
            self._transport = outbound(self.app.config)
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
                game_ids = list(
                    session.scalars(select(m.Game.id).where(m.Game.status != "finished").order_by(m.Game.id))
                )
        except Exception as exc:  # noqa: BLE001 - the database is away: nothing to decide without it
            delay = self.tick_backoff.failed(now)
            log.warning("deadlines: database unavailable (%s); retrying in %.0fs", one_line(exc), delay)
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
            except Exception as exc:  # noqa: BLE001 - one game's failure never stops the others
                report.errors[self.names.get(game_id, f"#{game_id}")] = one_line(exc)
                self._game_failed(game_id, exc, backoff, now)
                continue
            backoff.succeeded()
            if name:
                report.actions[name] = action
        return report

    def _tick_game(self, game_id: int, now: dt.datetime) -> tuple[str, str]:
        seen = self.seen.get(game_id)
        # A cheap look without the lock first: most passes find nothing to do.
        with self.app.sessions() as session:
            loaded = load_game_view(session, game_id=game_id)
        if loaded is None:
            return "", "gone"
        view = loaded[1]
        first_turn = view.turn
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
            loaded = load_game_view(session, game_id=game_id, lock="update")
            if loaded is None:
                return "", "gone"
            game, view = loaded
            anchor = anchor_time(view, seen, now)
            if anchor is not None:
                log.info("game %s: deadlines count from %s", game.name, anchor.isoformat(timespec="seconds"))
                move_deadline(game, count_from=anchor)
                session.flush()  # run_turn refreshes the game row
                view = replace(view, last_deadline_at=anchor)
            decision = decide(view, now)
            if decision.action != "idle" and view.turn != first_turn:
                # A GM's `turn run` (or another worker) ran the turn this pass
                # came for: its deadline is used up, and the next turn waits
                # for a deadline of its own.
                log.info("game %s: turn %d was run meanwhile by another runner", game.name, first_turn)
                if decision.action in ("run", "guard", "blocked", "skip"):
                    consume_deadline(game, decision.deadline)
                decision = Decision("idle")
            queued = self._apply(session, game, view, decision, now)
            signature = _signature(game)
        self.seen[game_id] = (signature, now)
        if decision.action in ("run", "early") and self.app.config.site_dir is not None:
            # After the commit: the pages never show a turn that was rolled back.
            refresh_site(
                self.app.sessions,
                self.app.config.site_dir,
                view.name,
                now,
                host_address=self.app.config.from_address,
                pyodide=self.app.config.pyodide_dir,
            )
        if queued:
            self._mail_queued()
        return view.name, decision.action

    def _apply(
        self, session: Session, game: m.Game, view: GameView, decision: Decision, now: dt.datetime
    ) -> bool:
        """Carry out ``decision``; True when mail was queued."""
        config = self.app.config
        deadline_text = local_text(decision.deadline, view.timezone)
        if decision.action == "idle":
            return False
        if decision.action == "skip":
            log.info("game %s: deadline %s passed with no empires; nothing to run", game.name, deadline_text)
            consume_deadline(game, decision.deadline)
            return False
        # What the schedule says once the deadline acted on is used up.
        next_text = local_text(current_deadline(replace(view, deadline_override=None), now), view.timezone)
        if decision.action == "guard":
            consume_deadline(game, decision.deadline)
            log.warning(
                "game %s: turn %d not run at the deadline %s: "
                "%d of %d active empires sent no orders (limit %d%%)",
                game.name,
                game.turn,
                deadline_text,
                len(decision.empires),
                len(view.active_empires),
                view.nmr_limit,
            )
            told = mails.queue_turn_guarded(
                session,
                config,
                game.id,
                now,
                game=game.name,
                turn=game.turn,
                deadline=deadline_text,
                next_deadline=next_text,
                active=len(view.active_empires),
                missing=list(decision.empires),
                limit=view.nmr_limit,
                opened=local_text(view.opened_at, view.timezone),
            )
            return notify_guard(session, config, game, now, decision.deadline, deadline_text) > 0 or told
        if decision.action == "blocked":
            consume_deadline(game, decision.deadline)
            log.warning(
                "game %s: turn %d not run at the deadline %s: turn %s is staged, waiting for release",
                game.name,
                game.turn,
                deadline_text,
                view.staged_turn,
            )
            return mails.queue_turn_blocked(
                session,
                config,
                game.id,
                now,
                game=game.name,
                turn=game.turn,
                staged_turn=view.staged_turn,
                deadline=deadline_text,
                next_deadline=next_text,
            )
        if decision.action in ("run", "early"):
            return self._run(session, game, view, decision, now)
        if decision.action == "remind":
            left = time_left(decision.deadline, now) if decision.deadline else "no time"
            for e in view.empires:
                if e.code in decision.empires:
                    mails.queue_reminder(
                        session,
                        config,
                        game,
                        now,
                        empire=e.code,
                        empire_name=e.name,
                        recipient=e.email,
                        deadline=deadline_text,
                        time_left=left,
                    )
            log.info(
                "game %s: reminded %s of the deadline %s",
                game.name,
                ", ".join(decision.empires),
                deadline_text,
            )
            return True
        raise AssertionError(f"unknown decision {decision!r}")

    def _run(
        self, session: Session, game: m.Game, view: GameView, decision: Decision, now: dt.datetime
    ) -> bool:
        number = game.turn
        result = run_turn(session, game, self.app.config, now)
        # An early run uses up no scheduled deadline, only a hand-set one.
        consume_deadline(game, decision.deadline if decision.action == "run" else None)
        how = "early (every active empire had orders in)" if decision.action == "early" else "at the deadline"
        log.info(
            "game %s: turn %d ran %s: %d events, %d reports%s",
            game.name,
            number,
            how,
            result.events,
            len(result.reports),
            f"; now inactive: {', '.join(result.inactive)}" if result.inactive else "",
        )
        after = replace(view, last_deadline_at=game.last_deadline_at, deadline_override=None)
        return mails.queue_turn_ran(
            session,
            self.app.config,
            game.id,
            now,
            game=game.name,
            turn=number,
            early=decision.action == "early",
            deadline=local_text(decision.deadline, view.timezone),
            next_deadline=None
            if result.finished
            else local_text(current_deadline(after, now), view.timezone),
            events=result.events,
            reports=len(result.reports),
            missed=list(result.missed),
            inactive=list(result.inactive),
            finished=result.finished,
            staged=result.staged,
        )

    def _game_failed(self, game_id: int, exc: Exception, backoff: Backoff, now: dt.datetime) -> None:
        first = backoff.failures == 0
        delay = backoff.failed(now)
        name = self.names.get(game_id, f"#{game_id}")
        if isinstance(exc, DBAPIError):
            log.warning("game %s: database error (%s); retrying in %.0fs", name, one_line(exc), delay)
            return
        if first:
            log.exception("game %s: failed; retrying in %.0fs", name, delay)
        else:
            log.error("game %s: failed again (%s); retrying in %.0fs", name, one_line(exc), delay)
        try:
            with transaction(self.app.sessions) as session:
                game = session.get(m.Game, game_id)
                if game is None:
                    return
                queued = mails.queue_worker_error(
                    session,
                    self.app.config,
                    now,
                    summary=one_line(exc),
                    detail=f"{exc}",
                    game=game,
                    error_kind=type(exc).__name__,
                )
            if queued:
                self._mail_queued()
        except Exception as notice_exc:  # telling the GM must not hide the first error
            log.warning("game %s: could not queue the error notice: %s", name, brief(notice_exc))
            log.debug("error notice failure", exc_info=True)

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
        now = self.clock()
        if not self.poll_backoff.ready(now):
            return 0

        def committed(results: list[IntakeResult]) -> None:
            # Each batch's answers go once it is committed, not after a whole burst.
            if any(r.replies for r in results):
                self._mail_queued()

        try:
            results = poll(self.app, now, committed)
        except Exception as exc:  # IMAP or database away: nothing was filed, nothing is lost
            delay = self.poll_backoff.failed(now)
            log.warning("inbox: %s; retrying in %.0fs", brief(exc), delay)
            log.debug("inbox failure", exc_info=True)
            self._outage_notice("inbox", self.poll_backoff, exc, now)
            return 0
        if self.poll_backoff.succeeded():
            log.info("inbox: reachable again")
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
        now = self.clock()
        if not self.flush_backoff.ready(now):
            return 0, 0
        try:
            # An unreachable server would cost each waiting mail one of its
            # limited attempts; find out once, before touching any of them.
            self._probe_smtp()
            sent, failed = send_outbox(
                self.app.sessions, self.app.config, now, self.transport, claimant=self.claimant
            )
        except Exception as exc:
            delay = self.flush_backoff.failed(now)
            log.warning("outbox: %s; retrying in %.0fs", brief(exc), delay)
            log.debug("outbox failure", exc_info=True)
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
        try:
            with socket.create_connection((smtp.host, smtp.port), timeout=min(smtp.timeout, 10.0)):
                pass
        except OSError as exc:
            raise ServerUnavailable(
                f"SMTP server {smtp.host}:{smtp.port} unavailable: {one_line(exc)}"
            ) from None

    def _outage_notice(self, what: str, backoff: Backoff, exc: Exception, now: dt.datetime) -> None:
        if backoff.noticed or backoff.since is None or now - backoff.since < OUTAGE_NOTICE_AFTER:
            return
        backoff.noticed = True
        try:
            with transaction(self.app.sessions) as session:
                mails.queue_worker_error(
                    session,
                    self.app.config,
                    now,
                    summary=f"the {what} has failed since {backoff.since.isoformat(timespec='minutes')}",
                    detail=one_line(exc),
                )
        except Exception as notice_exc:  # the database may be what is down
            log.warning("could not queue the %s outage notice: %s", what, brief(notice_exc))
            log.debug("outage notice failure", exc_info=True)


def brief(exc: BaseException) -> str:
    """One line for a log: our own errors say it all; others get their type."""
    if isinstance(exc, (ServerUnavailable, OutboxError)):
        return str(exc)
    if isinstance(exc, (OperationalError, InterfaceError)):
        # A connection lost, a server stopped, a file gone or full: nothing was
        # filed, and the mails wait in the inbox for the next poll.
        return f"the database cannot be reached or written: {one_line(exc.orig or exc)}"
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        return f"database error: {one_line(exc.orig)}"
    return one_line(exc)


def _signature(game: m.Game) -> tuple[Any, ...]:
    """The view's signature of the row as this pass left it."""
    return view_of(game).signature


def _is_smtp(transport: Transport) -> bool:
    return isinstance(transport, SmtpTransport)
