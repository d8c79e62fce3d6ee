"""The outbox: mails are queued in the database in the transaction that decided
to send them (:mod:`.queueing`), and delivered only after it committed.

Any number of flushes (workers, ``turnproc send``, on any number of hosts) may
run at once. Mails are delivered in batches, like this:

1. *claim*: in a short transaction, take the oldest due mails nobody holds (a
   batch) and write ``claimed_by`` and a lease ``claimed_until`` (PostgreSQL:
   ``SELECT ... FOR UPDATE SKIP LOCKED``; SQLite: the whole claim under
   ``BEGIN IMMEDIATE``); commit;
2. *deliver* them over the transport's connections (:mod:`.lanes`: SMTP opens
   up to ``[smtp] connections``), holding no database lock;
3. *mark them sent* in one transaction (a failure is recorded at once, and
   releases its claim), and only then claim the next batch; but a batch of
   mails built when sent (reports) has the next one claimed and built while
   it goes (:data:`AHEAD`), and a flush that stops gives that one back.

A mail marked sent is never sent again. A claimed mail is not touched by
anyone else until its lease ends, so a flush that died or could not record a
delivery (a full disk) causes no second delivery before then. What no design
can rule out over SMTP: a crash between the server's 250 and our commit; the
mails of that batch go again after the lease with the same Message-ID, so the
receiver can tell the copy (deploy/OPERATIONS.md, "Outbox"). A batch is
small (:data:`BATCH` mails, or :data:`BATCH_SECONDS` of delivering) so that
window stays small while a night's two thousand mails need a few dozen
commits, not four thousand.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import os
import secrets
import socket
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast, runtime_checkable

from sqlalchemy import ColumnElement, Row, Table, Update, and_, func, or_, select, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from ..errors import ServerUnavailable, one_line
from ..storage import models as m
from ..storage.mailkinds import SECRET_KINDS
from ..storage.mailtables import UNPURGED
from .lanes import Lanes, Transport
from .marks import UNRECORDED

log = logging.getLogger(__name__)

__all__ = [
    "Transport",
    "ServerUnavailable",
    "OutboxError",
    "flush_outbox",
    "purge_sent_bodies",
    "pending_count",
    "claimant_tag",
    "LEASE",
    "SECRET_KINDS",
    "SCRUBBED",
    "Claimed",
    "Build",
    "Broadcasting",
]

MAX_ATTEMPTS = 12
#: Mails claimed, and marked sent, in one transaction.
BATCH = 25
#: Batches of reports claimed and built ahead of the one being delivered:
#: more were measured no faster (the renderers are busy either way) and
#: held more of the flush's memory.
AHEAD = 1
#: A batch is marked sent after this long even when not all of it is delivered.
BATCH_SECONDS = 2.0
#: How long a claim keeps other flushes off a mail (config: outbox_lease).
LEASE = dt.timedelta(minutes=10)
#: What a delivered mail of one of the :data:`SECRET_KINDS` keeps of its body.
SCRUBBED = b"(the body of this mail held a password or a code and was removed once it was delivered)"


@runtime_checkable
class Broadcasting(Protocol):
    """A transport that hands one message to many recipients at once (SMTP:
    one transaction, the recipients only in the envelope)."""

    def deliver_many(self, raw: bytes, recipients: list[str]) -> None: ...


@dataclass(frozen=True)
class Claimed:
    """A mail a flush holds: what delivering it needs."""

    id: int
    kind: str
    message_id: str
    recipient: str
    subject: str
    created_at: dt.datetime
    body: bytes | None
    attempts: int
    """Counting this one."""
    report_id: int | None
    bulletin_id: int | None
    bcc: list[str] | None
    data: str | None
    """An answer's data, its bytes built from it (the row's ``data``)."""

    @classmethod
    def of(cls, row: m.OutboxMail | Row[*tuple[Any, ...]]) -> Claimed:
        """The mail ``row`` (an object, or the columns :data:`_CLAIMED`) as a
        flush holds it (this attempt counted)."""
        return cls(
            row.id,
            row.kind,
            row.message_id,
            row.recipient,
            row.subject,
            row.created_at,
            row.body,
            row.attempts + 1,
            row.report_id,
            row.bulletin_id,
            row.bcc,
            row.data,
        )


#: Builds the bytes of mails stored without them (a report, a bulletin), just
#: before delivery: mail id -> bytes, or the exception that stopped it.
Build = Callable[[list[Claimed]], dict[int, "bytes | Exception"]]


@runtime_checkable
class Closable(Protocol):
    """A transport holding a connection between deliveries (SMTP): closed at
    the end of each flush, so no idle connection outlives it."""

    def close(self) -> None: ...


def _backoff(attempts: int) -> dt.timedelta:
    return dt.timedelta(seconds=min(3600, 30 * 2 ** max(0, attempts - 1)))


class OutboxError(Exception):
    """A flush stopped; the message is one line for the operator."""


def claimant_tag() -> str:
    """Who claims: host, process and a random tag (a restarted process on the
    same host with the same pid is still someone else)."""
    return f"{socket.gethostname()}/{os.getpid()}/{secrets.token_hex(3)}"


def _reason(exc: BaseException) -> str:
    if isinstance(exc, DBAPIError) and exc.orig is not None:
        exc = exc.orig
    return one_line(exc)


def _due(at: dt.datetime) -> ColumnElement[bool]:
    return and_(
        m.OutboxMail.sent_at.is_(None),
        m.OutboxMail.held.is_(False),
        m.OutboxMail.attempts < MAX_ATTEMPTS,
        or_(m.OutboxMail.next_attempt_at.is_(None), m.OutboxMail.next_attempt_at <= at),
        or_(m.OutboxMail.claimed_until.is_(None), m.OutboxMail.claimed_until <= at),
    )


#: What a flush reads of a mail it claims (:meth:`Claimed.of`).
_CLAIMED = (
    m.OutboxMail.id,
    m.OutboxMail.kind,
    m.OutboxMail.message_id,
    m.OutboxMail.recipient,
    m.OutboxMail.subject,
    m.OutboxMail.created_at,
    m.OutboxMail.body,
    m.OutboxMail.attempts,
    m.OutboxMail.report_id,
    m.OutboxMail.bulletin_id,
    m.OutboxMail.bcc,
    m.OutboxMail.data,
)
_OUTBOX = cast(Table, m.OutboxMail.__table__)


def _claim(session: Session, me: str, at: dt.datetime, lease: dt.timedelta, batch: int) -> list[Claimed]:
    """Claim the oldest due mails nobody holds (at most ``batch``), in the
    caller's transaction.

    PostgreSQL: ``FOR UPDATE SKIP LOCKED`` passes over rows another flush is
    claiming this instant. SQLite: the engine's ``BEGIN IMMEDIATE`` makes the
    whole claim one writer at a time. Either way, once committed, the lease
    in ``claimed_until`` keeps every other flush off the mails. Columns and
    one UPDATE, not ORM objects: a night's flush claims eighty batches."""
    query = select(*_CLAIMED).where(_due(at)).order_by(m.OutboxMail.id).limit(batch)
    if session.get_bind().dialect.name != "sqlite":
        query = query.with_for_update(skip_locked=True)
    rows = session.execute(query).all()
    if rows:
        session.execute(
            update(_OUTBOX)
            .where(_OUTBOX.c.id.in_([row.id for row in rows]))
            .values(claimed_by=me, claimed_until=at + lease)
        )
    return [Claimed.of(row) for row in rows]


def _write(factory: sessionmaker[Session], statement: Update, *more: Update, tries: int = 3) -> int:
    """Run UPDATEs in one transaction of their own, a few times if the
    database refuses (a full disk may be freed, a lock released); the rows
    the first changed."""
    for attempt in range(tries):
        try:
            with factory() as session, session.begin():
                changed: int = session.execute(statement).rowcount  # type: ignore[attr-defined]
                for other in more:
                    session.execute(other)
                return changed
        except DBAPIError:
            if attempt == tries - 1:
                raise
            time.sleep(0.2 * 4**attempt)
    raise AssertionError("unreachable")


def _mark_sent(factory: sessionmaker[Session], mail_ids: list[int], at: dt.datetime) -> None:
    # Core UPDATEs of the table: the ORM's bulk update adds its own compiling
    # and session bookkeeping, for rows no session holds.
    c = _OUTBOX.c
    _write(
        factory,
        update(_OUTBOX)
        .where(c.id.in_(mail_ids), c.sent_at.is_(None))
        .values(sent_at=at, attempts=c.attempts + 1, claimed_until=None, last_error=""),
        update(_OUTBOX)
        .where(c.id.in_(mail_ids), c.kind.in_(sorted(SECRET_KINDS)))
        .values(body=SCRUBBED, data=None),
    )


def _record_unrecorded(factory: sessionmaker[Session], journal: Path | None) -> None:
    """Mark sent what was delivered earlier but could not be recorded: by
    this process, or by any whose journal this is (:mod:`.marks`)."""
    for mail_id, (message_id, at) in sorted(UNRECORDED.waiting(journal).items()):
        try:
            _mark_sent(factory, [mail_id], at)
        except DBAPIError as exc:
            raise OutboxError(
                f"mail {message_id} was delivered but still cannot be marked sent ({_reason(exc)}); "
                "nothing new is sent until it is"
            ) from None
        UNRECORDED.recorded([mail_id], journal)
        log.info("outbox: mail %s now recorded as sent", message_id)


def flush_outbox(
    factory: sessionmaker[Session],
    transport: Transport,
    now: dt.datetime,
    *,
    lease: dt.timedelta = LEASE,
    claimant: str | None = None,
    batch: int = BATCH,
    keep_days: int = 0,
    build: Build | None = None,
    journal: Path | None = None,
) -> tuple[int, int]:
    """Deliver every due mail, a claimed batch at a time; returns (sent, failed).

    Each batch is claimed (with a lease) and committed before its mails are
    handed to the transport, and marked sent before the next claim, so any
    number of flushes, in any number of processes and hosts, deliver each
    mail once. Raises :class:`OutboxError` (one line) when the flush cannot
    go on: the server is away, or the database cannot record a claim or a
    delivery. A flush that sent something then empties the bytes of mails
    sent more than ``keep_days`` ago (:func:`purge_sent_bodies`). ``build``
    makes the bytes of the mails queued without them (a report, a bulletin:
    turnproc.outgoing.reportmail); such a mail fails, to be retried, without one.
    ``journal``: where marks that cannot be recorded are kept for the next flush of any process."""
    try:
        sent, failed = _flush(
            factory,
            transport,
            now,
            lease=lease,
            me=claimant or claimant_tag(),
            batch=batch,
            build=build,
            journal=journal,
        )
    finally:
        if isinstance(transport, Closable):
            transport.close()
    if sent:
        try:
            purge_sent_bodies(factory, now, keep_days)
        except DBAPIError as exc:  # housekeeping: the next flush tries again
            log.warning("outbox: could not empty old sent mails: %s", _reason(exc))
    return sent, failed


def _built(claimed: list[Claimed], build: Build | None) -> dict[int, bytes | Exception]:
    """The bytes of each claimed mail: stored, or built now."""
    out: dict[int, bytes | Exception] = {c.id: c.body for c in claimed if c.body is not None}
    todo = [c for c in claimed if c.body is None]
    if not todo:
        return out
    if build is None:
        out.update(
            (c.id, OutboxError(f"mail {c.message_id} is built when sent, and this sender cannot build it"))
            for c in todo
        )
        return out
    try:
        out.update(build(todo))
    except Exception as exc:  # a bug or a database away: these mails fail and are retried
        log.debug("outbox: building %d mails failed", len(todo), exc_info=True)
        out.update((c.id, exc) for c in todo if c.id not in out)
    return out


def _send(
    claimed: list[Claimed], raws: dict[int, bytes | Exception], transport: Transport, index: int
) -> None:
    """Hand mail ``index`` of the batch to ``transport`` (a lane's)."""
    mail = claimed[index]
    raw = raws[mail.id]
    if isinstance(raw, Exception):
        raise raw
    _hand_over(transport, mail, raw)


def _hand_over(transport: Transport, mail: Claimed, raw: bytes) -> None:
    if mail.bcc is None:
        transport.deliver(raw, mail.recipient)
    elif isinstance(transport, Broadcasting):
        transport.deliver_many(raw, mail.bcc)
    else:
        for address in mail.bcc:
            transport.deliver(raw, address)


def _flush(
    factory: sessionmaker[Session],
    transport: Transport,
    now: dt.datetime,
    *,
    lease: dt.timedelta,
    me: str,
    batch: int,
    build: Build | None,
    journal: Path | None = None,
) -> tuple[int, int]:
    started = time.monotonic()

    def at() -> dt.datetime:
        # The caller's clock, moving on in real time: a long flush's later
        # claims get leases counted from when they were made.
        return now + dt.timedelta(seconds=time.monotonic() - started)

    _record_unrecorded(factory, journal)
    sent = failed = 0

    def stopped(what: str) -> OutboxError:
        return OutboxError(f"{what} ({sent} sent, {failed} failed before that)")

    def record(delivered: list[tuple[int, str, str]], claim_at: dt.datetime) -> None:
        nonlocal sent
        if not delivered:
            return
        # In claim order, whichever connection carried which: the first named
        # in a message is the oldest.
        delivered = sorted(delivered)
        done_at = at()
        try:
            _mark_sent(factory, [mail_id for mail_id, _, _ in delivered], done_at)
        except DBAPIError as exc:
            # Delivered, but not recorded: keep the claims (no flush anywhere
            # sends them again before the lease ends) and retry the marks
            # first thing at this process's next flush.
            kept = UNRECORDED.keep(
                [(mail_id, message_id) for mail_id, message_id, _ in delivered], done_at, journal
            )
            until = (claim_at + lease).isoformat(timespec="seconds")
            _, message_id, recipient = delivered[0]
            more = f" (and {len(delivered) - 1} more)" if len(delivered) > 1 else ""
            raise stopped(
                f"mail {message_id} to {recipient}{more} was delivered "
                f"but cannot be marked sent: {_reason(exc)}; "
                f"no flush sends it again before {until}{kept}; "
                "free the space or fix the database, then run `turnproc send`"
            ) from None
        sent += len(delivered)

    def claim() -> tuple[list[Claimed], dt.datetime]:
        claim_at = at()
        try:
            with factory() as session, session.begin():
                return _claim(session, me, claim_at, lease, batch), claim_at
        except DBAPIError as exc:
            raise stopped(f"cannot claim the next mail: {_reason(exc)}") from None

    def release(ids: list[int], message_id: str) -> None:
        try:
            _write(
                factory,
                update(m.OutboxMail)
                .where(m.OutboxMail.id.in_(ids), m.OutboxMail.claimed_by == me)
                .values(claimed_until=None),
            )
        except DBAPIError:
            log.debug("outbox: could not release the claims from %s on", message_id, exc_info=True)

    # While a batch with mails to build (reports) goes out, the next AHEAD
    # batches are claimed and built, in a thread waiting on the builder's
    # processes: rendering and SMTP overlap. Batches of stored mails claim
    # none ahead: nothing to prepare, and nothing held should the flush stop.
    ahead = ThreadPoolExecutor(max_workers=1, thread_name_prefix="outbox-build")
    queued: deque[tuple[list[Claimed], dt.datetime, Future[dict[int, bytes | Exception]]]] = deque()
    drained = False

    def take(depth: int) -> None:
        nonlocal drained
        while not drained and len(queued) < depth:
            next_claimed, next_at = claim()
            if not next_claimed:
                drained = True
                return
            queued.append((next_claimed, next_at, ahead.submit(_built, next_claimed, build)))

    def give_back_queued(message_id: str) -> None:
        ids = [c.id for batch_ahead, _, _ in queued for c in batch_ahead]
        if ids:
            release(ids, message_id)

    # Each batch goes over as many connections as the transport may open
    # (turnproc/mail/lanes.py); this thread keeps the database work.
    lanes = Lanes(transport)

    try:
        take(1)
        while queued:
            claimed, claim_at, pending = queued.popleft()
            raws = pending.result()
            delivered: list[tuple[int, str, str]] = []
            handed: set[int] = set()  # delivered in this batch, recorded or not
            settled: set[int] = set()  # failed, and recorded as failed
            since = time.monotonic()
            outcomes = lanes.run(len(claimed), functools.partial(_send, claimed, raws))
            try:
                # Claims ahead while the lanes deliver this batch; stored mails
                # need none until this batch is marked.
                take(AHEAD if any(c.body is None for c in claimed) else 0)
                for index, error in outcomes:
                    mail = claimed[index]
                    if delivered and time.monotonic() - since > BATCH_SECONDS:
                        # A slow server: record what went so far, so a crash now
                        # repeats only these last seconds' mails.
                        went, delivered, since = delivered, [], time.monotonic()
                        record(went, claim_at)
                    if error is None:
                        delivered.append((mail.id, mail.message_id, mail.recipient))
                        handed.add(mail.id)
                        continue
                    if not isinstance(error, Exception) or isinstance(error, ServerUnavailable):
                        raise error
                    # This mail failed (refused, dropped): retry it later.
                    failed += 1
                    try:
                        _write(
                            factory,
                            update(m.OutboxMail)
                            .where(m.OutboxMail.id == mail.id)
                            .values(
                                attempts=mail.attempts,
                                last_error=one_line(error)[:2000],
                                next_attempt_at=claim_at + _backoff(mail.attempts),
                                claimed_until=None,
                            ),
                        )
                    except DBAPIError as db_exc:
                        raise stopped(
                            f"mail {mail.message_id} not delivered "
                            f"and the failure cannot be recorded: {_reason(db_exc)}"
                        ) from None
                    settled.add(mail.id)
                    log.warning(
                        "mail %s to %s not delivered (attempt %d): %s",
                        mail.message_id,
                        mail.recipient,
                        mail.attempts,
                        one_line(error),
                    )
                    log.debug("mail %s: delivery failure", mail.message_id, exc_info=error)
            except BaseException as exc:
                # Whatever stops the flush, the other lanes finish the mail they
                # hold and take no other, and what went is recorded first: a
                # delivered mail left claimed would go again after the lease.
                late = [claimed[i] for i, late_error in outcomes.stop() if late_error is None]
                delivered += [(c.id, c.message_id, c.recipient) for c in late]
                handed.update(c.id for c in late)
                try:
                    record(delivered, claim_at)
                finally:
                    # The batches claimed ahead were not touched: back for the next flush.
                    give_back_queued(claimed[0].message_id)
                if isinstance(exc, ServerUnavailable):
                    # Nothing more was handed over: give the other claims back,
                    # count no attempt.
                    back = [c for c in claimed if c.id not in handed and c.id not in settled]
                    release([c.id for c in back], back[0].message_id if back else "")
                    raise stopped(str(exc)) from None
                raise
            record(delivered, claim_at)
            take(1)
    finally:
        # Builds queued for batches that will not go now are not worth waiting for.
        ahead.shutdown(wait=True, cancel_futures=True)
        lanes.close()
    if sent or failed:
        log.info("outbox: %d sent, %d failed", sent, failed)
    return sent, failed


def purge_sent_bodies(factory: sessionmaker[Session], now: dt.datetime, keep_days: int) -> int:
    """Empty the bytes of mails sent more than ``keep_days`` ago (0: keep all),
    and the data an answer was built from; the rows stay, so the GM still sees
    who got what and when. At a thousand empires a night's mail is hundreds
    of megabytes; the reports it carried
    stay in ``reports`` and can be mailed again (REPORT n). Returns the count."""
    if keep_days <= 0:
        return 0
    purged = _write(
        factory,
        update(m.OutboxMail)
        .where(m.OutboxMail.sent_at < now - dt.timedelta(days=keep_days), UNPURGED)
        .values(body=b"", data=None),
    )
    if purged:
        log.info("outbox: emptied %d sent mails older than %d days", purged, keep_days)
    return purged


def pending_count(session: Session) -> int:
    return (
        session.scalar(select(func.count()).select_from(m.OutboxMail).where(m.OutboxMail.sent_at.is_(None)))
        or 0
    )
