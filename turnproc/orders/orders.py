"""Order types: what a parsed order mail is made of.

The one parser (``turnproc.orders.parser``) turns text into these; the
acknowledgement, the stored orders and the engine all use its output, so they
can never disagree about what an order means.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Required, TypedDict

from ..rules.state import Tech

__all__ = [
    "Action",
    "SLOT_FREE",
    "V2_ACTIONS",
    "STANCE_ACTIONS",
    "MAX_SLOTS",
    "MAX_NAMES",
    "Quantity",
    "Order",
    "Severity",
    "Problem",
    "MailCommand",
    "CommandLine",
    "Header",
    "SkipReason",
    "Skipped",
    "ParsedOrders",
    "QuantityDict",
    "OrderDict",
    "ProblemDict",
    "SkippedDict",
    "format_order",
    "slots_used",
]

MAX_SLOTS = 16
MAX_NAMES = 2


# What orders, problems and skipped stretches are as JSON (the order sets
# and acknowledgements stored); read back with each class's ``from_dict``.
class QuantityDict(TypedDict):
    count: int | None
    all_but: int


class OrderDict(TypedDict, total=False):
    """An :class:`Order`'s fields that are set: only ``line`` and ``action`` always are."""

    line: Required[int]
    action: Required[str]
    where: int
    to: int
    number: QuantityDict
    empire: str
    tech: str
    text: str


class ProblemDict(TypedDict):
    line: int
    code: str
    message: str
    severity: str
    text: str


class SkippedDict(TypedDict):
    first_line: int
    last_line: int
    reason: str


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
    # Rule set version 2 (rules.md §19).
    LAYUP = "LAYUP"
    RESERVE = "RESERVE"
    RECOVER = "RECOVER"
    BOMBARD = "BOMBARD"
    LINK = "LINK"
    PROBE = "PROBE"
    FIND = "FIND"
    TRADE = "TRADE"
    TAKE = "TAKE"


#: Each action by its text, for reading stored orders back (Order.from_dict).
_ACTIONS: dict[str, Action] = {a.value: a for a in Action}

#: Actions that use no slot (rules.md §4.1; PROBE lines: rules.md §19.5).
SLOT_FREE: frozenset[Action] = frozenset({Action.NAME, Action.MESSAGE, Action.PROBE})
#: Actions only a rule-set-2 game has (rules.md §19).
V2_ACTIONS: frozenset[Action] = frozenset(
    {
        Action.LAYUP,
        Action.RESERVE,
        Action.RECOVER,
        Action.BOMBARD,
        Action.LINK,
        Action.PROBE,
        Action.FIND,
        Action.TRADE,
        Action.TAKE,
    }
)
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

    def to_dict(self) -> QuantityDict:
        return {"count": self.count, "all_but": self.all_but}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Quantity:
        return cls(count=data.get("count"), all_but=int(data.get("all_but", 0)))


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
    """NUMBER field; for RETREAT the number of parts; for TRADE the level offered."""
    empire: str | None = None
    """GIFT recipient; MESSAGE recipient (None with MESSAGE means ALL); TRADE
    and TAKE partner."""
    tech: Tech | None = None
    text: str | None = None
    """NAME's new name or MESSAGE's text."""

    @property
    def uses_slot(self) -> bool:
        return self.action not in SLOT_FREE

    def to_dict(self) -> OrderDict:
        """JSON-safe: enums as their values, the NUMBER as :meth:`Quantity.to_dict`;
        fields left out are left out of the dict."""
        data: OrderDict = {"line": self.line, "action": self.action.value}
        if self.where is not None:
            data["where"] = self.where
        if self.to is not None:
            data["to"] = self.to
        if self.number is not None:
            data["number"] = self.number.to_dict()
        if self.empire is not None:
            data["empire"] = self.empire
        if self.tech is not None:
            data["tech"] = self.tech.value
        if self.text is not None:
            data["text"] = self.text
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Order:
        """The order :meth:`to_dict` gave ``data`` for; raises ValueError or
        KeyError on a dict it could not have given."""
        number = data.get("number")
        tech = data.get("tech")
        raw = data["action"]
        # A dict lookup first: calling the enum costs more than the rest of the
        # order, and a turn reads every empire's stored orders. Anything else
        # goes to the enum, which refuses it as before.
        action = _ACTIONS.get(raw) if isinstance(raw, str) else None
        # Every field set at once, past the frozen dataclass's __init__ (a
        # guarded setattr per field): a turn reads every empire's stored
        # orders back. tests/rules/test_fast_paths.py holds this to the
        # constructor, and fails when a field is added.
        order = object.__new__(cls)
        order.__dict__.update(
            line=int(data["line"]),
            action=action if action is not None else Action(raw),
            where=data.get("where"),
            to=data.get("to"),
            number=Quantity.from_dict(number) if number is not None else None,
            empire=data.get("empire"),
            tech=Tech(tech) if tech is not None else None,
            text=data.get("text"),
        )
        return order

    @classmethod
    def read(cls, line: int, action: Action, values: Mapping[str, object]) -> Order:
        """``Order(line=line, action=action, **values)`` for the parser, past
        the frozen constructor as :meth:`from_dict` is (a night's thousand
        turnsheets are some twenty thousand orders); ``values`` names only
        fields of Order (tests/rules/test_fast_paths.py holds this to the
        constructor)."""
        order = object.__new__(cls)
        # The unset fields' defaults first: the same fields, in the same order, as the constructor's.
        order.__dict__.update(_ORDER_DEFAULTS, line=line, action=action)
        order.__dict__.update(values)
        return order


#: Every field of Order by name, in order, with its default (line and action, which have none: None).
_ORDER_DEFAULTS: dict[str, object] = {
    f.name: None if f.default is MISSING else f.default for f in fields(Order)
}


def format_order(order: Order) -> str:
    """The canonical one-line form of ``order``; parsing it gives ``order`` back.

    The fields go in the order :class:`Order` declares them, which is the order
    every action writes them in (TECH's tech before its levels, MESSAGE's
    recipient before its text; ALL when a MESSAGE has none).
    """
    # ``_value_``: the plain attribute behind the enums' ``value`` descriptor,
    # read for every order of a turn.
    parts: list[str] = [order.action._value_]
    if order.tech is not None:
        parts.append(order.tech._value_)
    if order.where is not None:
        parts.append(str(order.where))
    if order.to is not None:
        parts.append(str(order.to))
    if order.empire is not None:
        parts.append(order.empire)
    elif order.action is Action.MESSAGE:
        parts.append("ALL")
    if order.number is not None:
        parts.append(str(order.number))
    if order.text is not None:
        parts.append(order.text)
    return " ".join(parts)


def slots_used(orders: Iterable[Order]) -> int:
    """How many of the (at most :data:`MAX_SLOTS`) action slots ``orders`` take (rules.md §4.1)."""
    return sum(1 for o in orders if o.uses_slot)


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

    def to_dict(self) -> ProblemDict:
        """JSON-safe, the severity as its value."""
        return {
            "line": self.line,
            "code": self.code,
            "message": self.message,
            "severity": self.severity.value,
            "text": self.text,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Problem:
        return cls(
            line=int(data["line"]),
            code=str(data["code"]),
            message=str(data["message"]),
            severity=Severity(data.get("severity", Severity.ERROR.value)),
            text=str(data.get("text", "")),
        )


class MailCommand(enum.StrEnum):
    """Commands an order mail may carry besides orders (the intake acts on them)."""

    REPORT = "REPORT"
    ORDERS = "ORDERS"
    CLEAR = "CLEAR"
    WAIT = "WAIT"
    HELP = "HELP"
    PASSWORD = "PASSWORD"
    ADDRESS = "ADDRESS"
    CONFIRM = "CONFIRM"
    VACATION = "VACATION"
    BACK = "BACK"
    QUIT = "QUIT"
    JOIN = "JOIN"


@dataclass(frozen=True)
class CommandLine:
    """One mail command line with what follows the keyword, already checked
    (:mod:`turnproc.orders.commands` says what each command takes)."""

    line: int
    command: MailCommand
    number: int | None = None
    """REPORT's turn (None: the latest), VACATION's number of turns."""
    text: str | None = None
    """PASSWORD's new password, ADDRESS's new address, CONFIRM's code, JOIN's game."""
    code: str | None = None
    """JOIN's empire code (upper case)."""
    name: str | None = None
    """JOIN's empire name."""

    def __repr__(self) -> str:
        # A new password must not end up in a log or a test failure's output.
        text = "'********'" if self.command is MailCommand.PASSWORD else repr(self.text)
        return (
            f"CommandLine(line={self.line}, command={self.command!r}, number={self.number!r}, "
            f"text={text}, code={self.code!r}, name={self.name!r})"
        )


@dataclass
class Header:
    game: str | None = None
    empire: str | None = None
    password: str | None = None
    turn: int | None = None
    line: int = 0
    """Line of the first header line seen (0 when there is none)."""


class SkipReason(enum.StrEnum):
    """Why lines of a mail were not read (stable codes; the acknowledgement words them)."""

    QUOTED = "quoted"
    """Lines starting with ``>``: text of a mail being replied to."""
    REPLY_HEADER = "reply_header"
    """From a mail program's reply line ("On ... wrote:", "-----Original Message-----",
    Outlook's From:/Sent: block) to the end: the mail being replied to."""
    HOST_REPORT = "host_report"
    """A copy of a mail of the host's (a report, a welcome, an acknowledgement, ...;
    or its order form's heading alone), pasted or forwarded back."""
    SIGNATURE = "signature"
    """From a signature line ``--`` to the end."""
    END = "end"
    """After the END line."""
    BEFORE_HEADER = "before_header"
    """Other text above the header (a greeting), or the whole mail when it has no header."""


@dataclass(frozen=True)
class Skipped:
    """A stretch of a mail that was not read, so the acknowledgement can say so."""

    first_line: int
    """First line not read (1-based, never a blank line)."""
    last_line: int
    """Last line not read (inclusive, never a blank line)."""
    reason: SkipReason

    def to_dict(self) -> SkippedDict:
        return {"first_line": self.first_line, "last_line": self.last_line, "reason": self.reason.value}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Skipped:
        return cls(int(data["first_line"]), int(data["last_line"]), SkipReason(data["reason"]))


@dataclass
class ParsedOrders:
    header: Header = field(default_factory=Header)
    orders: list[Order] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    commands: list[MailCommand] = field(default_factory=list)
    """Each mail command given, once, in order of first appearance."""
    command_lines: list[CommandLine] = field(default_factory=list)
    """Each command's line with its arguments, in the order of ``commands``;
    a command given again with other arguments: the later line."""
    skipped: list[Skipped] = field(default_factory=list)
    """What was not read, in line order (blank, comment and order lines are read)."""

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.WARNING]

    @property
    def slots_used(self) -> int:
        return slots_used(self.orders)

    def command(self, command: MailCommand) -> CommandLine | None:
        """The line that gave ``command``, None when the mail does not carry it."""
        return next((c for c in self.command_lines if c.command is command), None)
