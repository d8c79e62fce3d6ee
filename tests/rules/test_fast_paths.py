"""Code written by hand for speed in big games, held to the plain version it
replaced: ``GameState.copy`` against ``copy.deepcopy`` (and a test that fails
when a field is added, so the hand-written copy is looked at again), and
``known_systems_all`` against ``known_systems`` per empire."""

from __future__ import annotations

import copy
import dataclasses

from turnproc.rules.generate import generate_galaxy, place_empire
from turnproc.rules.checks import known_systems, known_systems_all
from turnproc.rules.serialize import state_to_json
from turnproc.rules.state import Empire, GameSettings, GameState, Stance, System, Tech

from .test_determinism import skirmish

# Every field and whether copy() must give the copy its own object for it.
# A new field fails test_fields_are_known: decide how copy() treats it, then add it here.
SYSTEM_FIELDS = {
    "code", "type", "row", "col", "star", "name", "owner", "pop", "industry", "cruisers",
    "fighters", "colony_ships", "stance", "stance_target", "retreat_parts", "ever_owned",
    "home_slot",
}  # fmt: skip
EMPIRE_FIELDS = {
    "code", "name", "balance", "treasury", "vp", "techs", "base", "home", "lost_in_space",
    "active", "missed_turns", "reserve", "active_probe", "inactive_probes",
}  # fmt: skip
STATE_FIELDS = {"turn", "systems", "links", "empires", "settings", "seen", "finished", "_adj_cache"}


def test_fields_are_known() -> None:
    """Systems hold only immutable values; an empire's techs are its one mutable
    field (its inactive probes are a tuple); the state's links and settings are
    immutable."""
    assert {f.name for f in dataclasses.fields(System)} == SYSTEM_FIELDS
    assert {f.name for f in dataclasses.fields(Empire)} == EMPIRE_FIELDS
    assert {f.name for f in dataclasses.fields(GameState)} == STATE_FIELDS
    assert dataclasses.fields(GameSettings) and GameSettings.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_copy_equals_deepcopy() -> None:
    state = skirmish()
    state.seen = {"ABC": {101, 102}, "XYZ": {105}}
    state.neighbours(101)  # fill the adjacency cache
    assert state.copy() == copy.deepcopy(state)
    assert state_to_json(state.copy()) == state_to_json(state)


def test_changing_the_copy_leaves_the_original_alone() -> None:
    state = skirmish()
    state.seen = {"ABC": {101, 102}}
    before = state_to_json(state)
    new = state.copy()
    for s in new.systems.values():
        s.cruisers += 1
        s.owner = "XYZ"
        s.stance = Stance.AMBUSH
    for e in new.empires.values():
        e.balance += 5
        e.techs[Tech.DRIVE] = 9
    new.seen["ABC"].add(105)
    new.seen["XYZ"] = {101}
    new.systems[999] = System(999, state.systems[101].type, 9, 9)
    new.empires["QQQ"] = Empire("QQQ", "Q")
    new.turn += 1
    new.finished = True
    assert state_to_json(state) == before


def test_the_copy_shares_the_adjacency_until_its_links_change() -> None:
    state = skirmish()
    assert state.neighbours(101) == (102, 104, 111)
    new = state.copy()
    assert new.neighbours(101) == (102, 104, 111)
    new.links = new.links - {(101, 102)}
    assert new.neighbours(101) == (104, 111)
    assert state.neighbours(101) == (102, 104, 111)


def test_known_systems_all_is_known_systems_of_each_empire() -> None:
    state = generate_galaxy("fast-paths", 4)
    for code in ("AAA", "BBB", "CCC"):
        place_empire(state, code, f"Empire {code}")
    state.seen["BBB"].add(max(state.systems))
    state.seen["CCC"].add(99_999)  # a code not in the game is not known
    every = known_systems_all(state)
    assert set(every) == {"AAA", "BBB", "CCC"}
    for code in every:
        assert every[code] == known_systems(state, code)
