"""Order types: what a parsed order mail is made of.

The one parser (``turnproc.rules.parser``) turns text into these; the
acknowledgement, the stored orders and the engine all use its output, so they
can never disagree about what an order means.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from .state import Tech

__all__ = [
    "Action",
    "SLOT_FREE",
    "STANCE_ACTIONS",
    "MAX_SLOTS",
    "MAX_NAMES",
    "Quantity",
    "Order",
    "Severity",
    "Problem",
    "MailCommand",
    "Header",
    "ParsedOrders",
]

MAX_SLOTS = 16
MAX_NAMES = 2


class Action(enum.StrEnum):
    MOVE = "MOVE"
    ASSAULT = "ASSAULT"
    DEEP = "DEEP"
    DISTSQ = "DISTSQ"
    MOVEF = "MOVEF"
    MOVECOL = "MOVECOL"
    NEWCRS = "NEWCRS"
    NEWFTR = "NEWFTR"
    NEWCOL = "NEWCOL"
    BUILD = "BUILD"
    GROW = "GROW"
    COLONISE = "COLONISE"
    SCRAPC = "SCRAPC"
    SCRAPF = "SCRAPF"
    TAX = "TAX"
    STASH = "STASH"
    CASH = "CASH"
    GIFT = "GIFT"
    TECH = "TECH"
    BASE = "BASE"
    HOME = "HOME"
    DEFEND = "DEFEND"
    RETREAT = "RETREAT"
    AMBUSH = "AMBUSH"
    STANDOFF = "STANDOFF"
    NAME = "NAME"
    MESSAGE = "MESSAGE"


#: Actions that use no slot (rules.md §4.1).
SLOT_FREE: frozenset[Action] = frozenset({Action.NAME, Action.MESSAGE})
#: Actions applied before slot 1 whatever slot they were written in (rules.md §4.1).
STANCE_ACTIONS: frozenset[Action] = frozenset(
    {Action.DEFEND, Action.RETREAT, Action.AMBUSH, Action.STANDOFF, Action.BASE, Action.HOME}
)


@dataclass(frozen=True)
class Quantity:
    """A NUMBER field: a count, ``ALL`` (also written ``0``), or ``AB-n``."""

    count: int | None = None
    """The number asked for; None means all (less ``all_but``)."""
    all_but: int = 0

    @classmethod
    def all(cls) -> Quantity:
        return cls()

    def of(self, available: int) -> int:
        """How many this asks for when ``available`` are there (never negative)."""
        if self.count is None:
            return max(0, available - self.all_but)
        return self.count

    def __str__(self) -> str:
        if self.count is not None:
            return str(self.count)
        return f"AB-{self.all_but}" if self.all_but else "ALL"


@dataclass(frozen=True)
class Order:
    """One valid order line, with its fields already typed."""

    line: int
    """Line number in the text it came from (1-based)."""
    action: Action
    where: int | None = None
    """First system field (WHERE / FROM)."""
    to: int | None = None
    """Second system field (TO)."""
    number: Quantity | None = None
    """NUMBER field; for RETREAT the number of parts."""
    empire: str | None = None
    """GIFT recipient; MESSAGE recipient (None with MESSAGE means ALL)."""
    tech: Tech | None = None
    text: str | None = None
    """NAME's new name or MESSAGE's text."""

    @property
    def uses_slot(self) -> bool:
        return self.action not in SLOT_FREE


class Severity(enum.StrEnum):
    ERROR = "error"
    """The line is not stored."""
    WARNING = "warning"
    """The line is stored, but the player should look at it."""


@dataclass(frozen=True)
class Problem:
    """A player's mistake, as data: stable ``code``, 1-based ``line``, plain words."""

    line: int
    code: str
    message: str
    severity: Severity = Severity.ERROR
    text: str = ""
    """The line as the player wrote it."""


class MailCommand(enum.StrEnum):
    """Commands an order mail may carry besides orders (the intake acts on them)."""

    REPORT = "REPORT"
    ORDERS = "ORDERS"
    CLEAR = "CLEAR"
    WAIT = "WAIT"


@dataclass
class Header:
    game: str | None = None
    empire: str | None = None
    password: str | None = None
    turn: int | None = None
    line: int = 0
    """Line of the first header line seen (0 when there is none)."""


@dataclass
class ParsedOrders:
    header: Header = field(default_factory=Header)
    orders: list[Order] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    commands: list[MailCommand] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.WARNING]

    @property
    def slots_used(self) -> int:
        return sum(1 for o in self.orders if o.uses_slot)
