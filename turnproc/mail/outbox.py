"""The outbox: mails are queued in the database in the transaction that decided
to send them, and delivered only after it committed.

A mail marked sent is never sent again; a failed delivery is retried with
growing back-off. Delivery is per mail in its own transaction, so a crash
mid-flush re-sends at most the one mail in hand.
"""

from __future__ import annotations

import datetime as dt
import logging
from email.header import decode_header, make_header
from email.message import Message
from typing import Protocol

from sqlalchemy import or_, select
from sqlalchemy.orm import Session, sessionmaker

from ..storage import models as m

log = logging.getLogger(__name__)

__all__ = ["Transport", "queue_mail", "flush_outbox", "pending_count"]

MAX_ATTEMPTS = 12


class Transport(Protocol):
    def deliver(self, raw: bytes, recipient: str) -> None: ...


def _plain(value: object) -> str:
    return str(make_header(decode_header(str(value))))


def queue_mail(
    session: Session,
    msg: Message,
    *,
    kind: str,
    game_id: int | None,
    turn: int | None = None,
    held: bool = False,
    now: dt.datetime | None = None,
) -> m.OutboxMail:
    """Queue ``msg``; ``turn`` names the turn a report mail reports, ``held``
    keeps it back until the GM releases a staged turn. ``now`` is the caller's
    clock (the reply caps count against it)."""
    row = m.OutboxMail(
        created_at=now or m.utcnow(),
        game_id=game_id,
        turn=turn,
        held=held,
        kind=kind,
        recipient=_plain(msg["To"]),
        subject=_plain(msg["Subject"]),
        message_id=str(msg["Message-ID"]),
        body=msg.as_bytes(),
    )
    session.add(row)
    return row


def _backoff(attempts: int) -> dt.timedelta:
    return dt.timedelta(seconds=min(3600, 30 * 2 ** max(0, attempts - 1)))


def flush_outbox(factory: sessionmaker[Session], transport: Transport, now: dt.datetime) -> tuple[int, int]:
    """Deliver every due mail; returns (sent, failed)."""
    with factory() as session:
        due = session.scalars(
            select(m.OutboxMail.id)
            .where(
                m.OutboxMail.sent_at.is_(None),
                m.OutboxMail.held.is_(False),
                m.OutboxMail.attempts < MAX_ATTEMPTS,
                or_(m.OutboxMail.next_attempt_at.is_(None), m.OutboxMail.next_attempt_at <= now),
            )
            .order_by(m.OutboxMail.id)
        ).all()
    sent = failed = 0
    for mail_id in due:
        with factory() as session, session.begin():
            row = session.get(m.OutboxMail, mail_id)
            if row is None or row.sent_at is not None or row.held:
                # Sent meanwhile, or held back again by a GM since the query.
                continue
            try:
                transport.deliver(row.body, row.recipient)
            except Exception as exc:  # any transport failure: keep the mail, retry later
                row.attempts += 1
                row.last_error = f"{type(exc).__name__}: {exc}"[:2000]
                row.next_attempt_at = now + _backoff(row.attempts)
                failed += 1
                log.warning("mail %s to %s not delivered (attempt %d): %s", row.message_id, row.recipient, row.attempts, exc)
                continue
            row.attempts += 1
            row.sent_at = now
            sent += 1
    if sent or failed:
        log.info("outbox: %d sent, %d failed", sent, failed)
    return sent, failed


def pending_count(session: Session) -> int:
    return len(session.scalars(select(m.OutboxMail.id).where(m.OutboxMail.sent_at.is_(None))).all())
