"""The mails that tell a player what the GM did to their empire: a new
address (to the old address and the new), a hand-over to another player (to
the old address; the new player gets the welcome), and orders the GM entered
for them. One function per kind, as in :mod:`turnproc.outgoing.mails`, each queued by
:func:`turnproc.outgoing.templated.queue_notice`."""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import Session

from ..config import Config
from ..storage.mailkinds import MailKind
from .contexts import AddressSetContext, HandedOverContext, OrdersEnteredContext
from .templated import queue_notice

__all__ = ["queue_address_set", "queue_handed_over", "queue_orders_entered"]


def queue_address_set(
    session: Session,
    config: Config,
    now: dt.datetime,
    *,
    game: str,
    game_id: int,
    empire: str,
    old: str,
    new: str,
) -> int:
    """To the old address and the new: the GM moved the empire's mail."""
    context: AddressSetContext = {"game": game, "empire": empire, "old": old, "new": new}
    to = [old] if old.lower() == new.lower() else [old, new]
    return sum(
        queue_notice(
            session, config, "address_set", context, now, game_id=game_id, recipient=r, kind=MailKind.NOTICE
        )
        for r in to
    )


def queue_handed_over(
    session: Session, config: Config, now: dt.datetime, *, game: str, game_id: int, empire: str, old: str
) -> bool:
    """To the old player's address: the empire has a new player."""
    context: HandedOverContext = {"game": game, "empire": empire}
    return queue_notice(
        session, config, "handed_over", context, now, game_id=game_id, recipient=old, kind=MailKind.NOTICE
    )


def queue_orders_entered(
    session: Session,
    config: Config,
    now: dt.datetime,
    *,
    game: str,
    game_id: int,
    empire: str,
    recipient: str,
    turn: int,
    orders: list[str],
) -> bool:
    """To the player: the GM entered these orders for the empire (``turnproc orders submit``)."""
    context: OrdersEnteredContext = {
        "game": game,
        "empire": empire,
        "turn": turn,
        "orders": orders,
        "reply_to": config.from_address,
    }
    return queue_notice(
        session,
        config,
        "orders_entered",
        context,
        now,
        game_id=game_id,
        recipient=recipient,
        kind=MailKind.NOTICE,
        turn=turn,
    )
