"""The fleet reserve and the lost-in-space pool (rule set 2, rules.md §19.2).

LAYUP takes cruisers off the map into the reserve, RESERVE brings them back,
RECOVER brings cruisers back from the lost-in-space pool, which battle losses
(half of them) and hyperspace losses fill. Neither count is seen by anyone
else, pays supply, fights or scores.
"""

from __future__ import annotations

from ..orders.orders import Order
from ..orders.vocabulary import EventKind, Reason
from .economy import is_blockaded
from .movement import asked_count
from .resolution import Outcome, Resolution, fail, ok, owned_system
from .sight import Sight
from .state import System, Tech

__all__ = [
    "LAYUP_COST",
    "RESERVE_COST",
    "RECOVER_COST",
    "RECOVER_BASE",
    "do_layup",
    "reserve_reason",
    "do_reserve",
    "do_recover",
    "report_reserve",
]

LAYUP_COST = 1
RESERVE_COST = 1
RECOVER_COST = 3
"""BP per cruiser brought back."""
RECOVER_BASE = 2
"""Each RECOVER brings back at most this + Recovery tech cruisers."""


def _where(ctx: Resolution, empire: str, order: Order) -> System | Outcome:
    """WHERE for RESERVE and RECOVER: owned, not a blockaded planet."""
    sys = owned_system(ctx, empire, order.where)
    if isinstance(sys, Outcome):
        return sys
    if is_blockaded(ctx.state, sys):
        return fail(Reason.BLOCKADED, where=sys.code)
    return sys


def do_layup(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """LAYUP where, -, n (1 BP): cruisers that may still move leave the map."""
    emp = ctx.state.empires[empire]
    sys = owned_system(ctx, empire, order.where)
    if isinstance(sys, Outcome):
        return sys
    if ctx.is_sticky(empire, sys.code):
        return fail(Reason.STICKY, where=sys.code)
    mobile = ctx.mobile_cruisers(empire, sys)
    if mobile == 0:
        return fail(Reason.PINNED if sys.cruisers > 0 else Reason.NO_SHIPS, where=sys.code)
    asked = asked_count(order.number, mobile)
    if asked == 0:
        return fail(Reason.NOTHING, where=sys.code)
    if emp.balance < LAYUP_COST:
        return fail(Reason.NO_MONEY, where=sys.code, asked=asked)
    n = min(asked, mobile)
    emp.balance -= LAYUP_COST
    sys.cruisers -= n
    ctx.cruisers_destroyed(empire, sys, 0)
    emp.reserve += n
    ctx.laid_up[empire] = ctx.laid_up.get(empire, 0) + n
    return ok(LAYUP_COST, where=sys.code, asked=asked, done=n, reserve=emp.reserve)


def reserve_reason(sight: Sight, where: System) -> str | None:
    """The first reason a RESERVE at ``where`` fails for, of those ``sight``
    can judge: WHERE yours, and reserve cruisers not laid up this turn; None
    when it finds none or cannot tell. The engine asks it in the order's
    slot, the order checks as the turn starts (rules.md §17.1); having none
    comes before a blockade, which only the slot can tell."""
    if where.owner != sight.empire:
        return Reason.NOT_OWNED
    available = sight.reserve()
    if available is not None and available <= 0:
        return Reason.NO_RESERVE
    return None


def do_reserve(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """RESERVE where, -, n (1 BP): reserve cruisers (not laid up this turn) appear."""
    emp = ctx.state.empires[empire]
    sys = owned_system(ctx, empire, order.where)
    if isinstance(sys, Outcome):
        return sys
    laid_up = ctx.laid_up.get(empire, 0)
    reason = reserve_reason(Sight(ctx.state, empire, laid_up=laid_up), sys)
    if reason is not None:
        return fail(reason, where=sys.code)
    if is_blockaded(ctx.state, sys):
        return fail(Reason.BLOCKADED, where=sys.code)
    available = emp.reserve - laid_up
    asked = asked_count(order.number, available)
    if asked == 0:
        return fail(Reason.NOTHING, where=sys.code)
    if emp.balance < RESERVE_COST:
        return fail(Reason.NO_MONEY, where=sys.code, asked=asked)
    n = min(asked, available)
    emp.balance -= RESERVE_COST
    emp.reserve -= n
    sys.cruisers += n
    ctx.make_sticky(empire, sys.code)
    return ok(RESERVE_COST, where=sys.code, asked=asked, done=n, reserve=emp.reserve)


def do_recover(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """RECOVER where, -, n (3 BP a cruiser): at most min(n, pool, 2 + Recovery)."""
    emp = ctx.state.empires[empire]
    sys = _where(ctx, empire, order)
    if isinstance(sys, Outcome):
        return sys
    if emp.lost_in_space <= 0:
        return fail(Reason.NO_POOL, where=sys.code)
    cap = RECOVER_BASE + emp.tech(Tech.RECOVERY)
    asked = asked_count(order.number, min(emp.lost_in_space, cap))
    if asked == 0:
        return fail(Reason.NOTHING, where=sys.code)
    n = min(asked, emp.lost_in_space, cap, emp.balance // RECOVER_COST)
    if n == 0:
        return fail(Reason.NO_MONEY, where=sys.code, asked=asked)
    emp.balance -= n * RECOVER_COST
    emp.lost_in_space -= n
    sys.cruisers += n
    ctx.make_sticky(empire, sys.code)
    return ok(n * RECOVER_COST, where=sys.code, asked=asked, done=n, lost_in_space=emp.lost_in_space)


def report_reserve(ctx: Resolution) -> None:
    """The end-of-turn counts the report shows, per empire in code order (rule set 2)."""
    for code, emp in sorted(ctx.state.empires.items()):
        if ctx.owns_anything(code) or emp.reserve or emp.lost_in_space:
            ctx.emit(EventKind.RESERVE, code, reserve=emp.reserve, lost_in_space=emp.lost_in_space)
