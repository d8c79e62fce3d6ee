"""rules.md §6: every action."""

from __future__ import annotations

import random
from typing import Any

import pytest

from turnproc.orders.orders import Action as A
from turnproc.rules.actions import tech_cost
from turnproc.rules.events import Event
from turnproc.rules.state import Stance, Tech
from turnproc.rules.state import SystemType as T

from .builders import Builder, kinds, o, one, order_events, run


def base(modules: tuple[str, ...] = ()) -> Builder:
    """ABC: star 101 (pop 10, industry 8) with planet 111 (pop 10, industry 6),
    star 102 (RD, pop 3); 103 unowned; XYZ: 104. Chain 101–102–103–104.
    Supply 100 so upkeep never scraps what a test builds."""
    b = Builder(modules=modules)
    b.empire("ABC", balance=100, supply=100)
    b.empire("XYZ", balance=100, supply=100)
    b.star(101, 0, 0, owner="ABC", pop=10, industry=8)
    b.planet(111, 101, owner="ABC", pop=10, industry=6)
    b.star(102, 0, 1, T.RD, owner="ABC", pop=3, industry=3)
    b.star(103, 0, 2)
    b.star(104, 0, 3, owner="XYZ", pop=5, industry=5)
    b.link(101, 102, 103, 104)
    return b


def first(events: list[Event], empire: str = "ABC") -> dict[str, Any]:
    return order_events(events, empire)[0]


# -- DEEP ------------------------------------------------------------------------


def deep_map(jump: int = 4) -> Builder:
    b = Builder(modules=())
    b.empire("ABC", supply=1000, jump=jump)
    b.star(101, 0, 0, owner="ABC", pop=5, cruisers=100)
    b.star(102, 2, 0)
    b.star(103, 0, 5)
    b.planet(112, 102)
    b.link(101, 103)
    b.link(103, 102)
    return b


def test_deep_jumps_unlinked_within_jump_range_and_loses_ships() -> None:
    """rules.md §6.3 DEEP: distance² ≤ Jump; each ship is lost with probability
    distance²/(10×Jump); lost ships go to the lost-in-space pool."""
    state = deep_map(jump=4).build()
    new, events = run(state, {"ABC": [o(A.DEEP, 101, 102, 100)]}, seed=11)
    loss = one(events, "hyperspace_loss", "ABC")
    assert loss["distsq"] == 4 and loss["ships"] == 100
    # Replay the draws: the slot-order shuffle first, then one per ship.
    r = random.Random(11)
    r.shuffle(["ABC"])
    expected = sum(1 for _ in range(100) if r.randrange(40) < 4)
    assert loss["lost"] == expected
    assert 0 < expected < 30
    assert new.empires["ABC"].lost_in_space == expected
    assert new.systems[102].owner == "ABC"
    assert new.systems[102].cruisers >= 100 - expected  # + any cruisers found
    assert new.systems[101].cruisers == 0


def test_deep_too_far_and_not_to_a_planet() -> None:
    """3.12: Jump must be at least distance²; you can't jump to a planet or asteroid."""
    state = deep_map(jump=3).build()
    _, events = run(state, {"ABC": [o(A.DEEP, 101, 102, 1), o(A.DEEP, 101, 112, 1)]})
    assert [d["reason"] for d in order_events(events)] == ["too_far", "not_star"]


def test_deep_needs_no_link_but_move_does() -> None:
    state = deep_map().build()
    _, events = run(state, {"ABC": [o(A.MOVE, 101, 102, 1)]})
    assert first(events)["reason"] == "not_linked"


# -- MOVEF / MOVECOL ------------------------------------------------------------------


def test_movef_at_most_fighter_tech_one_bp_each_destination_sticky() -> None:
    """rules.md §6.5 MOVEF: between linked systems both owned by you; at most Fighter-tech
    fighters; 1 BP per fighter; destination becomes sticky."""
    b = base()
    b.systems[101].fighters = 5
    state = b.build()
    new, events = run(
        state, {"ABC": [o(A.MOVEF, 101, 102, 5), o(A.MOVEF, 102, 101, 1), o(A.MOVEF, 101, 103, 1)]}
    )
    d = order_events(events)
    assert (d[0]["ok"], d[0]["moved"], d[0]["cost"]) == (True, 2, 2)  # Fighter tech 2
    assert d[1]["reason"] == "sticky"
    assert d[2]["reason"] == "dest_not_owned"
    assert (new.systems[101].fighters, new.systems[102].fighters) == (3, 2)


def test_movecol_two_bp_each_carries_fighters_destination_sticky() -> None:
    """rules.md §6.6 MOVECOL: 2 BP each; each carries up to Fighter-tech fighters along."""
    b = base()
    b.systems[101].colony_ships = 2
    b.systems[101].fighters = 7
    state = b.build()
    new, events = run(state, {"ABC": [o(A.MOVECOL, 101, 102, 2), o(A.MOVECOL, 102, 101, 1)]})
    d = order_events(events)
    assert (d[0]["moved"], d[0]["fighters"], d[0]["cost"]) == (2, 4, 4)
    assert d[1]["reason"] == "sticky"
    assert (new.systems[102].colony_ships, new.systems[102].fighters) == (2, 4)
    assert new.systems[101].fighters == 3


# -- building ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "action,attr,unit",
    [(A.NEWCRS, "cruisers", 10), (A.NEWFTR, "fighters", 3), (A.NEWCOL, "colony_ships", 20)],
)
def test_new_ships_cost_and_limit(action: A, attr: str, unit: int) -> None:
    """rules.md §6.7: at most min(industry, population) per action; 10 / 3 / 20 BP each."""
    b = base()
    b.empires["ABC"].balance = 1000
    state = b.build()
    new, events = run(state, {"ABC": [o(action, 102, None, 9)]})
    d = first(events)
    assert (d["asked"], d["done"], d["cost"]) == (9, 3, 3 * unit)
    assert getattr(new.systems[102], attr) == 3


def test_new_ships_blank_where_means_base() -> None:
    b = base()
    b.empires["ABC"].base = 101
    new, events = run(b.build(), {"ABC": [o(A.NEWCRS, None, None, 2)]})
    assert first(events)["where"] == 101
    assert new.systems[101].cruisers >= 2
    b = base()
    _, events = run(b.build(), {"ABC": [o(A.NEWCRS, None, None, 2)]})
    assert first(events)["reason"] == "no_base"


def test_new_ships_clamped_by_money() -> None:
    b = base()
    b.empires["ABC"].balance = 25
    new, events = run(b.build(), {"ABC": [o(A.NEWCRS, 101, None, 5)]})
    assert (first(events)["done"], first(events)["cost"]) == (2, 20)
    b.empires["ABC"].balance = 9
    _, events = run(b.build(), {"ABC": [o(A.NEWCRS, 101, None, 5)]})
    assert first(events)["reason"] == "no_money"


def test_new_ships_need_industry_and_population() -> None:
    b = base()
    b.systems[102].industry = 0
    _, events = run(b.build(), {"ABC": [o(A.NEWCRS, 102, None, 1)]})
    assert first(events)["reason"] == "no_capacity"


def test_build_raises_industry_not_above_limit() -> None:
    """rules.md §6.8 BUILD: 5 BP per level; not above the population limit (RD 25)."""
    b = base()
    b.systems[102].industry = 22
    new, events = run(b.build(), {"ABC": [o(A.BUILD, 102, None, 5)]})
    assert (first(events)["done"], first(events)["cost"]) == (3, 15)
    assert new.systems[102].industry == 25
    b.systems[102].industry = 25
    _, events = run(b.build(), {"ABC": [o(A.BUILD, 102, None, 1)]})
    assert first(events)["reason"] == "at_limit"


def test_grow_raises_population_not_above_limit() -> None:
    """rules.md §6.9 GROW: 4 BP per population; not above the limit."""
    b = base()
    b.systems[102].pop = 20
    new, events = run(b.build(), {"ABC": [o(A.GROW, 102, None, "ALL")]})
    assert (first(events)["done"], first(events)["cost"]) == (5, 20)
    assert new.systems[102].pop == 25


def blockaded() -> Builder:
    """XYZ holds star 101 with 20 cruisers; ABC's planet 111 (pop 10) is blockaded."""
    b = base()
    s = b.systems[101]
    s.owner, s.cruisers = "XYZ", 20
    b.systems[102].owner = "XYZ"
    b.systems[111].colony_ships = 1
    return b


@pytest.mark.parametrize(
    "order",
    [
        o(A.BUILD, 111, None, 1),
        o(A.GROW, 111, None, 1),
        o(A.NEWCRS, 111, None, 1),
        o(A.NEWFTR, 111, None, 1),
        o(A.COLONISE, 111),
    ],
)
def test_blockaded_planet_may_not_build_grow_or_colonise(order: object) -> None:
    """rules.md §13.4 Blockade: a blockaded planet may not BUILD, GROW, build ships or COLONISE."""
    state = blockaded().build()
    new, events = run(state, {"ABC": [order]})  # type: ignore[list-item]
    assert first(events)["reason"] == "blockaded"


# -- COLONISE --------------------------------------------------------------------------


def test_colonise_plants_one_population_where_there_is_none() -> None:
    b = base()
    b.systems[102].pop = 0
    b.systems[102].industry = 0
    b.systems[102].colony_ships = 1
    new, events = run(b.build(), {"ABC": [o(A.COLONISE, 102), o(A.MOVECOL, 102, 101, 1)]})
    d = order_events(events)
    assert (d[0]["ok"], d[0]["outcome"], d[0]["cost"]) == (True, "planted", 2)
    assert new.systems[102].pop >= 1
    assert new.systems[102].colony_ships == 1  # not used up ...
    assert d[1]["reason"] == "no_ships"  # ... but stuck


def test_colonise_needs_no_population_there() -> None:
    b = base()
    b.systems[102].colony_ships = 1
    _, events = run(b.build(), {"ABC": [o(A.COLONISE, 102)]})
    assert first(events)["reason"] == "has_population"


def test_colonise_throw_captures_explores_and_may_still_plant() -> None:
    """rules.md §6.10 COLONISE where, to: thrown into a linked unowned TO, which you then own
    with pop 1 (a capture, so exploration follows); after a throw it may still
    plant where it stands, nothing else."""
    b = base()
    s = b.systems[102]
    s.pop, s.industry, s.colony_ships = 0, 0, 1
    state = b.build()
    orders = [
        o(A.COLONISE, 102, 103),
        o(A.COLONISE, 102, 101),
        o(A.COLONISE, 102),
        o(A.COLONISE, 102),
    ]
    new, events = run(state, {"ABC": orders})
    d = order_events(events)
    assert d[0]["ok"] and d[0]["outcome"] == "thrown"
    assert d[1]["reason"] == "not_unowned"
    assert d[2]["ok"] and d[2]["outcome"] == "planted"
    assert d[3]["reason"] == "has_population"
    assert new.systems[103].owner == "ABC" and new.systems[103].pop >= 1
    assert one(events, "capture", "ABC")["how"] == "COLONISE"
    assert one(events, "exploration", "ABC")["system"] == 103


def test_a_thrown_ship_cannot_throw_again() -> None:
    b = base()
    b.star(105, 1, 1)
    b.link(102, 105)
    b.systems[102].colony_ships = 1
    _, events = run(b.build(), {"ABC": [o(A.COLONISE, 102, 103), o(A.COLONISE, 102, 105)]})
    assert order_events(events)[1]["reason"] == "no_ships"


# -- scrapping and money -------------------------------------------------------------------


def test_scrap_cruisers_and_fighters_one_bp_each() -> None:
    b = base()
    b.systems[101].cruisers = 4
    b.systems[101].fighters = 4
    new, events = run(b.build(), {"ABC": [o(A.SCRAPC, 101, None, 3), o(A.SCRAPF, 101, None, "ALL")]})
    d = order_events(events)
    assert [(x["done"], x["cost"]) for x in d] == [(3, 3), (4, 4)]
    assert (new.systems[101].cruisers, new.systems[101].fighters) == (1, 0)


def test_tax_stash_cash() -> None:
    """TAX +2 BP; STASH 3 BP per treasury BP; CASH treasury to balance."""
    b = base()
    b.empires["ABC"].balance = 10
    b.empires["ABC"].treasury = 5
    state = b.build()
    from turnproc.rules.turn import resolve

    from .builders import numbered

    orders = {"ABC": numbered(o(A.TAX), o(A.STASH, n=4), o(A.CASH, n=2))}
    new, events = resolve(state, orders, random.Random(1))
    d = order_events(events)
    assert (d[0]["ok"], d[0]["gained"]) == (True, 2)
    assert (d[1]["done"], d[1]["cost"]) == (4, 12)
    assert d[2]["done"] == 2
    assert new.empires["ABC"].treasury == 5 + 4 - 2


def test_stash_all_and_no_money() -> None:
    b = base()
    b.empires["ABC"].balance = 11
    _, events = run(b.build(), {"ABC": [o(A.STASH, n="ALL"), o(A.STASH, n=1)]})
    d = order_events(events)
    assert (d[0]["done"], d[0]["cost"]) == (3, 9)
    assert d[1]["reason"] == "no_money"


def test_gift_moves_treasury_to_another_empire() -> None:
    b = base()
    b.empires["ABC"].treasury = 10
    new, events = run(
        b.build(),
        {
            "ABC": [
                o(A.GIFT, empire="XYZ", n=4),
                o(A.GIFT, empire="ABC", n=1),
                o(A.GIFT, empire="QQQ", n=1),
            ]
        },
    )
    d = order_events(events)
    assert d[0]["ok"] and d[0]["treasury_cost"] == 4
    assert [d[1]["reason"], d[2]["reason"]] == ["self", "unknown_empire"]
    assert new.empires["ABC"].treasury == 6
    assert new.empires["XYZ"].treasury == 4


def test_tech_cost_formula() -> None:
    """rules.md §6.15 TECH: (final level)² × k from the treasury (1→2: 4 BP; 0→2: 8 BP)."""
    assert tech_cost(1, 1) == 4
    assert tech_cost(0, 2) == 8


def test_tech_raises_levels_from_the_treasury() -> None:
    b = base()
    b.empires["ABC"].treasury = 12
    new, events = run(b.build(), {"ABC": [o(A.TECH, n=2, tech=Tech.WEAPONS), o(A.TECH, tech=Tech.DRIVE)]})
    d = order_events(events)
    assert (d[0]["done"], d[0]["treasury_cost"], d[0]["level"]) == (2, 8, 2)
    assert (d[1]["done"], d[1]["treasury_cost"]) == (1, 4)
    assert new.empires["ABC"].treasury == 0
    assert new.empires["ABC"].tech(Tech.WEAPONS) >= 2


def test_tech_without_treasury_fails() -> None:
    _, events = run(base().build(), {"ABC": [o(A.TECH, n=1, tech=Tech.WEAPONS)]})
    assert first(events)["reason"] == "no_treasury"


# -- stances ------------------------------------------------------------------------------


def test_stances_set_and_validated() -> None:
    b = base()
    state = b.build()
    orders = [
        o(A.RETREAT, 102, 101, 2),
        o(A.AMBUSH, 101, 102),
        o(A.STANDOFF, 111),
        o(A.RETREAT, 101, 111),  # TO may not be a planet
        o(A.RETREAT, 102, 103),  # TO must be owned
        o(A.RETREAT, 101, 104),  # not linked
        o(A.RETREAT, 101, 102, 4),  # parts 1–3
        o(A.DEFEND, 104),  # not owned
    ]
    new, events = run(state, {"ABC": orders})
    d = order_events(events)
    assert [x["ok"] for x in d[:3]] == [True, True, True]
    assert [x["reason"] for x in d[3:]] == [
        "not_star",
        "dest_not_owned",
        "not_linked",
        "bad_parts",
        "not_owned",
    ]
    s102 = new.systems[102]
    assert (s102.stance, s102.stance_target, s102.retreat_parts) == (Stance.RETREAT, 101, 2)
    assert (new.systems[101].stance, new.systems[101].stance_target) == (Stance.AMBUSH, 102)
    assert new.systems[111].stance is Stance.STANDOFF


def test_defend_resets_the_stance() -> None:
    b = base()
    s = b.systems[102]
    s.stance, s.stance_target, s.retreat_parts = Stance.RETREAT, 101, 3
    new, _ = run(b.build(), {"ABC": [o(A.DEFEND, 102)]})
    s = new.systems[102]
    assert (s.stance, s.stance_target, s.retreat_parts) == (Stance.DEFEND, None, 1)


def test_base_and_home_need_an_owned_system() -> None:
    _, events = run(base().build(), {"ABC": [o(A.BASE, 104), o(A.HOME, 111)]})
    d = order_events(events)
    assert d[0]["reason"] == "not_owned" and d[1]["ok"]
    assert kinds(events, "stance", "ABC")[0].data == {"system": 111, "home": 111}


def test_an_empire_without_systems_can_only_talk() -> None:
    b = base()
    b.empire("QRS")
    _, events = run(b.build(), {"QRS": [o(A.TAX), o(A.MESSAGE, text="still here")]})
    d = order_events(events, "QRS")
    assert d[0]["ok"]  # MESSAGE runs before slot 1
    assert d[1]["reason"] == "no_empire"
