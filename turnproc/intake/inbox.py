"""Polling the inbox: mails are handled in batches, one transaction per batch
with a savepoint per mail, and filed away only after the batch committed.

If the process dies between commit and filing, the next poll sees the mails
again; ``handle_mail`` recognises their bytes and changes nothing. A mail
whose handling fails is rolled back alone (its savepoint) and left in the
inbox for the next poll, so our own failure never drops an order.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Generic, TypeVar

from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.orm import Session

from ..accounts.passwordkey import load_key
from ..app import App
from ..config import Config
from ..errors import one_line
from ..mail.imap import ImapMailbox
from ..mail.maildir import MaildirInbox
from ..outgoing.mails import queue_mail_set_aside
from ..runtime.collector import gc_paused
from ..storage import models as m
from ..storage.db import transaction
from .ahead import FetchAhead
from .cache import IntakeCache
from .guessing import tell_of_guessing
from .handle import IntakeResult, handle_mail
from .outcome import Folder, Outcome
from .prepare import limits_of

log = logging.getLogger(__name__)

__all__ = ["poll_maildir", "poll_imap", "poll", "BATCH"]

#: Mails per transaction: large enough to amortise commits and IMAP round trips,
#: small enough that a crash re-reads little.
BATCH = 100

K = TypeVar("K")

#: Called with each batch's results once its transaction committed.
Committed = Callable[[list[IntakeResult]], None]


def _nothing(results: list[IntakeResult]) -> None:
    pass


def _handle_batch(
    app: App,
    batch: Sequence[tuple[K, bytes]],
    now: dt.datetime,
    cache: IntakeCache,
    upcoming: Callable[[], Sequence[tuple[K, bytes]] | None] = lambda: None,
) -> list[tuple[K, IntakeResult]]:
    """The batch in one transaction; if any mail fails, the whole batch again,
    each mail in a savepoint of its own so only the failing one is left out.
    (A savepoint per mail on the common path costs a fifth of intake's time.)
    ``upcoming()`` gives the next batch if it is fetched already (else None):
    it is read ahead as soon as it is (:meth:`.cache.IntakeCache.read_ahead`).
    Never waited for: the transaction may hold the database's write lock."""
    try:
        return _attempt(app, batch, now, cache, upcoming, isolate=False)
    except (OperationalError, InterfaceError):
        raise  # the database's failure, not a mail's: the whole poll stops, and the batch waits for the next
    except Exception:
        log.warning("a mail in this batch failed; handling the batch again mail by mail", exc_info=True)
        # What the failed attempt counted went with its cache.batch.
        return _attempt(app, batch, now, cache, upcoming, isolate=True)


def _attempt(
    app: App,
    batch: Sequence[tuple[K, bytes]],
    now: dt.datetime,
    cache: IntakeCache,
    upcoming: Callable[[], Sequence[tuple[K, bytes]] | None],
    *,
    isolate: bool,
) -> list[tuple[K, IntakeResult]]:
    done: list[tuple[K, IntakeResult]] = []
    with transaction(app.sessions) as session, session.no_autoflush:
        # One write for the whole batch (at its end, or per mail in isolation):
        # the cache keeps what the batch's own unwritten rows mean for its
        # later mails (order sets, Message-IDs, digests, reply counts).
        cache.new_batch(session, [raw for _, raw in batch])
        cache.prepare(session, [raw for _, raw in batch], now)
        ahead = isolate  # the rare mail-by-mail attempt reads nothing ahead
        for key, raw in batch:
            following = None if ahead else upcoming()
            if following is not None:
                cache.read_ahead(session, [raw for _, raw in following])
                ahead = True
            if not isolate:
                done.append((key, handle_mail(session, raw, app.config, now, cache)))
                continue
            try:
                with session.begin_nested():
                    result = handle_mail(session, raw, app.config, now, cache)
                    cache.write_rows(session)
            except (OperationalError, InterfaceError):
                raise  # the database went away: no mail is to blame
            # A mail that breaks its handling is filed as failed, and never stops the poll.
            except Exception as exc:  # noqa: BLE001
                cache.forget(raw)  # what its rolled-back savepoint did is undone
                result = _failed(session, app.config, key, raw, exc, now)
            done.append((key, result))
        cache.write_rows(session)  # the batch's inbound log, orders and answers, together
    return done


def _failed(
    session: Session, config: Config, key: object, raw: bytes, exc: Exception, now: dt.datetime
) -> IntakeResult:
    """Count the failure (in the batch's transaction, outside the mail's rolled
    back savepoint). The first is logged with its traceback, later ones in a
    line; after ``set_aside_after`` polls the mail goes to the Failed folder and
    the GM is told, so no mail blocks the inbox for ever."""
    digest = hashlib.sha256(raw).hexdigest()
    row = session.get(m.InboundFailure, digest)
    if row is None:
        row = m.InboundFailure(sha256=digest, attempts=0, first_at=now, last_at=now, error="")
        session.add(row)
    elif row.set_aside_at is not None:
        row.attempts, row.set_aside_at = 0, None  # the GM put it back in the inbox: a fresh start
    row.attempts += 1
    row.last_at, row.error = now, one_line(exc)[:2000]
    if row.attempts == 1:
        log.exception("mail %s could not be handled (our failure); left in the inbox for the next poll", key)
    else:
        log.warning("mail %s failed again (%d times): %s", key, row.attempts, row.error)
    if row.attempts < config.set_aside_after:
        return IntakeResult(Outcome.FAILED, None, detail=f"left in the inbox: {row.error}")
    row.set_aside_at = now
    queue_mail_set_aside(session, config, now, digest=digest, attempts=row.attempts, error=row.error, raw=raw)
    return IntakeResult(
        Outcome.FAILED, Folder.FAILED, detail=f"set aside after {row.attempts} failures: {row.error}"
    )


def _run(
    app: App,
    batches: Iterable[Sequence[tuple[K, bytes]]],
    file: Callable[[dict[Folder, list[K]]], None],
    now: dt.datetime,
    cache: IntakeCache,
    ready: Callable[[], bool] = lambda: True,
    committed: Committed = _nothing,
) -> list[IntakeResult]:
    results: list[IntakeResult] = []
    pending = _Upcoming(batches, ready)
    guessed: set[int] = set()
    try:
        for batch in pending:
            done = _handle_batch(app, batch, now, cache, pending.peek)
            guessed.update(cache.batch.wrong_passwords)  # the committed attempt's
            # Committed: only now may the mails leave the inbox.
            by_folder: dict[Folder, list[K]] = {}
            for key, result in done:
                if result.folder:  # a failed mail with no folder stays for the next poll
                    by_folder.setdefault(result.folder, []).append(key)
                log.info(
                    "mail %s: %s %s/%s %s", key, result.outcome, result.game, result.empire, result.detail
                )
                results.append(result)
            # Before the filing and the next batch: a burst's first answers go
            # while its later mails are still being read.
            committed([result for _, result in done])
            file(by_folder)
    finally:
        cache.close()
    # After the whole poll, so one digest counts a flood spread over many batches.
    tell_of_guessing(app, guessed, now)
    return results


def _cache(app: App) -> IntakeCache:
    """A poll's cache, with what the config says of keys, DMARC and mail shapes."""
    config = app.config
    return IntakeCache(
        load_key(config), trusted_authserv_id=config.trusted_authserv_id, limits=limits_of(config)
    )


def poll_maildir(app: App, now: dt.datetime, committed: Committed = _nothing) -> list[IntakeResult]:
    inbox = MaildirInbox(app.config.maildir_in)

    def file(by_folder: dict[Folder, list[str]]) -> None:
        for folder, keys in by_folder.items():
            for key in keys:
                inbox.file(key, folder)

    return _run(app, _chunked(inbox.pending(), BATCH), file, now, _cache(app), committed=committed)


def poll_imap(app: App, now: dt.datetime, committed: Committed = _nothing) -> list[IntakeResult]:
    """One pass over the IMAP folder: read with BODY.PEEK[] (nothing is marked
    seen before we are done), handle, commit, then flag and move per batch;
    the next batch is fetched while this one is handled."""
    folders = {
        Folder.PROCESSED: app.config.imap.processed_folder,
        Folder.FAILED: app.config.imap.failed_folder,
    }
    # The IMAP round trips (a FETCH per batch, a STORE and a MOVE per folder
    # filed into) run on a thread of their own, beside the handling.
    with ImapMailbox(app.config.imap) as box, FetchAhead(box, BATCH) as inbox:

        def file(by_folder: dict[Folder, list[int]]) -> None:
            for folder, uids in by_folder.items():
                inbox.file(uids, folders.get(folder, app.config.imap.rejected_folder))

        return _run(app, inbox.batches(), file, now, _cache(app), inbox.fetched, committed)


@gc_paused()
def poll(app: App, now: dt.datetime, committed: Committed = _nothing) -> list[IntakeResult]:
    """Fetch and handle every waiting order mail once, from the configured
    transport (the garbage collector held off: turnproc/runtime/collector.py);
    ``committed`` hears of each batch's results as soon as they are committed
    (the worker sends their answers meanwhile)."""
    if app.config.transport == "maildir":
        return poll_maildir(app, now, committed)
    return poll_imap(app, now, committed)


class _Upcoming(Generic[K]):
    """The batches, one after the other, with a look at the next one before
    the loop comes to it, once it is fetched. The look may meet an error (a
    filing that failed): that is raised where the loop asks for the batch, as
    it was without the look, not inside a batch's transaction, where it
    would be taken for a mail's failure."""

    def __init__(
        self, batches: Iterable[Sequence[tuple[K, bytes]]], ready: Callable[[], bool] = lambda: True
    ) -> None:
        self._batches, self._ready = iter(batches), ready
        self._next: Sequence[tuple[K, bytes]] | None = None
        self._error: Exception | None = None

    def __iter__(self) -> Iterator[Sequence[tuple[K, bytes]]]:
        while True:
            if self._next is None:
                self._fill()
            batch, self._next = self._next, None
            if batch is None:
                break
            yield batch
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def peek(self) -> Sequence[tuple[K, bytes]] | None:
        """The next batch, if ``ready()`` says it can be had without waiting."""
        if self._next is None and self._ready():
            self._fill()
        return self._next

    def _fill(self) -> None:
        # Past the end, or past an error, the batches only stop again.
        try:
            self._next = next(self._batches)
        except StopIteration:
            pass
        except Exception as exc:  # noqa: BLE001 - raised by __iter__, outside any transaction
            self._error = exc


def _chunked(items: Iterable[tuple[K, bytes]], size: int) -> Iterable[list[tuple[K, bytes]]]:
    chunk: list[tuple[K, bytes]] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
