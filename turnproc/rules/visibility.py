"""What each empire sees (rules.md §14, fog of war).

An empire sees the systems within Scanner links of a system it owns or of its
ships; since ships only stand in owned systems, that is the owned systems'
neighbourhood. The engine adds to ``state.seen`` (the map an empire has ever
seen) every system visible at the start or end of a turn, plus the systems it
moved, attacked or jumped into and its DISTSQ targets that turn.

Which events an empire may read in its report is the same rule told of
events: its own, those done to it, and public ones (:func:`audience`).
"""

from __future__ import annotations

from collections.abc import Iterable

from .events import Event
from .state import GameState, Tech

__all__ = [
    "visible_systems",
    "visible_from",
    "PUBLIC_KINDS",
    "audience",
    "may_read",
    "public_press",
    "press_author",
]


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
    adjacency = state.adjacency()
    for _ in range(max(0, scanner)):
        nxt: list[int] = []
        for code in frontier:
            for n in adjacency.get(code, ()):
                if n not in seen:
                    seen.add(n)
                    nxt.append(n)
        if not nxt:
            break
        frontier = nxt
    return seen


#: Kinds every empire sees.
PUBLIC_KINDS = frozenset({"end"})


def audience(event: Event) -> frozenset[str] | None:
    """Who may read ``event`` (rules.md §14): None for everyone (public press,
    the end of the game), else the empires involved — the actor, and whoever
    it was done to."""
    if event.kind in PUBLIC_KINDS:
        return None
    if event.kind == "turn":
        return frozenset()
    d = event.data
    who: set[object] = {event.empire} if event.empire else set()
    if event.kind == "message":
        if d.get("to") is None:
            return None
        who.add(d["to"])
    elif event.kind in ("battle", "standoff", "bombard"):
        who.update((d.get("attacker"), d.get("defender")))
    elif event.kind == "capture":
        who.add(d.get("from_empire"))
    elif event.kind == "withdraw":
        who.add(d.get("attacker"))
    elif event.kind == "pursuit":
        who.add(d.get("withdrawer"))
    elif event.kind in ("pin", "control_stop"):
        who.update(d.get("by") or [])
    elif event.kind == "blockade":
        who.add(d.get("by"))
    elif event.kind == "trade":
        who.add(d.get("taker"))
    return frozenset(x for x in who if isinstance(x, str))


def may_read(event: Event, viewer: str) -> bool:
    """Whether ``viewer`` may read ``event``."""
    readers = audience(event)
    return readers is None or viewer in readers


def public_press(events: Iterable[Event]) -> list[Event]:
    """The press every empire reads among ``events`` (rules.md §14): the
    messages whose audience is everyone. The one rule for what press is
    public: the reports, the bulletin and the game's public pages take it
    from here."""
    return [e for e in events if e.kind == "message" and audience(e) is None]


def press_author(event: Event) -> str:
    """Who wrote a press message: its empire (older records name it in the data)."""
    return event.empire or str(event.data.get("from") or "")
