"""Exploration (rules.md §12, Star Chase 3.11): digging in the Old Empire's ruins.

Random numbers, in order: one d100 (``randint(1, 100)``); for a tech find the
tech (``choice`` over :class:`Tech` in declaration order); then the amount
(``randint(1, cap)``). "Nothing" and population off a planet draw no amount.
"""

from __future__ import annotations

from .resolution import Resolution
from .galaxy import population_limit
from .state import SystemType, Tech
from .vocabulary import EventKind

__all__ = ["FIND_TABLE", "UNCAPPED_TECHS", "explore"]

#: (highest roll, find) in ascending order; the d100 table of rules.md §12.
FIND_TABLE: tuple[tuple[int, str], ...] = (
    (10, "nothing"),
    (25, "cruisers"),
    (35, "fighters"),
    (40, "colony_ship"),
    (55, "industry"),
    (62, "vp"),
    (75, "bp"),
    (82, "treasury"),
    (97, "tech"),
    (100, "population"),
)

#: Techs found up to Expo at a time; every other tech is capped at 5 (3.11).
UNCAPPED_TECHS: frozenset[Tech] = frozenset({Tech.BP_INCOME, Tech.CULTURAL, Tech.TREASURY})


def _find_for(roll: int) -> str:
    for top, find in FIND_TABLE:
        if roll <= top:
            return find
    raise ValueError(f"d100 roll out of range: {roll}")


def explore(ctx: Resolution, empire: str, code: int) -> None:
    """Roll once on the find table for ``empire``'s first capture of ``code``."""
    state, rng = ctx.state, ctx.rng
    emp = state.empires[empire]
    sys = state.systems[code]
    # An Expo of 0 would make "1..Expo" empty; a find is always at least one.
    expo = max(1, emp.tech(Tech.EXPO))
    roll = rng.randint(1, 100)
    find = _find_for(roll)
    amount = 0
    tech: str | None = None
    if find == "cruisers":
        amount = rng.randint(1, expo)
        sys.cruisers += amount
    elif find == "fighters":
        amount = rng.randint(1, expo)
        sys.fighters += amount
    elif find == "colony_ship":
        amount = 1
        sys.colony_ships += 1
    elif find == "industry":
        amount = rng.randint(1, expo)
        room = max(0, population_limit(sys, emp) - sys.industry)
        amount = min(amount, room)
        sys.industry += amount
    elif find == "vp":
        amount = rng.randint(1, 2 * expo)
        emp.vp += amount
    elif find == "bp":
        amount = rng.randint(1, 2 * expo)
        emp.balance += amount
    elif find == "treasury":
        amount = rng.randint(1, 2 * expo)
        emp.treasury += amount
    elif find == "tech":
        picked = rng.choice(list(Tech))  # rules.md §12 (ruling E7): all 13 equally likely
        cap = expo if picked in UNCAPPED_TECHS else min(expo, 5)
        amount = rng.randint(1, cap)
        emp.techs[picked] = emp.tech(picked) + amount
        tech = picked.value
    elif find == "population":
        if sys.type is SystemType.PL:
            amount = rng.randint(1, expo)
            # rules.md §12 (ruling E1): found population respects the limit, like GROW.
            room = max(0, population_limit(sys, emp) - sys.pop)
            amount = min(amount, room)
            sys.pop += amount
        else:
            find = "nothing"
    ctx.emit(
        EventKind.EXPLORATION, empire, system=code, roll=roll, find=find, amount=amount, tech=tech
    )
