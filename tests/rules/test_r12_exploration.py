"""rules.md §12 (Star Chase 3.11): exploration finds, with their caps."""

from __future__ import annotations

from typing import Any

import pytest

from turnproc.orders.orders import Action as A
from turnproc.rules.exploration import explore
from turnproc.rules.resolution import Resolution
from turnproc.rules.state import GameState, Tech
from turnproc.rules.state import SystemType as T

from .builders import Builder, Dice, kinds, o, one, run, run_with


def world(expo: int = 3, target: T = T.YD) -> GameState:
    b = Builder(modules=())
    b.empire("ABC", balance=0, expo=expo, supply=1000)
    b.star(101, 0, 0, owner="ABC", pop=5)
    if target.is_star:
        b.star(102, 0, 1, target)
    else:
        b.star(102, 0, 1)
        b.planet(112, 102, target)
    b.link(101, 102)
    return b.build()


def dig(state: GameState, code: int, rolls: list[int], choices: tuple[Any, ...] = ()) -> dict[str, Any]:
    """Explore ``code`` for ABC with scripted dice; returns the event data."""
    ctx = Resolution(state, Dice(rolls, choices=choices))
    state.systems[code].owner = "ABC"
    explore(ctx, "ABC", code)
    assert isinstance(ctx.rng, Dice) and not ctx.rng.script
    return one(ctx.events, "exploration", "ABC")


@pytest.mark.parametrize(
    "roll,find",
    [
        (1, "nothing"),
        (10, "nothing"),
        (11, "cruisers"),
        (25, "cruisers"),
        (26, "fighters"),
        (35, "fighters"),
        (36, "colony_ship"),
        (40, "colony_ship"),
        (41, "industry"),
        (55, "industry"),
        (56, "vp"),
        (62, "vp"),
        (63, "bp"),
        (75, "bp"),
        (76, "treasury"),
        (82, "treasury"),
    ],
)
def test_find_table_boundaries(roll: int, find: str) -> None:
    """rules.md §12 table: 01–10 nothing, 11–25 cruisers, 26–35 fighters, 36–40 colony
    ship, 41–55 industry, 56–62 VPs, 63–75 BPs, 76–82 treasury BPs."""
    state = world()
    rolls = [roll] if find in ("nothing", "colony_ship") else [roll, 1]
    assert dig(state, 102, rolls)["find"] == find


def test_amounts_and_where_they_go() -> None:
    """Ships at the system; 1..Expo ships and industry; 1..2×Expo VPs, BPs, treasury."""
    state = world(expo=3)
    assert dig(state, 102, [11, 3])["amount"] == 3
    assert state.systems[102].cruisers == 3
    dig(state, 102, [26, 2])
    assert state.systems[102].fighters == 2
    dig(state, 102, [36])
    assert state.systems[102].colony_ships == 1
    dig(state, 102, [56, 6])
    dig(state, 102, [63, 5])
    dig(state, 102, [76, 4])
    emp = state.empires["ABC"]
    assert (emp.vp, emp.balance, emp.treasury) == (6, 5, 4)
    with pytest.raises(AssertionError):
        dig(world(expo=3), 102, [11, 4])  # above Expo: not a possible draw


def test_industry_find_not_above_the_limit() -> None:
    state = world(expo=9, target=T.SG)  # SG limit 10
    state.systems[102].industry = 8
    assert dig(state, 102, [41, 9])["amount"] == 2
    assert state.systems[102].industry == 10


def test_tech_find_capped_at_five_except_income_culture_treasury() -> None:
    """3.11: most tech levels are only found up to five at a time; BP Income,
    Cultural Level and Treasury up to Expo."""
    state = world(expo=8)
    d = dig(state, 102, [83, 5], choices=(Tech.WEAPONS,))
    assert (d["find"], d["tech"], d["amount"]) == ("tech", "WEAPONS", 5)
    with pytest.raises(AssertionError):
        dig(world(expo=8), 102, [97, 6], choices=(Tech.DRIVE,))
    state = world(expo=8)
    d = dig(state, 102, [90, 8], choices=(Tech.CULTURAL,))
    assert d["amount"] == 8
    assert state.empires["ABC"].tech(Tech.CULTURAL) == 8


def test_population_only_on_planets() -> None:
    """rules.md §12: 98–100 population (planets only; elsewhere nothing)."""
    state = world(expo=2, target=T.PL)
    d = dig(state, 112, [98, 2])
    assert (d["find"], d["amount"]) == ("population", 2)
    assert state.systems[112].pop == 2
    state = world(expo=2, target=T.AB)
    d = dig(state, 112, [100])
    assert (d["find"], d["amount"]) == ("nothing", 0)


def test_only_the_first_capture_explores() -> None:
    """3.11: exploration happens when you capture a system that was previously unowned."""
    state = world()
    state.empires["ABC"].balance = 10
    state.systems[101].cruisers = 2
    state.systems[102].ever_owned = True
    _, events = run(state, {"ABC": [o(A.MOVE, 101, 102, 1)]})
    assert kinds(events, "capture") and not kinds(events, "exploration")


def test_exploration_through_a_move_uses_the_turn_rng() -> None:
    state = world(expo=1)
    state.empires["ABC"].balance = 10
    state.systems[101].cruisers = 2
    new, events = run_with(state, {"ABC": [o(A.MOVE, 101, 102, 2)]}, [11, 1])
    assert one(events, "exploration", "ABC")["find"] == "cruisers"
    assert new.systems[102].cruisers >= 2
