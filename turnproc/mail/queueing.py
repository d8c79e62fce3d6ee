"""Queueing a mail in the outbox (:mod:`.outbox`), in the transaction that
decided to send it: one mail as its bytes (or as the data it is built from
when sent), or many to be built when sent from a stored report or bulletin in
one bulk INSERT. Delivering them is :mod:`.outbox`'s."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from email.header import decode_header, make_header
from email.parser import BytesHeaderParser

from sqlalchemy import insert
from sqlalchemy.orm import Session

from ..storage import models as m
from ..storage.mailkinds import MailKind

__all__ = ["queue_mail", "queue_deferred", "Deferred"]


def _plain(value: object) -> str:
    return str(make_header(decode_header(str(value))))


def queue_mail(
    session: Session,
    raw: bytes | None,
    *,
    kind: MailKind,
    game_id: int | None,
    turn: int | None = None,
    held: bool = False,
    now: dt.datetime | None = None,
    headers: tuple[str, str, str] | None = None,
    data: str | None = None,
) -> m.OutboxMail:
    """Queue a mail; ``turn`` names the turn a report mail reports, ``held``
    keeps it back until the GM releases a staged turn. ``now`` is the caller's
    clock (the reply caps count against it). ``raw``: the whole mail, or None
    for one built when sent from ``data`` (an answer: the flush's ``build``);
    ``headers``: its (recipient, subject, Message-ID) when the caller has
    them, else they are read from ``raw``."""
    if (raw is None) == (data is None):
        raise ValueError("a mail is queued either as bytes or as data to build it from")
    if headers is None:
        if raw is None:
            raise ValueError("a mail built when sent needs its headers given")
        msg = BytesHeaderParser().parsebytes(raw)
        headers = (_plain(msg["To"]), _plain(msg["Subject"]), str(msg["Message-ID"]))
    recipient, subject, message_id = headers
    row = m.OutboxMail(
        created_at=now or m.utcnow(),
        game_id=game_id,
        turn=turn,
        held=held,
        kind=kind,
        recipient=recipient,
        subject=subject,
        message_id=message_id,
        body=raw,
        data=data,
    )
    session.add(row)
    return row


@dataclass(frozen=True)
class Deferred:
    """A mail whose bytes are built when it is sent, from the stored report
    or bulletin it names (the flush's ``build``). ``bcc``: its recipients,
    named only in the envelope (``recipient`` is then what the To: says)."""

    recipient: str
    subject: str
    message_id: str
    report_id: int | None = None
    bulletin_id: int | None = None
    bcc: list[str] | None = None


def queue_deferred(
    session: Session,
    mails: Sequence[Deferred],
    *,
    kind: MailKind,
    game_id: int,
    now: dt.datetime,
    turn: int | None = None,
    held: bool = False,
) -> None:
    """Queue ``mails`` to be built when sent, in one bulk INSERT (a turn
    queues a thousand report mails at once)."""
    if not mails:
        return
    session.execute(
        insert(m.OutboxMail),
        [
            {
                "created_at": now,
                "game_id": game_id,
                "turn": turn,
                "held": held,
                "kind": kind,
                "recipient": d.recipient,
                "subject": d.subject,
                "message_id": d.message_id,
                "body": None,
                "report_id": d.report_id,
                "bulletin_id": d.bulletin_id,
                "bcc": d.bcc,
            }
            for d in mails
        ],
    )
