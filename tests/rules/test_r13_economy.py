"""rules.md §13: the end-of-turn economy, in order, and blockades."""

from __future__ import annotations

import random

from turnproc.rules.economy import income, is_blockaded, supply_cost
from turnproc.rules.state import Stance, Tech
from turnproc.rules.state import SystemType as T

from .builders import Builder, kinds, one, run


def test_supply_cost_formula() -> None:
    """rules.md §13.2: max(0, (10×cruisers + 3×fighters + 20×colony ships) / 3 − pop −
    Supply), + 1 per population above the limit; doubled out of supply."""
    b = Builder(modules=())
    b.empire("ABC", supply=1)
    s = b.star(101, 0, 0, T.RG, owner="ABC", pop=17, cruisers=9, fighters=2, colony_ships=1)
    state = b.build()
    # (90 + 6 + 20) // 3 = 38; − 17 − 1 = 20; RG limit 15: + 2.
    assert supply_cost(state, s) == 22
    assert supply_cost(state, s, in_supply=False) == 42
    s.pop = 5
    s.cruisers = 0
    assert supply_cost(state, s) == max(0, 26 // 3 - 5 - 1)
    s.colony_ships = 0
    s.fighters = 0
    assert supply_cost(state, s) == 0


def test_shortfall_scraps_cruisers_from_the_costliest_system_first() -> None:
    """rules.md §13.1: a shortfall scraps cruisers, one per 3 BP short, from the costliest
    system first (rules.md §13.1, ruling E4: rounded up; what cannot be scrapped is forgiven)."""
    b = Builder(modules=())
    b.empire("ABC", balance=0)
    b.star(101, 0, 0, owner="ABC", pop=1, cruisers=10)  # 33 - 1 = 32
    b.star(102, 0, 1, owner="ABC", pop=1, cruisers=6)  # 20 - 1 = 19
    b.link(101, 102)
    new, events = run(b.build())
    d = one(events, "supply", "ABC")
    assert (d["total"], d["paid"], d["shortfall"]) == (51, 2, 49)
    assert d["scrapped"] == [{"system": 101, "cruisers": 10}, {"system": 102, "cruisers": 6}]
    assert d["forgiven"] == 1
    assert new.empires["ABC"].balance == 0
    assert (new.systems[101].cruisers, new.systems[102].cruisers) == (0, 0)


def test_supply_paid_from_next_turns_balance() -> None:
    b = Builder(modules=())
    b.empire("ABC", balance=0)
    b.star(101, 0, 0, owner="ABC", pop=10, industry=10, cruisers=6)  # 20 - 10 = 10
    new, events = run(b.build())
    assert one(events, "income", "ABC")["total"] == 20
    assert new.empires["ABC"].balance == 10


def test_steps_run_in_rule_order_for_every_empire() -> None:
    """rules.md §13.1: leftovers, (exploration), income, supply, interest, research, VP."""
    b = Builder(modules=())
    for code in ("ABC", "XYZ"):
        b.empire(code, treasury=10).techs[Tech.TREASURY] = 5
    b.star(101, 0, 0, owner="ABC", pop=5)
    b.star(102, 0, 1, owner="XYZ", pop=5)
    b.link(101, 102)
    _, events = run(b.build())
    steps = [(e.kind, e.empire) for e in events if e.kind not in ("turn", "order")]
    order = ["leftovers", "income", "supply", "interest", "research", "vp"]
    assert steps == [(k, c) for k in order for c in ("ABC", "XYZ")]


def test_leftovers_count_for_supply() -> None:
    b = Builder(modules=())
    e = b.empire("ABC", balance=30)
    e.base = 101
    b.star(101, 0, 0, owner="ABC", pop=1)
    new, events = run(b.build())
    assert one(events, "leftovers", "ABC")["cruisers"] == 3
    assert one(events, "supply", "ABC")["total"] == 10 - 1


def test_interest_is_treasury_percent_rounded_down() -> None:
    """rules.md §13.1: Treasury % of the treasury."""
    b = Builder(modules=())
    e = b.empire("ABC", treasury=55)
    e.techs[Tech.TREASURY] = 10
    b.star(101, 0, 0, owner="ABC", pop=1)
    new, events = run(b.build())
    assert one(events, "interest", "ABC") == {"rate": 10, "amount": 5, "treasury": 60}


def test_research_one_free_level_weighted_by_level_plus_one() -> None:
    """rules.md §13.1: one free tech level, picked at random with weight (level + 1)."""
    b = Builder(modules=())
    e = b.empire("ABC")
    e.techs[Tech.SCANNER] = 40
    b.star(101, 0, 0, owner="ABC", pop=1)
    state = b.build()
    new, events = run(state, seed=9)
    r = random.Random(9)
    r.shuffle(["ABC"])
    weights = [e.tech(t) + 1 for t in Tech]
    draw = r.randrange(sum(weights))
    tech = next(t for i, t in enumerate(Tech) if draw < sum(weights[: i + 1]))
    d = one(events, "research", "ABC")
    assert d == {"tech": tech.value, "level": e.tech(tech) + 1}
    assert new.empires["ABC"].tech(tech) == e.tech(tech) + 1
    picks = []
    for seed in range(40):
        _, ev = run(state, seed=seed)
        picks.append(one(ev, "research", "ABC")["tech"])
    assert picks.count("SCANNER") > 20  # weight 41 of 60


def test_victory_points_from_industry_and_culture() -> None:
    """rules.md §13.1: + total industry / 10 + Cultural Level / 2."""
    b = Builder(modules=())
    e = b.empire("ABC")
    e.techs[Tech.CULTURAL] = 5
    e.vp = 3
    b.star(101, 0, 0, owner="ABC", pop=20, industry=14)
    b.planet(111, 101, owner="ABC", pop=20, industry=9)
    new, events = run(b.build())
    d = one(events, "vp", "ABC")
    assert (d["industry_vp"], d["cultural_vp"], d["gained"]) == (2, 2, 4)
    assert new.empires["ABC"].vp == 7


def blockade_map(star_ships: int) -> Builder:
    b = Builder(modules=())
    b.empire("ABC", supply=1000)
    b.empire("XYZ", supply=1000)
    b.star(101, 0, 0, owner="XYZ", pop=1, cruisers=star_ships)
    b.planet(111, 101, owner="ABC", pop=3, industry=3, cruisers=1)
    return b


def test_blockade_planet_earns_nothing() -> None:
    """rules.md §13.4: a planet is blockaded when its star belongs to another empire whose
    cruisers + fighters + 5 × colony ships there exceed the planet's
    population + cruisers. A blockaded planet earns no income."""
    state = blockade_map(5).build()
    assert is_blockaded(state, state.systems[111])
    assert income(state, "ABC") == 0
    new, events = run(state)
    assert one(events, "blockade", "ABC") == {"planet": 111, "star": 101, "by": "XYZ"}
    assert one(events, "income", "ABC")["blockaded"] == [111]
    state = blockade_map(4).build()
    assert not is_blockaded(state, state.systems[111])
    assert income(state, "ABC") == 6


def test_empire_without_systems_gets_nothing() -> None:
    """rules.md §13.1 (ruling E2)."""
    b = Builder(modules=())
    b.empire("ABC", balance=50)
    b.empire("XYZ")
    b.star(101, 0, 0, owner="XYZ", pop=1)
    new, events = run(b.build())
    assert new.empires["ABC"].balance == 0
    assert not kinds(events, "income", "ABC")
    assert not kinds(events, "research", "ABC")


def test_stance_does_not_matter_to_the_economy() -> None:
    b = Builder(modules=())
    b.empire("ABC")
    b.star(101, 0, 0, owner="ABC", pop=4, industry=2, stance=Stance.STANDOFF)
    _, events = run(b.build())
    assert one(events, "income", "ABC")["total"] == 6


def test_bp_income_is_two_bp_a_level() -> None:
    from turnproc.rules.economy import bp_income
    from turnproc.rules.state import Empire, Tech

    empire = Empire(code="AAA", name="A")
    empire.techs[Tech.BP_INCOME] = 3
    assert bp_income(empire) == 6
