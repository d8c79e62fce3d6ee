"""How each order is written: the action table the parser reads lines with.

One :class:`ActionSpec` per action gives its fields, in the order players
write them, and which game-state checks apply (rules.md §4, rules.md §6).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TypedDict

from .orders import Action, MailCommand, Quantity

__all__ = [
    "ACTION_ALIASES",
    "ACTION_SPECS",
    "ActionSpec",
    "FieldKind",
    "FieldSpec",
    "HEADER_WORDS",
    "KEYWORDS",
    "MAX_MESSAGE_LENGTH",
    "MAX_NAME_LENGTH",
    "SETTINGS",
    "STANCES",
]

MAX_NAME_LENGTH = 24
MAX_MESSAGE_LENGTH = 1000


class FieldKind(enum.Enum):
    SYSTEM = "system"
    QUANTITY = "quantity"
    """A NUMBER: count, 0/ALL or AB-n."""
    LEVELS = "levels"
    """TECH levels: 1 or more."""
    PARTS = "parts"
    """RETREAT parts: 1-3."""
    TECH = "tech"
    EMPIRE = "empire"
    RECIPIENT = "recipient"
    """ALL or an empire code (MESSAGE)."""


@dataclass(frozen=True)
class FieldSpec:
    label: str
    """What the player calls it (used in messages)."""
    kind: FieldKind
    attr: str
    """The :class:`Order` attribute it fills."""
    optional: bool = False
    default: Quantity | None = None
    """Value when left out or blank (optional fields only)."""


@dataclass(frozen=True)
class ActionSpec:
    """How one action is written and which checks apply to it."""

    action: Action
    fields: tuple[FieldSpec, ...] = ()
    text: str | None = None
    """Label of a free-text tail (NAME, MESSAGE), taken after the fields."""
    owned: bool = False
    """WHERE/FROM must be the empire's."""
    distinct: bool = False
    """WHERE/FROM and TO must differ."""
    linked: bool = False
    """WHERE/FROM and TO must be linked."""
    to_star: bool = False
    """TO may not be a planet or belt."""
    to_owned: bool = False
    """TO should be the empire's (warning only)."""
    captures: bool = False
    """A successful order makes TO the empire's."""

    @property
    def usage(self) -> str:
        words = [self.action.value]
        words += [f"[{f.label}]" if f.optional else f.label for f in self.fields]
        if self.text:
            words.append(self.text)
        return " ".join(words)


_K = FieldKind
_FROM = FieldSpec("FROM", _K.SYSTEM, "where")
_TO = FieldSpec("TO", _K.SYSTEM, "to")
_WHERE = FieldSpec("WHERE", _K.SYSTEM, "where")
_NUMBER = FieldSpec("NUMBER", _K.QUANTITY, "number")
_TECH = FieldSpec("TECH", _K.TECH, "tech")
_EMPIRE = FieldSpec("EMPIRE", _K.EMPIRE, "empire")


class _MoveChecks(TypedDict):
    """What the orders that move cruisers share (:class:`ActionSpec`'s checks)."""

    owned: bool
    distinct: bool
    linked: bool
    captures: bool


def _specs() -> dict[Action, ActionSpec]:
    a = Action
    move = _MoveChecks(owned=True, distinct=True, linked=True, captures=True)
    build = (FieldSpec("WHERE", _K.SYSTEM, "where", optional=True), _NUMBER)
    specs = [
        ActionSpec(a.MOVE, (_FROM, _TO, _NUMBER), **move),
        ActionSpec(a.ASSAULT, (_FROM, _TO, _NUMBER), **move),
        ActionSpec(a.DEEP, (_FROM, _TO, _NUMBER), owned=True, distinct=True, to_star=True, captures=True),
        ActionSpec(a.DISTSQ, (_FROM, _TO), owned=True, to_star=True),
        ActionSpec(a.MOVEF, (_FROM, _TO, _NUMBER), owned=True, distinct=True, linked=True, to_owned=True),
        ActionSpec(a.MOVECOL, (_FROM, _TO, _NUMBER), owned=True, distinct=True, linked=True, to_owned=True),
        ActionSpec(a.NEWCRS, build, owned=True),
        ActionSpec(a.NEWFTR, build, owned=True),
        ActionSpec(a.NEWCOL, build, owned=True),
        ActionSpec(a.BUILD, (_WHERE, _NUMBER), owned=True),
        ActionSpec(a.GROW, (_WHERE, _NUMBER), owned=True),
        ActionSpec(
            a.COLONISE,
            (_WHERE, FieldSpec("TO", _K.SYSTEM, "to", optional=True)),
            owned=True,
            distinct=True,
            linked=True,
            captures=True,
        ),
        ActionSpec(a.SCRAPC, (_WHERE, _NUMBER), owned=True),
        ActionSpec(a.SCRAPF, (_WHERE, _NUMBER), owned=True),
        ActionSpec(a.TAX),
        # Rule set 2 lets STASH leave its number out as action 16 (rules.md §19.7);
        # the state checks refuse that in a version-1 game.
        ActionSpec(a.STASH, (FieldSpec("NUMBER", _K.QUANTITY, "number", optional=True),)),
        ActionSpec(a.CASH, (_NUMBER,)),
        ActionSpec(a.GIFT, (_EMPIRE, _NUMBER)),
        ActionSpec(
            a.TECH,
            (
                _TECH,
                FieldSpec("LEVELS", _K.LEVELS, "number", optional=True, default=Quantity(1)),
            ),
        ),
        ActionSpec(a.BASE, (_WHERE,), owned=True),
        ActionSpec(a.HOME, (_WHERE,), owned=True),
        ActionSpec(a.DEFEND, (_WHERE,), owned=True),
        ActionSpec(
            a.RETREAT,
            (_WHERE, _TO, FieldSpec("PARTS", _K.PARTS, "number", True, Quantity(1))),
            owned=True,
            distinct=True,
            linked=True,
            to_star=True,
            to_owned=True,
        ),
        ActionSpec(
            a.AMBUSH,
            (_WHERE, FieldSpec("FROM", _K.SYSTEM, "to")),
            owned=True,
            distinct=True,
            linked=True,
        ),
        ActionSpec(a.STANDOFF, (_WHERE,), owned=True),
        ActionSpec(a.NAME, (_WHERE,), text="TEXT", owned=True),
        ActionSpec(a.MESSAGE, (FieldSpec("ALL|EMPIRE", _K.RECIPIENT, "empire"),), text="TEXT"),
        # Rule set 2 (rules.md §19).
        ActionSpec(a.LAYUP, (_WHERE, _NUMBER), owned=True),
        ActionSpec(a.RESERVE, (_WHERE, _NUMBER), owned=True),
        ActionSpec(a.RECOVER, (_WHERE, _NUMBER), owned=True),
        ActionSpec(a.BOMBARD, (_FROM, _TO), owned=True, distinct=True, linked=True),
        ActionSpec(a.LINK, (_FROM, _TO), owned=True, distinct=True, to_star=True),
        ActionSpec(a.PROBE, (FieldSpec("TARGET", _K.SYSTEM, "where"),)),
        ActionSpec(a.FIND, (_WHERE,), owned=True),
        ActionSpec(
            a.TRADE,
            (
                _TECH,
                _EMPIRE,
                FieldSpec("LEVEL", _K.LEVELS, "number", optional=True),
            ),
        ),
        ActionSpec(a.TAKE, (_TECH, _EMPIRE)),
    ]
    return {s.action: s for s in specs}


#: One spec per action: its fields and checks.
ACTION_SPECS: dict[Action, ActionSpec] = _specs()
#: Other spellings accepted for action keywords.
ACTION_ALIASES: dict[str, Action] = {"COLONIZE": Action.COLONISE}

#: Stances: a second one for the same system replaces the first.
STANCES = frozenset({Action.DEFEND, Action.RETREAT, Action.AMBUSH, Action.STANDOFF})
#: Empire settings: a second one replaces the first.
SETTINGS = frozenset({Action.BASE, Action.HOME})
#: Keywords of the mail header.
HEADER_WORDS = ("GAME", "EMPIRE", "TURN")
#: Every keyword a line may start with (for "did you mean" hints).
KEYWORDS: tuple[str, ...] = (
    tuple(a.value for a in Action)
    + tuple(ACTION_ALIASES)
    + tuple(c.value for c in MailCommand)
    + HEADER_WORDS
    + ("END",)
)
