"""Outbox rows as the tests read them: a report or bulletin mail's bytes are
built when it is sent, so a test reading the queue builds them the same way."""

from __future__ import annotations

from sqlalchemy.orm import Session

from turnproc.accounts.passwordkey import PasswordKey
from turnproc.outgoing.reportmail import mail_bytes
from turnproc.storage import models as m


def with_bodies(
    session: Session,
    rows: list[m.OutboxMail],
    sender: str,
    site_url: str = "",
    key: PasswordKey | None = None,
) -> list[m.OutboxMail]:
    """``rows``, detached, each with its bytes (built for those stored without;
    a welcome's with ``key``, the password key its password is sealed with)."""
    built = {row.id: mail_bytes(session, row, sender, site_url, key) for row in rows}
    for row in rows:
        session.expunge(row)
        row.body = built[row.id]
    return rows
