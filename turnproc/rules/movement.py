"""Ship movement (rules.md §6.1–6.6 MOVE/ASSAULT/DEEP/MOVEF/MOVECOL, rules.md §7).

Checks run in a fixed order, so a report always gives the first reason that
applies: fields and systems, ownership, links / jump range, stickiness and
pins, ships, zones of control, money.

DEEP draws one ``randrange(10 × Jump)`` per jumping cruiser (a ship is lost
when the draw is below distance²), before anything else random in the action.
"""

from __future__ import annotations

from ..orders.orders import Action, Order, Quantity
from ..orders.vocabulary import EventKind, Reason
from .battle import claim_unowned, encounter
from .exploration import explore
from .galaxy import distance_sq
from .resolution import Outcome, Resolution, fail, ok, two_systems
from .sight import Sight
from .state import Stance, System, Tech
from .zoc import enemy_controllers, held_by_pin, pin_strength

__all__ = [
    "COST",
    "MOVEF_COST",
    "MOVECOL_COST",
    "cruiser_move_reason",
    "move_cruisers",
    "move_fighters",
    "move_colony_ships",
    "asked_count",
]

COST = {Action.MOVE: 1, Action.ASSAULT: 2, Action.DEEP: 1}
MOVEF_COST = 1
"""BP per fighter moved (rules.md §6.5)."""
MOVECOL_COST = 2
"""BP per colony ship moved (rules.md §6.6)."""


def asked_count(number: Quantity | None, available: int) -> int:
    """How many an order asks for; a left-out NUMBER means ALL (rules.md §6, ruling O2)."""
    if number is None:
        return max(0, available)
    return max(0, number.of(available))


def _zoc_blocked(ctx: Resolution, empire: str, src: System, dst: System) -> bool:
    """rules.md §8.2: ships starting in enemy control may not go straight into more of it.

    Only for moves that do not fight: attacking is voluntary and not hindered
    by control (rules.md §8.2, ruling Z3).
    """
    if not ctx.zoc:
        return False
    return ctx.enemy_controlled(empire, src.code) and ctx.enemy_controlled(empire, dst.code)


def _enter_control(ctx: Resolution, empire: str, dst: System, cruisers: int) -> None:
    """Ships of ``empire`` arrived in its own ``dst``: stop or pin under control."""
    if not ctx.control_matters or ctx.is_sticky(empire, dst.code):
        return
    by = enemy_controllers(ctx.state, ctx.supply, empire, dst.code)
    if not by:
        return
    if ctx.pinning:
        strength, pinners = pin_strength(ctx.state, ctx.supply, empire, dst.code)
        held = held_by_pin(cruisers, strength)
        ctx.hold(empire, dst.code, held)
        ctx.emit(
            EventKind.PIN,
            empire,
            system=dst.code,
            by=pinners,
            strength=strength,
            held=held,
            ran=cruisers - held,
        )
    else:
        ctx.make_sticky(empire, dst.code)
        ctx.emit(EventKind.CONTROL_STOP, empire, system=dst.code, by=sorted(by))


def _reset_retreat(ctx: Resolution, empire: str, src: System, dst: System) -> None:
    """rules.md §19.7 (Star Chase 3.5): a cruiser MOVE into an own system points its
    RETREAT destination back where the cruisers came from, unless that is a
    planet or belt. Only a system whose stance is RETREAT has a destination to
    reset (rules.md §19.7, ruling R4): AMBUSH's target means something else."""
    if not src.is_star or dst.stance is not Stance.RETREAT or dst.stance_target == src.code:
        return
    dst.stance_target = src.code
    ctx.emit(EventKind.RETREAT_RESET, empire, system=dst.code, to=src.code)


def cruiser_move_reason(sight: Sight, action: Action, src: System, dst: System) -> str | None:
    """The first reason a MOVE, ASSAULT or DEEP from ``src`` to ``dst`` fails
    for, of those ``sight`` can judge: FROM yours; a DEEP's target a star
    within Jump, a MOVE's or ASSAULT's linked; no ASSAULT on your own system.
    None when it finds none or cannot tell. The engine asks it in the
    order's slot, the order checks as the turn starts (rules.md §17.1)."""
    state = sight.state
    if src.owner != sight.empire:
        return Reason.NOT_OWNED
    if action is Action.DEEP:
        if not dst.is_star:
            return Reason.NOT_STAR
        jump = sight.tech(Tech.JUMP)
        if jump is None:
            return None
        if distance_sq(state, src.code, dst.code) > jump:
            return Reason.TOO_FAR
    else:
        linked = sight.linked(src.code, dst.code)
        if linked is None:
            return None
        if not linked:
            return Reason.NOT_LINKED
    if action is Action.ASSAULT:  # rules.md §6.2 (ruling M2)
        if not sight.sees(dst.code):
            return None
        if dst.owner == sight.empire:
            return Reason.OWN_SYSTEM
    return None


def move_cruisers(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """MOVE, ASSAULT and DEEP."""
    state = ctx.state
    action = order.action
    got = two_systems(ctx, order)
    if isinstance(got, Outcome):
        return got
    src, dst = got
    emp = state.empires[empire]
    fields = {"from": src.code, "to": dst.code}
    reason = cruiser_move_reason(Sight(state, empire), action, src, dst)
    if reason is not None:
        extra = {"distsq": distance_sq(state, src.code, dst.code)} if reason == Reason.TOO_FAR else {}
        return fail(reason, **extra, **fields)
    d2 = distance_sq(state, src.code, dst.code)
    if ctx.is_sticky(empire, src.code):
        return fail(Reason.STICKY, **fields)
    mobile = ctx.mobile_cruisers(empire, src)
    if mobile == 0:
        return fail(Reason.PINNED if src.cruisers > 0 else Reason.NO_SHIPS, **fields)
    asked = asked_count(order.number, mobile)
    if asked == 0:
        return fail(Reason.NOTHING, **fields)
    n = min(asked, mobile)
    fields.update(asked=asked, moved=n)
    fighting = dst.owner is not None and dst.owner != empire
    if not fighting and _zoc_blocked(ctx, empire, src, dst):
        return fail(Reason.ZOC, **fields)
    cost = COST[action]
    if emp.balance < cost:
        return fail(Reason.NO_MONEY, **fields)
    emp.balance -= cost
    ctx.touch(empire, dst.code)

    if action is Action.DEEP and d2 > 0:
        draws = 10 * max(1, emp.tech(Tech.JUMP))
        lost = sum(1 for _ in range(n) if ctx.rng.randrange(draws) < d2)
        ctx.emit(
            EventKind.HYPERSPACE_LOSS,
            empire,
            ships=n,
            lost=lost,
            distsq=d2,
            jump=emp.tech(Tech.JUMP),
            **fields,
        )
        if lost:
            src.cruisers -= lost
            emp.lost_in_space += lost
            n -= lost
        fields["lost"] = lost
        if n == 0:
            return ok(cost, outcome="lost", arrived=0, **fields)

    if dst.owner == empire:
        src.cruisers -= n
        dst.cruisers += n
        if not dst.type.is_dwarf:
            ctx.make_sticky(empire, dst.code)
        _enter_control(ctx, empire, dst, n)
        ctx.emit(
            EventKind.MOVE,
            empire,
            cruisers=n,
            fighters=0,
            colony_ships=0,
            sticky=ctx.is_sticky(empire, dst.code),
            **fields,
        )
        if ctx.v2 and action is Action.MOVE:
            _reset_retreat(ctx, empire, src, dst)
        return ok(cost, outcome="moved", arrived=n, **fields)

    if dst.owner is None:
        src.cruisers -= n
        first = claim_unowned(ctx, empire, dst, n, action.value)
        if first:
            explore(ctx, empire, dst.code)
        return ok(cost, outcome="captured", arrived=n, **fields)

    result = encounter(ctx, empire, action, src, dst, n)
    if result.outcome == "captured":
        # Capture by battle is not hindered by control (rules.md §8.2).
        if action is Action.ASSAULT or not dst.type.is_dwarf:
            ctx.make_sticky(empire, dst.code)
        return ok(cost, outcome="captured", arrived=result.survivors, **fields)
    return ok(cost, outcome=result.outcome, arrived=0, survivors=result.survivors, **fields)


def _own_pair(ctx: Resolution, empire: str, order: Order) -> tuple[System, System] | Outcome:
    got = two_systems(ctx, order)
    if isinstance(got, Outcome):
        return got
    src, dst = got
    fields = {"from": src.code, "to": dst.code}
    if src.owner != empire:
        return fail(Reason.NOT_OWNED, **fields)
    if dst.owner != empire:
        return fail(Reason.DEST_NOT_OWNED, **fields)
    if not ctx.state.linked(src.code, dst.code):
        return fail(Reason.NOT_LINKED, **fields)
    if ctx.is_sticky(empire, src.code):
        return fail(Reason.STICKY, **fields)
    return src, dst


def move_fighters(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """MOVEF: at most Fighter-tech fighters, 1 BP each; the destination sticks."""
    got = _own_pair(ctx, empire, order)
    if isinstance(got, Outcome):
        return got
    src, dst = got
    emp = ctx.state.empires[empire]
    fields = {"from": src.code, "to": dst.code}
    if src.fighters == 0:
        return fail(Reason.NO_SHIPS, **fields)
    asked = asked_count(order.number, src.fighters)
    if asked == 0:
        return fail(Reason.NOTHING, **fields)
    cap = emp.tech(Tech.FIGHTER)
    if cap <= 0:
        return fail(Reason.NO_CAPACITY, **fields)
    if _zoc_blocked(ctx, empire, src, dst):
        return fail(Reason.ZOC, **fields)
    n = min(asked, src.fighters, cap, emp.balance // MOVEF_COST)
    if n == 0:
        return fail(Reason.NO_MONEY, asked=asked, **fields)
    emp.balance -= MOVEF_COST * n
    src.fighters -= n
    dst.fighters += n
    ctx.make_sticky(empire, dst.code)
    ctx.touch(empire, dst.code)
    ctx.emit(EventKind.MOVE, empire, cruisers=0, fighters=n, colony_ships=0, sticky=True, **fields)
    return ok(MOVEF_COST * n, asked=asked, moved=n, **fields)


def move_colony_ships(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """MOVECOL: 2 BP each; each carries up to Fighter-tech fighters along
    (rules.md §6.6, ruling M1: as many as it can); the destination sticks."""
    got = _own_pair(ctx, empire, order)
    if isinstance(got, Outcome):
        return got
    src, dst = got
    emp = ctx.state.empires[empire]
    fields = {"from": src.code, "to": dst.code}
    free = ctx.free_colony_ships(empire, src)
    if free == 0:
        return fail(Reason.NO_SHIPS, **fields)
    asked = asked_count(order.number, free)
    if asked == 0:
        return fail(Reason.NOTHING, **fields)
    if _zoc_blocked(ctx, empire, src, dst):
        return fail(Reason.ZOC, **fields)
    n = min(asked, free, emp.balance // MOVECOL_COST)
    if n == 0:
        return fail(Reason.NO_MONEY, asked=asked, **fields)
    carried = min(src.fighters, n * max(0, emp.tech(Tech.FIGHTER)))
    emp.balance -= MOVECOL_COST * n
    src.colony_ships -= n
    dst.colony_ships += n
    src.fighters -= carried
    dst.fighters += carried
    ctx.make_sticky(empire, dst.code)
    ctx.touch(empire, dst.code)
    ctx.emit(EventKind.MOVE, empire, cruisers=0, fighters=carried, colony_ships=n, sticky=True, **fields)
    return ok(MOVECOL_COST * n, asked=asked, moved=n, fighters=carried, **fields)
