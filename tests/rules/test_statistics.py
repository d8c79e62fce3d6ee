"""The engine's dice against the rules' probabilities, with fixed seeds (never flaky:
the same seeds give the same counts on every run).

Chi-square critical values are for p = 0.001, from the standard table (scipy is not
a dependency): a fair engine fails one of these at most once in a thousand seeds,
and the seeds here are fixed, so a failure means the engine changed. Proportions are
checked to within four standard deviations of the binomial.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction

import pytest

from turnproc.orders.orders import Action as A
from turnproc.rules.battle import engage_roll
from turnproc.rules.bombard import do_bombard
from turnproc.rules.exploration import FIND_TABLE, FIND_WEIGHTS, explore
from turnproc.rules.resolution import Resolution
from turnproc.rules.state import TECH_START, GameState, techs_of
from turnproc.rules.turn import resolve

from .builders import Builder, o

#: Chi-square critical values at p = 0.001 by degrees of freedom (standard table).
CHI2_999 = {4: 18.467, 9: 27.877, 15: 37.697}


def chi_square(observed: Counter[object], expected: dict[object, float]) -> float:
    return sum((observed.get(k, 0) - e) ** 2 / e for k, e in expected.items())


def within_four_sigma(hits: int, n: int, p: float) -> bool:
    return abs(hits - n * p) <= 4 * math.sqrt(n * p * (1 - p))


def lone_planet(ruleset: int) -> GameState:
    """One empire, a star and an unowned planet to explore (population finds count there)."""
    b = Builder(modules=(), ruleset=ruleset)
    b.empire("ABC", expo=3)
    b.star(101, 0, 0, owner="ABC", pop=5, industry=5)
    b.planet(102, 101)
    return b.build()


def test_r12_exploration_d100_buckets() -> None:
    """rules.md §12: the d100 table's finds come up in proportion to their ranges
    (nothing 10, cruisers 15, fighters 10, colony ship 5, industry 15, VPs 7, BPs 13,
    treasury 7, tech 15, population 3, in hundredths)."""
    n = 5000
    ctx = Resolution(lone_planet(2), random.Random(20261201))
    found: Counter[object] = Counter()
    for _ in range(n):
        explore(ctx, "ABC", 102)
        found[_bucket(ctx.events[-1].data["roll"])] += 1
    widths = {}
    low = 0
    for top, find in FIND_TABLE:
        widths[find] = top - low
        low = top
    expected = {find: n * w / 100 for find, w in widths.items()}
    assert chi_square(found, expected) < CHI2_999[9]


def _bucket(roll: int) -> str:
    for top, find in FIND_TABLE:
        if roll <= top:
            return find
    raise AssertionError(roll)


class _AlwaysTech(random.Random):
    """The d100 always lands on a tech find; every other draw is the seeded generator's."""

    def randint(self, a: int, b: int) -> int:
        return 90 if (a, b) == (1, 100) else super().randint(a, b)


def test_r20_1_tech_find_weights_in_play() -> None:
    """rules.md §20.1: found techs come up with weights 3/2/1 (34 in all)."""
    n = 6800
    ctx = Resolution(lone_planet(2), _AlwaysTech(7))
    found: Counter[object] = Counter()
    for _ in range(n):
        explore(ctx, "ABC", 102)
        found[ctx.events[-1].data["tech"]] += 1
    total = sum(w for _, w in FIND_WEIGHTS)
    expected = {tech.value: n * w / total for tech, w in FIND_WEIGHTS}
    assert chi_square(found, expected) < CHI2_999[15]


def test_r12_rule_set_1_finds_its_thirteen_techs_evenly() -> None:
    """rules.md §12 (ruling E7) in rule set 1: all 13 equally likely, none of rule set 2's."""
    n = 2600
    ctx = Resolution(lone_planet(1), _AlwaysTech(8))
    found: Counter[object] = Counter()
    for _ in range(n):
        explore(ctx, "ABC", 102)
        found[ctx.events[-1].data["tech"]] += 1
    assert set(found) == {t.value for t in techs_of(1)}
    expected = {t.value: n / 13 for t in techs_of(1)}
    assert chi_square(found, expected) < 32.909  # 12 degrees of freedom, p = 0.001


def exact_defender_wins(att_drive: int, def_drive: int, bonus: int) -> Fraction:
    """P(defender's value > attacker's): each value is the higher of two d6 (P(max = k)
    = (2k − 1)/36) plus Drive (and the defender's split bonus); ties go to the attacker."""
    p_max = {k: Fraction(2 * k - 1, 36) for k in range(1, 7)}
    return sum(
        (
            pa * pd
            for a, pa in p_max.items()
            for d, pd in p_max.items()
            if d + def_drive + bonus > a + att_drive
        ),
        Fraction(0),
    )


@pytest.mark.parametrize(("att", "dfn", "bonus"), [(1, 1, 0), (2, 1, 0), (1, 1, 2), (1, 3, 1), (4, 1, 0)])
def test_r11_1_engage_roll_outcome_probabilities(att: int, dfn: int, bonus: int) -> None:
    """rules.md §11.1: "the higher of two d6 + the group's Drive + split bonus ... ties
    favour the attacker": how often the defender out-manoeuvres, against the exact value."""
    n = 6000
    ctx = Resolution(lone_planet(2), random.Random(1000 * att + 100 * dfn + bonus))
    wins = 0
    for _ in range(n):
        a, _ = engage_roll(ctx, att, 0)
        d, _ = engage_roll(ctx, dfn, bonus)
        wins += d > a
    p = float(exact_defender_wins(att, dfn, bonus))
    # Equal Drives: ties are sum((2k - 1)²) = 286 of 1296, the rest split evenly.
    assert exact_defender_wins(1, 1, 0) == Fraction(1296 - 286, 2 * 1296)
    assert within_four_sigma(wins, n, p)


def deep_range(jump: int, row: int, col: int, ships: int) -> GameState:
    b = Builder(modules=(), ruleset=2)
    b.empire("ABC", jump=jump, supply=10_000)
    b.star(101, 0, 0, owner="ABC", pop=5, industry=5, cruisers=ships)
    b.star(102, row, col)
    b.link(101, 102)
    return b.build()


@pytest.mark.parametrize(
    ("jump", "row", "col"), [(1, 1, 0), (2, 1, 1), (4, 2, 0), (9, 2, 2), (16, 3, 2), (25, 4, 3)]
)
def test_r6_3_hyperspace_loss_rate(jump: int, row: int, col: int) -> None:
    """rules.md §6.3: "each ship is lost with probability distance²/(10×Jump)", at several
    Jump levels and distances; the lost ones all go lost in space (rules.md §19.2)."""
    ships = 3000
    d2 = row * row + col * col
    new, events = resolve(
        deep_range(jump, row, col, ships),
        {"ABC": [o(A.DEEP, 101, 102, "ALL")]},
        random.Random(jump * 31 + d2),
    )
    loss = next(e.data for e in events if e.kind == "hyperspace_loss")
    assert loss["ships"] == ships and loss["distsq"] == d2
    assert within_four_sigma(loss["lost"], ships, d2 / (10 * jump))
    assert new.empires["ABC"].lost_in_space == loss["lost"]


def test_r19_3_bombard_rolls_five_to_nine_evenly() -> None:
    """rules.md §19.3: "5–9 population and 5–9 industry (two separate rolls of d5 + 4)"."""
    b = Builder(modules=(), ruleset=2)
    b.empire("ABC")
    b.empire("XYZ")
    b.star(101, 0, 0, owner="ABC", pop=5, cruisers=1)
    b.planet(102, 101, owner="XYZ", pop=60, industry=60)
    ctx = Resolution(b.build(), random.Random(99))
    pops: Counter[object] = Counter()
    industries: Counter[object] = Counter()
    n = 2500
    for _ in range(n):
        ctx.state.empires["ABC"].balance = 10
        planet = ctx.state.systems[102]
        planet.pop = planet.industry = 60
        assert do_bombard(ctx, "ABC", o(A.BOMBARD, 101, 102)).ok
        data = ctx.events[-1].data
        pops[data["pop_roll"]] += 1
        industries[data["industry_roll"]] += 1
    expected = {k: n / 5 for k in range(5, 10)}
    assert set(pops) == set(industries) == set(expected)
    assert chi_square(pops, expected) < CHI2_999[4]
    assert chi_square(industries, expected) < CHI2_999[4]


def research_field(seed: int) -> GameState:
    b = Builder(modules=(), ruleset=2)
    codes = [f"{a}{c}Q" for a in "ABCDEFGHIJKLMNOPQRST" for c in "ABCDEFGHIJ"]
    for i, code in enumerate(codes):
        b.empire(code)
        b.star(100 + i, i // 20, i % 20, owner=code, pop=1)
        if i:
            b.link(99 + i, 100 + i)
    return b.build()


def test_r13_1_research_weights_over_sixteen_techs() -> None:
    """rules.md §13.1 step 6 (ruling E6): "one free tech level, picked at random with
    weight (level + 1)", over all 16 techs in rule set 2 (rules.md §19.1)."""
    found: Counter[object] = Counter()
    turns = 12
    for seed in range(turns):
        _, events = resolve(research_field(seed), {}, random.Random(seed))
        found.update(e.data["tech"] for e in events if e.kind == "research")
    n = sum(found.values())
    assert n == 200 * turns
    weights = {t.value: TECH_START[t] + 1 for t in techs_of(2)}
    total = sum(weights.values())
    expected = {t: n * w / total for t, w in weights.items()}
    assert chi_square(found, expected) < CHI2_999[15]
