"""The audit log: who did what to which game's data, when, and how it ended.

Rows are only ever added. A turn action and its audit entry commit in the
same transaction, so there is no change without its entry; a refused or failed
attempt is recorded in a transaction of its own after the rollback. A GM
script's entry is always written apart (:func:`record_apart`, its own
connection, after the script's transaction ended), so the script cannot reach
it; a crash between the commit and that entry would leave a change unaudited.
"""

from __future__ import annotations

import datetime as dt
import getpass
import hashlib
import logging
import os
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from ..storage import models as m

log = logging.getLogger(__name__)

__all__ = ["digest", "os_user", "recent", "record", "record_apart"]


def os_user() -> str:
    """The operating-system account running turnproc, with the account behind sudo."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # a container uid with no passwd entry and no $USER
        user = f"uid {os.getuid()}"
    sudo = os.environ.get("SUDO_USER")
    if sudo and sudo != user:
        user = f"{user} (sudo by {sudo})"
    return user[:64]


def digest(script: str) -> str:
    return hashlib.sha256(script.encode("utf-8")).hexdigest()


def record(
    session: Session,
    *,
    action: str,
    game_id: int | None,
    game_name: str,
    script: str,
    outcome: str,
    detail: str,
    now: dt.datetime,
    user: str | None = None,
) -> m.AuditEntry:
    """Add an entry to the caller's transaction."""
    entry = m.AuditEntry(
        at=now,
        os_user=user or os_user(),
        action=action,
        game_id=game_id,
        game_name=game_name[:64],
        script=script,
        sha256=digest(script),
        outcome=outcome,
        detail=detail,
    )
    session.add(entry)
    session.flush()
    log.info(
        "audit %d: %s %s on %s by %s: %s",
        entry.id,
        action,
        entry.sha256[:12],
        game_name,
        entry.os_user,
        outcome,
    )
    return entry


def record_apart(engine: Engine, **fields: Any) -> int:
    """Add an entry (same fields as :func:`record`) in a transaction of its own,
    for an attempt whose own transaction was rolled back."""
    with Session(engine) as session, session.begin():
        return record(session, **fields).id


def recent(session: Session, game_name: str | None = None, limit: int = 20) -> list[m.AuditEntry]:
    query = select(m.AuditEntry).order_by(m.AuditEntry.id.desc()).limit(limit)
    if game_name is not None:
        query = query.where(m.AuditEntry.game_name == game_name)
    return list(session.scalars(query))
