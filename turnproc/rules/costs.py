"""What a set of orders costs as written: the estimate the acknowledgement and
the offline checker show against the balance and the treasury (rules.md §4.2,
ruling O7).

The engine pays each order when its slot comes, from the money there is then
(:mod:`.actions`, :mod:`.movement`); this module only adds up the prices of
rules.md §6 against the empire as the turn starts, with the engine's own price
constants, so the two cannot drift apart. It is an estimate for a warning, never
a refusal: what happens when the money runs out is the engine's business
(rules.md §4.2, ruling O1).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..orders.orders import Action, Order
from .actions import (
    BUILD_COST,
    COLONISE_COST,
    GROW_COST,
    SCRAP_COST,
    SHIP_COST,
    TAX_GAIN,
    tech_cost,
)
from .bombard import BOMBARD_COST
from .economy import STASH_RATE
from .galaxy import distance_sq, population_limit
from .links import LINK_COST
from .movement import COST as MOVE_COST
from .movement import MOVECOL_COST, MOVEF_COST
from .probes import FIND_COST, PROBE_COST, launches
from .reserve import LAYUP_COST, RECOVER_COST, RESERVE_COST
from .state import GameState, System, Tech
from .trade import take_cost

__all__ = ["OrderCost", "Spending", "order_cost", "spending"]


#: Actions that cost nothing and bring nothing.
FREE = frozenset(
    {
        Action.DISTSQ,
        Action.BASE,
        Action.HOME,
        Action.DEFEND,
        Action.RETREAT,
        Action.AMBUSH,
        Action.STANDOFF,
        Action.NAME,
        Action.MESSAGE,
        Action.TRADE,
    }
)


@dataclass(frozen=True)
class OrderCost:
    """One order's money as written (rules.md §6's table)."""

    balance: int = 0
    """BP it takes from the balance."""
    treasury: int = 0
    """BP it takes from the treasury (TECH, GIFT, CASH)."""
    to_balance: int = 0
    """BP it adds to the balance (TAX, CASH)."""
    to_treasury: int = 0
    """BP it adds to the treasury (STASH)."""


@dataclass(frozen=True)
class Spending:
    """A whole set of orders against the empire's purses at the start of the turn."""

    balance: int
    """The balance the turn starts with."""
    treasury: int
    balance_cost: int
    treasury_cost: int
    to_balance: int
    """What TAX and CASH add to the balance."""
    to_treasury: int
    """What STASH adds to the treasury."""

    @property
    def balance_short(self) -> int:
        """BP the balance lacks to pay for everything (0: enough)."""
        return max(0, self.balance_cost - self.balance - self.to_balance)

    @property
    def treasury_short(self) -> int:
        return max(0, self.treasury_cost - self.treasury - self.to_treasury)


def _own(state: GameState, empire: str, code: int | None) -> System | None:
    system = state.systems.get(code) if code is not None else None
    return system if system is not None and system.owner == empire else None


def _count(order: Order, there: int | None) -> int:
    """How many the order asks for, trimmed to what is there (rules.md §4.2,
    ruling O1). ``there`` None: the system is not the empire's at the start of
    the turn, so an exact number counts as written and ALL as none."""
    if order.number is None or order.number.count is None:
        all_but = order.number.all_but if order.number is not None else 0
        return max(0, (there or 0) - all_but)
    return order.number.count if there is None else min(order.number.count, there)


def _tech_levels(order: Order) -> int:
    """TECH's LEVELS, 1 when left out (rules.md §6, ruling O2)."""
    return order.number.count if order.number is not None and order.number.count is not None else 1


#: The costs that depend on the action alone, made once (an OrderCost is frozen;
#: every order of every acknowledgement is priced).
_FIXED: dict[Action, OrderCost] = {
    **{action: OrderCost() for action in FREE},
    **{action: OrderCost(balance=cost) for action, cost in MOVE_COST.items()},
    Action.COLONISE: OrderCost(balance=COLONISE_COST),
    Action.TAX: OrderCost(to_balance=TAX_GAIN),
}


def order_cost(
    order: Order, state: GameState, empire: str, levels: dict[Tech, int] | None = None
) -> OrderCost:
    """What ``order`` of ``empire`` costs as written; ``levels`` are the tech
    levels reached by the earlier TECH orders of the same set (else the empire's)."""
    action = order.action
    emp = state.empires[empire]
    fixed = _FIXED.get(action)
    if fixed is not None:
        return fixed
    where = _own(state, empire, order.where)
    if action in SHIP_COST:
        site = where if order.where is not None else _own(state, empire, emp.base)
        capacity = min(site.industry, site.pop) if site is not None else None
        return OrderCost(balance=SHIP_COST[action] * _count(order, capacity))
    if action in (Action.BUILD, Action.GROW):
        attr, unit = ("industry", BUILD_COST) if action is Action.BUILD else ("pop", GROW_COST)
        room = max(0, population_limit(where, emp) - getattr(where, attr)) if where is not None else None
        return OrderCost(balance=unit * _count(order, room))
    if action in (Action.SCRAPC, Action.SCRAPF):
        ships = (where.cruisers if action is Action.SCRAPC else where.fighters) if where is not None else None
        return OrderCost(balance=SCRAP_COST * _count(order, ships))
    if action is Action.MOVEF:
        fighters = _count(order, where.fighters if where is not None else None)
        return OrderCost(balance=MOVEF_COST * min(fighters, max(0, emp.tech(Tech.FIGHTER))))
    if action is Action.MOVECOL:
        return OrderCost(
            balance=MOVECOL_COST * _count(order, where.colony_ships if where is not None else None)
        )
    if action is Action.STASH:
        # STASH ALL puts in whatever is left when it runs: it cannot overspend.
        n = order.number.count if order.number is not None and order.number.count is not None else 0
        return OrderCost(balance=STASH_RATE * n, to_treasury=n)
    if action is Action.CASH:
        n = _count(order, emp.treasury)
        return OrderCost(treasury=n, to_balance=n)
    if action is Action.GIFT:
        return OrderCost(treasury=_count(order, emp.treasury))
    if action is Action.TECH and order.tech is not None:
        level = (levels or {}).get(order.tech, emp.tech(order.tech))
        return OrderCost(treasury=tech_cost(level, _tech_levels(order)))
    return _v2_cost(order, state, empire, levels)


def _v2_cost(order: Order, state: GameState, empire: str, levels: dict[Tech, int] | None) -> OrderCost:
    """The orders of rule set 2 (rules.md §19), priced as the engine charges them."""
    action, emp = order.action, state.empires[empire]
    flat = {
        Action.LAYUP: LAYUP_COST,
        Action.RESERVE: RESERVE_COST,
        Action.BOMBARD: BOMBARD_COST,
        Action.FIND: FIND_COST,
    }
    if action in flat:
        return OrderCost(balance=flat[action])
    if action is Action.RECOVER:
        return OrderCost(
            balance=RECOVER_COST * _count(order, min(emp.lost_in_space, 2 + emp.tech(Tech.RECOVERY)))
        )
    if action is Action.LINK and order.where in state.systems and order.to in state.systems:
        assert order.where is not None and order.to is not None
        return OrderCost(balance=LINK_COST * distance_sq(state, order.where, order.to))
    if action is Action.PROBE and order.where is not None:
        return OrderCost(balance=PROBE_COST if launches(state, empire, order.where) else 0)
    if action is Action.TAKE and order.tech is not None:
        level = (levels or {}).get(order.tech, emp.tech(order.tech))
        return OrderCost(treasury=take_cost(level + 1))
    return OrderCost()


def spending(orders: Iterable[Order], state: GameState, empire: str) -> Spending:
    """The cost of ``orders`` against ``empire``'s balance and treasury at the
    start of the turn (rules.md §4.2, ruling O7)."""
    emp = state.empires[empire]
    levels: dict[Tech, int] = {}
    balance_cost = treasury_cost = to_balance = to_treasury = 0
    for order in orders:
        cost = order_cost(order, state, empire, levels)
        if order.action is Action.TECH and order.tech is not None:
            levels[order.tech] = levels.get(order.tech, emp.tech(order.tech)) + _tech_levels(order)
        balance_cost += cost.balance
        treasury_cost += cost.treasury
        to_balance += cost.to_balance
        to_treasury += cost.to_treasury
    return Spending(emp.balance, emp.treasury, balance_cost, treasury_cost, to_balance, to_treasury)
