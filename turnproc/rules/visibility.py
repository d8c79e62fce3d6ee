"""What each empire sees (rules.md §14, fog of war).

An empire sees the systems within Scanner links of a system it owns or of its
ships; since ships only stand in owned systems, that is the owned systems'
neighbourhood. The engine adds to ``state.seen`` (the map an empire has ever
seen) every system visible at the start or end of a turn, plus the systems it
moved, attacked or jumped into and its DISTSQ targets that turn.
"""

from __future__ import annotations

from collections.abc import Iterable

from .state import GameState, Tech

__all__ = ["visible_systems", "visible_from"]


def visible_systems(state: GameState, empire: str) -> set[int]:
    """Codes within the empire's Scanner links of an owned system (those included)."""
    emp = state.empires.get(empire)
    if emp is None:
        return set()
    return visible_from(state, [s.code for s in state.owned_by(empire)], emp.tech(Tech.SCANNER))


def visible_from(state: GameState, owned: Iterable[int], scanner: int) -> set[int]:
    """Codes within ``scanner`` links of the ``owned`` codes (those included)."""
    frontier = list(owned)
    seen = set(frontier)
    for _ in range(max(0, scanner)):
        nxt: list[int] = []
        for code in frontier:
            for n in state.neighbours(code):
                if n not in seen:
                    seen.add(n)
                    nxt.append(n)
        if not nxt:
            break
        frontier = nxt
    return seen
