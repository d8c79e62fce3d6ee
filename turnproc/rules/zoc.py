"""Zones of control, supply and pinning (rules.md §8–9, seeds 002 and 000).

Control is what the ``zoc`` and ``pinning`` modules are built on:

* An empire controls every system linked to a system where it has at least one
  cruiser in supply. Fighters add nothing to *whether* a system is controlled
  (they need a cruiser with them), colony ships never control.
* Control is never exerted into a planet or belt except from its own star.
* Supply (``zoc`` only): a system is in supply for an empire when a path of
  links leads from it to one of the empire's populated systems, every system
  on the way (the populated end included, the start excepted) being either
  not enemy-controlled or holding that empire's ships; a populated system of
  the empire is always in supply. Because supply depends on control and
  control on supply, supply is traced against the control of *every* cruiser
  (in supply or not); control is then exerted only by forces in supply
  (rules.md §8.3, ruling Z1).
* A :class:`SupplyMap` is a snapshot of where control and ships were when it
  was made; questions are answered lazily (a search from the asked system
  that stops at the first populated system or already-answered system), so a
  30,000-system galaxy costs only what is asked.
* Without ``zoc`` everything is in supply; control still exists for the
  ``pinning`` module alone (rules.md §16, ruling Z2).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from .state import GameState, Stance

__all__ = [
    "Supply",
    "SupplyMap",
    "raw_control",
    "PIN_CRUISER",
    "PIN_FIGHTER",
    "compute_supply",
    "controlling_systems",
    "enemy_controllers",
    "is_enemy_controlled",
    "pin_strength",
    "held_by_pin",
]

#: Pin strength in twelfths: a cruiser is the seed's SC3 unit (2), a fighter 1/12
#: (six fighters are 1/2).
PIN_CRUISER = 24
PIN_FIGHTER = 1


def _in_supply(supply: SupplyMap | None, empire: str, system: int) -> bool:
    return supply is None or supply.in_supply(empire, system)


def raw_control(state: GameState) -> dict[int, frozenset[str]]:
    """Per system, every empire with a cruiser linked to it (supply ignored)."""
    found: dict[int, set[str]] = {}
    for code, sys in state.systems.items():
        if sys.owner is None or sys.cruisers <= 0:
            continue
        for n in state.neighbours(code):
            nsys = state.systems[n]
            if not nsys.is_star and nsys.star != code:
                continue
            found.setdefault(n, set()).add(sys.owner)
    return {code: frozenset(owners) for code, owners in found.items()}


class SupplyMap:
    """Which systems are in supply for which empire, as of when it was made."""

    def __init__(self, state: GameState) -> None:
        self._state = state
        self._control = raw_control(state)
        self._ships: dict[int, str] = {}
        self._sources: dict[str, set[int]] = {}
        for code, sys in state.systems.items():
            if sys.owner is None:
                continue
            if sys.cruisers + sys.fighters + sys.colony_ships > 0:
                self._ships[code] = sys.owner
            if sys.pop > 0:
                self._sources.setdefault(sys.owner, set()).add(code)
        self._connected: dict[str, set[int]] = {}
        self._cut_off: dict[str, set[int]] = {}

    def _passable(self, empire: str, code: int) -> bool:
        if code in self._sources.get(empire, ()):
            return True
        if self._ships.get(code) == empire:
            return True
        return not (self._control.get(code, frozenset()) - {empire})

    def in_supply(self, empire: str, code: int) -> bool:
        sources = self._sources.get(empire, set())
        connected = self._connected.setdefault(empire, set())
        cut_off = self._cut_off.setdefault(empire, set())
        if code in sources or code in connected:
            return True
        if code in cut_off:
            return False
        seen = {code}
        queue = deque([code])
        found = False
        while queue and not found:
            here = queue.popleft()
            for n in self._state.neighbours(here):
                if n in seen or not self._passable(empire, n):
                    continue
                if n in sources or n in connected:
                    found = True
                    break
                seen.add(n)
                queue.append(n)
        # Passability is a property of the system, so everything the search
        # reached shares the answer; later questions stop here.
        (connected if found else cut_off).update(seen)
        return found

    def reach(self, empire: str, codes: Iterable[int]) -> frozenset[int]:
        """The given systems that are in supply for ``empire``."""
        return frozenset(c for c in codes if self.in_supply(empire, c))


def controlling_systems(state: GameState, supply: SupplyMap | None, empire: str, target: int) -> list[int]:
    """Systems from which ``empire`` controls ``target`` (empty: no control)."""
    tsys = state.systems[target]
    found: list[int] = []
    for n in state.neighbours(target):
        nsys = state.systems[n]
        if nsys.owner != empire or nsys.cruisers <= 0:
            continue
        if not tsys.is_star and tsys.star != n:
            continue
        if _in_supply(supply, empire, n):
            found.append(n)
    return found


def enemy_controllers(
    state: GameState, supply: SupplyMap | None, empire: str, target: int
) -> dict[str, list[int]]:
    """Every other empire controlling ``target``, with its controlling systems."""
    owners = sorted(
        {o for n in state.neighbours(target) if (o := state.systems[n].owner) is not None} - {empire}
    )
    result: dict[str, list[int]] = {}
    for other in owners:
        systems = controlling_systems(state, supply, other, target)
        if systems:
            result[other] = systems
    return result


def is_enemy_controlled(state: GameState, supply: SupplyMap | None, empire: str, target: int) -> bool:
    return bool(enemy_controllers(state, supply, empire, target))


#: Supply for the engine: None means "everything is in supply" (zoc off).
Supply = SupplyMap | None


def compute_supply(state: GameState) -> SupplyMap:
    """Supply as things stand now (rules.md §8.3, ruling Z1: traced against all cruisers)."""
    return SupplyMap(state)


def pin_strength(
    state: GameState, supply: SupplyMap | None, mover: str, target: int
) -> tuple[int, list[str]]:
    """Pin on ships of ``mover`` entering ``target``, in twelfths, and who pins.

    Every enemy controlling system linked to the target adds 24 per cruiser and
    1 per fighter (fighters only count with a cruiser, which a controlling
    system always has), unless that system's stance is RETREAT.
    """
    total = 0
    pinners: list[str] = []
    for other, systems in enemy_controllers(state, supply, mover, target).items():
        strength = 0
        for code in systems:
            s = state.systems[code]
            if s.stance is Stance.RETREAT:
                continue
            strength += PIN_CRUISER * s.cruisers + PIN_FIGHTER * s.fighters
        if strength > 0:
            total += strength
            pinners.append(other)
    return total, pinners


def held_by_pin(moving: int, strength: int) -> int:
    """``min(n, ceil(pin / 24))`` of the moving cruisers hold the pin."""
    return min(moving, -(-strength // PIN_CRUISER))
