"""Code written by hand for speed in big games, held to the plain version it
replaced: ``GameState.copy`` against ``copy.deepcopy`` (and a test that fails
when a field is added, so the hand-written copy is looked at again),
``known_systems_all`` against ``known_systems`` per empire, the orders built
past their constructor against it, and the reader's tokens against their
regular expression."""

from __future__ import annotations

import copy
import dataclasses
import re
import sys

from hypothesis import given
from hypothesis import strategies as st

from turnproc.orders import reader
from turnproc.orders.orders import Action, Order, Quantity
from turnproc.rules.checks import known_systems, known_systems_all
from turnproc.rules.generate import generate_galaxy, place_empire
from turnproc.rules.serialize import SYSTEM_FIELDS as RECORD_FIELDS
from turnproc.rules.serialize import state_to_json
from turnproc.rules.state import Empire, GameSettings, GameState, Stance, System, Tech

from .test_determinism import skirmish

# Every field and whether copy() must give the copy its own object for it.
# A new field fails test_fields_are_known: decide how copy() treats it, then add it here.
SYSTEM_FIELDS = {
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
}
EMPIRE_FIELDS = {
    "code",
    "name",
    "balance",
    "treasury",
    "vp",
    "techs",
    "base",
    "home",
    "lost_in_space",
    "active",
    "missed_turns",
    "reserve",
    "active_probe",
    "inactive_probes",
}
STATE_FIELDS = {"turn", "systems", "links", "empires", "settings", "seen", "finished", "_adj_cache"}


def test_fields_are_known() -> None:
    """Systems hold only immutable values; an empire's techs are its one mutable
    field (its inactive probes are a tuple); the state's links and settings are
    immutable."""
    assert {f.name for f in dataclasses.fields(System)} == SYSTEM_FIELDS
    assert {f.name for f in dataclasses.fields(Empire)} == EMPIRE_FIELDS
    assert {f.name for f in dataclasses.fields(GameState)} == STATE_FIELDS
    params = GameSettings.__dataclass_params__  # type: ignore[attr-defined]
    assert dataclasses.fields(GameSettings) and params.frozen
    # A turn record's rows hold every field of a system (serialize.state_to_record).
    assert tuple(f.name for f in dataclasses.fields(System)) == RECORD_FIELDS


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


def test_order_read_builds_what_the_constructor_builds() -> None:
    """The parser's Order.read sets the fields past the frozen constructor:
    the same fields, values and order of them as ``Order(...)``."""
    cases: list[dict[str, object]] = [
        {"where": 101, "to": 102, "number": Quantity(3)},
        {"tech": Tech.DRIVE},
        {"empire": None, "text": "hello"},
        {"where": 101, "number": Quantity(None, 2)},
        {},
    ]
    for i, values in enumerate(cases):
        built = Order(line=i, action=Action.MESSAGE, **values)  # type: ignore[arg-type]
        read = Order.read(i, Action.MESSAGE, values)
        assert read == built and hash(read) == hash(built) and repr(read) == repr(built)
        assert list(vars(read).items()) == list(vars(built).items())


# Every character the pattern's \s matches, found in one pass over all of them
# (this runs when the module is collected, in each worker).
WHITESPACE = "".join(re.findall(r"\s", "".join(map(chr, range(sys.maxunicode + 1)))))


@given(st.text(alphabet=st.sampled_from(f"{WHITESPACE},,aZ9-#>\u00e9\u0130\ud800")))
def test_a_line_reads_into_the_tokens_of_the_regular_expression(line: str) -> None:
    """reader._tokens splits a line without commas with str.split: the same
    tokens, at the same places, as the pattern it stands for."""
    assert reader._tokens(line) == [(m.group(), m.start()) for m in reader._TOKEN.finditer(line)]


def test_str_split_splits_at_the_whitespace_of_the_regular_expression() -> None:
    split_at = {ch for ch in map(chr, range(sys.maxunicode + 1)) if len(f"a{ch}b".split()) == 2}
    assert split_at == set(WHITESPACE)


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
