"""BOMBARD (rule set 2, rules.md §19.3, Star Chase 4.7): cruisers at a star fire
on one of its planets owned by another empire.

Each BOMBARD kills one defending cruiser and one defending fighter where there
are any, and two separate d5 + 4 rolls of population and of industry (never
below 0). It captures nothing and costs no VP; FROM becomes sticky.

Random numbers, in order: ``randint(1, 5)`` for population, then for industry.
"""

from __future__ import annotations

from ..orders.orders import Order
from ..orders.vocabulary import EventKind, Reason
from .battle import battle_losses_lost
from .resolution import Outcome, Resolution, fail, ok
from .sight import Sight
from .state import System, SystemType

__all__ = ["BOMBARD_COST", "bombard_roll", "bombard_reason", "do_bombard"]

BOMBARD_COST = 2


def bombard_roll(ctx: Resolution) -> int:
    """d5 + 4: 5 to 9."""
    return ctx.rng.randint(1, 5) + 4


def bombard_reason(sight: Sight, src: System, dst: System) -> str | None:
    """The first reason a BOMBARD from ``src`` of ``dst`` fails for, of those
    ``sight`` can judge: FROM yours and a star, TO one of its planets, owned
    by another empire; None when it finds none or cannot tell. The engine
    asks it in the order's slot, the order checks as the turn starts
    (rules.md §17.1). Cruisers and money are the slot's to judge."""
    if src.owner != sight.empire:
        return Reason.NOT_OWNED
    if not src.is_star:
        return Reason.NOT_STAR_FROM
    if dst.type is not SystemType.PL or dst.star != src.code:
        return Reason.NOT_PLANET
    if not sight.sees(dst.code):
        return None
    if dst.owner is None or dst.owner == sight.empire:
        return Reason.NOT_ENEMY
    return None


def do_bombard(ctx: Resolution, empire: str, order: Order) -> Outcome:
    state = ctx.state
    emp = state.empires[empire]
    if order.where is None or order.to is None:
        return fail(Reason.MISSING_FIELD)
    if order.where not in state.systems or order.to not in state.systems:
        return fail(Reason.NO_SYSTEM)
    src, dst = state.systems[order.where], state.systems[order.to]
    fields = {"from": src.code, "to": dst.code}
    reason = bombard_reason(Sight(state, empire), src, dst)
    if reason is not None:
        return fail(reason, **fields)
    if src.cruisers <= 0:
        return fail(Reason.NO_SHIPS, **fields)
    if emp.balance < BOMBARD_COST:
        return fail(Reason.NO_MONEY, **fields)
    emp.balance -= BOMBARD_COST
    defender = dst.owner
    assert defender is not None  # bombard_reason: another empire's planet
    cruisers = min(1, dst.cruisers)
    fighters = min(1, dst.fighters)
    dst.cruisers -= cruisers
    dst.fighters -= fighters
    ctx.cruisers_destroyed(defender, dst, cruisers)
    pop_roll = bombard_roll(ctx)
    industry_roll = bombard_roll(ctx)
    pop_lost = min(pop_roll, dst.pop)
    industry_lost = min(industry_roll, dst.industry)
    dst.pop -= pop_lost
    dst.industry -= industry_lost
    to_pool = battle_losses_lost(ctx, defender, cruisers)
    ctx.make_sticky(empire, src.code)
    ctx.touch(empire, dst.code)
    ctx.emit(
        EventKind.BOMBARD,
        empire,
        system=dst.code,
        attacker=empire,
        defender=defender,
        pop_roll=pop_roll,
        industry_roll=industry_roll,
        pop_lost=pop_lost,
        industry_lost=industry_lost,
        cruisers_lost=cruisers,
        fighters_lost=fighters,
        lost_in_space={"attacker": 0, "defender": to_pool},
        **{"from": src.code},
    )
    return ok(
        BOMBARD_COST,
        pop_lost=pop_lost,
        industry_lost=industry_lost,
        cruisers_lost=cruisers,
        fighters_lost=fighters,
        **fields,
    )
