"""TRADE and TAKE: tech trading between empires (rule set 2, rules.md §19.6,
Star Chase 7.5 and 7.6).

TRADE runs in its slot and records an offer; TAKE orders wait, and are matched
after action slot 16 (before the probes), in the slots and slot order they
were written in. A TAKE succeeds when its partner offered that tech to the
taker at a level above the taker's: the taker rises exactly one level and pays
half the TECH cost of that level, rounded up (level² / 2), from the treasury;
the trader's treasury gets half of that, rounded down.
"""

from __future__ import annotations

from ..orders.orders import Order
from ..orders.vocabulary import EventKind, Reason
from .resolution import Outcome, Resolution, fail, ok
from .sight import Sight
from .state import Empire, Tech

__all__ = ["take_cost", "offerable_level", "trade_reason", "do_trade", "do_take"]


def take_cost(level: int) -> int:
    """What a TAKE to ``level`` costs: half of level², rounded up."""
    return -(-(level * level) // 2)


def offerable_level(ctx: Resolution, trader: Empire, tech: Tech) -> int:
    """The highest level ``trader`` may offer: its own, less levels it received by
    TAKE this turn."""
    return trader.tech(tech) - ctx.traded_in.get((trader.code, tech.value), 0)


def _partner(ctx: Resolution, empire: str, order: Order) -> tuple[Tech, Empire] | Outcome:
    if order.tech is None or order.empire is None:
        return fail(Reason.MISSING_FIELD)
    if order.tech not in ctx.state.techs:
        return fail(Reason.NOT_IN_RULESET, tech=order.tech.value)
    partner = ctx.state.empires.get(order.empire)
    if partner is None:
        return fail(Reason.UNKNOWN_EMPIRE, recipient=order.empire, tech=order.tech.value)
    if partner.code == empire:
        return fail(Reason.SELF, recipient=order.empire, tech=order.tech.value)
    return order.tech, partner


def trade_reason(sight: Sight, tech: Tech, level: int | None) -> str | None:
    """Why a TRADE of ``tech`` at ``level`` (None: your own) fails, of what
    ``sight`` can judge: a level above the one you may offer; None when it
    is not, or cannot tell. The engine asks it in the order's slot, the
    order checks as the turn starts (rules.md §17.1)."""
    if level is None:
        return None
    most = sight.offerable(tech)
    if most is not None and level > most:
        return Reason.LEVEL_TOO_HIGH
    return None


def do_trade(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """TRADE tech, empire [, level]: offer ``tech`` to ``empire`` this turn."""
    got = _partner(ctx, empire, order)
    if isinstance(got, Outcome):
        return got
    tech, partner = got
    level = order.number.count if order.number is not None else None
    fields: dict[str, object] = {"tech": tech.value, "recipient": partner.code}
    reason = trade_reason(Sight(ctx.state, empire, traded_in=ctx.traded_in), tech, level)
    if reason is not None:
        return fail(reason, level=level, **fields)
    ctx.offers[(empire, partner.code, tech.value)] = level
    return ok(0, 0, level=level, **fields)


def do_take(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """TAKE tech, empire: accept an offer (run by the match after slot 16)."""
    got = _partner(ctx, empire, order)
    if isinstance(got, Outcome):
        return got
    tech, trader = got
    emp = ctx.state.empires[empire]
    fields: dict[str, object] = {"tech": tech.value, "recipient": trader.code}
    key = (trader.code, empire, tech.value)
    if key not in ctx.offers:
        return fail(Reason.NO_OFFER, **fields)
    cap = offerable_level(ctx, trader, tech)
    wanted = ctx.offers[key]
    offered = cap if wanted is None else min(wanted, cap)
    own = emp.tech(tech)
    if offered <= own:
        return fail(Reason.NO_OFFER, offered=offered, **fields)
    level = own + 1
    cost = take_cost(level)
    if emp.treasury < cost:
        return fail(Reason.NO_TREASURY, **fields)
    received = cost // 2
    emp.treasury -= cost
    trader.treasury += received
    emp.techs[tech] = level
    ctx.traded_in[(empire, tech.value)] = ctx.traded_in.get((empire, tech.value), 0) + 1
    ctx.emit(
        EventKind.TRADE,
        trader.code,
        taker=empire,
        tech=tech.value,
        level=level,
        paid=cost,
        received=received,
    )
    return ok(0, cost, level=level, received=received, **fields)
