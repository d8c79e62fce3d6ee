"""What the GM tells every player: a moved deadline, and announcements.

A deadline moves when the GM pauses or resumes a game, changes its schedule or
extends the turn, and when the missed-orders guard keeps a turn from running.
Each change is mailed to every active player once: the Message-ID is stable
for the change (the outbox refuses a second copy), so a worker pass retried
after a failure does not mail it again.

An announcement (``turnproc announce``) is mailed at once and stored, so the
report of the turn it was made in prints it again.
"""

from __future__ import annotations

import datetime as dt
import logging

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..admin import audit
from ..config import Config
from ..errors import GMError
from ..outgoing.announcements import queue_announcement, queue_deadline_changed
from ..outgoing.contexts import RolledBackContext
from ..outgoing.templated import queue_notice
from ..storage import models as m
from ..storage.mailkinds import MailKind
from ..storage.queries import current_deadline, move_deadline, view_of
from ..timing import deadlines

log = logging.getLogger(__name__)

__all__ = [
    "active_recipients",
    "notify_deadline",
    "notify_guard",
    "notify_rollback",
    "change_key",
    "announce",
    "announcements_for",
    "extend_deadline",
]

UTC = dt.timezone.utc


def active_recipients(session: Session, game: m.Game) -> list[tuple[str, str]]:
    """(code, address) of every active empire, by code."""
    rows = session.execute(
        select(m.Empire.code, m.Empire.email)
        .where(m.Empire.game_id == game.id, m.Empire.active.is_(True))
        .order_by(m.Empire.code)
    ).all()
    return [(code, email) for code, email in rows]


def notify_deadline(
    session: Session, config: Config, game: m.Game, now: dt.datetime, *, change: str, because: str
) -> int:
    """Mail every active player the turn's deadline as it is now. ``change``
    names this change uniquely (e.g. ``pause-20261201T0230``, ``guard-<the
    deadline acted on>``): the same name is never mailed twice. The number of
    mails queued."""
    when: dt.datetime | None = None
    if game.status == "active":
        try:
            when = current_deadline(view_of(game), now)
        except deadlines.DeadlineError:
            when = None  # the worker tells the GM about a broken schedule
    queued = queue_deadline_changed(
        session,
        config,
        game,
        now,
        change=change,
        because=because,
        deadline=deadlines.format_deadline(when),
        deadline_utc=deadlines.format_deadline(when.astimezone(UTC)) if when is not None else None,
        recipients=active_recipients(session, game),
    )
    if queued:
        log.info("game %s: deadline change %s mailed to %d players", game.name, change, queued)
    return queued


def notify_guard(
    session: Session,
    config: Config,
    game: m.Game,
    now: dt.datetime,
    deadline: dt.datetime | None,
    deadline_text: str | None,
) -> int:
    """The missed-orders guard kept the turn from running at ``deadline``:
    tell the players when it now closes. Named after the deadline acted on,
    so a worker pass retried after a failure cannot mail it twice."""
    if deadline is None:
        return 0
    because = (
        f"Too many empires had no orders on file at the deadline {deadline_text} "
        "(often a mail problem, not the players), so the turn was not run and stays open."
    )
    return notify_deadline(
        session, config, game, now, change=f"guard-{deadline.astimezone(UTC):%Y%m%dT%H%M}", because=because
    )


def notify_rollback(
    session: Session,
    config: Config,
    game: m.Game,
    now: dt.datetime,
    *,
    turn: int,
    archived: list[int],
    reason: str | None,
) -> int:
    """The GM took the game back to ``turn``: tell every active player that
    the reports of the ``archived`` turns no longer hold. The number mailed."""
    queued = 0
    for code, address in active_recipients(session, game):
        context: RolledBackContext = {
            "game": game.name,
            "empire": code,
            "turn": turn,
            "archived": archived,
            "reason": reason,
            "reply_to": config.from_address,
        }
        queued += queue_notice(
            session,
            config,
            "rolled_back",
            context,
            now,
            game_id=game.id,
            recipient=address,
            kind=MailKind.NOTICE,
            turn=turn,
        )
    log.info("game %s: rollback to turn %d told to %d players", game.name, turn, queued)
    return queued


def change_key(kind: str, now: dt.datetime) -> str:
    """The name of a GM's change made at ``now`` (microseconds: two changes
    in one second are two changes)."""
    return f"{kind}-{now.astimezone(UTC):%Y%m%dT%H%M%S%f}"


def extend_deadline(
    session: Session,
    config: Config,
    game: m.Game,
    now: dt.datetime,
    *,
    hours: float | None = None,
    to: dt.datetime | None = None,
) -> dt.datetime:
    """Set the current turn's deadline by hand: ``hours`` later than the
    deadline now in force, or ``to`` (aware). It replaces the schedule's until
    the turn runs. Mails every active player; returns the new deadline (UTC)."""
    if (hours is None) == (to is None):
        raise GMError("give either --hours or --to")
    if game.status != "active":
        raise GMError(f"game {game.name} is {game.status}: resume it first")
    if to is None:
        assert hours is not None
        if not 0 < hours <= 24 * 60:
            raise GMError(f"--hours {hours:g}: must be more than 0 and at most {24 * 60}")
        try:
            current = current_deadline(view_of(game), now)
        except deadlines.DeadlineError as exc:
            raise GMError(str(exc)) from None
        to = (current or now) + dt.timedelta(hours=hours)
    if to <= now:
        raise GMError(f"the new deadline {to.astimezone(UTC):%Y-%m-%d %H:%M}Z has already passed")
    move_deadline(game, to=to)
    session.flush()
    audit.record(
        session,
        action="extend",
        game_id=game.id,
        game_name=game.name,
        script=f"game extend {game.name}",
        outcome="committed",
        detail=f"deadline of turn {game.turn} set to {to.astimezone(UTC):%Y-%m-%d %H:%M}Z",
        now=now,
    )
    notify_deadline(
        session,
        config,
        game,
        now,
        change=change_key("extend", now),
        because="The GM has set a new deadline for this turn.",
    )
    return to.astimezone(UTC)


def announce(
    session: Session, config: Config, game: m.Game, now: dt.datetime, *, subject: str, text: str
) -> int:
    """Mail the GM's ``text`` to every active player now and keep it for the
    report of the current turn. The number of players mailed."""
    subject = " ".join(subject.split())
    if not subject:
        raise GMError("--subject is empty")
    if len(subject) > 200:
        raise GMError(f"--subject is {len(subject)} characters long; at most 200")
    text = text.strip("\n")
    if not text.strip():
        raise GMError("the announcement is empty")
    if game.status == "finished":
        raise GMError(f"game {game.name} is over")
    row = m.Announcement(game_id=game.id, turn=game.turn, subject=subject, text=text, created_at=now)
    session.add(row)
    session.flush()
    audit.record(
        session,
        action="announce",
        game_id=game.id,
        game_name=game.name,
        script=text,
        outcome="committed",
        detail=f"subject: {subject}",
        now=now,
    )
    return queue_announcement(
        session,
        config,
        game,
        now,
        number=row.id,
        subject=subject,
        text=text,
        recipients=active_recipients(session, game),
    )


def announcements_for(session: Session, game_id: int, turn: int) -> list[dict[str, str]]:
    """The announcements made while ``turn`` was collected, oldest first, as
    the report prints them."""
    rows = session.scalars(
        select(m.Announcement)
        .where(m.Announcement.game_id == game_id, m.Announcement.turn == turn)
        .order_by(m.Announcement.id)
    )
    return [{"subject": a.subject, "text": a.text} for a in rows]
