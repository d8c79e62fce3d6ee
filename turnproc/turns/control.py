"""Turns: the GM's control over a turn once it has run.

* **hold** — a game on hold stages each turn: the turn is resolved and saved
  with its reports, but the turn record is marked staged and its mails are
  held in the outbox. ``release`` lets the mails go; ``discard`` puts the game
  back where it was before the turn (the turn record keeps that state).
* **rollback** — back to collecting orders for turn N: the state is restored
  from turn N's record, and the records of turns N and later move to the
  archive table with their reports and the state they led to. Orders on file
  are kept, so a rerun with unchanged orders is the same turn again.
* **rerun** — rollback to N, then run turn N with its original seed and the
  orders now on file; the reports are marked as corrections.

Every function takes the game's lock the run takes, works in the caller's
transaction and audits itself there, so an action and its audit entry commit
together.

The rollback's notice to the players is imported inside the function that
queues it, as :mod:`.run` imports its mails: the command line loads this
module for ``turn hold`` and the rest, and the mail layer only when it is used.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import CursorResult, Result, delete, func, select, update
from sqlalchemy.orm import Session

from ..admin import audit
from ..config import Config
from ..errors import GMError
from ..reports.schema import StoredReport
from ..rules.invariants import check_invariants
from ..rules.serialize import state_from_dict, state_to_record
from ..storage import models as m
from ..storage.convert import load_state, save_state
from ..storage.mailkinds import MailKind
from ..storage.queries import consume_deadline, staged_record
from .run import TurnResult, lock_game, run_turn

log = logging.getLogger(__name__)

__all__ = [
    "Release",
    "Rollback",
    "discard_turn",
    "release_turn",
    "rerun_turn",
    "rollback",
    "set_hold",
]


# -- hold, release, discard ----------------------------------------------------------------


def _rowcount(result: Result[Any]) -> int:
    # UPDATE and DELETE results are cursor results; the generic type hides it.
    return int(cast("CursorResult[Any]", result).rowcount or 0)


def set_hold(
    session: Session, game: m.Game, hold: bool, now: dt.datetime, *, user: str | None = None
) -> None:
    """Switch staging on or off; a turn already staged stays staged until released."""
    lock_game(session, game)
    game.hold = hold
    audit.record(
        session,
        action="hold",
        game_id=game.id,
        game_name=game.name,
        script=f"turn hold {game.name}" + ("" if hold else " --off"),
        outcome="committed",
        detail=f"hold {'on' if hold else 'off'}",
        now=now,
        user=user,
    )


@dataclass
class Release:
    game: str
    turn: int
    mails: int


def release_turn(session: Session, game: m.Game, now: dt.datetime, *, user: str | None = None) -> Release:
    """Make the staged turn final and let its mails go."""
    lock_game(session, game)
    record = staged_record(session, game.id)
    if record is None:
        raise GMError(f"game {game.name} has no staged turn to release")
    record.staged = False
    mails = _rowcount(
        session.execute(
            update(m.OutboxMail)
            .where(m.OutboxMail.game_id == game.id, m.OutboxMail.held.is_(True))
            .values(held=False)
        )
    )
    audit.record(
        session,
        action="release",
        game_id=game.id,
        game_name=game.name,
        script=f"turn release {game.name}",
        outcome="committed",
        detail=f"turn {record.number}: {mails} mails released",
        now=now,
        user=user,
    )
    log.info("game %s: staged turn %d released, %d mails", game.name, record.number, mails)
    return Release(game.name, record.number, mails)


def discard_turn(session: Session, game: m.Game, now: dt.datetime, *, user: str | None = None) -> Rollback:
    """Drop the staged turn: the game goes back to collecting its orders."""
    lock_game(session, game)
    record = staged_record(session, game.id)
    if record is None:
        raise GMError(f"game {game.name} has no staged turn to discard")
    result = _rollback(session, game, record.number, "discarded", now)
    audit.record(
        session,
        action="discard",
        game_id=game.id,
        game_name=game.name,
        script=f"turn discard {game.name}",
        outcome="committed",
        detail=result.summary(),
        now=now,
        user=user,
    )
    return result


# -- rollback and rerun ----------------------------------------------------------------------


@dataclass
class Rollback:
    game: str
    turn: int
    """The turn the game is collecting orders for again."""
    archived: list[int] = field(default_factory=list)
    """Numbers of the turn records moved to the archive."""
    cancelled_mails: int = 0
    """Report mails of those turns that had not gone out and now never will."""
    sent_mails: int = 0
    """Report mails of those turns that players already have."""

    def summary(self) -> str:
        turns = ", ".join(map(str, self.archived))
        return (
            f"game {self.game} is back at turn {self.turn}; archived turn(s) {turns}; "
            f"{self.cancelled_mails} unsent report mail(s) cancelled, {self.sent_mails} already sent"
        )


def rollback(
    session: Session,
    game: m.Game,
    to: int,
    now: dt.datetime,
    config: Config,
    *,
    user: str | None = None,
    reason: str | None = None,
) -> Rollback:
    """Put the game back to collecting orders for turn ``to``, and tell every
    active player (the reports they had of those turns no longer hold)."""
    # Here, not at the top (see the module's docstring).
    from ..games.notices import notify_rollback

    lock_game(session, game)
    result = _rollback(session, game, to, reason or f"rollback to {to}", now)
    notify_rollback(session, config, game, now, turn=to, archived=result.archived, reason=reason)
    audit.record(
        session,
        action="rollback",
        game_id=game.id,
        game_name=game.name,
        script=f"turn rollback {game.name} --to {to}",
        outcome="committed",
        detail=result.summary(),
        now=now,
        user=user,
    )
    return result


def _rollback(session: Session, game: m.Game, to: int, reason: str, now: dt.datetime) -> Rollback:
    if to >= game.turn:
        raise GMError(
            f"game {game.name} is collecting orders for turn {game.turn}; --to must name an earlier turn"
        )
    if to < 1:
        raise GMError(f"--to {to}: turns count from 1")
    records = list(
        session.scalars(
            select(m.TurnRecord)
            .where(m.TurnRecord.game_id == game.id, m.TurnRecord.number >= to)
            .order_by(m.TurnRecord.number)
        )
    )
    if not records or records[0].number != to:
        raise GMError(f"game {game.name} has no record of turn {to} to go back to")
    current = load_state(session, game)
    target = state_from_dict(records[0].state_before)
    joined = sorted(set(current.empires) - set(target.empires))
    if joined:
        raise GMError(
            f"empire(s) {', '.join(joined)} joined game {game.name} after turn {to} began; "
            "rolling back past their arrival would leave them without a home"
        )
    reports: dict[int, dict[str, StoredReport]] = {}
    for turn, code, data in session.execute(
        select(m.Report.turn, m.Empire.code, m.Report.data)
        .join(m.Empire, m.Empire.id == m.Report.empire_id)
        .where(m.Report.game_id == game.id, m.Report.turn >= to)
    ):
        reports.setdefault(turn, {})[code] = data
    for turn, data in session.execute(
        select(m.Bulletin.turn, m.Bulletin.data).where(m.Bulletin.game_id == game.id, m.Bulletin.turn >= to)
    ):
        reports.setdefault(turn, {})["bulletin"] = data
    now_state = state_to_record(current)
    for i, record in enumerate(records):
        after = records[i + 1].state_before if i + 1 < len(records) else now_state
        session.add(
            m.ArchivedTurn(
                game_id=game.id,
                number=record.number,
                rng_seed=record.rng_seed,
                state_before=record.state_before,
                orders=record.orders,
                events=record.events,
                ran_at=record.ran_at,
                state_after=after,
                reports=reports.get(record.number, {}),
                archived_at=now,
                reason=reason[:64],
            )
        )
    mails = (
        m.OutboxMail.game_id == game.id,
        m.OutboxMail.kind.in_((MailKind.REPORT, MailKind.BULLETIN)),
        m.OutboxMail.turn >= to,
    )
    sent = session.scalar(
        select(func.count()).select_from(m.OutboxMail).where(*mails, m.OutboxMail.sent_at.is_not(None))
    )
    cancelled = _rowcount(session.execute(delete(m.OutboxMail).where(*mails, m.OutboxMail.sent_at.is_(None))))
    session.execute(delete(m.Report).where(m.Report.game_id == game.id, m.Report.turn >= to))
    session.execute(delete(m.Bulletin).where(m.Bulletin.game_id == game.id, m.Bulletin.turn >= to))
    session.execute(delete(m.TurnRecord).where(m.TurnRecord.game_id == game.id, m.TurnRecord.number >= to))
    save_state(session, game, target)
    if not target.finished and game.status == "finished":
        game.status = "active"
    consume_deadline(game)
    session.flush()
    broken = check_invariants(target)
    if broken:  # the state came from a turn record the engine checked; this is a bug
        raise GMError(f"turn {to}'s recorded state breaks invariants: " + "; ".join(map(str, broken)))
    result = Rollback(game.name, to, [r.number for r in records], cancelled, int(sent or 0))
    log.info("%s (%s)", result.summary(), reason)
    return result


def rerun_turn(
    session: Session,
    game: m.Game,
    number: int,
    config: Config,
    now: dt.datetime,
    *,
    user: str | None = None,
    reason: str | None = None,
) -> tuple[Rollback | None, TurnResult]:
    """Run turn ``number`` again with its original seed and the orders on file now.

    When the game is past ``number`` it is rolled back first; when a rollback
    already put it at ``number``, the turn simply runs. Either way the reports
    go out marked as corrections, with the GM's ``reason`` if given.
    """
    reason = " ".join((reason or "").split()) or None
    if reason is not None and len(reason) > 500:
        raise GMError(f"--reason is {len(reason)} characters long; at most 500")
    lock_game(session, game)
    rolled: Rollback | None = None
    if number < game.turn:
        rolled = _rollback(session, game, number, f"rerun of {number}", now)
    elif number > game.turn:
        raise GMError(f"game {game.name} is at turn {game.turn}; turn {number} has not been run yet")
    archived = session.scalar(
        select(m.ArchivedTurn.rng_seed)
        .where(m.ArchivedTurn.game_id == game.id, m.ArchivedTurn.number == number)
        .order_by(m.ArchivedTurn.id.desc())
        .limit(1)
    )
    if archived is None:
        raise GMError(
            f"turn {number} of game {game.name} has never been run: use turnproc turn run {game.name}"
        )
    if archived != f"{game.seed}:{number}":
        raise GMError(
            f"game {game.name}'s seed was changed since turn {number} ran; "
            "a rerun would not use the original dice"
        )
    result = run_turn(session, game, config, now, corrected=True, reason=reason)
    audit.record(
        session,
        action="rerun",
        game_id=game.id,
        game_name=game.name,
        script=f"turn rerun {game.name} {number}",
        outcome="committed",
        detail=(rolled.summary() + "; " if rolled else "")
        + f"turn {number} re-run, {len(result.reports)} corrected reports"
        + (f"; reason: {reason}" if reason else ""),
        now=now,
        user=user,
    )
    return rolled, result
