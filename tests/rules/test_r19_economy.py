"""rules.md §19.1 (16 techs), rules.md §19.7 (leftovers, STASH as action 16, the retreat
reset) and rules.md §19.8 (end of game) in rule set 2, each beside rule set 1's
behaviour where the two differ."""

from __future__ import annotations

from turnproc.orders.orders import Action as A
from turnproc.rules.economy import research_pick, research_weight
from turnproc.rules.state import TECH_START, V1_TECHS, GameSettings, Stance, Tech, techs_of
from turnproc.rules.state import SystemType as T

from .builders import Builder, duel, kinds, o, one, order_events, run


def v2_duel(**kw: object) -> Builder:
    return duel(ruleset=2, **kw)  # type: ignore[arg-type]


def test_r19_1_sixteen_techs_in_rule_set_2_and_thirteen_in_rule_set_1() -> None:
    """rules.md §19.1: "Three more techs (16 in all)": Probe (start 1), Hyperspace (0),
    Recovery (0); "picked by research like the others"."""
    assert len(techs_of(2)) == 16 and techs_of(1) == V1_TECHS and len(V1_TECHS) == 13
    assert (TECH_START[Tech.PROBE], TECH_START[Tech.HYPERSPACE], TECH_START[Tech.RECOVERY]) == (1, 0, 0)
    start = dict(TECH_START)
    # Research weights: level + 1 over the game's techs.
    assert research_weight(start, techs_of(2)) == research_weight(start, V1_TECHS) + 2 + 1 + 1
    last = research_weight(start, techs_of(2)) - 1
    assert research_pick(start, last, techs_of(2)) is Tech.RECOVERY


def test_r19_1_the_new_techs_are_bought_with_tech() -> None:
    """rules.md §19.1: "They can be bought with TECH"; not in a version-1 game (ruling R1)."""
    b = v2_duel()
    b.empires["ABC"].treasury = 50
    _, events = run(b.build(), {"ABC": [o(A.TECH, tech=Tech.HYPERSPACE, n=2)]})
    done = order_events(events, "ABC")[0]
    assert (done["ok"], done["treasury_cost"], done["level"]) == (True, 8, 2)
    b = duel()
    b.empires["ABC"].treasury = 50
    _, events = run(b.build(), {"ABC": [o(A.TECH, tech=Tech.HYPERSPACE, n=2)]})
    assert order_events(events, "ABC")[0]["reason"] == "not_in_ruleset"


def test_r19_7_leftovers_go_to_the_treasury_at_three_to_one() -> None:
    """rules.md §19.7: "the remaining balance buys cruisers at BASE, then fighters at HOME,
    then goes into the treasury at STASH's 3 : 1; the last 0–2 BP are lost." The
    rulebook's example: 23 BP with no BASE or HOME: 7 into the treasury, 2 lost."""
    b = v2_duel()
    b.empires["ABC"].balance = 23
    b.empires["ABC"].treasury = 1
    new, events = run(b.build(), {})
    left = one(events, "leftovers", "ABC")
    assert (left["balance"], left["treasury"], left["lost"]) == (23, 7, 2)
    assert new.empires["ABC"].treasury == 8
    b = v2_duel()
    b.empires["ABC"].balance = 38
    b.empires["ABC"].base = 101
    b.empires["ABC"].home = 102
    _, events = run(b.build(), {})
    left = one(events, "leftovers", "ABC")
    assert (left["cruisers"], left["fighters"], left["treasury"], left["lost"]) == (3, 2, 0, 2)


def test_r19_7_rule_set_1_loses_the_leftovers() -> None:
    """rules.md §13.1 step 1 in rule set 1: what is left is lost (and the event has no
    treasury field, so version-1 turns stay as they were)."""
    b = duel()
    b.empires["ABC"].balance = 23
    _, events = run(b.build(), {})
    assert one(events, "leftovers", "ABC") == {
        "balance": 23,
        "cruisers": 0,
        "base": None,
        "fighters": 0,
        "home": None,
        "lost": 23,
    }


def test_r19_7_stash_without_a_number_as_action_16() -> None:
    """rules.md §19.7: "STASH in slot 16 with no number stashes everything left at that
    point"; ruling R8: anywhere else it fails (not_slot_16)."""
    b = v2_duel()
    b.empires["ABC"].balance = 20
    orders = [o(A.TAX)] * 15 + [o(A.STASH)]
    new, events = run(b.build(), {"ABC": orders})
    stash = order_events(events, "ABC")[-1]
    assert (stash["slot"], stash["ok"], stash["done"], stash["cost"]) == (16, True, 16, 48)
    b = v2_duel()
    _, events = run(b.build(), {"ABC": [o(A.STASH), o(A.STASH, n=2)]})
    first, second = order_events(events, "ABC")
    assert first["reason"] == "not_slot_16" and second["ok"]


def test_r19_7_a_cruiser_move_resets_the_retreat_destination() -> None:
    """rules.md §19.7: "a cruiser MOVE (not DEEP) into a system you own sets that system's
    RETREAT destination to the system the cruisers came from, unless that is a planet or
    a belt. The report says when it happened." Ruling R4: only a RETREAT stance."""
    b = v2_duel()
    b.star(106, 1, 2, owner="ABC", pop=1, cruisers=2)
    b.link(106, 102)
    b.systems[101].cruisers = 4
    b.systems[102].stance = Stance.RETREAT
    b.systems[102].stance_target = 106
    new, events = run(b.build(), {"ABC": [o(A.MOVE, 101, 102, 2)]})
    assert new.systems[102].stance_target == 101
    assert one(events, "retreat_reset", "ABC") == {"system": 102, "to": 101}


def test_r19_7_no_reset_from_a_planet_by_deep_or_without_a_retreat_stance() -> None:
    """rules.md §19.7: not from a planet or belt, not by DEEP; ruling R4: an AMBUSH keeps its FROM."""
    b = v2_duel()
    b.planet(107, 101, T.PL, owner="ABC", pop=1, cruisers=2)
    b.systems[101].cruisers = 2
    b.systems[101].stance = Stance.RETREAT
    b.systems[101].stance_target = 102
    b.systems[102].stance = Stance.AMBUSH
    b.systems[102].stance_target = 103
    b.empires["ABC"].techs[Tech.JUMP] = 4
    orders = [o(A.MOVE, 107, 101, 1), o(A.MOVE, 101, 102, 1), o(A.DEEP, 102, 101, 1)]
    new, events = run(b.build(), {"ABC": orders})
    assert [e["ok"] for e in order_events(events, "ABC")] == [True, True, True]
    assert not kinds(events, "retreat_reset")
    assert new.systems[101].stance_target == 102 and new.systems[102].stance_target == 103


def test_r19_7_rule_set_1_never_resets() -> None:
    """rules.md §19.7 is rule set 2 only."""
    b = duel()
    b.star(106, 1, 2, owner="ABC", pop=1)
    b.link(106, 102)
    b.systems[101].cruisers = 4
    b.systems[102].stance = Stance.RETREAT
    b.systems[102].stance_target = 106
    new, events = run(b.build(), {"ABC": [o(A.MOVE, 101, 102, 2)]})
    assert new.systems[102].stance_target == 106 and not kinds(events, "retreat_reset")


def test_r19_8_the_last_empire_wins_whatever_the_vp() -> None:
    """rules.md §19.8: "When only one empire still owns a system, that empire wins, whatever
    the VP ... an eliminated empire can never win." Rule set 1 ranks by VP instead."""
    for ruleset, winner in ((2, "ABC"), (1, "XYZ")):
        b = duel(ruleset=ruleset)
        b.systems[104].owner = b.systems[105].owner = None
        b.systems[104].pop = b.systems[105].pop = 0
        b.systems[104].industry = b.systems[105].industry = 0
        b.star(106, 1, 8, owner="XYZ", pop=1)
        b.link(105, 106)
        b.systems[103].owner = "ABC"
        b.systems[103].cruisers = 3
        b.empires["XYZ"].vp = 50
        b.systems[103].ever_owned = True
        b.link(103, 106)
        new, events = run(b.build(), {"ABC": [o(A.MOVE, 103, 106, 3)]})
        end = one(events, "end")
        assert end["reason"] == "last_empire" and end["winner"] == winner, ruleset


def test_r19_rule_set_is_a_game_setting() -> None:
    """rules.md §19: "Every game records the rule set it was created with"; states built
    before version 2 existed (the dataclass default) are rule set 1."""
    assert GameSettings().ruleset == 1
    assert not duel().build().v2 and v2_duel().build().v2
