"""Zones of control, supply and pinning (RULES.md §5.1–5.2, seeds 002 and 000).

Control is what the ``zoc`` and ``pinning`` modules are built on:

* An empire controls every system linked to a system where it has at least one
  cruiser in supply. Fighters add nothing to *whether* a system is controlled
  (they need a cruiser with them), colony ships never control.
* Control is never exerted into a planet or belt except from its own star.
* Supply (``zoc`` only): a system is in supply for an empire when a path of
  links leads from one of the empire's populated systems to it, every system
  after the source being either not enemy-controlled or holding that
  empire's ships. Because supply depends on control and control on supply,
  supply is traced against the control of *every* cruiser (in supply or not);
  control is then exerted only by forces in supply (decision Z1).
* Without ``zoc`` everything is in supply; control still exists for the
  ``pinning`` module alone (decision Z2).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

from .state import GameState, Stance

__all__ = [
    "Supply",
    "PIN_CRUISER",
    "PIN_FIGHTER",
    "compute_supply",
    "controlling_systems",
    "enemy_controllers",
    "is_enemy_controlled",
    "pin_strength",
    "held_by_pin",
]

#: Per empire, the systems in supply; None means "everything" (zoc off).
Supply = Mapping[str, frozenset[int]] | None

#: Pin strength in twelfths: a cruiser is the seed's SC3 unit (2), a fighter 1/12
#: (six fighters are 1/2).
PIN_CRUISER = 24
PIN_FIGHTER = 1


def _in_supply(supply: Supply, empire: str, system: int) -> bool:
    if supply is None:
        return True
    return system in supply.get(empire, frozenset())


def controlling_systems(
    state: GameState, supply: Supply, empire: str, target: int
) -> list[int]:
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
    state: GameState, supply: Supply, empire: str, target: int
) -> dict[str, list[int]]:
    """Every other empire controlling ``target``, with its controlling systems."""
    owners = sorted(
        {o for n in state.neighbours(target) if (o := state.systems[n].owner) is not None}
        - {empire}
    )
    result: dict[str, list[int]] = {}
    for other in owners:
        systems = controlling_systems(state, supply, other, target)
        if systems:
            result[other] = systems
    return result


def is_enemy_controlled(state: GameState, supply: Supply, empire: str, target: int) -> bool:
    return bool(enemy_controllers(state, supply, empire, target))


def compute_supply(state: GameState) -> dict[str, frozenset[int]]:
    """Per empire, every system (owned or not) its supply lines reach now.

    Traced against the control of all cruisers (decision Z1).
    """
    result: dict[str, frozenset[int]] = {}
    for empire in sorted(state.empires):
        sources = [s.code for s in state.owned_by(empire) if s.pop > 0]
        reached = set(sources)
        queue = deque(sources)
        while queue:
            here = queue.popleft()
            for n in state.neighbours(here):
                if n in reached:
                    continue
                nsys = state.systems[n]
                own_ships = nsys.owner == empire and (
                    nsys.cruisers + nsys.fighters + nsys.colony_ships > 0
                )
                if own_ships or not is_enemy_controlled(state, None, empire, n):
                    reached.add(n)
                    queue.append(n)
        result[empire] = frozenset(reached)
    return result


def pin_strength(
    state: GameState, supply: Supply, mover: str, target: int
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
