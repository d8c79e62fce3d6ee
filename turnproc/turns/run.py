"""Turns: the run, and reading it before and after.

* **run** — load the game, resolve the turn, write the new state, the turn
  record and every report and its mail, all in the caller's one transaction.
  A turn runs at most once: the turn record's (game, number) is unique.
* **preview** — run the current turn exactly as ``turn run`` would, inside a
  transaction that is always rolled back: the GM reads what would happen and
  nothing is written.

The GM's control over a turn once run (hold, release, discard, rollback,
rerun) is in :mod:`.control`; it takes the game's lock the run takes
(:func:`lock_game`).

Every function works in the caller's transaction (preview writes nothing).

The mails (the reports' and the notices') are imported inside the functions
that queue them: ``turnproc report`` reads a report through this module, and
would otherwise load the mail layer and the map pictures it never uses
(tests/test_cli_imports.py).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, insert, select
from sqlalchemy.orm import Session, sessionmaker

from ..config import Config
from ..errors import GMError, TurnAlreadyRun
from ..orders.vocabulary import EventKind
from ..reports.narrative import narrate
from ..reports.render import render_report_text
from ..reports.schema import StoredReport
from ..reports.turnout import record_output, report_output
from ..rules.activity import record_missed_turns
from ..rules.events import Event
from ..rules.turn import resolve, turn_rng
from ..runtime.collector import gc_paused
from ..runtime.jsontext import Encoded
from ..storage import models as m
from ..storage import plainread
from ..storage.convert import load_state, orders_for_turn, save_game_fields, save_state
from ..storage.db import transaction
from ..storage.queries import consume_deadline, get_empire, get_game, plain_reader, staged_record
from .position import position_reports

log = logging.getLogger(__name__)

__all__ = [
    "TurnResult",
    "run_turn",
    "run_current_turn",
    "report_for",
    "Preview",
    "preview_turn",
    "lock_game",
]

#: The viewer for events of no empire: no empire has this code, so they are told
#: in the third person.
GM_VIEW = "GM"


# -- the run ---------------------------------------------------------------------------


@dataclass
class TurnResult:
    game: str
    turn: int
    events: int
    reports: Mapping[str, StoredReport]
    """Empire code → its report's data (:meth:`report_text` renders it)."""
    finished: bool
    missed: list[str] = field(default_factory=list)
    """Empires with no orders on file for the turn."""
    inactive: list[str] = field(default_factory=list)
    """Empires this turn made inactive (``Game.inactive_after`` misses in a row)."""
    staged: bool = False
    """Held for the GM: saved, but its mails wait for ``turnproc turn release``."""

    def report_text(self, code: str) -> str:
        return render_report_text(self.reports[code])


@gc_paused()
def run_turn(
    session: Session,
    game: m.Game,
    config: Config,
    now: dt.datetime,
    *,
    stage: bool | None = None,
    corrected: bool = False,
    reason: str | None = None,
    turn: int | None = None,
) -> TurnResult:
    """Resolve the game's current turn, save everything and queue the reports.

    ``turn`` is the turn the caller saw as current before it took the game's
    lock: when another run (a second ``turn run``, the worker) got there
    first, this one refuses with :class:`TurnAlreadyRun` instead of running
    the next turn too. To run the next turn, run again.

    Runs inside the caller's transaction: any failure leaves the database as
    it was. ``stage`` (default: the game's ``hold`` setting) saves the turn as
    staged and holds its mails until the GM releases it; no further turn runs
    while one is staged. ``corrected`` marks the reports as replacing earlier
    ones (a GM's rerun), and ``reason`` is the GM's word on why, printed in
    each. The GM's announcements of the turn are printed in every report.
    """
    # Here, not at the top (see the module's docstring).
    from .reports import empire_rows_of, report_settings, store_reports

    lock_game(session, game)  # intake batches and a second runner wait for this turn
    if turn is not None and game.turn != turn:
        raise TurnAlreadyRun(
            f"turn {turn} of game {game.name} has already run (the game is at turn {game.turn} now)"
        )
    if game.status == "finished":
        raise GMError(f"game {game.name} is over")
    already = session.scalar(
        select(m.TurnRecord.id).where(m.TurnRecord.game_id == game.id, m.TurnRecord.number == game.turn)
    )
    if already is not None:
        raise GMError(f"turn {game.turn} of game {game.name} has already been run")
    staged = staged_record(session, game.id)
    if staged is not None:
        raise GMError(
            f"turn {staged.number} of game {game.name} is staged for the GM: "
            f"turnproc turn release {game.name} (or turn discard) first"
        )
    if stage is None:
        stage = game.hold
    state = load_state(session, game)
    if not state.empires:
        raise GMError(f"game {game.name} has no empires yet: turnproc empire add {game.name} ...")
    orders, lines = orders_for_turn(session, game)
    number = state.turn
    rng_seed = f"{game.seed}:{number}"
    # A turn run before and rolled back: players may hold its first reports,
    # so these say in their subject that they replace them.
    corrected = corrected or _ran_before(session, game, number)
    new_state, events = resolve(state, orders, turn_rng(game.seed, number))
    empire_rows = empire_rows_of(session, game)
    on_leave = {
        c: e.vacation_until
        for c, e in empire_rows.items()
        if e.vacation_until is not None and e.vacation_until >= number
    }
    quitting = [c for c, e in empire_rows.items() if e.quit_at is not None]
    missed, inactive = record_missed_turns(new_state, lines, game.inactive_after, on_leave, quitting)
    # The reports read the game row as the turn leaves it (the next deadline).
    save_game_fields(game, new_state)
    consume_deadline(game)  # a hand-set deadline is for the turn just run
    settings = report_settings(
        session,
        config,
        game,
        new_state,
        number,
        now,
        corrected=corrected,
        reason=reason,
        empire_rows=empire_rows,
    )
    output = report_output(new_state, events, settings)
    record = record_output(state, events)
    save_state(session, game, new_state)
    for code in quitting:
        empire_rows[code].quit_at = None  # done: the empire is inactive now
    session.execute(
        insert(m.TurnRecord).values(
            game_id=game.id,
            number=number,
            rng_seed=rng_seed,
            state_before=Encoded(record.state_before),
            orders=lines,
            events=Encoded(record.events),
            ran_at=now,
            staged=stage,
        )
    )
    reports = store_reports(
        session, config, game, new_state, output, number, now, held=stage, empire_rows=empire_rows
    )
    session.flush()
    log.info("game %s: turn %d resolved, %d events, %d reports", game.name, number, len(events), len(reports))
    return TurnResult(
        game.name, number, len(events), reports, new_state.finished, missed, inactive, staged=stage
    )


def run_current_turn(
    sessions: sessionmaker[Session], game_name: str, config: Config, now: dt.datetime
) -> TurnResult:
    """``turnproc turn run``: the turn that is current now, and no other. The
    turn is read outside any write transaction, without waiting for one (on
    SQLite a second writer's transaction starts only after the first one's
    commit, when the next turn is already current)."""
    engine = sessions.kw["bind"]
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        current = conn.scalar(select(m.Game.turn).where(m.Game.name == game_name))
    with gc_paused(), transaction(sessions) as session:  # the commit too
        return run_turn(session, get_game(session, game_name), config, now, turn=current)


def report_for(
    session: Session, game: m.Game, empire: m.Empire, turn: int | None
) -> tuple[str, Mapping[str, Any]]:
    """An empire's report (text, JSON data): of ``turn``, else the latest.
    Turn 0 is the start of the game; with no report yet, the position now
    (before any turn has run, the start)."""
    reader = plain_reader(session)
    stored = plainread.stored_report(reader, game.id, empire.code, turn)
    if stored is not None:
        return render_report_text(stored), stored
    row = plainread.game_by_id(reader, game.id)
    _, text, context = next(position_reports(reader, row, [empire.code], start=turn == 0))
    return text, context


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

    def as_dict(self) -> dict[str, Any]:
        """``turn preview --json`` (the handbook lists the keys)."""
        keys = (
            "empire",
            "vp_before",
            "vp_after",
            "systems_before",
            "systems_after",
            "balance_after",
            "missed_after",
        )
        return {
            "game": self.game,
            "turn": self.turn,
            "finished": self.finished,
            "events": [
                {"kind": e.kind, "empire": e.empire, "text": narrate(e, e.empire or GM_VIEW)}
                for e in self.events
                if e.kind != EventKind.TURN
            ],
            "standings": [dict(zip(keys, row, strict=True)) for row in self.standings],
            "report": self.report,
        }

    def summary(self) -> list[str]:
        """What would happen, in words a GM reads at a glance."""
        kinds = Counter(e.kind for e in self.events if e.kind != EventKind.TURN)
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
            f"{e.empire}: {narrate(e, e.empire)}" if e.empire else narrate(e, GM_VIEW)
            for e in self.events
            if e.kind != EventKind.TURN
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
                select(m.TurnRecord).where(
                    m.TurnRecord.game_id == game.id, m.TurnRecord.number == result.turn
                )
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
        report=result.report_text(code) if code else None,
        finished=result.finished,
    )


# -- the game's lock, and a turn run before ------------------------------------------------


def lock_game(session: Session, game: m.Game) -> None:
    """Take the game's row lock, as the run and every control of a turn do."""
    # PostgreSQL; SQLite's BEGIN IMMEDIATE already holds the write lock.
    # Intake batches, the worker and a second runner wait while this one acts.
    session.execute(select(m.Game.id).where(m.Game.id == game.id).with_for_update())
    session.refresh(game)


def _ran_before(session: Session, game: m.Game, number: int) -> bool:
    """Turn ``number`` ran and was rolled back (a discarded staged turn's mails never went)."""
    return (
        session.scalar(
            select(m.ArchivedTurn.id)
            .where(
                m.ArchivedTurn.game_id == game.id,
                m.ArchivedTurn.number == number,
                m.ArchivedTurn.reason != "discarded",
            )
            .limit(1)
        )
        is not None
    )
