"""LINK and the Hyperspace tech (rule set 2, rules.md §19.4, Star Chase 6.7).

A new star-star link costs 5 BP × distance². It is legal when distance² is at
most the Hyperspace tech and one of 1, 2, 4 or 9, no other star's square lies
on the straight segment between the two squares, neither star already has
:data:`~turnproc.rules.galaxy.MAX_LINKS` links and they are not linked yet.
:func:`link_problem` is the one statement of those geometric checks: the
engine and the admin invariants both ask it.
"""

from __future__ import annotations

from math import gcd

from .galaxy import MAX_LINKS, distance_sq
from .orders import Order
from .resolution import Outcome, Resolution, fail, ok, two_systems
from .state import GameState, Tech, link_key
from .vocabulary import EventKind, Reason

__all__ = ["LINK_COST", "LINK_DISTANCES", "segment_blocked", "link_problem", "do_link"]

LINK_COST = 5
"""BP per unit of distance²."""
LINK_DISTANCES = frozenset({1, 2, 4, 9})


def segment_blocked(state: GameState, a: int, b: int) -> int | None:
    """The code of a star whose square lies strictly between ``a``'s and ``b``'s
    on the straight segment, or None. Only grid squares can hold stars, so the
    lattice points of the segment are all that need looking at."""
    sa, sb = state.systems[a], state.systems[b]
    dr, dc = sb.row - sa.row, sb.col - sa.col
    steps = gcd(abs(dr), abs(dc))
    if steps <= 1:
        return None
    between = {(sa.row + dr * i // steps, sa.col + dc * i // steps) for i in range(1, steps)}
    for sys in state.systems.values():
        if sys.is_star and (sys.row, sys.col) in between:
            return sys.code
    return None


def link_problem(state: GameState, a: int, b: int, check_count: bool = True) -> str | None:
    """Why a LINK between stars ``a`` and ``b`` is not legal geometry (a
    :class:`~turnproc.rules.vocabulary.Reason`), or None. ``check_count`` off:
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


def do_link(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """LINK from, to: FROM a star you own; TO a star you own or nobody owns."""
    state = ctx.state
    emp = state.empires[empire]
    got = two_systems(ctx, order)
    if isinstance(got, Outcome):
        return got
    src, dst = got
    fields = {"from": src.code, "to": dst.code}
    if src.owner != empire:
        return fail(Reason.NOT_OWNED, **fields)
    if dst.owner is not None and dst.owner != empire:
        return fail(Reason.TARGET_OWNED, **fields)
    d2 = distance_sq(state, src.code, dst.code)
    fields["distsq"] = d2
    if src.is_star and dst.is_star and d2 > emp.tech(Tech.HYPERSPACE):
        return fail(Reason.TOO_FAR, **fields)
    problem = link_problem(state, src.code, dst.code)
    if problem is not None:
        return fail(problem, **fields)
    cost = LINK_COST * d2
    if emp.balance < cost:
        return fail(Reason.NO_MONEY, **fields)
    emp.balance -= cost
    # Links are a frozenset replaced, never changed (the adjacency cache keys on it).
    state.links = state.links | {link_key(src.code, dst.code)}
    ctx.touch(empire, dst.code)
    ctx.emit(EventKind.LINK, empire, **fields)
    return ok(cost, **fields)
