"""A GM's control over turns: preview, hold and release, rollback and rerun.

* **preview** — run the current turn exactly as ``turn run`` would, inside a
  transaction that is always rolled back: the GM reads what would happen and
  nothing is written.
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

Every function works in the caller's transaction and audits itself there, so
an action and its audit entry commit together (preview writes nothing).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import CursorResult, Engine, Result, delete, func, select, update
from sqlalchemy.orm import Session

from .admin import audit
from .config import Config
from .gm import GMError, get_empire, get_game
from .pipeline import TurnResult, run_turn
from .reports.narrative import describe
from .rules.events import Event
from .rules.invariants import check_invariants
from .rules.serialize import state_from_dict, state_to_dict
from .storage import models as m
from .storage.convert import load_state, save_state

log = logging.getLogger(__name__)

__all__ = [
    "Preview",
    "Rollback",
    "discard_turn",
    "preview_turn",
    "release_turn",
    "rerun_turn",
    "rollback",
    "set_hold",
]

#: The viewer for events of no empire: no empire has this code, so they are told
#: in the third person.
GM_VIEW = "GM"


# -- preview ---------------------------------------------------------------------------


@dataclass
class Preview:
    game: str
    turn: int
    events: list[Event]
    standings: list[tuple[str, int, int, int, int, int, int]]
    """(empire, VP before, VP after, systems before, systems after, balance after, missed turns after)"""
    report: str | None = None
    """The chosen empire's report, as it would be mailed."""
    finished: bool = False

    def summary(self) -> list[str]:
        """What would happen, in words a GM reads at a glance."""
        kinds = Counter(e.kind for e in self.events if e.kind != "turn")
        lines = [
            f"game {self.game}: turn {self.turn} would produce {len(self.events)} events"
            + (f" ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))})" if kinds else ""),
        ]
        if self.finished:
            lines.append("the game would end")
        lines.append("empire  VP before→after  systems before→after  balance  missed")
        for code, vp0, vp1, sys0, sys1, balance, missed in self.standings:
            lines.append(f"{code:<7} {vp0:>5} → {vp1:<7} {sys0:>6} → {sys1:<11} {balance:>7}  {missed:>6}")
        lines.append("what happened:")
        # Each event told as its own empire reads it ("RIG: your cruisers ..."):
        # the narrative speaks to the reader, and the GM reads for everyone.
        told = [
            f"{e.empire}: {describe(e, e.empire)}" if e.empire else describe(e, GM_VIEW)
            for e in self.events
            if e.kind != "turn"
        ]
        lines.extend(f"- {t}" for t in told or ["nothing"])
        return lines


def preview_turn(
    engine: Engine, game_name: str, config: Config, now: dt.datetime, *, empire: str | None = None
) -> Preview:
    """Resolve the current turn as ``turn run`` would, then roll everything back."""
    with Session(engine) as session:
        session.begin()
        try:
            game = get_game(session, game_name)
            code = get_empire(session, game, empire).code if empire else None
            before = load_state(session, game)
            # stage=False: the preview shows the turn, not the hold's bookkeeping.
            result = run_turn(session, game, config, now, stage=False)
            after = load_state(session, game)
            record = session.scalar(
                select(m.TurnRecord).where(m.TurnRecord.game_id == game.id, m.TurnRecord.number == result.turn)
            )
            events = [Event.from_dict(d) for d in record.events] if record is not None else []
        finally:
            # Always: a preview must leave no trace, not even on success.
            session.rollback()
    owned_before = Counter(s.owner for s in before.systems.values() if s.owner)
    owned_after = Counter(s.owner for s in after.systems.values() if s.owner)
    standings = [
        (c, before.empires[c].vp, e.vp, owned_before[c], owned_after[c], e.balance, e.missed_turns)
        for c, e in sorted(after.empires.items())
    ]
    return Preview(
        game=result.game,
        turn=result.turn,
        events=events,
        standings=standings,
        report=result.reports.get(code) if code else None,
        finished=result.finished,
    )


# -- hold, release, discard ----------------------------------------------------------------


def _rowcount(result: Result[Any]) -> int:
    # UPDATE and DELETE results are cursor results; the generic type hides it.
    return int(cast("CursorResult[Any]", result).rowcount or 0)


def _lock(session: Session, game: m.Game) -> None:
    # Same lock as a turn run: intake and the worker wait while the GM acts.
    session.execute(select(m.Game.id).where(m.Game.id == game.id).with_for_update())
    session.refresh(game)


def _staged(session: Session, game: m.Game) -> m.TurnRecord | None:
    return session.scalar(
        select(m.TurnRecord).where(m.TurnRecord.game_id == game.id, m.TurnRecord.staged.is_(True))
    )


def set_hold(session: Session, game: m.Game, hold: bool, now: dt.datetime, *, user: str | None = None) -> None:
    """Switch staging on or off; a turn already staged stays staged until released."""
    _lock(session, game)
    game.hold = hold
    audit.record(
        session, action="hold", game_id=game.id, game_name=game.name, script=f"turn hold {game.name}"
        + ("" if hold else " --off"), outcome="committed", detail=f"hold {'on' if hold else 'off'}", now=now, user=user,
    )  # fmt: skip


@dataclass
class Release:
    game: str
    turn: int
    mails: int


def release_turn(session: Session, game: m.Game, now: dt.datetime, *, user: str | None = None) -> Release:
    """Make the staged turn final and let its mails go."""
    _lock(session, game)
    record = _staged(session, game)
    if record is None:
        raise GMError(f"game {game.name} has no staged turn to release")
    record.staged = False
    mails = _rowcount(
        session.execute(
            update(m.OutboxMail).where(m.OutboxMail.game_id == game.id, m.OutboxMail.held.is_(True)).values(held=False)
        )
    )
    audit.record(
        session, action="release", game_id=game.id, game_name=game.name, script=f"turn release {game.name}",
        outcome="committed", detail=f"turn {record.number}: {mails} mails released", now=now, user=user,
    )  # fmt: skip
    log.info("game %s: staged turn %d released, %d mails", game.name, record.number, mails)
    return Release(game.name, record.number, mails)


def discard_turn(session: Session, game: m.Game, now: dt.datetime, *, user: str | None = None) -> Rollback:
    """Drop the staged turn: the game goes back to collecting its orders."""
    _lock(session, game)
    record = _staged(session, game)
    if record is None:
        raise GMError(f"game {game.name} has no staged turn to discard")
    result = _rollback(session, game, record.number, "discarded", now)
    audit.record(
        session, action="discard", game_id=game.id, game_name=game.name, script=f"turn discard {game.name}",
        outcome="committed", detail=result.describe(), now=now, user=user,
    )  # fmt: skip
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

    def describe(self) -> str:
        turns = ", ".join(map(str, self.archived))
        return (
            f"game {self.game} is back at turn {self.turn}; archived turn(s) {turns}; "
            f"{self.cancelled_mails} unsent report mail(s) cancelled, {self.sent_mails} already sent"
        )


def rollback(
    session: Session, game: m.Game, to: int, now: dt.datetime, *, user: str | None = None, reason: str | None = None
) -> Rollback:
    """Put the game back to collecting orders for turn ``to``."""
    _lock(session, game)
    result = _rollback(session, game, to, reason or f"rollback to {to}", now)
    audit.record(
        session, action="rollback", game_id=game.id, game_name=game.name, script=f"turn rollback {game.name} --to {to}",
        outcome="committed", detail=result.describe(), now=now, user=user,
    )  # fmt: skip
    return result


def _rollback(session: Session, game: m.Game, to: int, reason: str, now: dt.datetime) -> Rollback:
    if to >= game.turn:
        raise GMError(f"game {game.name} is collecting orders for turn {game.turn}; --to must name an earlier turn")
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
    reports: dict[int, dict[str, str]] = {}
    for turn, code, text in session.execute(
        select(m.Report.turn, m.Empire.code, m.Report.text)
        .join(m.Empire, m.Empire.id == m.Report.empire_id)
        .where(m.Report.game_id == game.id, m.Report.turn >= to)
    ):
        reports.setdefault(turn, {})[code] = text
    now_state = state_to_dict(current)
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
    mails = m.OutboxMail.game_id == game.id, m.OutboxMail.kind == "report", m.OutboxMail.turn >= to
    sent = session.scalar(select(func.count()).select_from(m.OutboxMail).where(*mails, m.OutboxMail.sent_at.is_not(None)))
    cancelled = _rowcount(session.execute(delete(m.OutboxMail).where(*mails, m.OutboxMail.sent_at.is_(None))))
    session.execute(delete(m.Report).where(m.Report.game_id == game.id, m.Report.turn >= to))
    session.execute(delete(m.TurnRecord).where(m.TurnRecord.game_id == game.id, m.TurnRecord.number >= to))
    save_state(session, game, target)
    if not target.finished and game.status == "finished":
        game.status = "active"
    game.deadline_override = None
    session.flush()
    broken = check_invariants(target)
    if broken:  # the state came from a turn record the engine checked; this is a bug
        raise GMError(f"turn {to}'s recorded state breaks invariants: " + "; ".join(map(str, broken)))
    result = Rollback(game.name, to, [r.number for r in records], cancelled, int(sent or 0))
    log.info("%s (%s)", result.describe(), reason)
    return result


def rerun_turn(
    session: Session, game: m.Game, number: int, config: Config, now: dt.datetime, *, user: str | None = None
) -> tuple[Rollback | None, TurnResult]:
    """Run turn ``number`` again with its original seed and the orders on file now.

    When the game is past ``number`` it is rolled back first; when a rollback
    already put it at ``number``, the turn simply runs. Either way the reports
    go out marked as corrections.
    """
    _lock(session, game)
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
        raise GMError(f"turn {number} of game {game.name} has never been run: use turnproc turn run {game.name}")
    if archived != f"{game.seed}:{number}":
        raise GMError(
            f"game {game.name}'s seed was changed since turn {number} ran; a rerun would not use the original dice"
        )
    result = run_turn(session, game, config, now, corrected=True)
    audit.record(
        session, action="rerun", game_id=game.id, game_name=game.name, script=f"turn rerun {game.name} {number}",
        outcome="committed",
        detail=(rolled.describe() + "; " if rolled else "") + f"turn {number} re-run, {len(result.reports)} corrected reports",
        now=now, user=user,
    )  # fmt: skip
    return rolled, result
