"""The turn engine's entry point: :func:`resolve` one turn of Star Chase.

``resolve(state, orders, rng)`` is pure: it copies ``state``, runs every
empire's orders and the end of turn on the copy, and returns the new state
(``turn`` + 1) with the list of :class:`~turnproc.rules.events.Event` that
describe everything that happened (vocabulary: :mod:`turnproc.rules.vocabulary`).
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
3. End of turn (§7): leftovers, income, supply cost and shortfall scrapping,
   interest, research, VP; ``eliminated`` events; the map each empire has
   seen is updated (§9); end of game (§10); ``turn`` + 1.

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
     find ``choice(list(Tech))``; then the amount ``randint(1, cap)`` (no amount
     for "nothing" and for population off a planet).
3. Research: per empire still owning a system, in code order, one
   ``randrange(sum of (level + 1))`` over the techs in :class:`Tech` order.

Rule decisions (where RULES.md is silent)
-----------------------------------------
O1  Counts are clamped: an order asking for more than can be done (ships
    there, money, limits, Fighter tech) does as many as it can, reports
    ``asked`` and ``done``/``moved``, and fails only when it can do none.
O2  A left-out NUMBER means ALL, except TECH (1 level) and RETREAT (1 part).
O3  Orders of an empire that owns no system fail (``no_empire``), except
    MESSAGE. More than 16 slot-using orders: the extra ones fail
    (``too_many_actions``); more than 2 NAMEs: the extra ones fail.
O4  NAME needs a system owned at the start of the turn, 1–24 characters
    (surrounding blanks dropped). MESSAGE to an unknown empire or with no text
    fails; no empire named means ALL; a message to oneself is allowed.
O5  Stance, BASE and HOME orders run in the order written, so a later one
    for the same system wins.
S1  RETREAT needs TO owned, linked, a star, not WHERE; parts 1–3. AMBUSH needs
    FROM linked to WHERE (anyone's). A RETREAT whose destination is no longer
    owned, linked and a star when attacked does not withdraw (the system
    defends). A captured system's stance resets to DEFEND.
M1  MOVECOL carries as many fighters as it can (up to n × Fighter tech).
M2  ASSAULT into an unowned system captures it like a MOVE (costs 2, sticky);
    into an own system it fails (``own_system``).
M3  Cruisers that fail an attack go home and may act again in later slots;
    cruisers held off by a STANDOFF stay home and may act again.
M4  DEEP to an own star is a plain move; all ships lost in hyperspace still
    costs the BP. A DEEP of distance² 0 (planet to its own star) loses nothing.
M5  Unowned systems never fight: moving in is always a capture (§4 table).
M6  Scrapped or destroyed cruisers come out of the pinned (held) ones first.
M7  Withdrawn cruisers may act again in later slots of their own empire.
M8  A system captured from nobody (MOVE, ASSAULT, DEEP or COLONISE throw) is
    sticky for the captor for the rest of the turn, also for ships that
    arrive there later.
M9  Held-off, repelled and hyperspace-lost moves still cost their BP; a
    failed order never does.
Z1  Supply is traced against the control of every cruiser; control is then
    exerted only by forces in supply. A system is in supply when a path leads
    from it to a populated system of the empire through systems that are not
    enemy-controlled or hold the empire's ships (the start itself need not
    be; populated systems always are). The start-of-turn answer is kept for
    the whole turn, also for systems captured during it.
Z2  Without ``zoc`` all forces are in supply; control still exists for
    ``pinning`` (pins hold cruisers) but nothing stops in control.
Z3  The ZOC movement limit (from enemy control straight into enemy control)
    and stopping in control apply to moves that do not fight; an attack is not
    hindered (seed 002: attacking is voluntary, advancing after combat is not
    hindered).
Z4  With ``pinning`` entering enemy control holds ``min(n, ceil(pin/24))``
    cruisers instead of stopping all of them; a pin of 0 (all controlling
    systems on RETREAT) holds none. Fighters and colony ships moving by
    MOVEF/MOVECOL stick in the destination anyway. Pins come from every enemy
    empire controlling the destination, added together.
Z5  Retreat losses (one in five, rounded up) are destroyed, not sent to
    lost-in-space. Pursuit into a belt can never happen in practice, since a
    RETREAT destination must be a star; the rule is kept for completeness.
B1  A battle always fights at least one round, also against statics (only
    population and colony ships).
B2  ASSAULT stops when a round destroys nothing on either side (a stalemate);
    the attack then fails.
B3  VP never go below zero (a capture takes at most what there is).
B4  An ambush: the attacker loses half the defence (+ half the difference if
    weaker), answers with its remaining cruisers (+ Weapons) under the same
    rule, then loses one extra cruiser.
B5  RETREAT caught part: exactly ceil(n/parts) cruisers are caught (the text
    names that size, so no random draw). Fighters never withdraw. RETREAT on a
    system without cruisers just defends.
B6  Engage: the defender out-manoeuvres only with a strictly higher value.
    Statics (no ships at all) roll nothing and always lose.
B7  Capture also clears the loser's BASE/HOME if it pointed there (so
    leftovers of that kind are lost until a new BASE/HOME), and clips industry
    to the new owner's limit (a black dwarf under lower Life Support).
B8  ASSAULT recomputes both strengths every round from what is left; a
    STANDOFF caught out of position fights the whole battle without Weapons.
B9  Engage rolls are made only when they can change the outcome; a plain
    DEFEND (or an AMBUSH against anything but a MOVE from its FROM) rolls
    nothing.
C1  COLONISE: a ship that threw may still plant where it stands; a ship that
    planted or threw may not move or throw again this turn. Planting needs pop
    0 and one colony ship; a throw needs one that has not been used.
C2  "Planet" for twice-population defence, Defence tech and the population
    find means PL only; blockade applies to planets and belts alike (both
    belong to a star).
E1  Found industry and population never go above the limit.
E2  Empires that own no system get no leftovers, income, supply, interest,
    research or VP; their balance is lost.
E3  Supply cost doubling out of supply applies to the ships' part only, not
    to the +1 per population above the limit.
E4  Supply cost is paid from next turn's balance (just set by income). A
    shortfall scraps ceil(shortfall / 3) cruisers, from the system with the
    highest supply cost first (ties: lower code); any rest is forgiven.
E5  Leftovers skip a BASE/HOME that is a blockaded planet (no ship building
    there).
E6  Research picks among all 13 techs with weight level + 1.
E7  An exploration tech find picks any of the 13 techs with equal chance.
G1  "One empire left" = at most one empire owning a system, in games with at
    least two empires. The end reason reported is the first of last_empire,
    vp_target, turn_limit that applies.
G2  Ties on VP and industry are shared winners (``winner`` None).
I1  Population may exceed the limit, industry may not (invariants).
V1  ``state.seen`` grows by the systems visible at the start and the end of
    the turn, plus those moved, attacked or jumped into and DISTSQ targets.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence

from .actions import run_order
from .resolution import Resolution, holdings
from .economy import end_of_turn
from .endgame import check_end
from .events import Event
from .invariants import Violation, check_invariants
from .orders import MAX_NAMES, MAX_SLOTS, STANCE_ACTIONS, Action, Order
from .state import GameState, Tech
from .visibility import visible_from
from .vocabulary import EventKind, Reason

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


def _plan(
    orders: Sequence[Order],
) -> tuple[list[Order], list[tuple[int, Order]], list[Order]]:
    """Split an empire's orders: (slot-free, (slot, order) for slots 1–16, overflow)."""
    free: list[Order] = []
    slotted: list[tuple[int, Order]] = []
    overflow: list[Order] = []
    for order in orders:
        if not order.uses_slot:
            free.append(order)
        elif len(slotted) < MAX_SLOTS:
            slotted.append((len(slotted) + 1, order))
        else:
            overflow.append(order)
    return free, slotted, overflow


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

    for code, (free, _, _) in plans.items():
        names = 0
        for order in free:
            reason = None
            if order.action is Action.NAME:
                names += 1
                if names > MAX_NAMES:
                    reason = Reason.TOO_MANY_NAMES
            run_order(ctx, code, order, None, reason)

    for code, (_, slotted, _) in plans.items():
        for slot, order in slotted:
            if order.action in STANCE_ACTIONS:
                run_order(ctx, code, order, slot)

    by_slot = {
        code: {slot: order for slot, order in slotted} for code, (_, slotted, _) in plans.items()
    }
    for slot in range(1, MAX_SLOTS + 1):
        for code in slot_order:
            planned = by_slot[code].get(slot)
            if planned is not None and planned.action not in STANCE_ACTIONS:
                run_order(ctx, code, planned, slot)

    for code, (_, _, overflow) in plans.items():
        for order in overflow:
            run_order(ctx, code, order, None, Reason.TOO_MANY_ACTIONS)

    # Which systems ended the movement phase sticky, told once per empire so
    # reports need not work the rules of §5 out again.
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
