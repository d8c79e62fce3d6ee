"""Missed turns and inactive empires (docs/rules.md §4, "No orders, no problem").

An empire with no orders keeps its systems' stances (they are state) and its
balance still becomes ships; what this module keeps is the count of misses in
a row. After ``inactive_after`` of them the empire is inactive: left out of the
no-orders guard and of the early run's "everyone is in". Orders make it active
again. An empire on leave (VACATION) misses no turn; one whose player sent
QUIT becomes inactive at this turn whatever it sent (rules.md §4.2, ruling O6).
"""

from __future__ import annotations

from collections.abc import Collection

from .state import GameState

__all__ = ["record_missed_turns"]


def record_missed_turns(
    state: GameState,
    submitted: Collection[str],
    inactive_after: int,
    on_leave: Collection[str] = (),
    quitting: Collection[str] = (),
) -> tuple[list[str], list[str]]:
    """Count this turn's misses on ``state`` (changed in place); ``submitted``
    are the codes of the empires that sent orders, ``on_leave`` those on leave
    this turn, ``quitting`` those whose player asked to leave.

    Returns (empires that missed this turn, empires that just became inactive),
    each in code order.
    """
    missed: list[str] = []
    inactive: list[str] = []
    for code, empire in sorted(state.empires.items()):
        if code in quitting:
            if empire.active:
                inactive.append(code)
            empire.active = False
            continue
        if code in on_leave and code not in submitted:
            continue
        if code in submitted:
            empire.missed_turns = 0
            empire.active = True
            continue
        empire.missed_turns += 1
        missed.append(code)
        if empire.active and empire.missed_turns >= inactive_after:
            empire.active = False
            inactive.append(code)
    return missed, inactive
