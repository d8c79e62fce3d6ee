"""The one read-model of a game loaded through the ORM: its row, its empires
and its current deadline.

Everything above storage that needs to know about a game — intake, the turn
run, the GM's commands, the worker's decisions — reads it as a
:class:`GameView` (``readmodel``, with its deadline), loaded here, and asks
:func:`current_deadline` when the turn closes. Lookups a GM makes by name
refuse with :class:`GMError`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Literal

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from ..errors import GMError
from . import models as m
from . import plainread
from .readmodel import (
    EmpireView,
    GameView,
    consume_deadline,
    current_deadline,
    current_deadline_or_none,
    current_deadline_text,
    deadline_due,
    move_deadline,
    view_of,
)

__all__ = [
    "EmpireView",
    "GameView",
    "load_game_view",
    "plain_reader",
    "view_of",
    "current_deadline",
    "deadline_due",
    "consume_deadline",
    "move_deadline",
    "current_deadline_text",
    "current_deadline_or_none",
    "get_game",
    "get_empire",
    "list_games",
    "galaxy_counts",
    "orders_on_file",
    "withdraw_orders",
    "replies_last_hour",
    "replies_last_hour_to",
    "staged_record",
    "suppressed_replies",
]

Lock = Literal["share", "update"] | None


def load_game_view(
    session: Session,
    *,
    game_id: int | None = None,
    name: str | None = None,
    lock: Lock = None,
    empires: bool = True,
) -> tuple[m.Game, GameView] | None:
    """The game row (by id, or by name ignoring case) and its view.

    ``lock="update"`` locks the row for the rest of the transaction (a turn
    run, the worker acting); ``lock="share"`` lets readers in but makes a turn
    run wait (intake). On SQLite, BEGIN IMMEDIATE already holds the write lock.
    """
    query = select(m.Game).execution_options(populate_existing=True)
    if game_id is not None:
        query = query.where(m.Game.id == game_id)
    elif name is not None:
        query = query.where(func.lower(m.Game.name) == name.lower())
    else:
        raise TypeError("load_game_view needs game_id or name")
    if lock is not None:
        query = query.with_for_update(read=lock == "share")
    game = session.scalars(query).first()
    if game is None:
        return None
    if not empires:
        return game, view_of(game)
    reader = plain_reader(session)
    last_run, staged = plainread.turn_marks(reader, game.id)
    views = plainread.empire_views(reader, game.id, game.turn)
    return game, view_of(game, opened_at=last_run, staged_turn=staged, empires=views)


def plain_reader(session: Session) -> plainread.Reader:
    """This session's own DB-API connection, in its transaction, for the reads
    of ``plainread``: the one implementation of them, which the GM's prompt
    also runs without SQLAlchemy. What the session holds unwritten is flushed
    first, as the ORM's own queries would have flushed it."""
    session.flush()
    conn = session.connection()
    driver = conn.connection.driver_connection
    return plainread.Reader(driver, postgres=conn.dialect.name == "postgresql")


def get_game(session: Session, name: str) -> m.Game:
    game = session.scalar(select(m.Game).where(m.Game.name == name))
    if game is None:
        known = session.scalars(select(m.Game.name).order_by(m.Game.name)).all()
        hint = (
            f" (games: {', '.join(known)})" if known else " (there are no games yet: turnproc game new NAME)"
        )
        raise GMError(f"no game named {name!r}{hint}")
    return game


def get_empire(session: Session, game: m.Game, code: str) -> m.Empire:
    empire = session.scalar(
        select(m.Empire).where(m.Empire.game_id == game.id, m.Empire.code == code.upper())
    )
    if empire is None:
        raise GMError(f"game {game.name!r} has no empire {code.upper()!r}")
    return empire


def list_games(session: Session) -> list[m.Game]:
    return list(session.scalars(select(m.Game).order_by(m.Game.name)))


def galaxy_counts(session: Session, game_id: int) -> tuple[int, int]:
    """(systems, free homes) of a game."""
    systems, free = session.execute(
        select(
            func.count(),
            func.count().filter(m.System.home_slot.is_(True), m.System.owner_id.is_(None)),
        ).where(m.System.game_id == game_id)
    ).one()
    return int(systems), int(free)


def orders_on_file(session: Session, empire_id: int, turn: int) -> m.OrderSet | None:
    return session.scalar(
        select(m.OrderSet)
        .where(m.OrderSet.empire_id == empire_id, m.OrderSet.turn == turn, m.OrderSet.active.is_(True))
        .order_by(m.OrderSet.id.desc())
        .limit(1)
    )


def withdraw_orders(session: Session, empire_id: int, turn: int) -> bool:
    """Mark the empire's orders for ``turn`` as withdrawn; True when there were some."""
    result = session.execute(
        update(m.OrderSet)
        .where(m.OrderSet.empire_id == empire_id, m.OrderSet.turn == turn, m.OrderSet.active.is_(True))
        .values(active=False)
    )
    return bool(getattr(result, "rowcount", 0))


def replies_last_hour(session: Session, recipient: str, kind: str, now: dt.datetime) -> int:
    return (
        session.scalar(
            select(func.count())
            .select_from(m.OutboxMail)
            .where(
                m.OutboxMail.recipient == recipient,
                m.OutboxMail.kind == kind,
                m.OutboxMail.created_at >= now - dt.timedelta(hours=1),
            )
        )
        or 0
    )


def replies_last_hour_to(
    session: Session, recipients: Sequence[str], now: dt.datetime
) -> dict[tuple[str, str], int]:
    """:func:`replies_last_hour` for many recipients and every kind at once."""
    rows = session.execute(
        select(m.OutboxMail.recipient, m.OutboxMail.kind, func.count())
        .where(m.OutboxMail.recipient.in_(recipients), m.OutboxMail.created_at >= now - dt.timedelta(hours=1))
        .group_by(m.OutboxMail.recipient, m.OutboxMail.kind)
    )
    return {(recipient, kind): count for recipient, kind, count in rows}


def suppressed_replies(session: Session, game_id: int, limit: int = 5) -> list[m.SuppressedReply]:
    """The latest answers not sent for a game, newest first."""
    return list(
        session.scalars(
            select(m.SuppressedReply)
            .where(m.SuppressedReply.game_id == game_id)
            .order_by(m.SuppressedReply.at.desc(), m.SuppressedReply.id.desc())
            .limit(limit)
        )
    )


def staged_record(session: Session, game_id: int) -> m.TurnRecord | None:
    return session.scalar(
        select(m.TurnRecord).where(m.TurnRecord.game_id == game_id, m.TurnRecord.staged.is_(True))
    )
