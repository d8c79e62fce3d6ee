"""Geometry of the galaxy: distances, links and population limits (rules.md §2)."""

from __future__ import annotations

from collections import deque
from math import gcd
from typing import cast

from .state import Empire, GameState, System, SystemType, Tech

__all__ = [
    "MAX_LINKS",
    "FIXED_LIMITS",
    "distance_sq",
    "between_squares",
    "population_limit",
    "link_allowed",
    "unreachable_systems",
    "code_width",
]

#: A star has at most this many links, counting its own planets and belts.
MAX_LINKS = 7

#: The population limit of every type but the black dwarf, whose limit is its
#: owner's Life Support (rules.md §2.1).
FIXED_LIMITS: dict[SystemType, int] = {
    SystemType.YD: 40,
    SystemType.WD: 20,
    SystemType.RD: 25,
    SystemType.RG: 15,
    SystemType.SG: 10,
    SystemType.PL: 60,
    SystemType.AB: 15,
}


def distance_sq(state: GameState, a: int, b: int) -> int:
    """Squared distance between two systems (3.12).

    Planets and belts take their star's square, so DISTSQ from a planet
    measures from its star.
    """
    sa = state.systems[state.systems[a].position_star]
    sb = state.systems[state.systems[b].position_star]
    return (sa.row - sb.row) ** 2 + (sa.col - sb.col) ** 2


def between_squares(a: System, b: System) -> frozenset[tuple[int, int]]:
    """The grid squares strictly between ``a``'s and ``b``'s on the straight
    segment (rules.md §19.4). Only grid squares can hold stars, so the
    lattice points of the segment are all there is to look at."""
    dr, dc = b.row - a.row, b.col - a.col
    steps = gcd(abs(dr), abs(dc))
    return frozenset((a.row + dr * i // steps, a.col + dc * i // steps) for i in range(1, steps))


def population_limit(system: System, owner: Empire | None) -> int:
    """Most population (and industry) the system can hold (rules.md §2.1).

    A black dwarf's limit is its owner's Life Support tech; unowned, it has none.
    """
    if system.type is SystemType.BD:
        return owner.tech(Tech.LIFE_SUPPORT) if owner is not None else 0
    return FIXED_LIMITS[system.type]


def link_allowed(a: System, b: System) -> bool:
    """Whether a link between ``a`` and ``b`` is legal: star–star, or a planet or
    belt to its own star. Never planet–planet, never planet–other star."""
    if a.code == b.code:
        return False
    if a.is_star and b.is_star:
        return True
    if a.is_star:
        return b.star == a.code
    if b.is_star:
        return a.star == b.code
    return False


def unreachable_systems(state: GameState) -> list[int]:
    """Systems that no chain of links joins to the lowest-coded system."""
    if not state.systems:
        return []
    memo = state.links_memo()
    if "unreachable" in memo:
        return list(cast(tuple[int, ...], memo["unreachable"]))
    start = min(state.systems)
    adjacency = state.adjacency()
    seen = {start}
    queue = deque([start])
    while queue:
        for n in adjacency.get(queue.popleft(), ()):
            if n not in seen:
                seen.add(n)
                queue.append(n)
    memo["unreachable"] = lost = tuple(sorted(set(state.systems) - seen))
    return list(lost)


def code_width(n_systems: int) -> int:
    """Digits in system codes: 3 up to 900 systems, 4 up to 9,000, else 5 (rules.md §2.1)."""
    if n_systems <= 900:
        return 3
    if n_systems <= 9000:
        return 4
    return 5
