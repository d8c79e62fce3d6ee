"""A few turns of a generated game with scripted players, for the turn tools."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from tests.factories import make_generated_game
from turnproc.config import Config
from turnproc.intake import submit_orders
from turnproc.rules.events import Event, events_to_json
from turnproc.rules.serialize import state_to_json
from turnproc.service.demo import scripted_orders
from turnproc.storage import models as m
from turnproc.storage.convert import load_state
from turnproc.storage.db import transaction
from turnproc.storage.queries import get_game
from turnproc.turns.run import TurnResult, report_for, run_turn

CONFIG = Config(from_address="host@example.org")
CODES = ("RIG", "VEG", "ORI")
T0 = dt.datetime(2026, 12, 1, 20, 0, tzinfo=dt.timezone.utc)


def when(turn: int) -> dt.datetime:
    return T0 + dt.timedelta(days=7 * turn)


def new_played_game(sessions: sessionmaker[Session], name: str = "war") -> None:
    with transaction(sessions) as session:
        make_generated_game(session, name, CODES, f"{name}-galaxy", systems_per_player=8)


def submit_scripted(session: Session, name: str) -> None:
    """Every empire's orders for the current turn, from its latest report."""
    game = get_game(session, name)
    for code in CODES:
        empire = session.scalar(select(m.Empire).where(m.Empire.game_id == game.id, m.Empire.code == code))
        assert empire is not None
        _, data = report_for(session, game, empire, None)
        orders = scripted_orders(data)
        if orders:
            submit_orders(session, game, empire, "\n".join(orders), when(game.turn))


def play(sessions: sessionmaker[Session], name: str, turns: int) -> list[TurnResult]:
    results = []
    for _ in range(turns):
        with transaction(sessions) as session:
            submit_scripted(session, name)
        with transaction(sessions) as session:
            game = get_game(session, name)
            results.append(run_turn(session, game, CONFIG, when(game.turn)))
    return results


def state_json(sessions: sessionmaker[Session], name: str) -> str:
    with sessions() as session:
        return state_to_json(load_state(session, get_game(session, name)))


def turn_events(sessions: sessionmaker[Session], name: str, number: int) -> str:
    with sessions() as session:
        game = get_game(session, name)
        record = session.scalar(
            select(m.TurnRecord).where(m.TurnRecord.game_id == game.id, m.TurnRecord.number == number)
        )
        assert record is not None, f"no record of turn {number}"
        return events_to_json([Event.from_dict(d) for d in record.events])
