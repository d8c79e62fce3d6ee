"""Missed turns with leave and QUIT: rules.md §4.2 (ruling O6)."""

from __future__ import annotations

from tests.factories import two_empire_state
from turnproc.rules.activity import record_missed_turns


def test_o6_a_turn_on_leave_is_not_missed() -> None:
    state = two_empire_state()
    state.empires["VEG"].missed_turns = 4
    missed, inactive = record_missed_turns(state, {"RIG"}, inactive_after=5, on_leave={"VEG"})
    assert (missed, inactive) == ([], [])
    assert state.empires["VEG"].missed_turns == 4 and state.empires["VEG"].active


def test_o6_orders_sent_on_leave_count_as_usual() -> None:
    state = two_empire_state()
    state.empires["VEG"].missed_turns = 2
    record_missed_turns(state, {"RIG", "VEG"}, inactive_after=5, on_leave={"VEG"})
    assert state.empires["VEG"].missed_turns == 0


def test_o6_quit_makes_the_empire_inactive_whatever_it_sent() -> None:
    state = two_empire_state()
    missed, inactive = record_missed_turns(state, {"RIG", "VEG"}, inactive_after=5, quitting={"VEG"})
    assert (missed, inactive) == ([], ["VEG"])
    assert not state.empires["VEG"].active and state.empires["VEG"].missed_turns == 0
