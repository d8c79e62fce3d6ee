"""Code written by hand for speed in big games, held to the plain version it
replaced: ``GameState.copy`` against ``copy.deepcopy`` (and a test that fails
when a field is added, so the hand-written copy is looked at again), and
``known_systems_all`` against ``known_systems`` per empire."""

from __future__ import annotations

import copy
import dataclasses

from turnproc.rules.generate import generate_galaxy, place_empire
from turnproc.rules.checks import known_systems, known_systems_all
from turnproc.rules.orders import Action, Order, Quantity
from turnproc.rules.serialize import SYSTEM_FIELDS as RECORD_FIELDS
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
    # A turn record's rows hold every field of a system (serialize.state_to_record).
    assert RECORD_FIELDS == tuple(f.name for f in dataclasses.fields(System))


def test_order_from_dict_builds_what_the_constructor_builds() -> None:
    """Order.from_dict sets the fields past the frozen constructor; a field
    added to Order fails here until from_dict sets it too."""
    orders = [
        Order(line=1, action=Action.MOVE, where=101, to=102, number=Quantity(3)),
        Order(line=2, action=Action.TECH, tech=Tech.DRIVE),
        Order(line=3, action=Action.MESSAGE, empire="ABC", text="hello"),
        Order(line=4, action=Action.SCRAPC, where=101, number=Quantity(None, 2)),
        Order(line=5, action=Action.TAX),
    ]
    for order in orders:
        back = Order.from_dict(order.to_dict())
        assert back == order and hash(back) == hash(order)
        assert vars(back) == vars(order)
        assert set(vars(back)) == {f.name for f in dataclasses.fields(Order)}


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
