"""rules.md §4.2 (ruling O7): what orders cost as written, the estimate the
acknowledgement and the offline checker show against the balance and treasury.

The estimate uses the engine's own prices; the first test holds it to what the
engine really charges for each order run on its own with money enough.
"""

from __future__ import annotations

import pytest

from tests.rules.builders import A, Builder, T, o, order_events, run
from turnproc.orders.orders import Action, Order
from turnproc.rules.costs import FREE, order_cost, spending
from turnproc.rules.state import GameState, Tech

#: Every action the estimate prices; a new action must be priced (or made free) there.
PRICED = {
    A.MOVE,
    A.ASSAULT,
    A.DEEP,
    A.COLONISE,
    A.TAX,
    A.NEWCRS,
    A.NEWFTR,
    A.NEWCOL,
    A.BUILD,
    A.GROW,
    A.SCRAPC,
    A.SCRAPF,
    A.MOVEF,
    A.MOVECOL,
    A.STASH,
    A.CASH,
    A.GIFT,
    A.TECH,
    A.LAYUP,
    A.RESERVE,
    A.RECOVER,
    A.BOMBARD,
    A.LINK,
    A.PROBE,
    A.FIND,
    A.TAKE,
}


def galaxy(balance: int = 500, treasury: int = 200) -> GameState:
    """ABC holds 101 (pop 6, industry 4, 5 cruisers, 4 fighters, 2 colony
    ships; BASE) and its planet 102 (pop 20 of 60, industry 10); 103 is free,
    104 is a free star one jump off, linked only to 105, which XYZ holds."""
    b = Builder(modules=())
    b.empire("ABC", balance=balance, treasury=treasury, fighter=3, jump=4)
    b.empire("XYZ")
    b.star(101, 0, 0, owner="ABC", pop=6, industry=4, cruisers=5, fighters=4, colony_ships=2)
    b.planet(102, 101, owner="ABC", pop=20, industry=10)
    b.star(103, 0, 2)
    b.star(104, 1, 1)
    b.star(105, 4, 4, owner="XYZ", pop=5, industry=5)
    b.link(101, 103, 105, 104)
    state = b.build()
    state.empires["ABC"].base = 101
    return state


def test_every_action_is_priced_or_free() -> None:
    assert set(Action) == FREE | PRICED


ENGINE_CASES = [
    o(A.MOVE, 101, 103, 2),
    o(A.ASSAULT, 101, 103, 2),
    o(A.DEEP, 101, 104, 1),
    o(A.MOVEF, 101, 102, "ALL"),
    o(A.MOVEF, 101, 102, 2),
    o(A.MOVECOL, 101, 102, "ALL"),
    o(A.NEWCRS, 101, None, 9),
    o(A.NEWCRS, None, None, 3),
    o(A.NEWFTR, 102, None, "ALL"),
    o(A.NEWCOL, 101, None, "AB-1"),
    o(A.BUILD, 102, None, 7),
    o(A.GROW, 102, None, "ALL"),
    o(A.COLONISE, 101, 103),
    o(A.SCRAPC, 101, None, "AB-2"),
    o(A.SCRAPF, 101, None, 9),
    o(A.GIFT, empire="XYZ", n=30),
    o(A.TECH, tech=Tech.WEAPONS, n=2),
    o(A.DISTSQ, 101, 104),
    o(A.STANDOFF, 101),
]


@pytest.mark.parametrize("order", ENGINE_CASES, ids=lambda order: f"{order.action.value}-{order.number}")
def test_the_estimate_is_what_the_engine_charges_for_one_order(order: Order) -> None:
    state = galaxy()
    _, events = run(state, {"ABC": [order]})
    (done,) = [e for e in order_events(events, "ABC") if e["action"] == order.action.value]
    assert done["ok"], done
    cost = order_cost(order, state, "ABC")
    assert (cost.balance, cost.treasury) == (done["cost"], done["treasury_cost"])


def galaxy_v2() -> GameState:
    """:func:`galaxy` in rule set 2 (rules.md §19): ABC has 4 cruisers lost in
    space, 3 in reserve, Hyperspace 4 and Recovery 1; XYZ holds planet 106 of
    ABC's star 101 and offers ABC its Drive 3."""
    b = Builder(modules=(), ruleset=2)
    b.empire("ABC", balance=500, treasury=200, fighter=3, jump=4, hyperspace=4, recovery=1)
    b.empire("XYZ", drive=3)
    b.star(101, 0, 0, owner="ABC", pop=6, industry=4, cruisers=5, fighters=4, colony_ships=2)
    b.planet(102, 101, owner="ABC", pop=20, industry=10)
    b.planet(106, 101, owner="XYZ", pop=20, industry=10, cruisers=1, fighters=1)
    b.star(103, 0, 2)
    b.star(104, 1, 1)
    b.star(105, 4, 4, owner="XYZ", pop=5, industry=5)
    b.link(101, 103, 105, 104)
    state = b.build()
    abc = state.empires["ABC"]
    abc.base, abc.lost_in_space, abc.reserve = 101, 4, 3
    return state


V2_CASES = [
    o(A.LAYUP, 101, None, 2),
    o(A.RESERVE, 102, None, 2),
    o(A.RECOVER, 101, None, 9),
    o(A.BOMBARD, 101, 106),
    o(A.LINK, 101, 104),
    o(A.PROBE, 103),
    o(A.FIND, 101),
    o(A.TAKE, empire="XYZ", tech=Tech.DRIVE),
]


@pytest.mark.parametrize("order", V2_CASES, ids=lambda order: order.action.value)
def test_rule_set_2_orders_cost_what_the_engine_charges(order: Order) -> None:
    """rules.md §19: the same estimate for the orders of rule set 2."""
    state = galaxy_v2()
    partner = [o(A.TRADE, empire="ABC", tech=Tech.DRIVE)] if order.action is A.TAKE else []
    _, events = run(state, {"ABC": [order], "XYZ": partner})
    (done,) = [e for e in order_events(events, "ABC") if e["action"] == order.action.value]
    assert done["ok"], done
    cost = order_cost(order, state, "ABC")
    assert (cost.balance, cost.treasury) == (done["cost"], done["treasury_cost"])


def test_money_moved_between_the_purses() -> None:
    state = galaxy(balance=30, treasury=12)
    assert order_cost(o(A.TAX), state, "ABC").to_balance == 2
    assert order_cost(o(A.CASH, n="ALL"), state, "ABC") == order_cost(o(A.CASH, n=12), state, "ABC")
    assert order_cost(o(A.CASH, n=5), state, "ABC").to_balance == 5
    stash = order_cost(o(A.STASH, n=4), state, "ABC")
    assert (stash.balance, stash.to_treasury) == (12, 4)
    # STASH ALL puts in what is left when it runs: it never overspends.
    assert order_cost(o(A.STASH, n="ALL"), state, "ABC").balance == 0


def test_counts_from_a_system_not_owned_yet_count_as_written() -> None:
    """A system an earlier order takes: its number as written, ALL as none."""
    state = galaxy()
    assert order_cost(o(A.NEWCRS, 103, None, 2), state, "ABC").balance == 20
    assert order_cost(o(A.GROW, 103, None, "ALL"), state, "ABC").balance == 0


def test_a_set_adds_up_and_tells_what_is_short() -> None:
    state = galaxy(balance=30, treasury=10)
    orders = [o(A.NEWCRS, 101, None, 4), o(A.TAX), o(A.TECH, tech=Tech.DRIVE), o(A.TECH, tech=Tech.DRIVE)]
    spent = spending(orders, state, "ABC")
    # NEWCRS 4 at 101 is 40 BP; the second TECH DRIVE raises 2 to 3: 4 + 9.
    assert (spent.balance_cost, spent.to_balance, spent.treasury_cost) == (40, 2, 13)
    assert (spent.balance_short, spent.treasury_short) == (8, 3)
    assert spending([o(A.TAX)], state, "ABC").balance_short == 0


def test_a_black_dwarf_grows_to_the_owners_life_support() -> None:
    b = Builder(modules=())
    b.empire("ABC", life_support=7)
    b.star(101, 0, 0, T.BD, owner="ABC", pop=2, industry=1)
    assert order_cost(o(A.GROW, 101, None, "ALL"), b.build(), "ABC").balance == 4 * 5
