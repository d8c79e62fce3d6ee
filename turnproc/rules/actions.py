"""Every action except movement (rules.md §6), and the dispatch table.

Each handler takes the context, the acting empire and the order, changes the
state if it can, and returns an :class:`Outcome`. A handler never raises on a
player's mistake: it fails with a :class:`Reason` and costs nothing.

Counts are clamped (rules.md §4.2, ruling O1): an order asking for more than can be done
does as many as it can (ships there, money, limits) and reports ``asked`` and
``done``; it fails only when it can do none.
"""

from __future__ import annotations

from collections.abc import Callable

from ..orders.orders import V2_ACTIONS, Action, Order, format_order
from ..orders.vocabulary import EventKind, Reason
from .battle import claim_unowned, retreat_target_allowed
from .bombard import do_bombard
from .economy import STASH_RATE, is_blockaded
from .events import Event
from .exploration import explore
from .galaxy import distance_sq, population_limit
from .links import do_link
from .movement import asked_count, move_colony_ships, move_cruisers, move_fighters
from .probes import do_find, do_probe
from .reserve import do_layup, do_recover, do_reserve
from .resolution import Outcome, Resolution, fail, ok, owned_system
from .state import Stance, Tech
from .trade import do_take, do_trade

__all__ = ["HANDLERS", "MAX_NAME_LENGTH", "SHIP_COST", "tech_cost", "run_order"]

MAX_NAME_LENGTH = 24
SHIP_COST = {Action.NEWCRS: 10, Action.NEWFTR: 3, Action.NEWCOL: 20}
BUILD_COST = 5
GROW_COST = 4
COLONISE_COST = 2
SCRAP_COST = 1
TAX_GAIN = 2

Handler = Callable[[Resolution, str, Order], Outcome]


def tech_cost(current: int, k: int) -> int:
    """TECH: (final level)² × k (1→2 costs 4, 0→2 costs 8)."""
    return (current + k) ** 2 * k


# -- information ---------------------------------------------------------------


def do_distsq(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """DISTSQ: you must own FROM; TO may not be a planet or belt (3.13)."""
    src = owned_system(ctx, empire, order.where)
    if isinstance(src, Outcome):
        return src
    if order.to is None:
        return fail(Reason.MISSING_FIELD)
    dst = ctx.state.systems.get(order.to)
    if dst is None:
        return fail(Reason.NO_SYSTEM, to=order.to)
    if not dst.is_star:
        return fail(Reason.NOT_STAR, to=order.to)
    d2 = distance_sq(ctx.state, src.code, dst.code)
    ctx.touch(empire, dst.code)
    ctx.emit(EventKind.DISTSQ, empire, distsq=d2, to=dst.code, **{"from": src.code})
    return ok(distsq=d2, to=dst.code, **{"from": src.code})


# -- building ------------------------------------------------------------------


def do_new_ships(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """NEWCRS / NEWFTR / NEWCOL: at most min(industry, pop) per action; blank WHERE = BASE."""
    emp = ctx.state.empires[empire]
    where = order.where if order.where is not None else emp.base
    if where is None:
        return fail(Reason.NO_BASE)
    sys = owned_system(ctx, empire, where)
    if isinstance(sys, Outcome):
        return sys if order.where is not None else fail(Reason.NO_BASE, where=where)
    if is_blockaded(ctx.state, sys):
        return fail(Reason.BLOCKADED, where=where)
    capacity = min(sys.industry, sys.pop)
    if capacity <= 0:
        return fail(Reason.NO_CAPACITY, where=where)
    asked = asked_count(order.number, capacity)
    if asked == 0:
        return fail(Reason.NOTHING, where=where)
    unit = SHIP_COST[order.action]
    n = min(asked, capacity, emp.balance // unit)
    if n == 0:
        return fail(Reason.NO_MONEY, where=where, asked=asked)
    emp.balance -= n * unit
    if order.action is Action.NEWCRS:
        sys.cruisers += n
    elif order.action is Action.NEWFTR:
        sys.fighters += n
    else:
        sys.colony_ships += n
    return ok(n * unit, where=where, asked=asked, done=n)


def _raise_level(ctx: Resolution, empire: str, order: Order, attr: str, unit: int) -> Outcome:
    emp = ctx.state.empires[empire]
    sys = owned_system(ctx, empire, order.where)
    if isinstance(sys, Outcome):
        return sys
    if is_blockaded(ctx.state, sys):
        return fail(Reason.BLOCKADED, where=sys.code)
    room = population_limit(sys, emp) - getattr(sys, attr)
    if room <= 0:
        return fail(Reason.AT_LIMIT, where=sys.code)
    asked = asked_count(order.number, room)
    if asked == 0:
        return fail(Reason.NOTHING, where=sys.code)
    n = min(asked, room, emp.balance // unit)
    if n == 0:
        return fail(Reason.NO_MONEY, where=sys.code, asked=asked)
    emp.balance -= n * unit
    setattr(sys, attr, getattr(sys, attr) + n)
    return ok(n * unit, where=sys.code, asked=asked, done=n)


def do_build(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """BUILD: 5 BP per industry level, not above the population limit."""
    return _raise_level(ctx, empire, order, "industry", BUILD_COST)


def do_grow(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """GROW: 4 BP per population, not above the limit, not on a blockaded planet."""
    return _raise_level(ctx, empire, order, "pop", GROW_COST)


def do_colonise(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """COLONISE where: plant 1 population; COLONISE where to: throw into unowned TO.

    A ship that threw may still plant where it stands; a planted ship is done
    for the turn (rules.md §6.10, ruling C1). Ships are never used up, only stuck.
    """
    state = ctx.state
    emp = state.empires[empire]
    sys = owned_system(ctx, empire, order.where)
    if isinstance(sys, Outcome):
        return sys
    key = (empire, sys.code)
    if is_blockaded(state, sys):
        return fail(Reason.BLOCKADED, where=sys.code)
    free = ctx.free_colony_ships(empire, sys)
    thrown = min(ctx.colony_thrown.get(key, 0), sys.colony_ships)
    if order.to is None:
        if sys.pop > 0:
            return fail(Reason.HAS_POPULATION, where=sys.code)
        if free == 0 and thrown == 0:
            return fail(Reason.NO_SHIPS, where=sys.code)
        if emp.balance < COLONISE_COST:
            return fail(Reason.NO_MONEY, where=sys.code)
        emp.balance -= COLONISE_COST
        if thrown > 0:
            ctx.colony_thrown[key] = thrown - 1
        else:
            ctx.colony_stuck[key] = ctx.colony_stuck.get(key, 0) + 1
        sys.pop = 1
        return ok(COLONISE_COST, where=sys.code, outcome="planted")
    dst = state.systems.get(order.to)
    if dst is None:
        return fail(Reason.NO_SYSTEM, where=sys.code, to=order.to)
    if dst.code == sys.code:
        return fail(Reason.SAME_SYSTEM, where=sys.code)
    if not state.linked(sys.code, dst.code):
        return fail(Reason.NOT_LINKED, where=sys.code, to=dst.code)
    if dst.owner is not None:
        return fail(Reason.NOT_UNOWNED, where=sys.code, to=dst.code)
    if free == 0:
        return fail(Reason.NO_SHIPS, where=sys.code, to=dst.code)
    if emp.balance < COLONISE_COST:
        return fail(Reason.NO_MONEY, where=sys.code, to=dst.code)
    emp.balance -= COLONISE_COST
    ctx.colony_stuck[key] = ctx.colony_stuck.get(key, 0) + 1
    ctx.colony_thrown[key] = thrown + 1
    ctx.touch(empire, dst.code)
    first = claim_unowned(ctx, empire, dst, 0, Action.COLONISE.value)
    dst.pop = max(dst.pop, 1)
    if first:
        explore(ctx, empire, dst.code)
    return ok(COLONISE_COST, where=sys.code, to=dst.code, outcome="thrown")


def do_scrap(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """SCRAPC / SCRAPF: 1 BP each."""
    emp = ctx.state.empires[empire]
    sys = owned_system(ctx, empire, order.where)
    if isinstance(sys, Outcome):
        return sys
    cruisers = order.action is Action.SCRAPC
    there = sys.cruisers if cruisers else sys.fighters
    if there == 0:
        return fail(Reason.NO_SHIPS, where=sys.code)
    asked = asked_count(order.number, there)
    if asked == 0:
        return fail(Reason.NOTHING, where=sys.code)
    n = min(asked, there, emp.balance // SCRAP_COST)
    if n == 0:
        return fail(Reason.NO_MONEY, where=sys.code, asked=asked)
    emp.balance -= n * SCRAP_COST
    if cruisers:
        sys.cruisers -= n
        ctx.cruisers_destroyed(empire, sys, n)
    else:
        sys.fighters -= n
    return ok(n * SCRAP_COST, where=sys.code, asked=asked, done=n)


# -- money and tech ----------------------------------------------------------------


def do_tax(ctx: Resolution, empire: str, order: Order) -> Outcome:
    ctx.state.empires[empire].balance += TAX_GAIN
    return ok(gained=TAX_GAIN)


def do_stash(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """STASH n: 3 balance BP per treasury BP."""
    emp = ctx.state.empires[empire]
    affordable = emp.balance // STASH_RATE
    if affordable == 0:
        return fail(Reason.NO_MONEY)
    asked = asked_count(order.number, affordable)
    if asked == 0:
        return fail(Reason.NOTHING)
    n = min(asked, affordable)
    emp.balance -= n * STASH_RATE
    emp.treasury += n
    return ok(n * STASH_RATE, asked=asked, done=n)


def do_cash(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """CASH n: treasury to balance, one for one."""
    emp = ctx.state.empires[empire]
    if emp.treasury == 0:
        return fail(Reason.NO_TREASURY)
    asked = asked_count(order.number, emp.treasury)
    if asked == 0:
        return fail(Reason.NOTHING)
    n = min(asked, emp.treasury)
    emp.treasury -= n
    emp.balance += n
    return ok(asked=asked, done=n)


def do_gift(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """GIFT empire n: from your treasury to theirs."""
    emp = ctx.state.empires[empire]
    to = order.empire
    if to is None:
        return fail(Reason.MISSING_FIELD)
    if to not in ctx.state.empires:
        return fail(Reason.UNKNOWN_EMPIRE, recipient=to)
    if to == empire:
        return fail(Reason.SELF, recipient=to)
    if emp.treasury == 0:
        return fail(Reason.NO_TREASURY, recipient=to)
    asked = asked_count(order.number, emp.treasury)
    if asked == 0:
        return fail(Reason.NOTHING, recipient=to)
    n = min(asked, emp.treasury)
    emp.treasury -= n
    ctx.state.empires[to].treasury += n
    return ok(0, n, recipient=to, asked=asked, done=n)


def do_tech(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """TECH tech k: (final level)² × k from the treasury; a left-out k is 1."""
    emp = ctx.state.empires[empire]
    if order.tech is None:
        return fail(Reason.MISSING_FIELD)
    tech: Tech = order.tech
    if tech not in ctx.state.techs:
        return fail(Reason.NOT_IN_RULESET, tech=tech.value)
    level = emp.tech(tech)
    affordable = 0
    while tech_cost(level, affordable + 1) <= emp.treasury:
        affordable += 1
    if affordable == 0:
        return fail(Reason.NO_TREASURY, tech=tech.value)
    asked = 1 if order.number is None else max(0, order.number.of(affordable))
    if asked == 0:
        return fail(Reason.NOTHING, tech=tech.value)
    k = min(asked, affordable)
    cost = tech_cost(level, k)
    emp.treasury -= cost
    emp.techs[tech] = level + k
    return ok(0, cost, tech=tech.value, asked=asked, done=k, level=level + k)


# -- before slot 1: stances, BASE, HOME, NAME, MESSAGE ---------------------------------------


def do_base_home(ctx: Resolution, empire: str, order: Order) -> Outcome:
    sys = owned_system(ctx, empire, order.where)
    if isinstance(sys, Outcome):
        return sys
    emp = ctx.state.empires[empire]
    if order.action is Action.BASE:
        emp.base = sys.code
        ctx.emit(EventKind.STANCE, empire, system=sys.code, base=sys.code)
    else:
        emp.home = sys.code
        ctx.emit(EventKind.STANCE, empire, system=sys.code, home=sys.code)
    return ok(where=sys.code)


def do_stance(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """DEFEND / RETREAT / AMBUSH / STANDOFF on an owned system (persists)."""
    state = ctx.state
    sys = owned_system(ctx, empire, order.where)
    if isinstance(sys, Outcome):
        return sys
    target: int | None = None
    parts = 1
    if order.action in (Action.RETREAT, Action.AMBUSH):
        if order.to is None:
            return fail(Reason.MISSING_FIELD, where=sys.code)
        tsys = state.systems.get(order.to)
        if tsys is None:
            return fail(Reason.NO_SYSTEM, where=sys.code, to=order.to)
        if tsys.code == sys.code:
            return fail(Reason.SAME_SYSTEM, where=sys.code)
        if not state.linked(sys.code, tsys.code):
            return fail(Reason.NOT_LINKED, where=sys.code, to=tsys.code)
        if order.action is Action.RETREAT:
            if tsys.owner != empire:
                return fail(Reason.DEST_NOT_OWNED, where=sys.code, to=tsys.code)
            if not retreat_target_allowed(sys, tsys, ctx.v2):
                return fail(Reason.NOT_STAR, where=sys.code, to=tsys.code)
            if order.number is not None:
                if order.number.count is None or not 1 <= order.number.count <= 3:
                    return fail(Reason.BAD_PARTS, where=sys.code, to=tsys.code)
                parts = order.number.count
        target = tsys.code
    stance = Stance(order.action.value)
    sys.stance = stance
    sys.stance_target = target
    sys.retreat_parts = parts
    ctx.emit(EventKind.STANCE, empire, system=sys.code, stance=stance.value, target=target, parts=parts)
    return ok(where=sys.code, stance=stance.value, target=target, parts=parts)


def do_name(ctx: Resolution, empire: str, order: Order) -> Outcome:
    sys = owned_system(ctx, empire, order.where)
    if isinstance(sys, Outcome):
        return sys
    text = (order.text or "").strip()
    if not text:
        return fail(Reason.NO_TEXT, where=sys.code)
    if len(text) > MAX_NAME_LENGTH:
        return fail(Reason.TOO_LONG, where=sys.code)
    sys.name = text
    ctx.emit(EventKind.NAME, empire, system=sys.code, name=text)
    return ok(where=sys.code, name=text)


def do_message(ctx: Resolution, empire: str, order: Order) -> Outcome:
    to = order.empire
    if to is not None and to not in ctx.state.empires:
        return fail(Reason.UNKNOWN_EMPIRE, recipient=to)
    text = order.text or ""
    if not text.strip():
        return fail(Reason.NO_TEXT, recipient=to)
    ctx.emit(EventKind.MESSAGE, empire, to=to, text=text, **{"from": empire})
    return ok(recipient=to)


HANDLERS: dict[Action, Handler] = {
    Action.MOVE: move_cruisers,
    Action.ASSAULT: move_cruisers,
    Action.DEEP: move_cruisers,
    Action.DISTSQ: do_distsq,
    Action.MOVEF: move_fighters,
    Action.MOVECOL: move_colony_ships,
    Action.NEWCRS: do_new_ships,
    Action.NEWFTR: do_new_ships,
    Action.NEWCOL: do_new_ships,
    Action.BUILD: do_build,
    Action.GROW: do_grow,
    Action.COLONISE: do_colonise,
    Action.SCRAPC: do_scrap,
    Action.SCRAPF: do_scrap,
    Action.TAX: do_tax,
    Action.STASH: do_stash,
    Action.CASH: do_cash,
    Action.GIFT: do_gift,
    Action.TECH: do_tech,
    Action.BASE: do_base_home,
    Action.HOME: do_base_home,
    Action.DEFEND: do_stance,
    Action.RETREAT: do_stance,
    Action.AMBUSH: do_stance,
    Action.STANDOFF: do_stance,
    Action.NAME: do_name,
    Action.MESSAGE: do_message,
    Action.LAYUP: do_layup,
    Action.RESERVE: do_reserve,
    Action.RECOVER: do_recover,
    Action.BOMBARD: do_bombard,
    Action.LINK: do_link,
    Action.PROBE: do_probe,
    Action.FIND: do_find,
    Action.TRADE: do_trade,
    Action.TAKE: do_take,
}

#: The slot in which STASH may leave its number out (rules.md §19.7).
STASH_ALL_SLOT = 16


def run_order(
    ctx: Resolution, empire: str, order: Order, slot: int | None, forced_reason: str | None = None
) -> Outcome:
    """Run one order and emit its ``order`` event ahead of what it caused."""
    mark = len(ctx.events)
    if forced_reason is not None:
        outcome = fail(forced_reason)
    elif order.action in V2_ACTIONS and not ctx.v2:
        outcome = fail(Reason.NOT_IN_RULESET)
    elif order.action is not Action.MESSAGE and not ctx.owns_anything(empire):
        # rules.md §4.2 (ruling O3): an empire that owns no system only talks.
        outcome = fail(Reason.NO_EMPIRE)
    elif ctx.v2 and order.action is Action.STASH and order.number is None and slot != STASH_ALL_SLOT:
        outcome = fail(Reason.NOT_SLOT_16)
    else:
        outcome = HANDLERS[order.action](ctx, empire, order)
    data = {
        "line": order.line,
        "action": order.action._value_,
        "text": format_order(order),
        "slot": slot,
        "ok": outcome.ok,
        "reason": outcome.reason,
        "cost": outcome.cost,
        "treasury_cost": outcome.treasury_cost,
    }
    for key, value in outcome.fields.items():
        data.setdefault(key, value)
    ctx.events.insert(mark, Event(EventKind.ORDER, empire, data))
    return outcome
