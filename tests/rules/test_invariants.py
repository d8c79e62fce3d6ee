"""check_invariants: every rule a state must keep, with the rows named."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from turnproc.rules.invariants import Violation, check_invariants
from turnproc.rules.state import GameState, Tech, link_key
from turnproc.rules.state import SystemType as T

from .builders import Builder


def sound() -> GameState:
    b = Builder(modules=())
    e = b.empire("ABC")
    e.base, e.home = 101, 111
    b.empire("XYZ")
    b.star(101, 0, 0, owner="ABC", pop=5, industry=5, cruisers=1)
    b.planet(111, 101, owner="ABC", pop=5)
    b.star(102, 0, 1, T.BD, owner="XYZ", pop=9, industry=5)
    b.star(103, 1, 1)
    b.link(101, 102, 103)
    return b.build()


def test_a_sound_state_has_no_violations() -> None:
    assert check_invariants(sound()) == []


def _break(fn: Callable[[GameState], None]) -> list[Violation]:
    state = sound()
    fn(state)
    return check_invariants(state)


def _move_star(state: GameState, code: int, row: int, col: int) -> None:
    state.systems[code].row, state.systems[code].col = row, col


def _rename_empire(state: GameState, code: str) -> None:
    emp = state.empires.pop("XYZ")
    emp.code = code
    state.empires[code] = emp
    for sys in state.systems.values():
        if sys.owner == "XYZ":
            sys.owner = code


def _recode_system(state: GameState, old: int, new: int) -> None:
    sys = state.systems.pop(old)
    sys.code = new
    state.systems[new] = sys
    state.links = frozenset(link_key(new if a == old else a, new if b == old else b) for a, b in state.links)


Case = tuple[str, Callable[[GameState], None], tuple[int, ...], tuple[str, ...]]

CASES: list[Case] = [
    ("negative", lambda s: setattr(s.systems[101], "cruisers", -1), (101,), ()),
    ("negative", lambda s: setattr(s.empires["ABC"], "balance", -3), (), ("ABC",)),
    ("negative", lambda s: setattr(s.empires["ABC"], "treasury", -3), (), ("ABC",)),
    ("negative", lambda s: s.empires["XYZ"].techs.__setitem__(Tech.DRIVE, -1), (), ("XYZ",)),
    ("ships_unowned", lambda s: setattr(s.systems[103], "fighters", 2), (103,), ()),
    ("unknown_owner", lambda s: setattr(s.systems[103], "owner", "QQQ"), (103,), ("QQQ",)),
    ("base_not_owned", lambda s: setattr(s.empires["ABC"], "base", 102), (102,), ("ABC",)),
    ("home_not_owned", lambda s: setattr(s.empires["XYZ"], "home", 111), (111,), ("XYZ",)),
    ("industry_over_limit", lambda s: setattr(s.systems[102], "industry", 6), (102,), ("XYZ",)),
    ("link_illegal", lambda s: setattr(s, "links", s.links | {link_key(111, 102)}), (102, 111), ()),
    ("link_unknown", lambda s: setattr(s, "links", s.links | {link_key(101, 999)}), (101, 999), ()),
    ("unreachable", lambda s: setattr(s, "links", s.links - {link_key(102, 103)}), (103,), ()),
    ("planet_without_star", lambda s: setattr(s.systems[111], "star", 555), (111,), ()),
    ("shared_square", lambda s: _move_star(s, 103, 0, 0), (101, 103), ()),
    ("empire_code", lambda s: _rename_empire(s, "Xy1"), (), ("Xy1",)),
    ("system_code", lambda s: _recode_system(s, 103, 1003), (1003,), ()),
    ("retreat_parts", lambda s: setattr(s.systems[101], "retreat_parts", 4), (101,), ()),
]


@pytest.fixture(params=CASES, ids=[c[0] for c in CASES])
def case(request: pytest.FixtureRequest) -> Case:
    """A broken rule: its code, what breaks it, the systems and empires named."""
    result: Case = request.param
    return result


def test_each_rule_is_checked_and_names_the_rows(case: Case) -> None:
    code, breaker, systems, empires = case
    found = [v for v in _break(breaker) if v.code == code]
    assert found, f"no {code} violation"
    v = found[0]
    for s in systems:
        assert s in v.systems and str(s) in v.message
    for e in empires:
        assert e in v.empires or e in v.message


def test_pop_may_exceed_the_limit() -> None:
    """rules.md §2.1 (ruling I1): population above the limit is allowed (supply charges it)."""
    state = sound()
    state.systems[102].pop = 50
    assert check_invariants(state) == []


def test_too_many_links_on_a_star() -> None:
    b = Builder(modules=())
    b.star(101, 0, 0)
    for i in range(8):
        b.star(110 + i, 1 + i, 5)
        b.link(101, 110 + i)
    found = [v for v in check_invariants(b.build()) if v.code == "too_many_links"]
    assert found and found[0].systems == (101,)


def test_violation_is_frozen_and_printable() -> None:
    v = Violation("negative", "system 101 has negative pop (-1)", (101,))
    with pytest.raises(AttributeError):
        v.code = "x"  # type: ignore[misc]
    assert str(v) == "negative: system 101 has negative pop (-1)"


def test_a_break_after_a_check_is_found_as_on_a_fresh_state(case: Case) -> None:
    """As in a turn: the state is checked (which keeps the link rules' answer
    with its links), the engine changes a copy, and the copy is checked. What
    was kept must not hide a break done to the copy."""
    breaker = case[1]
    state = sound()
    assert check_invariants(state) == []
    after = state.copy()
    breaker(after)
    assert check_invariants(after) == _break(breaker)


def test_the_lean_pass_over_systems_doubts_every_broken_system(
    case: Case, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lean pass answers "sound" exactly when the full loop, which names
    the culprits, would find nothing."""
    from turnproc.rules import invariants

    breaker = case[1]
    state = sound()
    breaker(state)
    full: list[Violation] = []
    with monkeypatch.context() as patch:
        patch.setattr(invariants, "_systems_sound", lambda _state: False)
        invariants._systems_part(state, full)
    assert invariants._systems_sound(state) is (not full)


def test_the_link_rules_see_a_system_changed_under_the_same_links() -> None:
    state = sound()
    assert check_invariants(state) == []
    state.systems[111].star = 103  # the planet's link to 101 is now illegal; the links object is the same
    assert [v.code for v in check_invariants(state)] == ["link_illegal"]
