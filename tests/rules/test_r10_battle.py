"""rules.md §10.1–10.2 (Star Chase 3.6, 3.9, 3.10) and the battle, capture and
Marines examples of rules.md §10.5, rules.md §6.1 and rules.md §10.7."""

from __future__ import annotations

import pytest

from turnproc.orders.orders import Action as A
from turnproc.rules.battle import (
    attack_strength,
    attacker_wins,
    defence_level,
    defence_strength,
    round_losses,
)
from turnproc.rules.state import MODULES, Empire, Stance, System, Tech
from turnproc.rules.state import SystemType as T

from .builders import Builder, kinds, o, one, order_events, run

ALL_MODULE_SETS = [frozenset(), MODULES]


def front(modules: frozenset[str] = frozenset()) -> Builder:
    """ABC owns 102–103, XYZ owns 104–105 (chain 101–105, 101 unowned).

    Supply tech 100 keeps upkeep from scrapping the fleets under test; Jump 4
    lets DEEP reach the next star (distance² 4).
    """
    b = Builder(modules=modules)
    b.empire("ABC", supply=100, jump=4)
    b.empire("XYZ", supply=100, jump=4)
    b.star(101, 0, 0)
    b.star(102, 0, 2, owner="ABC", pop=5, industry=5)
    b.star(103, 0, 4, owner="ABC", pop=5, industry=5)
    b.star(104, 0, 6, owner="XYZ", pop=5, industry=5)
    b.star(105, 0, 8, owner="XYZ", pop=5, industry=5)
    b.link(101, 102, 103, 104, 105)
    return b


@pytest.mark.parametrize("modules", ALL_MODULE_SETS, ids=["plain", "all_modules"])
def test_vector_battle_against_a_home_star(modules: frozenset[str]) -> None:
    """rules.md §10.5: 10 cruisers (Weapons 0) MOVE into a home star (pop 2, industry 2,
    1 colony ship, 2 fighters, 5 cruisers, DEFEND, Weapons 0): A = 10, D = 14;
    attacker loses 7 + 2 = 9 (1 survives), defender loses 5 (2 fighters, 3
    cruisers; 2 cruisers remain); attack fails, the survivor goes home."""
    b = front(modules)
    b.systems[103].cruisers = 10
    home = b.systems[104]
    home.pop, home.industry, home.colony_ships, home.fighters, home.cruisers = 2, 2, 1, 2, 5
    state = b.build()
    new, events = run(state, {"ABC": [o(A.MOVE, 103, 104, 10)]})
    battle = one(events, "battle", "ABC")
    assert (battle["attack"], battle["defence"]) == (10, 14)
    assert battle["losses"] == {
        "attacker": {"cruisers": 9},
        "defender": {"fighters": 2, "cruisers": 3},
    }
    assert battle["rounds"] == [
        {
            "attack": 10,
            "defence": 14,
            "attacker_cruisers_lost": 9,
            "defender_fighters_lost": 2,
            "defender_cruisers_lost": 3,
        }
    ]
    assert battle["winner"] == "defender" and not battle["captured"]
    assert battle["fire_order"] == "simultaneous"
    assert new.systems[103].cruisers == 1  # the survivor went home (+ no leftovers: no BASE)
    assert new.systems[104].owner == "XYZ"
    assert (new.systems[104].cruisers, new.systems[104].fighters) == (2, 0)
    assert (new.systems[104].pop, new.systems[104].colony_ships) == (2, 1)
    assert order_events(events, "ABC")[0]["outcome"] == "repelled"


@pytest.mark.parametrize("modules", ALL_MODULE_SETS, ids=["plain", "all_modules"])
def test_vector_capture_of_an_unowned_star(modules: frozenset[str]) -> None:
    """rules.md §6.1: 12 cruisers MOVE into an unowned star with pop 0: no battle,
    capture, exploration roll, system sticky for the mover."""
    b = front(modules)
    b.systems[102].cruisers = 12
    state = b.build()
    new, events = run(state, {"ABC": [o(A.MOVE, 102, 101, 12), o(A.MOVE, 101, 102, 12)]})
    assert not kinds(events, "battle")
    assert one(events, "capture", "ABC")["system"] == 101
    assert len(kinds(events, "exploration", "ABC")) == 1
    assert new.systems[101].owner == "ABC"
    assert new.systems[101].cruisers >= 12
    second = order_events(events, "ABC")[1]
    assert (second["ok"], second["reason"]) == (False, "sticky")


def test_vector_39_marines_direct() -> None:
    """rules.md §10.7 / 3.9: defender wiped out, attacker has 3 survivors, planet pop 2
    (level 4), Marines 1 → level 3, 3 is not more than 3: no capture. With
    Marines 2: capture."""
    planet = System(111, T.PL, 0, 0, star=101, owner="XYZ", pop=2)
    assert defence_level(planet, 0) == 4
    assert defence_level(planet, 1) == 3
    assert not attacker_wins(0, 3, planet, 1)
    assert attacker_wins(0, 3, planet, 2)


@pytest.mark.parametrize("marines,captured", [(1, False), (2, True)])
def test_vector_39_marines_in_battle(marines: int, captured: bool) -> None:
    """3.9 through a real battle: 5 cruisers against a planet of pop 2 with one
    fighter (D = 1 + 4 = 5): each side loses 2, the fighter dies, 3 survive."""
    b = front()
    b.empires["ABC"].techs[Tech.MARINES] = marines
    b.planet(114, 104, owner="XYZ", pop=2, fighters=1)
    b.systems[104].owner = "ABC"
    b.systems[104].cruisers = 5
    state = b.build()
    new, events = run(state, {"ABC": [o(A.MOVE, 104, 114, 5)]})
    battle = one(events, "battle", "ABC")
    assert battle["survivors"] == 3
    assert battle["losses"]["defender"] == {"fighters": 1, "cruisers": 0}
    assert battle["captured"] is captured
    assert (new.systems[114].owner == "ABC") is captured


def test_strengths() -> None:
    """rules.md §10.1: Attack = cruisers + Weapons. Defence = 5 × colony ships + cruisers
    + fighters + population (× 2 on a planet) + Weapons (if defending cruisers
    or fighters) + Defence (planet with population)."""
    emp = Empire("XYZ", "x")
    emp.techs[Tech.WEAPONS] = 2
    emp.techs[Tech.DEFENCE] = 3
    assert attack_strength(10, 2) == 12
    assert attack_strength(0, 2) == 0
    star = System(101, T.YD, 0, 0, owner="XYZ", pop=4, colony_ships=1, cruisers=2, fighters=1)
    assert defence_strength(star, emp) == 5 + 2 + 1 + 4 + 2
    assert defence_strength(star, emp, weapons_bonus=False) == 5 + 2 + 1 + 4
    static = System(102, T.YD, 0, 0, owner="XYZ", pop=4)
    assert defence_strength(static, emp) == 4  # no Weapons without cruisers/fighters
    planet = System(111, T.PL, 0, 0, star=101, owner="XYZ", pop=4)
    assert defence_strength(planet, emp) == 8 + 3
    empty_planet = System(112, T.PL, 0, 0, star=101, owner="XYZ", fighters=1)
    assert defence_strength(empty_planet, emp) == 1 + 2  # Defence needs population
    belt = System(113, T.AB, 0, 0, star=101, owner="XYZ", pop=4)
    assert defence_strength(belt, emp) == 4


@pytest.mark.parametrize(
    "attack,defence,expected",
    [
        (10, 14, (9, 5)),
        (14, 10, (5, 9)),
        (8, 8, (4, 4)),
        (1, 1, (0, 0)),
        (0, 5, (4, 0)),
        (3, 0, (0, 2)),
    ],
)
def test_round_losses(attack: int, defence: int, expected: tuple[int, int]) -> None:
    """rules.md §10.2: each side loses half the other side's strength; the weaker side
    also loses half the difference."""
    assert round_losses(attack, defence) == expected


def test_capture_halves_and_changes_hands() -> None:
    """3.10: the loser loses 1 VP; population, industry and colony ships are
    halved and change hands; the winner's survivors move in."""
    b = front()
    b.empires["XYZ"].vp = 4
    b.empires["XYZ"].base = 104
    d = b.systems[104]
    d.pop, d.industry, d.colony_ships, d.cruisers, d.stance = 5, 5, 3, 1, Stance.STANDOFF
    b.systems[103].cruisers = 40
    state = b.build()
    new, events = run(state, {"ABC": [o(A.MOVE, 103, 104, 40)]})
    sys = new.systems[104]
    # D = 15 + 1 + 5 = 21: attacker loses 10; defender loses 20 + 9.
    assert sys.owner == "ABC"
    assert (sys.pop, sys.industry, sys.colony_ships, sys.cruisers) == (2, 2, 1, 30)
    assert sys.stance is Stance.DEFEND
    assert new.empires["XYZ"].base is None
    cap = one(events, "capture", "ABC")
    assert (cap["from_empire"], cap["vp_lost"], cap["how"]) == ("XYZ", 1, "MOVE")
    # VP after the turn: 4 - 1 + industry 5 // 10 = 3.
    assert new.empires["XYZ"].vp == 3


def test_survivors_of_a_won_battle_may_move_on_from_a_dwarf() -> None:
    b = front()
    b.systems[103].cruisers = 30
    b.systems[104].pop = 0
    b.systems[104].cruisers = 1
    state = b.build()
    new, events = run(state, {"ABC": [o(A.MOVE, 103, 104, 30), o(A.MOVE, 104, 105, "ALL")]})
    assert new.systems[104].owner == "ABC"
    assert new.systems[105].owner == "ABC"


def test_assault_repeats_rounds_until_a_fleet_is_gone_and_sticks() -> None:
    """rules.md §10.6: ASSAULT repeats rounds until the defending fleet or the attacking
    cruisers are gone; rules.md §6.2: costs 2 BP and makes the target sticky."""
    b = front()
    b.systems[103].cruisers = 12
    b.systems[104].pop = 0
    b.systems[104].cruisers = 10
    state = b.build()
    new, events = run(state, {"ABC": [o(A.ASSAULT, 103, 104, 12), o(A.MOVE, 104, 105, 1)]})
    battle = one(events, "battle", "ABC")
    assert len(battle["rounds"]) > 1
    # Round 1: 12 v 10 → attacker loses 5, defender 7; round 2: 7 v 3 → 1 and 5.
    assert battle["rounds"][0]["attacker_cruisers_lost"] == 5
    assert battle["captured"]
    assert new.systems[104].owner == "ABC"
    first, second = order_events(events, "ABC")
    assert first["cost"] == 2
    assert second["reason"] == "sticky"


def test_move_fights_only_one_round() -> None:
    b = front()
    b.systems[103].cruisers = 12
    b.systems[104].pop = 0
    b.systems[104].cruisers = 10
    new, events = run(b.build(), {"ABC": [o(A.MOVE, 103, 104, 12)]})
    battle = one(events, "battle", "ABC")
    assert len(battle["rounds"]) == 1
    assert not battle["captured"]
    assert new.systems[103].cruisers == 7
    assert new.systems[104].cruisers == 3


def test_assault_stalemate_ends() -> None:
    """rules.md §10.6 (ruling B2): a round where nobody loses anything ends the ASSAULT."""
    b = front()
    b.systems[103].cruisers = 1
    b.systems[104].pop = 0
    b.systems[104].fighters = 1
    new, events = run(b.build(), {"ABC": [o(A.ASSAULT, 103, 104, 1)]})
    battle = one(events, "battle", "ABC")
    assert len(battle["rounds"]) == 1 and not battle["captured"]
    assert new.systems[103].cruisers == 1


def test_assault_into_own_system_fails() -> None:
    b = front()
    b.systems[103].cruisers = 3
    _, events = run(b.build(), {"ABC": [o(A.ASSAULT, 103, 102, 3)]})
    assert order_events(events)[0]["reason"] == "own_system"


def ambush_front(modules: frozenset[str] = frozenset()) -> Builder:
    b = front(modules)
    b.systems[103].cruisers = 10
    d = b.systems[104]
    d.cruisers, d.stance, d.stance_target = 4, Stance.AMBUSH, 103
    return b


def test_ambush_defender_fires_first_and_attacker_loses_an_extra_ship() -> None:
    """rules.md §11.4 AMBUSH: against a MOVE coming from FROM, the defender fires first and
    the attacker loses one extra ship. D = 9: attacker loses 4, answers with 6
    (defender loses 3), then loses one more."""
    new, events = run(ambush_front().build(), {"ABC": [o(A.MOVE, 103, 104, 10)]})
    battle = one(events, "battle", "ABC")
    assert battle["fire_order"] == "defender_first"
    assert battle["losses"] == {
        "attacker": {"cruisers": 5},
        "defender": {"fighters": 0, "cruisers": 3},
    }
    assert not battle["captured"]
    assert new.systems[103].cruisers == 5
    assert new.systems[104].cruisers == 1


def test_without_ambush_the_same_attack_captures() -> None:
    b = ambush_front()
    b.systems[104].stance = Stance.DEFEND
    new, events = run(b.build(), {"ABC": [o(A.MOVE, 103, 104, 10)]})
    assert one(events, "battle", "ABC")["captured"]


def test_ambush_only_against_moves_from_the_named_system() -> None:
    b = ambush_front()
    b.systems[104].stance_target = 105
    b.systems[105].owner = "ABC"
    new, events = run(b.build(), {"ABC": [o(A.MOVE, 103, 104, 10)]})
    assert one(events, "battle", "ABC")["fire_order"] == "simultaneous"


@pytest.mark.parametrize("action", [A.ASSAULT, A.DEEP])
def test_assault_and_deep_cannot_be_ambushed(action: A) -> None:
    b = ambush_front()
    b.systems[104].pop = 0
    new, events = run(b.build(), {"ABC": [o(action, 103, 104, 10)]})
    assert one(events, "battle", "ABC")["fire_order"] == "simultaneous"


def test_loser_vp_never_below_zero() -> None:
    b = front()
    b.systems[103].cruisers = 30
    b.systems[104].pop = 0
    b.systems[104].industry = 0
    new, events = run(b.build(), {"ABC": [o(A.MOVE, 103, 104, 30)]})
    assert one(events, "capture", "ABC")["vp_lost"] == 0
    assert new.empires["XYZ"].vp == 0


def test_attack_on_a_static_system_fights_one_round() -> None:
    """rules.md §10.2 (ruling B1): only population defends; it still fights."""
    b = front()
    b.systems[103].cruisers = 7
    new, events = run(b.build(), {"ABC": [o(A.MOVE, 103, 104, 7)]})
    battle = one(events, "battle", "ABC")
    # D = 5: attacker loses 2 → 5 survivors, not more than pop 5.
    assert battle["survivors"] == 5 and not battle["captured"]
    assert new.systems[104].owner == "XYZ"
