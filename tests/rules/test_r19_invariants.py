"""The admin invariants of rule set 2 (rules.md §19.2, rules.md §19.5): reserve and pool never
negative, probes in systems of the game and within the Probe tech, none of it in a
rule-set-1 game; links within 7 and legal as ever."""

from __future__ import annotations

from turnproc.rules.invariants import check_invariants
from turnproc.rules.state import SystemType as T
from turnproc.rules.state import Tech

from .builders import duel


def codes(state: object) -> list[str]:
    return sorted(v.code for v in check_invariants(state))  # type: ignore[arg-type]


def test_r19_2_reserve_and_pool_never_negative() -> None:
    state = duel(ruleset=2).build()
    state.empires["ABC"].reserve = -1
    state.empires["XYZ"].lost_in_space = -2
    assert codes(state) == ["negative", "negative"]


def test_r19_5_probes_within_limits_and_in_the_game() -> None:
    state = duel(ruleset=2).build()
    emp = state.empires["ABC"]
    emp.active_probe, emp.inactive_probes = 103, (101, 102)
    assert emp.tech(Tech.PROBE) == 1
    assert codes(state) == ["too_many_probes"]
    emp.techs[Tech.PROBE] = 2
    assert codes(state) == []
    emp.active_probe = 999
    assert codes(state) == ["probe_unknown"]


def test_r19_a_rule_set_1_game_has_no_probes_or_reserve() -> None:
    state = duel().build()
    state.empires["ABC"].reserve = 1
    assert codes(state) == ["not_in_ruleset"]


def test_r19_4_links_within_seven_and_legal() -> None:
    b = duel(ruleset=2)
    for i in range(7):
        b.planet(201 + i, 101, T.AB)
    state = b.build()
    assert "too_many_links" in codes(state)
    b = duel(ruleset=2)
    b.planet(201, 101)
    b.link(201, 103)  # a planet linked to another star
    assert "link_illegal" in codes(b.build())
