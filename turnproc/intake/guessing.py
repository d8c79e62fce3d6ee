"""The digest of wrong-password mails: the owner and the GM hear of them once
a day at most, never once per mail, and never the sender.

Anyone can write any From line, so a wrong password says nothing about who
sent it, and answering each one would let a forger flood the owner's mailbox
(and the GM's) through us. After a poll, each empire that got wrong passwords
and was not told in the last :data:`DIGEST_EVERY` gets one digest, to its
registered address and to the GM: how many since the last digest, between
when, and from which claimed senders. Mails after a digest are counted in the
next one.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable
from typing import Any, cast

from sqlalchemy import CursorResult, func, or_, select, update
from sqlalchemy.orm import Session

from ..app import App
from ..config import Config
from ..mails import queue_guessing_digest
from ..storage import models as m
from ..storage.db import transaction

log = logging.getLogger(__name__)

__all__ = ["DIGEST_EVERY", "tell_of_guessing"]

#: At most one digest per empire in this long.
DIGEST_EVERY = dt.timedelta(days=1)
#: Claimed senders a digest names (the most frequent); the rest are counted.
SENDERS_SHOWN = 10


def tell_of_guessing(app: App, empire_ids: Iterable[int], now: dt.datetime) -> int:
    """Queue the digests due for ``empire_ids`` (those that got wrong
    passwords in a poll just committed), in a transaction of their own; the
    number of empires told."""
    wanted = sorted(set(empire_ids))
    if not wanted:
        return 0
    told = 0
    with transaction(app.sessions) as session:
        for empire_id in wanted:
            told += _tell(session, app.config, empire_id, now)
    return told


def _tell(session: Session, config: Config, empire_id: int, now: dt.datetime) -> bool:
    empire = session.get(m.Empire, empire_id)
    if empire is None:
        return False
    since = empire.guessing_told_at
    # The one UPDATE that claims the digest: of two workers polling at once,
    # one finds the row already told and sends nothing.
    claimed = cast("CursorResult[Any]", session.execute(
        update(m.Empire)
        .where(m.Empire.id == empire_id, or_(m.Empire.guessing_told_at.is_(None), m.Empire.guessing_told_at <= now - DIGEST_EVERY))
        .values(guessing_told_at=now)
        .execution_options(synchronize_session=False)
    )).rowcount
    if not claimed:
        return False
    wrong = (m.InboundMessage.empire_id == empire_id, m.InboundMessage.outcome == "wrong_password")
    window = (*wrong, m.InboundMessage.received_at > since) if since is not None else wrong
    count, first, last = session.execute(
        select(func.count(), func.min(m.InboundMessage.received_at), func.max(m.InboundMessage.received_at)).where(*window)
    ).one()
    if not count:
        return False
    sender = func.lower(m.InboundMessage.sender)
    senders = [
        (address or "(no address)", n)
        for address, n in session.execute(
            select(sender, func.count()).where(*window).group_by(sender).order_by(func.count().desc(), sender)
        )
    ]
    latest = session.scalar(
        select(m.InboundMessage.detail).where(*window).order_by(m.InboundMessage.received_at.desc(), m.InboundMessage.id.desc()).limit(1)
    )
    game = session.get_one(m.Game, empire.game_id)
    queue_guessing_digest(
        session, config, now, game=game.name, game_id=game.id, empire=empire.code, owner=empire.email, count=count,
        first=first, last=last, senders=senders[:SENDERS_SHOWN], more_senders=max(0, len(senders) - SENDERS_SHOWN),
        latest=latest or "",
    )  # fmt: skip
    log.info("game %s: told %s and the GM of %d wrong-password mails for %s", game.name, empire.email, count, empire.code)
    return True
