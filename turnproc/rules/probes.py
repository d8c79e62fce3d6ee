"""Probes and FIND (rule set 2, rules.md §19.5, Star Chase 5.2).

An empire has at most one active probe and up to Probe (tech) inactive ones,
kept on :class:`~turnproc.rules.state.Empire` (``active_probe``,
``inactive_probes`` oldest first). PROBE lines use no slot; they run after
the trade match, empire by empire in code order, each empire's in the order
written; lines beyond the Probe tech fail. Each line, with target T, is the
first of:

1. ``activated``: T holds one of your inactive probes: it becomes active, the
   active one inactive where it stands.
2. ``moved``: T is linked to your active probe's system or within distance² ≤
   Jump of it: the active probe moves there.
3. ``launched``: T is linked to a system you own or within distance² ≤ Jump of
   one: a new probe (2 BP from the balance); the old active one becomes
   inactive, and the oldest inactive one is lost beyond the Probe tech.

FIND runs in its slot and destroys every other empire's probe in WHERE and the
systems linked to it. Probes see, at the end of the turn, the system they
stand in and its neighbours (:func:`probe_view`).
"""

from __future__ import annotations

from ..orders.orders import Order
from ..orders.vocabulary import EventKind, Reason
from .eventdata import ProbeState
from .galaxy import distance_sq
from .resolution import Outcome, Resolution, fail, ok
from .state import Empire, GameState, Tech

__all__ = ["PROBE_COST", "FIND_COST", "launches", "probe_sights", "do_probe", "do_find", "probe_view"]

PROBE_COST = 2
FIND_COST = 1


def _near(state: GameState, a: int, b: int, jump: int) -> bool:
    return state.linked(a, b) or distance_sq(state, a, b) <= jump


def launches(state: GameState, empire: str, target: int) -> bool:
    """Whether a PROBE line to ``target`` launches a new probe (and costs
    :data:`PROBE_COST`) as the empire's probes stand: neither of the first two
    cases of rules.md §19.5 applies."""
    emp = state.empires[empire]
    if target in emp.inactive_probes:
        return False
    return not (
        emp.active_probe is not None
        and target in state.systems
        and _near(state, emp.active_probe, target, emp.tech(Tech.JUMP))
    )


def do_probe(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """One PROBE line (the caller enforces the Probe-tech count)."""
    state = ctx.state
    emp = state.empires[empire]
    target = order.where
    if target is None:
        return fail(Reason.MISSING_FIELD)
    if target not in state.systems:
        return fail(Reason.NO_SYSTEM, where=target)
    jump = emp.tech(Tech.JUMP)
    if target in emp.inactive_probes:
        rest = list(emp.inactive_probes)
        rest.remove(target)
        if emp.active_probe is not None:
            rest.append(emp.active_probe)
        emp.inactive_probes = tuple(rest)
        emp.active_probe = target
        return ok(where=target, case="activated")
    if emp.active_probe is not None and _near(state, emp.active_probe, target, jump):
        was = emp.active_probe
        emp.active_probe = target
        ctx.touch(empire, target)
        return ok(where=target, case="moved", **{"from": was})
    owned = ctx.probe_bases.get(empire, ()) if ctx.probe_bases is not None else ()
    if not any(_near(state, code, target, jump) for code in owned):
        return fail(Reason.OUT_OF_RANGE, where=target)
    if emp.balance < PROBE_COST:
        return fail(Reason.NO_MONEY, where=target)
    emp.balance -= PROBE_COST
    inactive = list(emp.inactive_probes)
    if emp.active_probe is not None:
        inactive.append(emp.active_probe)
    lost = None
    if len(inactive) > emp.tech(Tech.PROBE):
        lost = inactive.pop(0)
    emp.inactive_probes = tuple(inactive)
    emp.active_probe = target
    ctx.touch(empire, target)
    return ok(PROBE_COST, where=target, case="launched", lost=lost)


def do_find(ctx: Resolution, empire: str, order: Order) -> Outcome:
    """FIND where (1 BP): other empires' probes in WHERE and its neighbours are destroyed."""
    state = ctx.state
    emp = state.empires[empire]
    if order.where is None:
        return fail(Reason.MISSING_FIELD)
    sys = state.systems.get(order.where)
    if sys is None:
        return fail(Reason.NO_SYSTEM, where=order.where)
    if sys.owner != empire:
        return fail(Reason.NOT_OWNED, where=sys.code)
    if emp.balance < FIND_COST:
        return fail(Reason.NO_MONEY, where=sys.code)
    emp.balance -= FIND_COST
    area = {sys.code, *state.neighbours(sys.code)}
    destroyed = 0
    for code, other in sorted(state.empires.items()):
        if code == empire:
            continue
        for where in _destroy_in(other, area):
            destroyed += 1
            ctx.emit(EventKind.PROBE_LOST, code, system=where)
    return ok(FIND_COST, where=sys.code, destroyed=destroyed)


def _destroy_in(emp: Empire, area: set[int]) -> list[int]:
    """Remove ``emp``'s probes standing in ``area``; where each one was."""
    gone = [p for p in emp.inactive_probes if p in area]
    if gone:
        emp.inactive_probes = tuple(p for p in emp.inactive_probes if p not in area)
    if emp.active_probe is not None and emp.active_probe in area:
        gone.append(emp.active_probe)
        emp.active_probe = None
    return sorted(gone)


def probe_sights(state: GameState, emp: Empire) -> set[int]:
    """Systems ``emp``'s probes see: where each stands and its neighbours."""
    seen: set[int] = set()
    for where in (*emp.inactive_probes, *([emp.active_probe] if emp.active_probe else [])):
        if where in state.systems:
            seen.add(where)
            seen.update(state.neighbours(where))
    return seen


def probe_view(ctx: Resolution) -> dict[str, set[int]]:
    """End of turn: one ``probe_view`` event per empire with probes; returns what
    each empire's probes see (added to the map it has seen, rules.md §14)."""
    state = ctx.state
    result: dict[str, set[int]] = {}
    for code, emp in sorted(state.empires.items()):
        if emp.active_probe is None and not emp.inactive_probes:
            continue
        sights = probe_sights(state, emp)
        result[code] = sights
        probes: list[ProbeState] = [{"system": p, "state": "inactive"} for p in emp.inactive_probes]
        if emp.active_probe is not None:
            probes.append({"system": emp.active_probe, "state": "active"})
        systems = []
        for c in sorted(sights):
            s = state.systems[c]
            systems.append(
                {
                    "system": c,
                    "type": s.type.value,
                    "owner": s.owner,
                    "pop": s.pop,
                    "industry": s.industry,
                    "cruisers": s.cruisers,
                    "fighters": s.fighters,
                    "colony_ships": s.colony_ships,
                }
            )
        ctx.emit(EventKind.PROBE_VIEW, code, probes=probes, systems=systems)
    return result
