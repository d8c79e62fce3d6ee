"""The turn engine's entry point: :func:`resolve` one turn of Star Chase.

``resolve(state, orders, rng)`` is pure: it copies ``state``, runs every
empire's orders and the end of turn on the copy, and returns the new state
(``turn`` + 1) with the list of :class:`~turnproc.rules.events.Event` that
describe everything that happened (vocabulary: :mod:`turnproc.orders.vocabulary`).
It reads no clock, no database and no global random state; ``rng`` is the
only source of chance, and :func:`turn_rng` derives it from the game's secret
seed and the turn number, so a turn can always be replayed byte for byte.

Phases
------
0. ``turn`` event with the slot order. NAME and MESSAGE (no slot), empire by
   empire in code order, each empire's in the order written; a third NAME and
   later ones fail (``too_many_names``).
1. Stances (DEFEND, RETREAT, AMBUSH, STANDOFF), BASE and HOME, empire by empire
   in code order, in the order written. Each still uses its slot: nothing else
   of that empire runs in that slot.
2. Slots 1–16: in each slot every empire's action of that number, empires in
   the slot order drawn once for the turn. Slot-using orders after the 16th
   fail (``too_many_actions``) after slot 16.
   Rule set 2: an empire's first TAKE waits for the trade match, a second
   fails (``one_take``); STASH without a number runs only in slot 16.
2b. Rule set 2 (rules.md §19.5, rules.md §19.6): the TAKEs, in the slots and slot
   order they were written in; then the PROBE lines, empire by empire in code
   order, each empire's in the order written (beyond the Probe tech:
   ``too_many_probes``). In rule set 1 PROBE lines fail (``not_in_ruleset``).
3. End of turn (rules.md §13.1): leftovers, income, supply cost and shortfall scrapping,
   interest, research, VP; ``eliminated`` events; the map each empire has
   seen is updated (rules.md §14); end of game (rules.md §15); ``turn`` + 1.

Random numbers are drawn in exactly this order
----------------------------------------------
1. The slot order: ``rng.shuffle`` of the empire codes sorted ascending
   (every empire in the game, with orders or not).
2. Per action, in execution order:
   * DEEP with distance² > 0: one ``randrange(10 × Jump)`` per jumping cruiser
     (lost when below distance²).
   * An encounter whose outcome the engage roll can change (``engage`` on;
     defender RETREAT out-matched with a valid destination, STANDOFF, or
     AMBUSH against a MOVE from the named system; not against a static or a
     pursued withdrawer): attacker ``randint(1, 6)`` twice, then defender twice.
   * A capture of a never-owned system: d100 ``randint(1, 100)``; for a tech
     find ``choice`` over the thirteen techs of rule set 1; then the amount ``randint(1, cap)`` (no amount
     for "nothing" and for population off a planet).
   * BOMBARD (rule set 2): ``randint(1, 5)`` for population, then industry.
   * A rule-set-2 tech find draws ``randrange(34)`` instead of the ``choice``.
3. Research: per empire still owning a system, in code order, one
   ``randrange(sum of (level + 1))`` over the game's techs in :class:`Tech`
   order (13 in rule set 1, 16 in rule set 2).

Rule set 2 adds no other draws: probes, trades, links and the reserve are
certain.

Rulings
-------
Where the rules leave a choice, the engine follows the rulings of docs/rules.md
(codes O1 … V1), each written once there in the section it belongs to and
indexed in rules.md §18. Code cites them as ``rules.md §10.4 (ruling B7)``.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from ..orders.orders import MAX_NAMES, MAX_SLOTS, STANCE_ACTIONS, Action, Order
from ..orders.vocabulary import EventKind, Reason
from .actions import run_order
from .economy import end_of_turn
from .endgame import check_end
from .events import Event
from .invariants import Violation, check_invariants
from .probes import probe_view
from .reserve import report_reserve
from .resolution import Resolution, holdings
from .state import GameState, Tech
from .visibility import visible_from

__all__ = ["InvariantError", "resolve", "turn_rng"]


class InvariantError(RuntimeError):
    """A game state broke a rule of :mod:`turnproc.rules.invariants`."""

    def __init__(self, when: str, violations: list[Violation]) -> None:
        self.violations = violations
        lines = "; ".join(str(v) for v in violations)
        super().__init__(f"state {when} breaks {len(violations)} invariant(s): {lines}")


def turn_rng(secret_seed: str, turn: int) -> random.Random:
    """The turn's random generator: seeded from sha256 of ``"{seed}:{turn}"``."""
    digest = hashlib.sha256(f"{secret_seed}:{turn}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


def _visible(state: GameState) -> dict[str, set[int]]:
    held = holdings(state)
    return {
        code: visible_from(state, [s.code for s in held.get(code, [])], emp.tech(Tech.SCANNER))
        for code, emp in sorted(state.empires.items())
    }


class _Plan(NamedTuple):
    free: list[Order]
    """NAME and MESSAGE: before slot 1."""
    slotted: list[tuple[int, Order]]
    overflow: list[Order]
    probes: list[Order]
    """PROBE lines: after the trade match (rules.md §19.5)."""


def _plan(orders: Sequence[Order]) -> _Plan:
    """Split an empire's orders into the phases that run them."""
    free: list[Order] = []
    slotted: list[tuple[int, Order]] = []
    overflow: list[Order] = []
    probes: list[Order] = []
    for order in orders:
        if order.action is Action.PROBE:
            probes.append(order)
        elif not order.uses_slot:
            free.append(order)
        elif len(slotted) < MAX_SLOTS:
            slotted.append((len(slotted) + 1, order))
        else:
            overflow.append(order)
    return _Plan(free, slotted, overflow, probes)


def _slot_order_run(ctx: Resolution, code: str, order: Order, slot: int, took: set[str]) -> None:
    """Run one slot's order; in rule set 2 an empire's first TAKE waits for the
    match after slot 16, a second one fails at once (rules.md §19.6)."""
    if ctx.v2 and order.action is Action.TAKE:
        if code in took:
            run_order(ctx, code, order, slot, Reason.ONE_TAKE)
        else:
            took.add(code)
            ctx.takes.append((slot, code, order))
        return
    run_order(ctx, code, order, slot)


def _after_slots(ctx: Resolution, plans: Mapping[str, _Plan]) -> None:
    """Rule set 2 between slot 16 and the economy: the trade match, then the
    PROBE lines (rules.md §19.5, rules.md §19.6). In rule set 1 PROBE lines fail."""
    for slot, code, order in ctx.takes:
        run_order(ctx, code, order, slot)
    if ctx.v2:
        held = holdings(ctx.state)
        ctx.probe_bases = {code: tuple(s.code for s in held.get(code, ())) for code in plans}
    for code, plan in plans.items():
        limit = ctx.state.empires[code].tech(Tech.PROBE)
        for i, order in enumerate(plan.probes):
            reason = Reason.TOO_MANY_PROBES if ctx.v2 and i >= limit else None
            run_order(ctx, code, order, None, reason)


def resolve(
    state: GameState, orders: Mapping[str, Sequence[Order]], rng: random.Random
) -> tuple[GameState, list[Event]]:
    """Resolve one turn; see the module docstring for the phases and the draws.

    Raises ValueError for a finished game or orders of an unknown empire, and
    :class:`InvariantError` when the state breaks an invariant before (bad
    input) or after (engine bug) the turn.
    """
    if state.finished:
        raise ValueError("the game is finished; no more turns")
    unknown = sorted(set(orders) - set(state.empires))
    if unknown:
        raise ValueError(f"orders for empires not in this game: {', '.join(unknown)}")
    before = check_invariants(state)
    if before:
        raise InvariantError("before the turn", before)

    new = state.copy()
    ctx = Resolution(new, rng)
    slot_order = sorted(new.empires)
    rng.shuffle(slot_order)
    ctx.emit(EventKind.TURN, None, turn=new.turn, slot_order=list(slot_order))
    start_visible = _visible(new)
    start_playing = {code for code in new.empires if ctx.owns_anything(code)}
    plans = {code: _plan(orders.get(code, ())) for code in sorted(new.empires)}

    for code, (free, _, _, _) in plans.items():
        names = 0
        for order in free:
            reason = None
            if order.action is Action.NAME:
                names += 1
                if names > MAX_NAMES:
                    reason = Reason.TOO_MANY_NAMES
            run_order(ctx, code, order, None, reason)

    for code, plan in plans.items():
        for slot, order in plan.slotted:
            if order.action in STANCE_ACTIONS:
                run_order(ctx, code, order, slot)

    by_slot = {code: dict(plan.slotted) for code, plan in plans.items()}
    took: set[str] = set()
    for slot in range(1, MAX_SLOTS + 1):
        for code in slot_order:
            planned = by_slot[code].get(slot)
            if planned is not None and planned.action not in STANCE_ACTIONS:
                _slot_order_run(ctx, code, planned, slot, took)

    for code, plan in plans.items():
        for order in plan.overflow:
            run_order(ctx, code, order, None, Reason.TOO_MANY_ACTIONS)
    _after_slots(ctx, plans)

    # Which systems ended the movement phase sticky, told once per empire so
    # reports need not work the rules of rules.md §7 out again.
    sticky_by_empire: dict[str, list[int]] = {}
    for empire, system in ctx.sticky:
        if new.systems[system].owner == empire:
            sticky_by_empire.setdefault(empire, []).append(system)
    for code in sorted(sticky_by_empire):
        ctx.emit(EventKind.STICKY, code, systems=sorted(sticky_by_empire[code]))

    end_of_turn(ctx)
    for code in sorted(start_playing):
        if not ctx.owns_anything(code):
            ctx.emit(EventKind.ELIMINATED, code)
    end_visible = _visible(new)
    if ctx.v2:
        report_reserve(ctx)
        for code, sights in probe_view(ctx).items():
            end_visible.setdefault(code, set()).update(sights)
    for code in sorted(new.empires):
        seen = new.seen.setdefault(code, set())
        seen |= start_visible.get(code, set())
        seen |= end_visible.get(code, set())
        seen |= ctx.touched.get(code, set())
    check_end(ctx)
    new.turn += 1

    after = check_invariants(new)
    if after:
        raise InvariantError("after the turn (engine bug)", after)
    return new, ctx.events
