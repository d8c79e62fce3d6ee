"""A turn run by hand (``turnproc turn run``), as careful as the worker.

:func:`plan_turn` reads what the GM is shown before anything runs: the turn,
the orders in and missing, and whether the guard would refuse. :func:`run_by_hand`
then runs that turn and no other. Under the game row's lock, in the one write
transaction that also runs the turn, it checks again that the turn is still
the one planned and that the guard lets it run: the worker's guard
(:func:`turnproc.turns.schedule.run_refusal`), with the missed-orders guard and a
minimum time since the last turn (``min_turn_interval``), both of which the
GM may override with ``--force``. Two ``turn run`` started together, or one
after the other, therefore run one turn: the second finds its turn gone, or
the last turn too recent. The GM gets a one-line record of every run by hand.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass

from sqlalchemy.orm import Session, sessionmaker

from ..config import Config
from ..errors import GMError, TurnAlreadyRun
from ..outgoing import mails
from ..runtime.collector import gc_paused
from ..storage.db import transaction
from ..storage.queries import GameView, current_deadline_or_none, get_game, load_game_view, view_of
from ..timing.deadlines import local_text
from . import schedule
from .run import TurnResult, run_turn
from .schedule import Refusal

log = logging.getLogger(__name__)

__all__ = ["Plan", "plan_turn", "run_by_hand", "min_interval"]


def min_interval(config: Config) -> dt.timedelta | None:
    """The configured wait between turns run by hand; None when it is off."""
    return dt.timedelta(minutes=config.min_turn_interval) if config.min_turn_interval > 0 else None


@dataclass(frozen=True)
class Plan:
    """What ``turn run`` shows before it asks."""

    game: str
    turn: int
    active: int
    missing: tuple[str, ...]
    refusal: Refusal | None

    def lines(self) -> list[str]:
        lines = [
            f"game {self.game}, turn {self.turn}: orders in from {self.active - len(self.missing)} of "
            f"{self.active} active empires"
        ]
        if self.missing:
            lines.append(f"missing: {', '.join(self.missing)}")
        return lines


def _refusal(view: GameView, config: Config, now: dt.datetime) -> Refusal | None:
    # Through the module, so the worker's decide() and this are one function
    # for a test's spy too.
    return schedule.run_refusal(view, now, min_interval=min_interval(config))


def plan_turn(sessions: sessionmaker[Session], game_name: str, config: Config, now: dt.datetime) -> Plan:
    """The current turn as it stands, read without waiting for a writer (on
    SQLite a write transaction would start only after another runner's commit,
    when the next turn is already current)."""
    engine = sessions.kw["bind"]
    with (
        engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn,
        Session(bind=conn) as session,
    ):
        loaded = load_game_view(session, game_id=get_game(session, game_name).id)
        assert loaded is not None  # just found by name
        view = loaded[1]
    return Plan(
        view.name, view.turn, len(view.active_empires), tuple(view.missing), _refusal(view, config, now)
    )


def refused(refusal: Refusal, game: str) -> str:
    """A refusal as ``turn run`` prints it: the guard's line, and the way past it."""
    if refusal.forcible:
        return f"{refusal.text}; turnproc turn run {game} --force runs it anyway"
    return refusal.text


def run_by_hand(
    sessions: sessionmaker[Session],
    game_name: str,
    config: Config,
    now: dt.datetime,
    *,
    turn: int | None = None,
    force: bool = False,
) -> TurnResult:
    """Run turn ``turn`` (default: the current one, as read now) if it is
    still current and the guard lets it run (or ``force``); queue the GM's
    record. Raises :class:`TurnAlreadyRun` when another runner ran it
    meanwhile, :class:`GMError` when the guard refuses."""
    if turn is None:
        turn = plan_turn(sessions, game_name, config, now).turn
    with gc_paused(), transaction(sessions) as session:  # the commit too
        game = get_game(session, game_name)
        # The game row's lock (SQLite: BEGIN IMMEDIATE already holds the write
        # lock): the check below and the turn's run are one transaction.
        loaded = load_game_view(session, game_id=game.id, lock="update")
        assert loaded is not None  # the row is locked and was just found
        game, view = loaded
        if view.turn != turn:
            raise TurnAlreadyRun(
                f"turn {turn} of game {game.name} has already run (the game is at turn {view.turn} now)"
            )
        refusal = _refusal(view, config, now)
        if refusal is not None and not (force and refusal.forcible):
            raise GMError(refused(refusal, game.name))
        if refusal is not None:
            log.warning("game %s: turn %d run by hand with --force: %s", game.name, turn, refusal.text)
        result = run_turn(session, game, config, now, turn=turn)
        after = view_of(game)
        mails.queue_turn_ran(
            session,
            config,
            game.id,
            now,
            game=game.name,
            turn=result.turn,
            early=False,
            deadline=None,
            next_deadline=None
            if result.finished
            else local_text(current_deadline_or_none(after, now), after.timezone),
            events=result.events,
            reports=len(result.reports),
            missed=list(result.missed),
            inactive=list(result.inactive),
            finished=result.finished,
            staged=result.staged,
            by_hand=True,
        )
    return result
