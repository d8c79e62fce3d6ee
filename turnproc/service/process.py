"""``turnproc worker``: the long-running service.

:func:`run_worker` waits for the database, then calls the one pass of
:class:`~.worker.Service` (``tick``, ``poll``, ``flush``) on APScheduler
timers; optionally a thread holds an IMAP IDLE connection
(:class:`IdleWatcher`) and starts a poll as soon as mail arrives. SIGTERM
lets the job in hand finish, then exits 0. :func:`run_once` is one poll, one
pass and one flush, for hosts that run it from cron.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.interval import IntervalTrigger

from ..app import App
from ..config import Config, ImapConfig
from ..errors import one_line
from ..mail import imap
from ..storage.db import make_engine, make_sessionmaker
from ..storage.migrate import SchemaOutdated, ensure_schema
from ..timing.retry import Backoff
from .worker import Service, brief

log = logging.getLogger(__name__)

__all__ = ["WorkerSettings", "run_worker", "run_once", "IdleWatcher", "connect"]

UTC = dt.timezone.utc


@dataclass(frozen=True)
class WorkerSettings:
    tick: float = 30.0
    """Seconds between passes over the games' deadlines (the deadline precision)."""
    poll: float = 60.0
    """Seconds between inbox polls (with IDLE, a fallback only)."""
    flush: float = 30.0
    """Seconds between outbox flushes (mail queued by the worker goes at once)."""
    idle: bool = False
    """Hold an IMAP IDLE connection and poll as soon as mail arrives."""
    max_backoff: float = 300.0
    """Longest pause between retries of a server or a game that keeps failing."""


# -- start-up -------------------------------------------------------------------------------


def connect(config: Config, stop: threading.Event, backoff: Backoff) -> App | None:
    """Open the database, waiting out an outage; None if stopped meanwhile.
    A schema that needs ``turnproc db upgrade`` is the GM's job: it raises."""
    # A bad URL fails at once; only reaching the server is worth retrying.
    engine = make_engine(config.database_url, check=False, pool_pre_ping=True)
    while not stop.is_set():
        now = dt.datetime.now(UTC)
        try:
            ensure_schema(engine)
        except SchemaOutdated:
            engine.dispose()
            raise
        except Exception as exc:  # noqa: BLE001 - the database is not reachable yet
            delay = backoff.failed(now)
            log.warning("database: %s; retrying in %.0fs", one_line(exc), delay)
            stop.wait(delay)
            continue
        backoff.succeeded()
        return App(config=config, engine=engine, sessions=make_sessionmaker(engine))
    engine.dispose()
    return None


# -- IMAP IDLE ------------------------------------------------------------------------------


class IdleWatcher(threading.Thread):
    """Holds an IMAP IDLE connection and calls ``wake`` when mail arrives.

    The IDLE is renewed every ``check`` seconds (servers drop one after 30
    minutes; renewing often also lets a stop take effect soon). Any failure
    means reconnect after a back-off; the interval poll covers the gap.
    """

    def __init__(
        self,
        config: ImapConfig,
        wake: Callable[[], None],
        stop: threading.Event,
        *,
        check: float = 10.0,
        max_backoff: float = 300.0,
    ) -> None:
        super().__init__(name="imap-idle", daemon=True)
        self.config, self.wake, self.stop, self.check = config, wake, stop, check
        self.backoff = Backoff(1.0, max_backoff)

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self._watch()
            except Exception as exc:  # server away or connection dropped
                delay = self.backoff.failed(dt.datetime.now(UTC))
                log.warning("IMAP IDLE: %s; reconnecting in %.0fs", brief(exc), delay)
                log.debug("IMAP IDLE failure", exc_info=True)
                self.stop.wait(delay)

    def _watch(self) -> None:
        c = self.config
        client = imap.connect(c, timeout=max(c.timeout, self.check + 5))
        try:
            if b"IDLE" not in client.capabilities():
                log.warning("IMAP IDLE: the server does not support IDLE; polling only")
                self.stop.wait()
                return
            client.select_folder(c.folder, readonly=True)
            self.backoff.succeeded()
            log.info("IMAP IDLE: watching %s on %s", c.folder, c.host)
            while not self.stop.is_set():
                client.idle()
                try:
                    responses = client.idle_check(timeout=self.check)
                finally:
                    client.idle_done()
                if any(
                    isinstance(r, tuple) and len(r) > 1 and r[1] in (b"EXISTS", b"RECENT") for r in responses
                ):
                    self.wake()
        finally:
            try:
                client.logout()
            except Exception:  # already gone; nothing to tidy
                log.debug("IMAP IDLE: logout failed", exc_info=True)


# -- the worker ---------------------------------------------------------------------------------


def run_once(app: App) -> None:
    """One poll, one pass over the games and one flush: for cron-driven hosts
    and for testing a configuration."""
    service = Service(app)
    service.poll()
    report = service.tick()
    service.flush()
    for name, action in sorted(report.actions.items()):
        if action != "idle":
            log.info("game %s: %s", name, action)


def run_worker(config: Config, settings: WorkerSettings, stop: threading.Event | None = None) -> int:
    """Run until SIGTERM/SIGINT (or ``stop`` is set); the exit status."""
    stop = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():

        def on_signal(signum: int, frame: object) -> None:
            log.info("%s received: finishing the job in hand", signal.Signals(signum).name)
            stop.set()

        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)

    base = min(settings.tick, settings.poll, settings.flush, 5.0)
    app = connect(config, stop, Backoff(base, settings.max_backoff))
    if app is None:
        return 0
    scheduler = BackgroundScheduler(
        timezone=UTC,
        executors={"default": ThreadPoolExecutor(max_workers=4)},
        # One run of each job at a time; runs missed while one was busy
        # collapse into one; a late run still runs.
        job_defaults={"max_instances": 1, "coalesce": True, "misfire_grace_time": None},
    )

    def run_soon(job_id: str) -> Callable[[], None]:
        def modify() -> None:
            try:
                scheduler.modify_job(job_id, next_run_time=dt.datetime.now(UTC))
            except Exception:  # shutting down: the job is gone
                log.debug("could not wake %s", job_id, exc_info=True)

        def wake() -> None:
            # Not in the caller's thread: a job calling modify_job while
            # shutdown(wait=True) holds the scheduler's lock and waits for that
            # very job would deadlock (APScheduler 3).
            if not stop.is_set():
                threading.Thread(target=modify, name=f"wake-{job_id}", daemon=True).start()

        return wake

    service = Service(
        app, base_backoff=base, max_backoff=settings.max_backoff, on_mail_queued=run_soon("flush")
    )
    now = dt.datetime.now(UTC)
    scheduler.add_job(
        service.poll, IntervalTrigger(seconds=settings.poll), id="poll", name="inbox", next_run_time=now
    )
    scheduler.add_job(
        service.tick, IntervalTrigger(seconds=settings.tick), id="tick", name="deadlines", next_run_time=now
    )
    scheduler.add_job(
        service.flush, IntervalTrigger(seconds=settings.flush), id="flush", name="outbox", next_run_time=now
    )
    watcher: IdleWatcher | None = None
    if settings.idle and config.transport == "imap":
        wake_poll = run_soon("poll")

        def new_mail() -> None:
            service.poll_requested.set()
            wake_poll()

        watcher = IdleWatcher(config.imap, new_mail, stop, max_backoff=settings.max_backoff)
    scheduler.start()
    if watcher is not None:
        watcher.start()
    log.info(
        "worker started (pid %d): %s, transport %s, tick %gs, poll %gs%s, flush %gs",
        os.getpid(),
        config.source,
        config.transport,
        settings.tick,
        settings.poll,
        " + IDLE" if watcher else "",
        settings.flush,
    )
    try:
        while not stop.wait(1.0):  # a timed wait keeps the main thread responsive to signals
            pass
    finally:
        service.stopping.set()
        scheduler.shutdown(wait=True)  # lets the running jobs finish
        app.close()
        log.info("worker stopped")
    return 0
