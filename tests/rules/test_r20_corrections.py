"""rules.md §20: the corrections of rule set 2, each beside rule set 1's reading."""

from __future__ import annotations

from turnproc.orders.orders import Action as A
from turnproc.rules.economy import is_blockaded
from turnproc.rules.exploration import FIND_WEIGHTS, weighted_tech
from turnproc.rules.state import MODULES, Stance, Tech
from turnproc.rules.state import SystemType as T

from .builders import Builder, kinds, o, one, order_events, run, run_with


def test_r20_1_tech_find_weights() -> None:
    """rules.md §20.1: "Weapons 3, Defence 3, Fighter 3, Expo 3, Supply 3, Life Support 3,
    Drive 2, Scanner 2, Marines 2, Jump 2, Probe 2, Recovery 2, Hyperspace 1, BP Income 1,
    Treasury 1, Cultural Level 1" (34 in all); each draw of range(34) names one tech."""
    weights = dict(FIND_WEIGHTS)
    assert sum(weights.values()) == 34 and set(weights) == set(Tech)
    assert [weights[t] for t in (Tech.WEAPONS, Tech.DRIVE, Tech.HYPERSPACE, Tech.CULTURAL)] == [3, 2, 1, 1]
    counted = {t: 0 for t in Tech}
    for draw in range(34):
        counted[weighted_tech(draw)] += 1
    assert counted == weights


def front(ruleset: int, modules: frozenset[str] = frozenset()) -> Builder:
    """ABC at 101 (0,0) attacks XYZ's 102 (0,1); XYZ's 103 (0,2) behind it; QRS's 104 (1,2)
    next to 103. Supply 100 so that upkeep never scraps anything."""
    b = Builder(modules=modules, ruleset=ruleset)
    b.empire("ABC", supply=100)
    b.empire("XYZ", supply=100)
    b.empire("QRS", supply=100)
    b.star(101, 0, 0, owner="ABC", pop=5, industry=5, cruisers=10)
    b.star(102, 0, 1, owner="XYZ", pop=2, industry=2)
    b.star(103, 0, 2, owner="XYZ", pop=2, industry=2)
    b.star(104, 1, 2, owner="QRS", pop=2, industry=2, cruisers=2)
    b.link(101, 102, 103, 104)
    return b


def test_r20_2_military_statics_do_not_roll() -> None:
    """rules.md §20.2: "a defending system with fighters or colony ships but no cruisers is a
    military static: engage value −1 without dice ... Statics never avoid battle."
    A STANDOFF with only fighters: no dice in rule set 2 (ruling R9), two pairs in rule set 1."""
    b = front(2, MODULES)
    b.systems[102].fighters = 3
    b.systems[102].stance = Stance.STANDOFF
    _, events = run_with(b.build(), {"ABC": [o(A.MOVE, 101, 102, 4)]}, [])
    engage = one(events, "battle", "ABC")["engage"]
    assert (engage["defender_value"], engage["attacker_value"], engage["winner"]) == (-1, None, "attacker")
    b = front(1, MODULES)
    b.systems[102].fighters = 3
    b.systems[102].stance = Stance.STANDOFF
    _, events = run_with(b.build(), {"ABC": [o(A.MOVE, 101, 102, 4)]}, [1, 1, 6, 6])
    assert one(events, "standoff", "ABC")["engage"]["defender_value"] == 6 + 1


def test_r20_2_a_civilian_static_stays_at_minus_three() -> None:
    """rules.md §20.2: "A system with no ships at all (population only) stays a civilian
    static at −3.\""""
    b = front(2, MODULES)
    b.systems[102].stance = Stance.STANDOFF
    _, events = run_with(b.build(), {"ABC": [o(A.MOVE, 101, 102, 4)]}, [])
    assert one(events, "battle", "ABC")["engage"]["defender_value"] == -3


def retreat_front(ruleset: int) -> Builder:
    """XYZ's 102 holds 10 cruisers and RETREATs to 103, which QRS (not the attacker)
    controls from 104."""
    b = front(ruleset, frozenset({"zoc"}))
    b.systems[101].cruisers = 40
    b.systems[102].cruisers = 10
    b.systems[102].stance = Stance.RETREAT
    b.systems[102].stance_target = 103
    return b


def test_r20_3_retreat_losses_through_any_other_empires_control() -> None:
    """rules.md §20.3: "withdrawing cruisers lose one in five, rounded up, when they withdraw
    into a system controlled by any empire other than their own, not only the one they
    flee from": 10 withdraw into QRS's control and lose 2; rule set 1 loses none."""
    for ruleset, lost in ((2, 2), (1, 0)):
        new, events = run(retreat_front(ruleset).build(), {"ABC": [o(A.MOVE, 101, 102, 40)]})
        withdraw = one(events, "withdraw", "XYZ")
        assert (withdraw["cruisers"], withdraw["lost"]) == (10, lost), ruleset
        assert new.systems[103].cruisers == 10 - lost


def belt_front(ruleset: int) -> Builder:
    b = Builder(modules=frozenset({"pinning"}), ruleset=ruleset)
    b.empire("ABC", supply=100, drive=3)
    b.empire("XYZ", supply=100)
    b.star(101, 0, 0, owner="ABC", pop=5, industry=5, cruisers=40)
    b.star(102, 0, 1, owner="XYZ", pop=2, industry=2, cruisers=6)
    b.planet(103, 102, T.AB, owner="XYZ", pop=1)
    b.link(101, 102)
    b.systems[102].stance = Stance.RETREAT
    b.systems[102].stance_target = 103
    return b


def test_r20_3_retreat_into_a_belt_cannot_be_pursued() -> None:
    """rules.md §20.3: "RETREAT may name an asteroid belt of the same star as its destination;
    a fleet withdrawing into a belt cannot be pursued" (even by a faster Drive)."""
    b = belt_front(2)
    new, events = run(b.build(), {"ABC": [o(A.MOVE, 101, 102, 40)]})
    assert one(events, "withdraw", "XYZ")["to"] == 103
    assert not kinds(events, "pursuit")
    assert new.systems[103].cruisers == 6


def test_r20_3_rule_set_1_refuses_a_belt_as_retreat_destination() -> None:
    """rules.md §6.17 in rule set 1: RETREAT needs a star; rule set 2 takes the belt."""
    for ruleset, reason in ((1, "not_star"), (2, None)):
        b = belt_front(ruleset)
        b.systems[102].stance = Stance.DEFEND
        b.systems[102].stance_target = None
        _, events = run(b.build(), {"XYZ": [o(A.RETREAT, 102, 103)]})
        assert order_events(events, "XYZ")[0]["reason"] == reason


def test_r20_3_a_belt_of_another_star_is_no_retreat() -> None:
    """rules.md §20.3: only "an asteroid belt of the same star"."""
    b = belt_front(2)
    b.planet(104, 101, T.AB, owner="XYZ", pop=1)
    b.systems[102].stance = Stance.DEFEND
    _, events = run(b.build(), {"XYZ": [o(A.RETREAT, 102, 104)]})
    assert order_events(events, "XYZ")[0]["reason"] == "not_linked"


def deep_capture(ruleset: int) -> Builder:
    b = Builder(modules=(), ruleset=ruleset)
    b.empire("ABC", supply=100, jump=4)
    b.empire("XYZ", supply=100)
    b.star(101, 0, 0, owner="ABC", pop=5, industry=5, cruisers=30)
    b.star(102, 0, 2, owner="XYZ", pop=4, industry=4, colony_ships=2)
    b.star(103, 0, 4, owner="XYZ", pop=5, industry=5)
    b.link(101, 103, 102)
    b.empires["XYZ"].vp = 5
    return b


def test_r20_4_a_deep_capture_takes_the_system_whole() -> None:
    """rules.md §20.4: "a system captured by a DEEP jump changes hands with its population,
    industry and colony ships whole, and its former owner loses no VP"; rule set 1 halves
    and costs 1 VP (rules.md §10.4)."""
    for ruleset, kept, vp_lost in ((2, (4, 4, 2), 0), (1, (2, 2, 1), 1)):
        for seed in range(1, 30):
            new, events = run(deep_capture(ruleset).build(), {"ABC": [o(A.DEEP, 101, 102, 30)]}, seed=seed)
            captures = kinds(events, "capture", "ABC")
            if captures:
                break
        else:
            raise AssertionError("no seed captured")
        star = new.systems[102]
        assert (star.owner, star.pop, star.industry, star.colony_ships) == ("ABC", *kept), ruleset
        assert captures[0].data["vp_lost"] == vp_lost


def test_r20_4_move_captures_still_halve() -> None:
    """rules.md §20.4 names DEEP only: a MOVE capture in rule set 2 halves as ever."""
    b = deep_capture(2)
    b.link(101, 102)
    new, events = run(b.build(), {"ABC": [o(A.MOVE, 101, 102, 30)]})
    assert one(events, "capture", "ABC")["vp_lost"] == 1
    assert (new.systems[102].pop, new.systems[102].colony_ships) == (2, 1)


def test_r20_5_an_asteroid_belt_is_never_blockaded() -> None:
    """rules.md §20.5: "an asteroid belt is never blockaded"; rule set 1 (ruling C2) blockades
    belts like planets."""
    for ruleset, blockaded in ((2, False), (1, True)):
        b = Builder(modules=(), ruleset=ruleset)
        b.empire("ABC", supply=100)
        b.empire("XYZ", supply=100)
        b.star(101, 0, 0, owner="ABC", pop=5, cruisers=9)
        belt = b.planet(102, 101, T.AB, owner="XYZ", pop=2)
        planet = b.planet(103, 101, T.PL, owner="XYZ", pop=2)
        state = b.build()
        assert is_blockaded(state, belt) is blockaded, ruleset
        assert is_blockaded(state, planet)
