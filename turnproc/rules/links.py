"""LINK and the Hyperspace tech (rule set 2, rules.md §19.4, Star Chase 6.7).

A new star-star link costs 5 BP × distance². It is legal when distance² is at
most the Hyperspace tech and one of 1, 2, 4 or 9, no other star's square lies
on the straight segment between the two squares, neither star already has
:data:`~turnproc.rules.galaxy.MAX_LINKS` links and they are not linked yet.
:func:`link_problem` states those geometric checks for the admin
invariants; :func:`link_reason` is the one statement of why a LINK order
fails, asked by the engine and by the order checks (rules.md §17.1).
"""

from __future__ import annotations

from ..orders.orders import Order
from ..orders.vocabulary import EventKind, Reason
from .galaxy import MAX_LINKS, distance_sq
from .resolution import Outcome, Resolution, fail, ok, two_systems
from .sight import Sight, star_between
from .state import GameState, System, Tech, link_key

__all__ = ["LINK_COST", "LINK_DISTANCES", "segment_blocked", "link_problem", "link_reason", "do_link"]

LINK_COST = 5
"""BP per unit of distance²."""
LINK_DISTANCES = frozenset({1, 2, 4, 9})


def segment_blocked(state: GameState, a: int, b: int) -> int | None:
    """The code of a star whose square lies strictly between ``a``'s and ``b``'s
    on the straight segment, or None."""
    return star_between(state.systems[a], state.systems[b], state.systems.values())


def link_problem(state: GameState, a: int, b: int, check_count: bool = True) -> str | None:
    """Why a LINK between stars ``a`` and ``b`` is not legal geometry (a
    :class:`~turnproc.orders.vocabulary.Reason`), or None. ``check_count`` off:
    the link exists already and counts itself (the admin invariants)."""
    sa, sb = state.systems[a], state.systems[b]
    if not sa.is_star:
        return Reason.NOT_STAR_FROM
    if not sb.is_star:
        return Reason.NOT_STAR
    if distance_sq(state, a, b) not in LINK_DISTANCES:
        return Reason.BAD_DISTANCE
    if segment_blocked(state, a, b) is not None:
        return Reason.BLOCKED
    if check_count:
        if state.linked(a, b):
            return Reason.ALREADY_LINKED
        if max(len(state.neighbours(a)), len(state.neighbours(b))) >= MAX_LINKS:
            return Reason.TOO_MANY_LINKS
    return None


def link_reason(sight: Sight, src: System, dst: System) -> str | None:
    """The first reason the LINK from ``src`` to ``dst`` fails for, of those
    ``sight`` can judge (rules.md §19.4, in this order: the map, the
    Hyperspace tech, the owners, the stars between, the links already there);
    None when it finds none or cannot tell the next one. The engine asks it
    in the order's slot, the order checks as the turn starts."""
    state = sight.state
    if src.owner != sight.empire:
        return Reason.NOT_OWNED
    if not src.is_star:
        return Reason.NOT_STAR_FROM
    if not dst.is_star:
        return Reason.NOT_STAR
    d2 = distance_sq(state, src.code, dst.code)
    if d2 not in LINK_DISTANCES:
        return Reason.BAD_DISTANCE
    hyperspace = sight.tech(Tech.HYPERSPACE)
    if hyperspace is None:
        return None
    if d2 > hyperspace:
        return Reason.BEYOND_HYPERSPACE
    if not sight.sees(dst.code):
        return None
    if dst.owner is not None and dst.owner != sight.empire:
        return Reason.TARGET_OWNED
    checks = (
        (Reason.BLOCKED, sight.blocked(src, dst)),
        (Reason.ALREADY_LINKED, sight.linked(src.code, dst.code)),
        (Reason.TOO_MANY_LINKS, _either(sight.full(src.code), sight.full(dst.code))),
    )
    for reason, fails in checks:
        if fails is None:
            return None
        if fails:
            return reason
    return None


def _either(a: bool | None, b: bool | None) -> bool | None:
    """``a or b`` when one of them may be unknown (None)."""
    if a or b:
        return True
    return None if a is None or b is None else False


def do_link(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """LINK from, to: FROM a star you own; TO a star you own or nobody owns."""
    state = ctx.state
    emp = state.empires[empire]
    got = two_systems(ctx, order)
    if isinstance(got, Outcome):
        return got
    src, dst = got
    fields = {"from": src.code, "to": dst.code}
    reason = link_reason(Sight(state, empire), src, dst)
    if reason in (Reason.NOT_OWNED, Reason.TARGET_OWNED):
        return fail(reason, **fields)
    d2 = distance_sq(state, src.code, dst.code)
    fields["distsq"] = d2
    if reason is not None:
        return fail(reason, **fields)
    cost = LINK_COST * d2
    if emp.balance < cost:
        return fail(Reason.NO_MONEY, **fields)
    emp.balance -= cost
    # Links are a frozenset replaced, never changed (the adjacency cache keys on it).
    state.links = state.links | {link_key(src.code, dst.code)}
    ctx.touch(empire, dst.code)
    ctx.emit(EventKind.LINK, empire, **fields)
    return ok(cost, **fields)
