"""What is known when an order is judged: the engine's whole truth in the
order's slot, or what an empire's report shows as the turn starts
(rules.md §17.1).

The conditions of an order that the start of a turn may already decide are
written once, in the engine module that carries the order out
(:func:`~turnproc.rules.bombard.bombard_reason`,
:func:`~turnproc.rules.links.link_reason`, ...), and ask a :class:`Sight`.
The engine asks them with a :class:`Sight` of the whole truth; the order
checks (:mod:`turnproc.rules.foresight`) with a :class:`ReportSight`, which
answers None where the report cannot tell. A reason function stops at the
first condition it cannot judge: the engine would stop there too when the
condition fails, so a later reason would not be the engine's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set
from functools import cached_property

from .galaxy import MAX_LINKS, between_squares
from .state import GameState, System, Tech, link_key
from .visibility import visible_systems

__all__ = ["Sight", "ReportSight", "star_between"]


class Sight:
    """The whole truth, as the engine has it when the order runs."""

    def __init__(
        self,
        state: GameState,
        empire: str,
        laid_up: int = 0,
        traded_in: Mapping[tuple[str, str], int] | None = None,
    ) -> None:
        self.state = state
        self.empire = empire
        self.laid_up = laid_up
        """Cruisers the empire laid up this turn (they cannot come back yet)."""
        self.traded_in = traded_in or {}
        """Levels received by TAKE this turn, by (empire, tech)."""

    def sees(self, code: int) -> bool:
        """Whether the owner of ``code`` is known as the order runs."""
        return True

    def tech(self, tech: Tech) -> int | None:
        """The empire's level of ``tech`` as the order runs; None: cannot tell."""
        return self.state.empires[self.empire].tech(tech)

    def blocked(self, src: System, dst: System) -> bool | None:
        """Whether another star's square lies between the two (rules.md §19.4)."""
        return star_between(src, dst, self.state.systems.values()) is not None

    def linked(self, a: int, b: int) -> bool | None:
        return self.state.linked(a, b)

    def full(self, code: int) -> bool | None:
        """Whether ``code`` already has :data:`MAX_LINKS` links."""
        return len(self.state.neighbours(code)) >= MAX_LINKS

    def reserve(self) -> int | None:
        """Reserve cruisers that may come back now (none laid up this turn)."""
        return self.state.empires[self.empire].reserve - self.laid_up

    def offerable(self, tech: Tech) -> int | None:
        """The highest level of ``tech`` the empire may offer by TRADE."""
        own = self.tech(tech)
        if own is None:
            return None
        return own - self.traded_in.get((self.empire, tech.value), 0)


def star_between(src: System, dst: System, systems: Iterable[System]) -> int | None:
    """The code of a star among ``systems`` standing strictly between the
    squares of ``src`` and ``dst`` on the straight segment, or None."""
    squares = between_squares(src, dst)
    if not squares:
        return None
    for sys in systems:
        if sys.is_star and (sys.row, sys.col) in squares:
            return sys.code
    return None


class ReportSight(Sight):
    """What the empire's report shows as the turn starts, and what its own
    earlier orders in the same mail may change (rules.md §17.1).

    ``known``: the systems whose position the empire knows; ``owned``: the
    ones it owns. Owners are known for the systems it sees now (its own and
    those within Scanner links), unless an earlier order of the mail may
    capture one (``captured``). A tech is known unless an earlier order buys
    it (``raised``) or may explore a system (``exploring``: exploration finds
    techs). Other empires' moves in the turn are not foreseen: the report
    shows the turn's start, and so does this sight.
    """

    def __init__(
        self,
        state: GameState,
        empire: str,
        known: Set[int],
        owned: Set[int],
        captured: Set[int],
        new_links: Set[tuple[int, int]],
        raised: Set[Tech],
        exploring: bool,
    ) -> None:
        super().__init__(state, empire)
        self.known = known
        self.owned = owned
        self.captured = captured
        self.new_links = new_links
        self.raised = raised
        self.exploring = exploring

    @cached_property
    def visible(self) -> frozenset[int]:
        return frozenset(visible_systems(self.state, self.empire))

    def sees(self, code: int) -> bool:
        return code in self.visible and code not in self.captured

    def tech(self, tech: Tech) -> int | None:
        if self.exploring or tech in self.raised:
            return None
        return super().tech(tech)

    def blocked(self, src: System, dst: System) -> bool | None:
        stars = (self.state.systems[c] for c in self.known if c in self.state.systems)
        if star_between(src, dst, list(stars)) is not None:
            return True
        # A square between may hold a star the report does not show.
        return None if between_squares(src, dst) else False

    def linked(self, a: int, b: int) -> bool | None:
        if link_key(a, b) in self.new_links:
            return None
        return self.state.linked(a, b)

    def full(self, code: int) -> bool | None:
        counted = [n for n in self.state.neighbours(code) if n in self.known]
        if len(counted) >= MAX_LINKS:
            return True  # links are never taken away
        mine = code in self.owned and not any(code in pair for pair in self.new_links)
        return False if mine else None

    def reserve(self) -> int | None:
        # LAYUP adds nothing that may come back this turn; earlier RESERVE lines take some.
        have = self.state.empires[self.empire].reserve
        return 0 if have <= 0 else None
