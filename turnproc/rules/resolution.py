"""What the engine remembers while one turn runs, and the result of one order.

Nothing here outlives :func:`turnproc.rules.turn.resolve`: stickiness,
per-(empire, system) mobility, used colony ships and pursuits are all "for the
rest of the turn" (rules.md §7.1), so they live on the :class:`Resolution`, not in the
:class:`GameState`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from ..orders.orders import Order
from ..orders.vocabulary import Reason
from .events import Event
from .state import GameState, System
from .zoc import Supply, compute_supply, is_enemy_controlled

__all__ = ["Resolution", "Outcome", "ok", "fail", "holdings", "owned_system", "two_systems"]


def holdings(state: GameState) -> dict[str, list[System]]:
    """Every empire's systems in code order, in one pass over the galaxy
    (``state.owned_by`` per empire would walk a big galaxy once per empire)."""
    result: dict[str, list[System]] = {code: [] for code in state.empires}
    for code in sorted(state.systems):
        sys = state.systems[code]
        if sys.owner is not None:
            result.setdefault(sys.owner, []).append(sys)
    return result


@dataclass
class Outcome:
    """How one order went; becomes the ``order`` event."""

    ok: bool
    reason: str | None = None
    cost: int = 0
    treasury_cost: int = 0
    fields: dict[str, Any] = field(default_factory=dict)


def ok(cost: int = 0, treasury_cost: int = 0, **fields: Any) -> Outcome:
    return Outcome(True, None, cost, treasury_cost, dict(fields))


def fail(reason: str, **fields: Any) -> Outcome:
    return Outcome(False, reason, 0, 0, dict(fields))


def owned_system(ctx: Resolution, empire: str, code: int | None) -> System | Outcome:
    """The order's WHERE, when it names a system ``empire`` owns; else the failure."""
    if code is None:
        return fail(Reason.MISSING_FIELD)
    sys = ctx.state.systems.get(code)
    if sys is None:
        return fail(Reason.NO_SYSTEM, where=code)
    if sys.owner != empire:
        return fail(Reason.NOT_OWNED, where=code)
    return sys


def two_systems(ctx: Resolution, order: Order) -> tuple[System, System] | Outcome:
    """FROM and TO of an order that joins two different systems (MOVE, LINK)."""
    systems = ctx.state.systems
    if order.where is None or order.to is None:
        return fail(Reason.MISSING_FIELD)
    if order.where not in systems or order.to not in systems:
        return fail(Reason.NO_SYSTEM)
    if order.where == order.to:
        return fail(Reason.SAME_SYSTEM)
    return systems[order.where], systems[order.to]


@dataclass
class Resolution:
    """One turn while it is resolved: the state being changed, the dice, the
    events so far and the for-the-rest-of-the-turn bookkeeping. (Not called a
    context: reports use that word for the dict a template renders.)"""

    state: GameState
    rng: random.Random
    events: list[Event] = field(default_factory=list)
    sticky: set[tuple[str, int]] = field(default_factory=set)
    """(empire, system): none of the empire's ships there may leave this turn."""
    held: dict[tuple[str, int], int] = field(default_factory=dict)
    """(empire, system): cruisers there held by a pin, that may not move."""
    colony_stuck: dict[tuple[str, int], int] = field(default_factory=dict)
    """(empire, system): colony ships used by COLONISE (may not move or throw)."""
    colony_thrown: dict[tuple[str, int], int] = field(default_factory=dict)
    """(empire, system): of those, ones that threw and may still plant."""
    pursuit: dict[tuple[str, int], str] = field(default_factory=dict)
    """(pursuer, withdrawal system) → withdrawer, for the pursuer's next attack."""
    touched: dict[str, set[int]] = field(default_factory=dict)
    """Per empire, systems moved, attacked or jumped into, and DISTSQ targets (rules.md §14)."""
    supply: Supply = None
    """Supply at the start of the turn (None: zoc off, all in supply)."""

    owned_count: dict[str, int] = field(default_factory=dict)
    """Systems each empire owns right now (kept up to date by every capture)."""

    # -- rule set 2 (rules.md §19) ----------------------------------------------
    laid_up: dict[str, int] = field(default_factory=dict)
    """Per empire, cruisers laid up this turn (they may not come back this turn)."""
    offers: dict[tuple[str, str, str], int | None] = field(default_factory=dict)
    """(trader, taker, tech value) -> level offered by TRADE (None: the trader's own)."""
    takes: list[tuple[int, str, Order]] = field(default_factory=list)
    """TAKE orders waiting for the match after slot 16: (slot, empire, order), in
    execution order."""
    probe_bases: dict[str, tuple[int, ...]] | None = None
    """Per empire, the systems it owns when the PROBE lines run (set once then:
    ownership does not change after slot 16, and walking the galaxy per line
    would be slow in a big game)."""
    traded_in: dict[tuple[str, str], int] = field(default_factory=dict)
    """(empire, tech value) -> levels received by TAKE this turn (not offerable)."""

    def __post_init__(self) -> None:
        if self.state.has_module("zoc"):
            self.supply = compute_supply(self.state)
        self.owned_count = {code: len(s) for code, s in holdings(self.state).items()}

    def owns_anything(self, empire: str) -> bool:
        return self.owned_count.get(empire, 0) > 0

    def ownership_changed(self, old: str | None, new: str) -> None:
        if old is not None:
            self.owned_count[old] = self.owned_count.get(old, 0) - 1
        self.owned_count[new] = self.owned_count.get(new, 0) + 1

    # -- events ---------------------------------------------------------------

    def emit(self, kind: str, empire: str | None, **data: Any) -> Event:
        event = Event(kind, empire, data)
        self.events.append(event)
        return event

    def touch(self, empire: str, system: int) -> None:
        self.touched.setdefault(empire, set()).add(system)

    # -- modules --------------------------------------------------------------

    @property
    def zoc(self) -> bool:
        return self.state.has_module("zoc")

    @property
    def pinning(self) -> bool:
        return self.state.has_module("pinning")

    @property
    def engage(self) -> bool:
        return self.state.has_module("engage")

    @property
    def v2(self) -> bool:
        """Rule set version 2 (rules.md §19, rules.md §20)."""
        return self.state.v2

    @property
    def control_matters(self) -> bool:
        return self.zoc or self.pinning

    def enemy_controlled(self, empire: str, system: int) -> bool:
        return self.control_matters and is_enemy_controlled(self.state, self.supply, empire, system)

    # -- mobility ---------------------------------------------------------------

    def is_sticky(self, empire: str, system: int) -> bool:
        return (empire, system) in self.sticky

    def make_sticky(self, empire: str, system: int) -> None:
        self.sticky.add((empire, system))

    def mobile_cruisers(self, empire: str, sys: System) -> int:
        if sys.owner != empire or self.is_sticky(empire, sys.code):
            return 0
        return max(0, sys.cruisers - self.held.get((empire, sys.code), 0))

    def hold(self, empire: str, system: int, n: int) -> None:
        if n > 0:
            key = (empire, system)
            self.held[key] = self.held.get(key, 0) + n

    def cruisers_destroyed(self, empire: str, sys: System, n: int) -> None:
        """``n`` cruisers of ``sys`` were scrapped or destroyed (already taken
        off ``sys.cruisers``): held ones go first, so the mobile ones stay mobile."""
        key = (empire, sys.code)
        if key in self.held:
            self.held[key] = min(max(0, self.held[key] - n), sys.cruisers)

    def free_colony_ships(self, empire: str, sys: System) -> int:
        """Colony ships that may still move or throw."""
        if sys.owner != empire:
            return 0
        return max(0, sys.colony_ships - self.colony_stuck.get((empire, sys.code), 0))

    def system_lost(self, empire: str, system: int) -> None:
        """The empire lost ``system``: its ships there are gone, so is their state."""
        for store in (self.held, self.colony_stuck, self.colony_thrown):
            store.pop((empire, system), None)
