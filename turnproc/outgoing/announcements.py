"""The mails to every active player of a game at once, on the GM's behalf:
``deadline_changed`` (the turn's deadline moved) and ``announcement`` (the
GM's announcement), each with one stable Message-ID per player, so the same
one is never mailed twice, and the condition that finds an announcement's
mails again in the outbox. Queued by
:func:`turnproc.outgoing.templated.queue_notice`."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import ColumnElement
from sqlalchemy.orm import Session

from ..config import Config
from ..storage import models as m
from ..storage.mailkinds import MailKind
from . import messageids
from .contexts import AnnouncementContext, DeadlineChangedContext
from .templated import queue_notice

__all__ = ["queue_deadline_changed", "queue_announcement", "announcement_mails"]


def announcement_mails(game: m.Game, number: int) -> ColumnElement[bool]:
    """A condition on outbox rows: the mails of the game's announcement ``number``
    (their stable Message-IDs share this start, whatever the domain)."""
    # The start of every such id (messageids.game_once_id): kind, game, number.
    return m.OutboxMail.message_id.startswith(f"<turnproc.announce.{game.name}.a{number}.", autoescape=True)


def queue_deadline_changed(
    session: Session,
    config: Config,
    game: m.Game,
    now: dt.datetime,
    *,
    change: str,
    because: str,
    deadline: str | None,
    deadline_utc: str | None,
    recipients: list[tuple[str, str]],
) -> int:
    """To every active player: the turn's deadline moved (``change`` names the
    change; ``because`` says why in words). ``change`` is part of each stable
    Message-ID, so the same change is never mailed twice; the number queued."""
    queued = 0
    for code, address in recipients:
        context: DeadlineChangedContext = {
            "game": game.name,
            "turn": game.turn,
            "empire": code,
            "because": because,
            "deadline": deadline,
            "deadline_utc": deadline_utc,
            "reply_to": config.from_address,
        }
        mid = messageids.game_once_id(config.from_address, game, "deadline", f"t{game.turn}", change, code)
        queued += queue_notice(
            session,
            config,
            "deadline_changed",
            context,
            now,
            game_id=game.id,
            recipient=address,
            kind=MailKind.DEADLINE,
            message_id=mid,
            turn=game.turn,
        )
    return queued


def queue_announcement(
    session: Session,
    config: Config,
    game: m.Game,
    now: dt.datetime,
    *,
    number: int,
    subject: str,
    text: str,
    recipients: list[tuple[str, str]],
) -> int:
    """To every active player: the GM's announcement ``number`` of the game
    (its mails are found again by :func:`announcement_mails`)."""
    queued = 0
    for code, address in recipients:
        context: AnnouncementContext = {
            "game": game.name,
            "turn": game.turn,
            "empire": code,
            "subject": subject,
            "text": text,
        }
        mid = messageids.game_once_id(config.from_address, game, "announce", f"a{number}", code)
        queued += queue_notice(
            session,
            config,
            "announcement",
            context,
            now,
            game_id=game.id,
            recipient=address,
            kind=MailKind.ANNOUNCEMENT,
            message_id=mid,
            turn=game.turn,
        )
    return queued
