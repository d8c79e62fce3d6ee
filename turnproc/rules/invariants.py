"""Rules a game state must always satisfy, whoever changed it.

:func:`check_invariants` is run by the engine after every turn (a violation
there is an engine bug) and by the GM tools before accepting a hand edit. Each
:class:`Violation` names the broken rule (``code``) and the rows involved
(system codes, empire codes), in words a GM can act on.

rules.md §2.1 (ruling I1): population may exceed the limit (a captured black dwarf under
lower Life Support; supply cost charges for it), industry may not (rules.md §2.1:
"industry may not exceed the limit either").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import cast

from .galaxy import FIXED_LIMITS, MAX_LINKS, code_width, link_allowed, population_limit, unreachable_systems
from .state import GameState, SystemType, Tech

__all__ = ["Violation", "check_invariants"]

_EMPIRE_CODE = re.compile(r"[A-Z]{3}")


@dataclass(frozen=True)
class Violation:
    code: str
    """Stable name of the broken rule, e.g. ``ships_unowned``."""
    message: str
    systems: tuple[int, ...] = ()
    empires: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


def _systems_sound(state: GameState) -> bool:
    """Whether :func:`_systems_part` would find nothing, in one lean pass.

    It checks the same rules with fewer steps per system (no sort, no
    message, no call per system but the rare black dwarf's limit), because
    every turn checks a big galaxy twice and almost always finds it sound.
    On any doubt it answers False and :func:`_systems_part` runs in full, so
    a broken rule is still named exactly as before.
    """
    systems = state.systems
    empires = state.empires
    width = code_width(len(systems))
    low, high = 10 ** (width - 1), 10**width
    fixed = FIXED_LIMITS
    stars = 0
    squares: set[tuple[int, int]] = set()
    for key, s in systems.items():
        code = s.code
        if (
            key != code
            or not low <= code < high
            or s.pop < 0
            or s.industry < 0
            or s.cruisers < 0
            or s.fighters < 0
            or s.colony_ships < 0
            or not 1 <= s.retreat_parts <= 3
        ):
            return False
        owner = s.owner
        kind = s.type
        if owner is None:
            if s.cruisers or s.fighters or s.colony_ships:
                return False
        else:
            empire = empires.get(owner)
            if empire is None:
                return False
            limit = fixed.get(kind)
            if limit is None:  # a black dwarf: its owner's Life Support
                limit = population_limit(s, empire)
            if s.industry > limit:
                return False
        if kind in _SATELLITES:
            star = systems.get(s.star) if s.star is not None else None
            if star is None or star.type in _SATELLITES:
                return False
        else:
            if s.star is not None:
                return False
            stars += 1
            squares.add((s.row, s.col))
    return len(squares) == stars


_SATELLITES = frozenset(t for t in SystemType if not t.is_star)


def _systems_part(state: GameState, out: list[Violation]) -> None:
    if _systems_sound(state):
        return
    width = code_width(len(state.systems))
    low, high = 10 ** (width - 1), 10**width
    squares: dict[tuple[int, int], int] = {}
    for key in sorted(state.systems):
        s = state.systems[key]
        if key != s.code:
            out.append(Violation("system_key", f"system {s.code} is filed under code {key}", (key, s.code)))
        if not low <= s.code < high:
            out.append(
                Violation(
                    "system_code",
                    f"system {s.code} is not a {width}-digit code ({low}–{high - 1}) "
                    f"for a game of {len(state.systems)} systems",
                    (s.code,),
                )
            )
        # One comparison for the common case; the loop names the culprit.
        if min(s.pop, s.industry, s.cruisers, s.fighters, s.colony_ships) < 0:
            for attr in ("pop", "industry", "cruisers", "fighters", "colony_ships"):
                value = getattr(s, attr)
                if value < 0:
                    out.append(
                        Violation("negative", f"system {s.code} has negative {attr} ({value})", (s.code,))
                    )
        if s.owner is None:
            if s.cruisers or s.fighters or s.colony_ships:
                out.append(
                    Violation(
                        "ships_unowned",
                        f"system {s.code} has ships but no owner (ships only stand in "
                        "systems their empire owns)",
                        (s.code,),
                    )
                )
        elif s.owner not in state.empires:
            out.append(
                Violation(
                    "unknown_owner",
                    f"system {s.code} is owned by {s.owner}, which is not an empire of this game",
                    (s.code,),
                    (s.owner,),
                )
            )
        else:
            limit = population_limit(s, state.empires[s.owner])
            if s.industry > limit:
                out.append(
                    Violation(
                        "industry_over_limit",
                        f"system {s.code} has industry {s.industry} above its limit {limit}",
                        (s.code,),
                        (s.owner,),
                    )
                )
        if not 1 <= s.retreat_parts <= 3:
            out.append(
                Violation(
                    "retreat_parts",
                    f"system {s.code} has RETREAT parts {s.retreat_parts}, not 1–3",
                    (s.code,),
                )
            )
        if s.is_star:
            if s.star is not None:
                out.append(
                    Violation(
                        "star_of_star",
                        f"star {s.code} names a star of its own ({s.star})",
                        (s.code,),
                    )
                )
            square = (s.row, s.col)
            if square in squares:
                other = squares[square]
                out.append(
                    Violation(
                        "shared_square",
                        f"stars {other} and {s.code} share square {square}",
                        (other, s.code),
                    )
                )
            else:
                squares[square] = s.code
        else:
            star = state.systems.get(s.star) if s.star is not None else None
            if star is None or not star.is_star:
                out.append(
                    Violation(
                        "planet_without_star",
                        f"{s.type.value} {s.code} belongs to {s.star}, which is not a star",
                        (s.code,),
                    )
                )


def _links_part(state: GameState, out: list[Violation]) -> None:
    """The link rules: they read the links and, of each system, only its key,
    code, type and star. A turn changes none of these but by a new links
    object, so the check after a turn finds what the check before it found:
    the answer is kept with the links (``links_memo``) under exactly what it
    read, and reused only when all of that is the same again."""
    memo = state.links_memo()
    shape = tuple([(key, s.code, s.type, s.star) for key, s in state.systems.items()])
    kept = cast(tuple[object, tuple[Violation, ...]] | None, memo.get("links_part"))
    if kept is not None and kept[0] == shape:
        out.extend(kept[1])
        return
    found: list[Violation] = []
    _links_rules(state, found)
    memo["links_part"] = (shape, tuple(found))
    out.extend(found)


def _links_rules(state: GameState, out: list[Violation]) -> None:
    systems = state.systems
    # Only a link touching a planet or belt (or a system filed under the wrong
    # code, or an unknown one) can break a rule below; the rest, most links of
    # a big galaxy, are counted without a look each.
    odd = {code for code, s in systems.items() if not s.is_star or s.code != code}
    suspects = [
        (a, b)
        for a, b in state.links
        if a >= b or a in odd or b in odd or a not in systems or b not in systems
    ]
    for a, b in sorted(suspects):
        sa, sb = systems.get(a), systems.get(b)
        if sa is None or sb is None:
            out.append(Violation("link_unknown", f"link {a}–{b} names an unknown system", (a, b)))
            continue
        if a >= b:
            out.append(Violation("link_key", f"link {a}–{b} is not stored as (smaller, larger)", (a, b)))
        if not link_allowed(sa, sb):
            out.append(
                Violation(
                    "link_illegal",
                    f"link {a}–{b} is not allowed (star–star, or a planet/belt to its own star only)",
                    (a, b),
                )
            )
    # Counted off the adjacency map the rules keep for these links, rather
    # than over every link again; as before, a link to an unknown system does
    # not count.
    crowded: dict[int, int] = {}
    for code, linked in state.adjacency().items():
        if len(linked) > MAX_LINKS and code in systems:
            n = sum(1 for b in linked if b in systems)
            if n > MAX_LINKS:
                crowded[code] = n
    for code in sorted(crowded):
        n = crowded[code]
        if state.systems[code].is_star:
            out.append(
                Violation("too_many_links", f"star {code} has {n} links, more than {MAX_LINKS}", (code,))
            )
    lost = unreachable_systems(state)
    if lost:
        out.append(
            Violation(
                "unreachable",
                "systems not reachable by links: " + ", ".join(map(str, lost)),
                tuple(lost),
            )
        )


def _empires_part(state: GameState, out: list[Violation]) -> None:
    for key, e in sorted(state.empires.items()):
        if key != e.code:
            out.append(Violation("empire_key", f"empire {e.code} is filed under {key}", (), (key, e.code)))
        if not _EMPIRE_CODE.fullmatch(e.code):
            out.append(
                Violation("empire_code", f"empire code {e.code!r} is not 3 letters A–Z", (), (e.code,))
            )
        for attr in ("balance", "treasury", "vp", "lost_in_space", "missed_turns", "reserve"):
            value = getattr(e, attr)
            if value < 0:
                out.append(
                    Violation("negative", f"empire {e.code} has negative {attr} ({value})", (), (e.code,))
                )
        for tech, level in sorted(e.techs.items()):
            if level < 0:
                out.append(
                    Violation(
                        "negative",
                        f"empire {e.code} has negative {tech.value} tech ({level})",
                        (),
                        (e.code,),
                    )
                )
        for what, code in (("BASE", e.base), ("HOME", e.home)):
            if code is None:
                continue
            sys = state.systems.get(code)
            if sys is None or sys.owner != e.code:
                out.append(
                    Violation(
                        f"{what.lower()}_not_owned",
                        f"empire {e.code} has {what} {code}, which it does not own",
                        (code,),
                        (e.code,),
                    )
                )


def _probes_part(state: GameState, out: list[Violation]) -> None:
    """Rule set 2 (rules.md §19.5): probes stand in systems of the game, at most
    Probe (tech) inactive ones; a version-1 game has no probes and no reserve."""
    for code, e in sorted(state.empires.items()):
        probes = [*e.inactive_probes, *([] if e.active_probe is None else [e.active_probe])]
        if not state.v2 and (probes or e.reserve):
            out.append(
                Violation(
                    "not_in_ruleset",
                    f"empire {e.code} has probes or a reserve in a rule-set-1 game",
                    (),
                    (code,),
                )
            )
        unknown = [p for p in probes if p not in state.systems]
        if unknown:
            out.append(
                Violation(
                    "probe_unknown",
                    f"empire {e.code} has a probe in unknown system(s) " + ", ".join(map(str, unknown)),
                    tuple(unknown),
                    (code,),
                )
            )
        limit = e.tech(Tech.PROBE)
        if len(e.inactive_probes) > limit:
            out.append(
                Violation(
                    "too_many_probes",
                    f"empire {e.code} has {len(e.inactive_probes)} inactive probes, "
                    f"more than its Probe tech ({limit})",
                    (),
                    (code,),
                )
            )


def check_invariants(state: GameState) -> list[Violation]:
    """Every broken rule in ``state``; an empty list means the state is sound."""
    out: list[Violation] = []
    _systems_part(state, out)
    _links_part(state, out)
    _empires_part(state, out)
    _probes_part(state, out)
    return out
