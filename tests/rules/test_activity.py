"""Missed turns and inactive empires (rules.activity)."""

from __future__ import annotations

from turnproc.rules.activity import record_missed_turns
from turnproc.rules.state import Empire, GameState


def _state(*codes: str) -> GameState:
    state = GameState(turn=1, systems={}, links=frozenset(), empires={})
    for code in codes:
        state.empires[code] = Empire(code=code, name=code)
    return state


def test_orders_reset_the_count_and_missing_ones_add_to_it() -> None:
    state = _state("AAA", "BBB", "CCC")
    state.empires["AAA"].missed_turns = 2
    missed, inactive = record_missed_turns(state, {"AAA"}, inactive_after=3)
    assert (missed, inactive) == (["BBB", "CCC"], [])
    assert [state.empires[c].missed_turns for c in ("AAA", "BBB", "CCC")] == [0, 1, 1]


def test_inactive_after_that_many_misses_in_a_row_and_only_once() -> None:
    state = _state("AAA", "BBB")
    state.empires["BBB"].missed_turns = 1
    assert record_missed_turns(state, ["AAA"], inactive_after=2) == (["BBB"], ["BBB"])
    assert not state.empires["BBB"].active
    # Already inactive: it misses again, but does not "become" inactive again.
    assert record_missed_turns(state, ["AAA"], inactive_after=2) == (["BBB"], [])
    assert state.empires["BBB"].missed_turns == 3


def test_orders_make_an_inactive_empire_active_again() -> None:
    state = _state("AAA")
    state.empires["AAA"].active = False
    state.empires["AAA"].missed_turns = 5
    assert record_missed_turns(state, {"AAA": ["TAX"]}, inactive_after=2) == ([], [])
    assert state.empires["AAA"].active and state.empires["AAA"].missed_turns == 0
