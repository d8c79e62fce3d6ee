"""The game state as the rules see it: plain dataclasses, no I/O.

Everything here is a value the engine reads and writes. The database, mail and
reports are built around these types (``turnproc.storage.convert`` is the one
place that maps them to rows); nothing in this module knows they exist.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TypeVar

__all__ = [
    "SystemType",
    "Stance",
    "Tech",
    "TECH_NAMES",
    "TECH_START",
    "MODULES",
    "RULESETS",
    "LATEST_RULESET",
    "techs_of",
    "V1_TECHS",
    "System",
    "Empire",
    "GameSettings",
    "GameState",
    "link_key",
    "normalise_tech_name",
]

_T = TypeVar("_T")


class SystemType(enum.StrEnum):
    """Star types (rules.md §2.1) plus planets and asteroid belts."""

    YD = "YD"  #: yellow dwarf
    WD = "WD"  #: white dwarf
    RD = "RD"  #: red dwarf
    BD = "BD"  #: black dwarf
    RG = "RG"  #: red giant
    SG = "SG"  #: super giant
    PL = "PL"  #: planet
    AB = "AB"  #: asteroid belt

    @property
    def is_star(self) -> bool:
        return self not in _SATELLITES

    @property
    def is_dwarf(self) -> bool:
        """Dwarfs are the star types a cruiser can pass without sticking (rules.md §7.1)."""
        return self in _DWARFS


# Sets, not tuples: is_star is asked hundreds of thousands of times a turn in a
# big galaxy, and a set lookup beats comparing enum members one by one.
_SATELLITES = frozenset({SystemType.PL, SystemType.AB})
_DWARFS = frozenset({SystemType.YD, SystemType.WD, SystemType.RD, SystemType.BD})

STAR_TYPES: tuple[SystemType, ...] = tuple(t for t in SystemType if t.is_star)


class Stance(enum.StrEnum):
    """A system's standing order (rules.md §6.17); persists from turn to turn."""

    DEFEND = "DEFEND"
    RETREAT = "RETREAT"
    AMBUSH = "AMBUSH"
    STANDOFF = "STANDOFF"


class Tech(enum.StrEnum):
    """Tech names as players write them in a TECH order (rules.md §3.4)."""

    WEAPONS = "WEAPONS"
    DEFENCE = "DEFENCE"
    MARINES = "MARINES"
    JUMP = "JUMP"
    EXPO = "EXPO"
    FIGHTER = "FIGHTER"
    SUPPLY = "SUPPLY"
    LIFE_SUPPORT = "LIFESUPPORT"
    BP_INCOME = "BPINCOME"
    TREASURY = "TREASURY"
    CULTURAL = "CULTURAL"
    DRIVE = "DRIVE"
    SCANNER = "SCANNER"
    # Rule set version 2 only (rules.md §19.1); declared last so that version 1's
    # walks over the first thirteen, in this order, draw the same dice as ever.
    PROBE = "PROBE"
    HYPERSPACE = "HYPERSPACE"
    RECOVERY = "RECOVERY"

    @classmethod
    def from_name(cls, text: str) -> Tech:
        """The tech ``text`` names, in any spelling of :data:`TECH_NAMES`.

        Raises ValueError (quoting ``text``) for anything else: both the order
        parser and the scenario reader have their own words for that mistake.
        """
        tech = TECH_NAMES.get(normalise_tech_name(text))
        if tech is None:
            raise ValueError(f"not a tech: {text!r}")
        return tech


def normalise_tech_name(text: str) -> str:
    """Upper case without white space, ``_``, ``-`` or ``.``: the key of :data:`TECH_NAMES`."""
    return re.sub(r"[\s_.\-]", "", text).upper()


def _tech_names() -> dict[str, Tech]:
    names = {normalise_tech_name(t.value): t for t in Tech}
    names.update({normalise_tech_name(t.name): t for t in Tech})
    names.update(
        {
            "WEAPON": Tech.WEAPONS,
            "DEFENSE": Tech.DEFENCE,
            "MARINE": Tech.MARINES,
            "EXPLORATION": Tech.EXPO,
            "FIGHTERS": Tech.FIGHTER,
            "LIFE": Tech.LIFE_SUPPORT,
            "LS": Tech.LIFE_SUPPORT,
            "BP": Tech.BP_INCOME,
            "INCOME": Tech.BP_INCOME,
            "CULTURE": Tech.CULTURAL,
            "CULTURALLEVEL": Tech.CULTURAL,  # as the rules' tech table spells it
            "SCANNERS": Tech.SCANNER,
            "PROBES": Tech.PROBE,
            "HYPER": Tech.HYPERSPACE,
            "RECOVER": Tech.RECOVERY,
        }
    )
    return names


#: Every accepted tech spelling, normalised (:func:`normalise_tech_name`), to its
#: tech; orders and scenario files accept the same ones.
TECH_NAMES: dict[str, Tech] = _tech_names()


#: Start levels from the tech table in rules.md §3.4.
TECH_START: dict[Tech, int] = {
    Tech.WEAPONS: 0,
    Tech.DEFENCE: 0,
    Tech.MARINES: 0,
    Tech.JUMP: 1,
    Tech.EXPO: 1,
    Tech.FIGHTER: 2,
    Tech.SUPPLY: 0,
    Tech.LIFE_SUPPORT: 5,
    Tech.BP_INCOME: 0,
    Tech.TREASURY: 0,
    Tech.CULTURAL: 0,
    Tech.DRIVE: 1,
    Tech.SCANNER: 1,
    Tech.PROBE: 1,
    Tech.HYPERSPACE: 0,
    Tech.RECOVERY: 0,
}

#: Rule-set versions a game can be created with (rules.md §19): 1 is rules.md §1–18,
#: 2 adds rules.md §19 and the corrections of rules.md §20.
RULESETS: tuple[int, ...] = (1, 2)
LATEST_RULESET = 2

#: The thirteen techs of rule set 1, in :class:`Tech` order.
V1_TECHS: tuple[Tech, ...] = tuple(Tech)[:13]
_V2_TECHS: tuple[Tech, ...] = tuple(Tech)


def techs_of(ruleset: int) -> tuple[Tech, ...]:
    """The techs a game of rule set ``ruleset`` has, in :class:`Tech` order
    (13 in version 1, 16 in version 2: rules.md §19.1)."""
    return V1_TECHS if ruleset < 2 else _V2_TECHS


#: The per-game rule modules (rules.md §16); all on by default.
MODULES: frozenset[str] = frozenset({"zoc", "pinning", "engage"})


def link_key(a: int, b: int) -> tuple[int, int]:
    """Links are undirected: store each one as (smaller code, larger code)."""
    return (a, b) if a < b else (b, a)


@dataclass
class System:
    """One star, planet or asteroid belt, with what stands in it.

    Ships only ever stand in systems their empire owns (rules.md §3.2), so the ship counts
    are the owner's forces there.
    """

    code: int
    """Numeric code players write in orders (100–999 for up to 900 systems)."""
    type: SystemType
    row: int
    """Grid row of the star (a planet or belt takes its star's square)."""
    col: int
    star: int | None = None
    """For a planet or belt, the code of the star it belongs to; else None."""
    name: str = ""
    owner: str | None = None
    """Empire code of the owner, or None while unowned."""
    pop: int = 0
    industry: int = 0
    cruisers: int = 0
    fighters: int = 0
    colony_ships: int = 0
    stance: Stance = Stance.DEFEND
    stance_target: int | None = None
    """RETREAT destination or AMBUSH source system."""
    retreat_parts: int = 1
    """RETREAT split into 1–3 parts (rules.md §11.3)."""
    ever_owned: bool = False
    """Exploration happens only on the first capture of a system (rules.md §12)."""
    home_slot: bool = False
    """A home star the generator set aside for an empire (claimed or not)."""

    @property
    def is_star(self) -> bool:
        return self.type not in _SATELLITES

    @property
    def position_star(self) -> int:
        """Code of the star whose square this system uses for distances."""
        return self.code if self.star is None else self.star

    @property
    def fleet(self) -> int:
        """Cruisers and fighters: the part of a defence battle can destroy."""
        return self.cruisers + self.fighters


@dataclass
class Empire:
    """An empire's standing: money, score and techs (rules.md §3).

    Contact details and passwords are not rules matters and live only in storage.
    """

    code: str
    name: str
    balance: int = 0
    """This turn's BPs; pays for actions."""
    treasury: int = 0
    """Pays for TECH; filled by STASH, GIFT and finds."""
    vp: int = 0
    techs: dict[Tech, int] = field(default_factory=lambda: dict(TECH_START))
    base: int | None = None
    """Where leftover BPs become cruisers."""
    home: int | None = None
    """Where leftover BPs become fighters."""
    lost_in_space: int = 0
    """Cruisers lost in space: hyperspace losses (rules.md §6.3) and, in rule set 2,
    half of the battle losses (rules.md §19.2); RECOVER brings them back."""
    reserve: int = 0
    """Cruisers laid up off the map (rule set 2, rules.md §19.2)."""
    active_probe: int | None = None
    """System of the empire's active probe (rule set 2, rules.md §19.5)."""
    inactive_probes: tuple[int, ...] = ()
    """Systems of its inactive probes, oldest first (a tuple: copies share it safely)."""
    active: bool = True
    missed_turns: int = 0
    """Turns in a row with no orders on file."""

    def tech(self, tech: Tech) -> int:
        return self.techs.get(tech, TECH_START[tech])


@dataclass(frozen=True)
class GameSettings:
    """Per-game switches the GM chooses when the game is created."""

    modules: frozenset[str] = MODULES
    turn_limit: int = 30
    vp_target: int = 100
    ruleset: int = 1
    """Rule-set version the game was created with (rules.md §19). The dataclass
    default is 1 so that states built before version 2 existed keep their rules;
    a new game asks for :data:`LATEST_RULESET`."""


@dataclass
class GameState:
    """The whole game between two turns."""

    turn: int
    """The turn whose orders are being collected (1 for a new game)."""
    systems: dict[int, System]
    links: frozenset[tuple[int, int]]
    """Undirected links, each stored once as :func:`link_key`. Links never change
    during a turn; assign a new frozenset to change them."""
    empires: dict[str, Empire]
    settings: GameSettings = field(default_factory=GameSettings)
    seen: dict[str, set[int]] = field(default_factory=dict)
    """Per empire, every system whose position it has ever seen (rules.md §14)."""
    finished: bool = False
    _adj_cache: tuple[frozenset[tuple[int, int]], dict[int, tuple[int, ...]], dict[str, object]] | None = (
        field(default=None, init=False, repr=False, compare=False)
    )

    def copy(self) -> GameState:
        """A deep copy: nothing the copy's holder changes shows in ``self``.

        Written out by hand, because ``copy.deepcopy`` of a 30,000-system game
        costs more than the rest of a turn's rules. Systems hold only immutable
        values, so a shallow copy of each is a deep one; an empire's ``techs``
        and the ``seen`` sets are the mutable parts, and get copies of their
        own. Links and settings are immutable and shared, and so is the
        adjacency cache, which belongs to the links object (see
        :meth:`_adjacency`). ``tests/rules/test_state_copy.py`` fails when a
        field is added, so that this is looked at again.
        """
        new = _shallow(self)
        new.systems = {code: _shallow(s) for code, s in self.systems.items()}
        new.empires = {code: _copy_empire(e) for code, e in self.empires.items()}
        new.seen = {code: set(codes) for code, codes in self.seen.items()}
        return new

    # -- links ---------------------------------------------------------------

    def adjacency(self) -> dict[int, tuple[int, ...]]:
        """Every system's :meth:`neighbours`, for walks over the whole galaxy
        (a method call per step costs more than the walk)."""
        return self._adjacency()

    def neighbours(self, code: int) -> tuple[int, ...]:
        """Codes linked to ``code``, ascending, so every walk over them is stable."""
        return self._adjacency().get(code, ())

    def linked(self, a: int, b: int) -> bool:
        return link_key(a, b) in self.links

    def _adjacency(self) -> dict[int, tuple[int, ...]]:
        # Keyed by the links object itself: links are a frozenset that is
        # replaced, never mutated, so a new object means a new map.
        if self._adj_cache is None or self._adj_cache[0] is not self.links:
            adj: dict[int, list[int]] = {code: [] for code in self.systems}
            for a, b in self.links:
                adj.setdefault(a, []).append(b)
                adj.setdefault(b, []).append(a)
            self._adj_cache = (self.links, {k: tuple(sorted(v)) for k, v in adj.items()}, {})
        return self._adj_cache[1]

    def links_memo(self) -> dict[str, object]:
        """Room for what follows from the links alone (and the systems, which
        no turn adds): kept with the adjacency map, and dropped with it when
        the links change, so the checks before and after a turn without a
        new link walk the galaxy once. Each key has one writer, which reads
        its own value back."""
        self._adjacency()
        assert self._adj_cache is not None
        return self._adj_cache[2]

    # -- ownership -----------------------------------------------------------

    def owned_by(self, empire: str) -> list[System]:
        """The empire's systems in code order (filter first: sorting a whole
        30,000-system galaxy per call is what made big games slow)."""
        return sorted((s for s in self.systems.values() if s.owner == empire), key=lambda s: s.code)

    def planets_of(self, star: int) -> list[System]:
        return sorted((s for s in self.systems.values() if s.star == star), key=lambda s: s.code)

    def has_module(self, name: str) -> bool:
        return name in self.settings.modules

    @property
    def v2(self) -> bool:
        """Whether the game plays rule set version 2 (rules.md §19, rules.md §20)."""
        return self.settings.ruleset >= 2

    @property
    def techs(self) -> tuple[Tech, ...]:
        """The techs of this game's rule set (:func:`techs_of`)."""
        return techs_of(self.settings.ruleset)


def _shallow(obj: _T) -> _T:
    """A new object of the same class with the same attribute values."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    return new


def _copy_empire(e: Empire) -> Empire:
    new = _shallow(e)
    new.techs = dict(e.techs)
    return new


def sorted_codes(codes: Iterable[int]) -> list[int]:
    return sorted(set(codes))
