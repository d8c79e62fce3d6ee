"""The arithmetic of the rulebook's worked examples, done by the engine.

Each test names the docs/rules.md section whose numbers it checks; if the
engine changes a rule, the rulebook's example must change with it. (The same
numbers are checked against the engine's rules in tests/rules/.)
"""

from __future__ import annotations

from tests.docs.mdblocks import DOCS
from tests.rules.builders import Builder, o, one, order_events, run
from turnproc.orders.orders import Action as A
from turnproc.rules.actions import tech_cost
from turnproc.rules.economy import income, is_blockaded, supply_cost
from turnproc.rules.galaxy import distance_sq
from turnproc.rules.state import GameState, Stance, SystemType
from turnproc.rules.zoc import held_by_pin
from turnproc.scenario import load_scenario_file

T = SystemType


def example_galaxy() -> GameState:
    return load_scenario_file(DOCS / "examples" / "two-empires.toml").state


def home_star_target(cruisers: int, stance: Stance = Stance.DEFEND) -> Builder:
    """ABC's ``cruisers`` at 101, next to XYZ's home star 102 as it started."""
    b = Builder(modules=())
    b.empire("ABC", supply=100)
    b.empire("XYZ", supply=100)
    b.star(101, 0, 0, owner="ABC", pop=5, industry=5, cruisers=cruisers)
    b.star(102, 0, 1, owner="XYZ", pop=2, industry=2, colony_ships=1, fighters=2, cruisers=5, stance=stance)
    b.link(101, 102)
    if stance is Stance.AMBUSH:
        b.systems[102].stance_target = 101
    return b


def test_r2_3_distances_of_the_example_galaxy() -> None:
    """rules.md §2.3 Distance and rules.md §6.4 DISTSQ: 100 to 104 is 5, measured from a planet too."""
    state = example_galaxy()
    assert distance_sq(state, 100, 104) == 5
    assert distance_sq(state, 101, 104) == 5
    assert distance_sq(state, 104, 106) == 2


def test_r10_5_fourteen_cruisers_take_the_home_star() -> None:
    """rules.md §10.5: with 14 cruisers both sides lose 7, all 7 defending ships are gone,
    7 survive and take the star; pop 2 → 1, industry 2 → 1, colony ship 1 → 0."""
    state = home_star_target(14).build()
    state.empires["XYZ"].vp = 3
    new, events = run(state, {"ABC": [o(A.MOVE, 101, 102, 14)]})
    battle = one(events, "battle", "ABC")
    assert (battle["attack"], battle["defence"]) == (14, 14)
    assert battle["losses"] == {"attacker": {"cruisers": 7}, "defender": {"fighters": 2, "cruisers": 5}}
    assert battle["captured"] and battle["survivors"] == 7
    star = new.systems[102]
    assert (star.owner, star.pop, star.industry, star.colony_ships) == ("ABC", 1, 1, 0)
    assert one(events, "capture", "ABC")["vp_lost"] == 1


def test_r10_6_assault_fights_to_the_end() -> None:
    """rules.md §10.6 ASSAULT: 8 cruisers against 6 at an empty white dwarf. Round 1: 3
    against 5 lost. A MOVE stops there and 5 go home; an ASSAULT's round 2
    (5 against 1) ends the defence, and 5 take the system."""

    def target() -> Builder:
        b = Builder(modules=())
        b.empire("ABC", supply=100)
        b.empire("XYZ", supply=100)
        b.star(101, 0, 0, owner="ABC", pop=5, industry=5, cruisers=8)
        b.star(102, 0, 1, T.WD, owner="XYZ", cruisers=6)
        b.star(103, 0, 2, owner="XYZ", pop=5, industry=5)
        b.link(101, 102, 103)
        return b

    _, events = run(target().build(), {"ABC": [o(A.MOVE, 101, 102, 8)]})
    battle = one(events, "battle", "ABC")
    assert battle["rounds"][0]["attacker_cruisers_lost"] == 3
    assert battle["rounds"][0]["defender_cruisers_lost"] == 5
    assert not battle["captured"] and battle["survivors"] == 5

    new, events = run(target().build(), {"ABC": [o(A.ASSAULT, 101, 102, 8)]})
    battle = one(events, "battle", "ABC")
    assert [r["attack"] for r in battle["rounds"]] == [8, 5]
    assert [r["defence"] for r in battle["rounds"]] == [6, 1]
    assert battle["rounds"][1]["attacker_cruisers_lost"] == 0
    assert battle["captured"] and new.systems[102].cruisers == 5


def test_r11_4_ambush_saves_the_home_star() -> None:
    """rules.md §11.4 AMBUSH: 20 cruisers against defence 14 on AMBUSH: 7 lost first, the
    13 left destroy 6 (2 fighters, 4 cruisers), then one more is lost: 12 go
    home. On DEFEND the same attack takes the star."""
    _, events = run(home_star_target(20, Stance.AMBUSH).build(), {"ABC": [o(A.MOVE, 101, 102, 20)]})
    battle = one(events, "battle", "ABC")
    assert battle["fire_order"] == "defender_first"
    assert battle["losses"] == {"attacker": {"cruisers": 8}, "defender": {"fighters": 2, "cruisers": 4}}
    assert not battle["captured"] and battle["survivors"] == 12

    _, events = run(home_star_target(20).build(), {"ABC": [o(A.MOVE, 101, 102, 20)]})
    battle = one(events, "battle", "ABC")
    assert battle["losses"]["attacker"] == {"cruisers": 7} and battle["captured"]


def test_r9_1_pin_of_three_cruisers_and_six_fighters() -> None:
    """rules.md §9.1: ALF moves 5 cruisers from 104 into its own 106, controlled by BET's
    3 cruisers and 6 fighters at 108: pin 78 twelfths, 4 held, 1 runs the pin
    and moves on to 107, which BET does not control."""
    state = example_galaxy()
    for code in (104, 106):
        state.systems[code].owner = "ALF"
        state.systems[code].ever_owned = True
    state.systems[104].cruisers = 5
    state.systems[104].pop = 1
    bet = state.systems[108]
    bet.owner, bet.ever_owned, bet.pop, bet.cruisers, bet.fighters = "BET", True, 1, 3, 6
    assert held_by_pin(5, 78) == 4
    _, events = run(state, {"ALF": [o(A.MOVE, 104, 106, 5), o(A.MOVE, 106, 107, 1)]})
    pin = one(events, "pin", "ALF")
    assert (pin["strength"], pin["held"], pin["ran"]) == (78, 4, 1)
    second = order_events(events, "ALF")[1]
    assert second["ok"] and second["outcome"] == "captured"


def test_r13_3_the_first_turn_economy() -> None:
    """rules.md §13.3: a standard start earns 34 BP, pays 23 supply (25 at the star, 0 at
    the planet): 11 BP a turn; 12 industry is 1 VP."""
    state = example_galaxy()
    assert income(state, "ALF") == 34
    assert state.empires["ALF"].balance == 34  # a scenario's default balance: the income
    star, planet = state.systems[100], state.systems[101]
    assert (supply_cost(state, star), supply_cost(state, planet)) == (23, 0)
    assert (star.industry + planet.industry) // 10 == 1


def test_r13_4_blockade() -> None:
    """rules.md §13.4 Blockade: 16 cruisers and a colony ship (21) at the star blockade a
    planet of population 20 with no cruisers; 15 cruisers and a colony ship do not."""
    b = Builder(modules=())
    b.empire("ABC")
    b.empire("XYZ")
    b.star(101, 0, 0, owner="XYZ", cruisers=16, colony_ships=1)
    planet = b.planet(102, 101, owner="ABC", pop=20)
    state = b.build()
    assert is_blockaded(state, planet)
    state.systems[101].cruisers = 15
    assert not is_blockaded(state, planet)


def test_r6_15_tech_costs() -> None:
    """rules.md §6.15 TECH: 1 → 2 costs 4; 0 → 2 in one order costs 8; one level at a time 1 + 4."""
    assert tech_cost(1, 1) == 4
    assert tech_cost(0, 2) == 8
    assert tech_cost(0, 1) + tech_cost(1, 1) == 5


def test_r19_2_layup_and_reserve_example() -> None:
    """rules.md §19.2's example: 6 cruisers at 101 and 4 in the reserve; LAYUP 101 - 2
    leaves 4 at 101 and 6 in the reserve; RESERVE 102 - ALL brings only the 4 that were
    there before the turn to 102, which then sticks."""
    b = Builder(modules=(), ruleset=2)
    b.empire("ABC", supply=100)
    b.star(101, 0, 0, owner="ABC", pop=5, industry=5, cruisers=6)
    b.star(102, 0, 1, owner="ABC", pop=5)
    b.link(101, 102)
    b.empires["ABC"].reserve = 4
    orders = [o(A.LAYUP, 101, None, 2), o(A.RESERVE, 102, None, "ALL"), o(A.MOVE, 102, 101, 1)]
    new, events = run(b.build(), {"ABC": orders})
    layup, reserve, move = order_events(events, "ABC")
    assert (layup["reserve"], reserve["done"], move["reason"]) == (6, 4, "sticky")
    assert (new.systems[101].cruisers, new.systems[102].cruisers, new.empires["ABC"].reserve) == (4, 4, 2)


def test_r19_4_link_example() -> None:
    """rules.md §19.4's example: with Hyperspace 4, 101 at (0, 0) and 103 at (0, 2) are
    distance² 4 apart; LINK 101 103 costs 20 BP, unless a star sits at (0, 1)."""
    for blocker, reason, cost in ((False, None, 20), (True, "blocked", 0)):
        b = Builder(modules=(), ruleset=2)
        b.empire("ABC", supply=100, hyperspace=4)
        b.star(101, 0, 0, owner="ABC", pop=5, industry=5)
        b.star(103, 0, 2)
        b.star(104, 1, 1)
        b.link(101, 104, 103)
        if blocker:
            b.star(102, 0, 1)
            b.link(102, 104)
        _, events = run(b.build(), {"ABC": [o(A.LINK, 101, 103)]})
        link = order_events(events, "ABC")[0]
        assert (link["reason"], link["cost"], link["distsq"]) == (reason, cost, 4)


def test_r19_5_probe_example() -> None:
    """rules.md §19.5's example: with Probe 1 and Jump 1, PROBE 103 next to your star 102
    launches a probe (2 BP); next turn PROBE 104 moves it along the link to 104."""
    b = Builder(modules=(), ruleset=2)
    b.empire("ABC", supply=100)
    b.star(102, 0, 0, owner="ABC", pop=5, industry=5)
    b.star(103, 0, 2)
    b.star(104, 0, 4)
    b.link(102, 103, 104)
    first, events = run(b.build(), {"ABC": [o(A.PROBE, 103)]})
    assert (order_events(events, "ABC")[0]["case"], order_events(events, "ABC")[0]["cost"]) == ("launched", 2)
    second, events = run(first, {"ABC": [o(A.PROBE, 104)]})
    assert order_events(events, "ABC")[0]["case"] == "moved" and second.empires["ABC"].active_probe == 104
