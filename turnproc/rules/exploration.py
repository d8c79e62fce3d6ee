"""Exploration (rules.md §12, Star Chase 3.11): digging in the Old Empire's ruins.

Random numbers, in order: one d100 (``randint(1, 100)``); for a tech find the
tech (rule set 1: ``choice`` over the thirteen techs in declaration order; rule
set 2: one ``randrange(34)`` walked over :data:`FIND_WEIGHTS`); then the amount
(``randint(1, cap)``). "Nothing" and population off a planet draw no amount.
"""

from __future__ import annotations

from ..orders.vocabulary import EventKind
from .galaxy import population_limit
from .resolution import Resolution
from .state import V1_TECHS, SystemType, Tech

__all__ = ["FIND_TABLE", "FIND_WEIGHTS", "UNCAPPED_TECHS", "explore", "weighted_tech"]

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


#: Rule set 2's tech-find weights (rules.md §20.1, 3.11: "some tech levels are
#: easier to find than others"), walked in this order; 34 in all.
FIND_WEIGHTS: tuple[tuple[Tech, int], ...] = (
    (Tech.WEAPONS, 3),
    (Tech.DEFENCE, 3),
    (Tech.FIGHTER, 3),
    (Tech.EXPO, 3),
    (Tech.SUPPLY, 3),
    (Tech.LIFE_SUPPORT, 3),
    (Tech.DRIVE, 2),
    (Tech.SCANNER, 2),
    (Tech.MARINES, 2),
    (Tech.JUMP, 2),
    (Tech.PROBE, 2),
    (Tech.RECOVERY, 2),
    (Tech.HYPERSPACE, 1),
    (Tech.BP_INCOME, 1),
    (Tech.TREASURY, 1),
    (Tech.CULTURAL, 1),
)
_FIND_TOTAL = sum(w for _, w in FIND_WEIGHTS)


def weighted_tech(draw: int) -> Tech:
    """The tech a draw in ``range(34)`` finds, by :data:`FIND_WEIGHTS`."""
    for tech, weight in FIND_WEIGHTS:
        if draw < weight:
            return tech
        draw -= weight
    raise ValueError(f"tech-find draw out of range: {draw}")


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
        if state.v2:
            picked = weighted_tech(rng.randrange(_FIND_TOTAL))
        else:
            picked = rng.choice(list(V1_TECHS))  # rules.md §12 (ruling E7): all 13 equally likely
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
    ctx.emit(EventKind.EXPLORATION, empire, system=code, roll=roll, find=find, amount=amount, tech=tech)
