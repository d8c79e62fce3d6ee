"""The SQL state: state → rows → state is the identity, on SQLite and PostgreSQL,
and the database itself refuses rows the rules never allow."""

from __future__ import annotations

import dataclasses

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from tests.factories import make_generated_game
from turnproc.rules.state import Stance, System, Tech
from turnproc.storage import migrate
from turnproc.storage import models as m
from turnproc.storage.convert import load_state, save_state
from turnproc.storage.db import make_engine, make_sessionmaker, transaction


@pytest.fixture
def sessions(db_url: str):
    engine = make_engine(db_url)
    yield make_sessionmaker(engine)
    engine.dispose()


def _game(sessions, players: int = 3):
    with transaction(sessions) as session:
        return make_generated_game(session, "alpha", ["AAA", "BBB", "CCC"][:players], "round-trip").id


def test_state_round_trips_through_rows(sessions) -> None:
    game_id = _game(sessions)
    with transaction(sessions) as session:
        game = session.get(m.Game, game_id)
        state = load_state(session, game)
        # Touch every kind of value the converter maps.
        home = state.empires["AAA"].home
        assert home is not None
        state.systems[home].stance = Stance.RETREAT
        state.systems[home].stance_target = state.empires["AAA"].base
        state.systems[home].retreat_parts = 2
        state.systems[home].name = "New Haven"
        state.empires["BBB"].techs[Tech.DRIVE] = 4
        state.empires["BBB"].treasury = 77
        state.empires["CCC"].lost_in_space = 3
        state.seen["AAA"].add(max(state.systems))
        state.turn = 5
        save_state(session, game, state)
    with sessions() as session:
        again = load_state(session, session.get(m.Game, game_id))
    assert again == state


def test_systems_are_loaded_in_the_order_of_their_fields() -> None:
    """The state's reader (storage/stateread.py) builds each System by
    position, in this order: a field added, moved or renamed in the dataclass
    must be added or moved there too."""
    assert tuple(f.name for f in dataclasses.fields(System)) == (
        "code",
        "type",
        "row",
        "col",
        "star",
        "name",
        "owner",
        "pop",
        "industry",
        "cruisers",
        "fighters",
        "colony_ships",
        "stance",
        "stance_target",
        "retreat_parts",
        "ever_owned",
        "home_slot",
    )


def test_load_state_sees_what_the_session_changed_and_has_not_written(sessions) -> None:
    """The turn and the GM's tools change rows through the session and then
    read the game: what they changed is what the rules see, though not yet
    flushed (load_state's first query, through the ORM, flushes the session
    before the rest are read as rows)."""
    game_id = _game(sessions)
    with transaction(sessions) as session:
        game = session.get_one(m.Game, game_id)
        empire = session.query(m.Empire).filter_by(game_id=game_id, code="AAA").one()
        system = session.query(m.System).filter_by(game_id=game_id, code=empire.home).one()
        empire.treasury, system.industry = empire.treasury + 7, system.industry + 3
        assert empire in session.dirty and system in session.dirty
        state = load_state(session, game)
        assert state.empires["AAA"].treasury == empire.treasury
        assert state.systems[system.code].industry == system.industry


def test_save_only_touches_changed_rows_and_is_idempotent(sessions) -> None:
    game_id = _game(sessions, players=2)
    with transaction(sessions) as session:
        game = session.get(m.Game, game_id)
        state = load_state(session, game)
        save_state(session, game, state)
        save_state(session, game, state)
    with sessions() as session:
        assert load_state(session, session.get(m.Game, game_id)) == state


@pytest.mark.parametrize(
    "statement, constraint",
    [
        ("UPDATE empires SET balance = -1", "balance_not_negative"),
        ("UPDATE forces SET cruisers = -5", "cruisers_not_negative"),
        ("UPDATE systems SET type = 'XX'", "type_valid"),
        ("UPDATE systems SET stance = 'HIDE'", "stance_valid"),
        ("UPDATE empires SET code = 'abc'", "code_three_capitals"),
        ("UPDATE systems SET pop = -1 WHERE owner_id IS NOT NULL", "pop_not_negative"),
        ("UPDATE systems SET retreat_parts = 4", "retreat_parts_1_to_3"),
        ("UPDATE systems SET owner_id = NULL", "unowned_has_no_population"),
        ("INSERT INTO links (game_id, a, b) VALUES (1, 900, 100)", "stored_once_smaller_first"),
    ],
)
def test_database_refuses_impossible_values(sessions, statement: str, constraint: str) -> None:
    _game(sessions, players=1)
    with pytest.raises(IntegrityError) as info, transaction(sessions) as session:
        session.execute(text(statement))
    # Both databases name the broken constraint, so a GM sees which rule it was.
    assert constraint in str(info.value.orig)


def test_foreign_keys_are_enforced(sessions) -> None:
    _game(sessions, players=1)
    with pytest.raises(IntegrityError), transaction(sessions) as session:
        session.execute(text("INSERT INTO links (game_id, a, b) VALUES (1, 100, 99999)"))
    with pytest.raises(IntegrityError), transaction(sessions) as session:
        session.execute(text("UPDATE systems SET owner_id = 4242 WHERE owner_id IS NOT NULL"))


def test_migrations_create_everything_and_check_clean(empty_db_url: str) -> None:
    engine = make_engine(empty_db_url)
    migrate.upgrade(engine)
    assert migrate.current_revision(engine) == migrate.head_revision()
    migrate.check(engine)  # raises MigrationDrift on any difference
    engine.dispose()


def test_db_check_fails_when_the_database_drifts_from_the_models(sqlite_url: str) -> None:
    from sqlalchemy import text as sql

    engine = make_engine(sqlite_url)  # migrated to head
    with engine.begin() as conn:  # a hand-made change no migration knows
        conn.execute(sql("CREATE TABLE stray (id INTEGER PRIMARY KEY)"))
    with pytest.raises(migrate.MigrationDrift):
        migrate.check(engine)
    engine.dispose()
