"""The one order parser: order mail text -> :class:`~turnproc.rules.orders.ParsedOrders`.

Used by the mail acknowledgement and by the turn engine, so both always agree on
what a line means. Pure (standard library only) and it never raises on player
input: every mistake becomes a :class:`~turnproc.rules.orders.Problem` whose
``code`` is one of :data:`PROBLEMS`.

Decisions where the rulebook (rules.md §4.1, rules.md §6) leaves room (players read
them in docs/orders.md):

* **Where orders start.** :func:`parse_mail` starts at the first line whose first
  word is ``GAME`` or ``EMPIRE`` (so a report pasted above the header is
  ignored); ``TURN`` lines directly above that line (blank and comment lines
  between are fine) belong to the header too. With no GAME or EMPIRE line at
  all, nothing is read and ``missing_game`` / ``missing_empire`` are reported.
  :func:`parse_orders` reads from line 1 and accepts header lines too.
* **Header.** GAME, EMPIRE and TURN in any order. ``GAME`` takes the rest of the
  line as the game name; ``EMPIRE`` a 3-letter code and then the rest of the line
  as the password (case kept). Repeating a header line with the same value is
  harmless (game names compare ignoring case); a different value is the error
  ``conflicting_header`` and the first value is kept. A header line after the
  first order is still used (warning ``late_header``). Passwords are masked in
  ``Problem.text``. Problems that belong to no line (missing GAME or EMPIRE when
  there is no header line) have line 0.
* **Ignored lines.** Blank lines; lines whose first non-space character is ``>``
  (quoted) or ``#`` (comment). Comments run only whole lines: ``#`` later in a
  line is part of it. A line that is exactly ``--`` or ``-- `` (a signature) and a
  line whose first word is ``END`` end the orders; the rest is ignored.
* **Fields.** Separated by runs of spaces, tabs, commas or any other white
  space (non-breaking spaces included); keywords and codes are
  case-insensitive (ASCII only). ``-`` (also – or —) is an explicitly blank field,
  as on the turnsheet. If a line has more fields than the action uses, blank
  ones are dropped first; if it has fewer, the action's optional field is left
  out. So ``NEWCRS 101 5`` = ``NEWCRS 101 - 5`` builds 5 at 101, while
  ``NEWCRS 5`` = ``NEWCRS - - 5`` builds 5 at BASE (same for NEWFTR and NEWCOL:
  with one field it is always NUMBER; ``NEWCRS 101 -`` is missing NUMBER). With a
  game state, ``NEWCRS 101`` where 101 is your system is stored but warned
  about (``number_is_system``).
* **Numbers.** NUMBER is a whole number of at most 9 digits, ``0``/``ALL`` (all)
  or ``AB-n`` (all but n); every NUMBER field accepts all three. TECH's levels
  must be 1 or more and default to 1 (``TECH WEAPONS`` = ``TECH WEAPONS 1``);
  RETREAT's parts must be 1, 2 or 3 and default to 1. Both are stored as
  ``Quantity(count=k)``. System codes are 3-5 digits, 100 and up.
* **Techs** are accepted by their names in :class:`~turnproc.rules.state.Tech`
  and the aliases in :data:`TECH_ALIASES` (case, ``_``, ``-`` and ``.`` ignored);
  two-word forms like ``LIFE SUPPORT``, ``BP INCOME``, ``CULTURAL LEVEL`` work.
* **Text.** NAME takes the rest of the line after the system code, trimmed, case
  and inner spacing kept, 1 to 24 characters (more is ``name_too_long``).
  MESSAGE takes the rest of the line after ALL or the empire code, with trailing
  spaces removed, at most :data:`MAX_MESSAGE_LENGTH` characters. Text with
  control characters or line/paragraph separators is ``bad_text``. Leading
  commas before the text are separators, not text.
* **Keywords.** ``COLONIZE`` is accepted for COLONISE. The mail commands REPORT,
  ORDERS, CLEAR and WAIT stand alone on a line anywhere after the header; each is
  collected once, in order of first appearance.
* **Limits.** Only stored lines count: the 17th slot-using order is
  ``too_many_slots``, the 3rd NAME ``too_many_names`` (both errors). A second
  stance for the same system, a second BASE or HOME, a second NAME for the same
  system are stored with a warning: the later line wins.
* **State checks** run only when a state is given and the empire (argument, or
  the EMPIRE header) is in ``state.empires``. Every system code must be one the
  empire knows (owns or has seen), else ``unknown_system`` - the same words
  whether the system exists or not. Actions that need WHERE/FROM owned get
  ``not_owned``; but if an earlier stored MOVE, ASSAULT, DEEP or COLONISE throw in
  the same orders goes into that system, a slot action is kept with the warning
  ``not_owned_yet`` (stances, BASE, HOME and NAME need it owned at turn start).
  DEEP, DISTSQ and RETREAT may not target a planet or belt
  (``target_is_planet``). MOVE, ASSAULT, MOVEF, MOVECOL, COLONISE (throw),
  RETREAT and AMBUSH from a system you own must follow a link (``not_linked``;
  links never change during a turn). MOVEF, MOVECOL and RETREAT into a system you
  do not own now are warned about (``target_not_owned``). GIFT and MESSAGE
  need an empire of the game; GIFT not to yourself (``gift_to_self`` is checked
  whenever the empire is known); a MESSAGE to yourself is allowed. FROM and TO
  must differ for the moving actions, COLONISE, RETREAT and AMBUSH
  (``same_system``, a syntax check).
"""

from __future__ import annotations

import difflib
import enum
import re
import unicodedata
from dataclasses import dataclass, field
from collections.abc import Set
from typing import Any, NamedTuple

from .orders import (
    MAX_NAMES,
    MAX_SLOTS,
    STANCE_ACTIONS,
    Action,
    Header,
    MailCommand,
    Order,
    ParsedOrders,
    Problem,
    Quantity,
    Severity,
)
from .state import GameState, Tech

__all__ = [
    "Knowledge",
    "knowledge",
    "knowledge_all",
    "parse_mail",
    "parse_header",
    "parse_orders",
    "format_order",
    "PROBLEMS",
    "ProblemKind",
    "ACTION_SPECS",
    "ACTION_ALIASES",
    "ActionSpec",
    "FieldSpec",
    "FieldKind",
    "TECH_ALIASES",
    "MAX_NAME_LENGTH",
    "MAX_MESSAGE_LENGTH",
]

MAX_NAME_LENGTH = 24
MAX_MESSAGE_LENGTH = 1000


# -- problem codes ------------------------------------------------------------


@dataclass(frozen=True)
class ProblemKind:
    """One stable problem code: its severity and the message template."""

    severity: Severity
    template: str


_E = Severity.ERROR
_W = Severity.WARNING

#: Every problem code the parser emits. Codes are stable; templates may be reworded.
PROBLEMS: dict[str, ProblemKind] = {
    # header
    "missing_game": ProblemKind(_E, "No game name: your orders need a line GAME <game name>."),
    "missing_empire": ProblemKind(
        _E, "No empire: your orders need a line EMPIRE <code> <password>."
    ),
    "missing_password": ProblemKind(
        _E, "The EMPIRE line has no password: write EMPIRE {value} <password>."
    ),
    "bad_empire": ProblemKind(_E, "{value} is not an empire code (three letters, like ABC)."),
    "bad_turn": ProblemKind(_E, "{value} is not a turn number: write TURN <n>."),
    "wrong_turn": ProblemKind(
        _E, "These orders say TURN {value}, but the game is collecting orders for turn {turn}."
    ),
    "conflicting_header": ProblemKind(
        _E, "{keyword} was already given differently on line {other}; this line is ignored."
    ),
    "late_header": ProblemKind(
        _W, "{keyword} should come before the first order; it is used anyway."
    ),
    # syntax
    "unknown_action": ProblemKind(_E, "{value} is not an order or command.{hint}"),
    "missing_field": ProblemKind(_E, "{action} needs {field}: write {usage}."),
    "too_many_fields": ProblemKind(
        _E, "Too many fields for {action}: {value} is left over (write {usage})."
    ),
    "bad_number": ProblemKind(_E, "{value} is not {expect}."),
    "bad_parts": ProblemKind(
        _E, "{value} is not a number of parts: RETREAT splits into 1, 2 or 3 parts."
    ),
    "bad_system": ProblemKind(_E, "{value} is not a system code (codes are numbers like 101)."),
    "bad_text": ProblemKind(
        _E, "The {field} contains characters that cannot be printed (control characters)."
    ),
    "unknown_tech": ProblemKind(_E, "{value} is not a tech.{hint}"),
    "name_too_long": ProblemKind(
        _E, "The name {value} has {length} characters; a name may have at most {limit}."
    ),
    "message_too_long": ProblemKind(
        _E, "The message has {length} characters; a message may have at most {limit}."
    ),
    "same_system": ProblemKind(_E, "{action} from {value} to {value}: FROM and TO must differ."),
    # game state
    "unknown_system": ProblemKind(_E, "You know of no system {value}.{hint}"),
    "not_owned": ProblemKind(_E, "You do not own system {value}.{hint}"),
    "not_owned_yet": ProblemKind(
        _W,
        "You do not own system {value} yet: this works only if an earlier order captures it.",
    ),
    "target_is_planet": ProblemKind(
        _E, "{action} cannot go to {value}: it is a planet or asteroid belt."
    ),
    "not_linked": ProblemKind(_E, "{value} and {to} are not linked; {action} needs a link."),
    "target_not_owned": ProblemKind(
        _W, "You do not own system {value} now; {action} needs it to be yours when it runs."
    ),
    "unknown_empire": ProblemKind(_E, "There is no empire {value} in this game.{hint}"),
    "gift_to_self": ProblemKind(_E, "You cannot GIFT to your own empire."),
    "number_is_system": ProblemKind(
        _W,
        "{action} {value} builds {value} at your BASE; to build at system {value} "
        "write {action} {value} <number>.",
    ),
    # limits
    "too_many_slots": ProblemKind(
        _E,
        "You already have {limit} actions; this one is not taken "
        "(NAME and MESSAGE lines do not count).",
    ),
    "too_many_names": ProblemKind(
        _E, "You already have {limit} NAME lines; this one is not taken."
    ),
    "duplicate_stance": ProblemKind(
        _W, "System {value} already got a stance on line {other}; this later one wins."
    ),
    "duplicate_setting": ProblemKind(
        _W, "{action} was already set on line {other}; this later one wins."
    ),
    "duplicate_name": ProblemKind(
        _W, "System {value} was already named on line {other}; this later name wins."
    ),
}


# -- action table -------------------------------------------------------------


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


def _specs() -> dict[Action, ActionSpec]:
    a = Action
    move: dict[str, Any] = dict(owned=True, distinct=True, linked=True, captures=True)
    build = (FieldSpec("WHERE", _K.SYSTEM, "where", optional=True), _NUMBER)
    specs = [
        ActionSpec(a.MOVE, (_FROM, _TO, _NUMBER), **move),
        ActionSpec(a.ASSAULT, (_FROM, _TO, _NUMBER), **move),
        ActionSpec(
            a.DEEP, (_FROM, _TO, _NUMBER), owned=True, distinct=True, to_star=True, captures=True
        ),
        ActionSpec(a.DISTSQ, (_FROM, _TO), owned=True, to_star=True),
        ActionSpec(
            a.MOVEF, (_FROM, _TO, _NUMBER), owned=True, distinct=True, linked=True, to_owned=True
        ),
        ActionSpec(
            a.MOVECOL, (_FROM, _TO, _NUMBER), owned=True, distinct=True, linked=True, to_owned=True
        ),
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
        ActionSpec(a.STASH, (_NUMBER,)),
        ActionSpec(a.CASH, (_NUMBER,)),
        ActionSpec(a.GIFT, (FieldSpec("EMPIRE", _K.EMPIRE, "empire"), _NUMBER)),
        ActionSpec(
            a.TECH,
            (
                FieldSpec("TECH", _K.TECH, "tech"),
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
    ]
    return {s.action: s for s in specs}


#: One spec per action: its fields and checks.
ACTION_SPECS: dict[Action, ActionSpec] = _specs()
#: Other spellings accepted for action keywords.
ACTION_ALIASES: dict[str, Action] = {"COLONIZE": Action.COLONISE}

_STANCES = frozenset({Action.DEFEND, Action.RETREAT, Action.AMBUSH, Action.STANDOFF})
_SETTINGS = frozenset({Action.BASE, Action.HOME})
_HEADER_WORDS = ("GAME", "EMPIRE", "TURN")
_KEYWORDS: tuple[str, ...] = (
    tuple(a.value for a in Action)
    + tuple(ACTION_ALIASES)
    + tuple(c.value for c in MailCommand)
    + _HEADER_WORDS
    + ("END",)
)


def _norm_tech(word: str) -> str:
    return re.sub(r"[_.\-]", "", word.upper())


def _tech_aliases() -> dict[str, Tech]:
    aliases = {_norm_tech(t.value): t for t in Tech}
    aliases.update({_norm_tech(t.name): t for t in Tech})
    extra = {
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
        "CULTURALLEVEL": Tech.CULTURAL,
        "SCANNERS": Tech.SCANNER,
    }
    aliases.update(extra)
    return aliases


#: Accepted tech spellings, normalised (upper case, no ``_ - .``), to techs.
TECH_ALIASES: dict[str, Tech] = _tech_aliases()


# -- small helpers ------------------------------------------------------------

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_TOKEN = re.compile(r"[^\s,]+")
_SYSTEM_RE = re.compile(r"[1-9][0-9]{2,4}", re.ASCII)
_INT_RE = re.compile(r"[0-9]{1,9}", re.ASCII)
_ALL_BUT_RE = re.compile(r"AB-([0-9]{1,9})", re.ASCII | re.IGNORECASE)
_EMPIRE_RE = re.compile(r"[A-Za-z]{3}", re.ASCII)
_BLANKS = frozenset({"-", "\u2013", "\u2014"})
_BAD_TEXT_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
_QUOTE_MAX = 40
_EXPECT_NUMBER = "a number (a whole number, 0 or ALL for all, AB-n for all but n)"
_EXPECT_LEVELS = "a number of levels (1 or more)"


class _Token(NamedTuple):
    text: str
    start: int


def _tokens(line: str) -> list[_Token]:
    return [_Token(m.group(), m.start()) for m in _TOKEN.finditer(line)]


def _word(token: str) -> str:
    """Upper-cased keyword; non-ASCII words never match a keyword."""
    return token.upper() if token.isascii() else token


def _q(value: object) -> str:
    s = str(value)
    if len(s) > _QUOTE_MAX:
        s = s[: _QUOTE_MAX - 1] + "\u2026"
    return f'"{s}"'


def _close(word: str, candidates: list[str], cutoff: float = 0.7) -> list[str]:
    if not word or len(word) > _QUOTE_MAX:
        return []
    return list(dict.fromkeys(difflib.get_close_matches(word, candidates, n=3, cutoff=cutoff)))


def _hint(word: str, candidates: list[str], cutoff: float = 0.7) -> str:
    close = _close(word, candidates, cutoff)
    if not close:
        return ""
    return " Did you mean " + " or ".join(close) + "?"


def _action_hint(word: str) -> str:
    close = _close(word, list(_KEYWORDS))
    names = dict.fromkeys(ACTION_ALIASES[c].value if c in ACTION_ALIASES else c for c in close)
    return " Did you mean " + " or ".join(names) + "?" if names else ""


def _bad_text(text: str) -> bool:
    return any(
        unicodedata.category(ch) in _BAD_TEXT_CATEGORIES and ch != "\t" for ch in text
    )


def _is_blank(token: str) -> bool:
    return token in _BLANKS


# -- field parsing ------------------------------------------------------------

_ALL_SENTINEL = "\x00ALL"


class _FieldError(Exception):
    """Internal: a field did not parse (never leaves this module)."""

    def __init__(self, code: str, **kw: object) -> None:
        super().__init__(code)
        self.code = code
        self.kw = kw


def _parse_quantity(token: str) -> Quantity:
    upper = _word(token)
    if upper == "ALL":
        return Quantity()
    if _INT_RE.fullmatch(token):
        n = int(token)
        return Quantity() if n == 0 else Quantity(count=n)
    m = _ALL_BUT_RE.fullmatch(token)
    if m:
        return Quantity(all_but=int(m.group(1)))
    raise _FieldError("bad_number", value=_q(token), expect=_EXPECT_NUMBER)


def _parse_field(kind: FieldKind, token: str) -> object:
    if kind is FieldKind.SYSTEM:
        if _SYSTEM_RE.fullmatch(token):
            return int(token)
        raise _FieldError("bad_system", value=_q(token))
    if kind is FieldKind.QUANTITY:
        return _parse_quantity(token)
    if kind is FieldKind.LEVELS:
        if _INT_RE.fullmatch(token) and int(token) >= 1:
            return Quantity(count=int(token))
        raise _FieldError("bad_number", value=_q(token), expect=_EXPECT_LEVELS)
    if kind is FieldKind.PARTS:
        if _INT_RE.fullmatch(token) and 1 <= int(token) <= 3:
            return Quantity(count=int(token))
        raise _FieldError("bad_parts", value=_q(token))
    if kind is FieldKind.TECH:
        tech = TECH_ALIASES.get(_norm_tech(token)) if token.isascii() else None
        if tech is not None:
            return tech
        close = _close(_norm_tech(token), list(TECH_ALIASES)) if token.isascii() else []
        names = list(dict.fromkeys(TECH_ALIASES[c].value for c in close))
        if names:
            hint = " Did you mean " + " or ".join(names) + "?"
        else:
            hint = " Techs are " + ", ".join(t.value for t in Tech) + "."
        raise _FieldError("unknown_tech", value=_q(token), hint=hint)
    if kind is FieldKind.RECIPIENT and _word(token) == "ALL":
        return _ALL_SENTINEL
    # EMPIRE, RECIPIENT
    if _EMPIRE_RE.fullmatch(token):
        return token.upper()
    raise _FieldError("bad_empire", value=_q(token))


# -- the parser ---------------------------------------------------------------


@dataclass
class _Candidate:
    order: Order
    spec: ActionSpec
    text: str


@dataclass
class _Run:
    """Mutable state of one parse."""

    mail: bool
    result: ParsedOrders = field(default_factory=ParsedOrders)
    candidates: list[_Candidate] = field(default_factory=list)
    header_lines: dict[str, tuple[int, str]] = field(default_factory=dict)
    """Header keyword -> (line number, shown text) of the line that first set it."""
    header_seen: set[str] = field(default_factory=set)
    """Header keywords that appeared at all (even with a mistake)."""
    seen_action: bool = False

    def problem(self, line: int, code: str, text: str = "", **kw: object) -> None:
        kind = PROBLEMS[code]
        message = kind.template.format(**kw)
        self.result.problems.append(Problem(line, code, message, kind.severity, text))


def _split_lines(text: str) -> list[str]:
    lines = _LINE_BREAK.split(text)
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0].lstrip("\ufeff")
    return lines


def _first_word(line: str) -> str:
    stripped = line.strip()
    if not stripped or stripped[0] in ">#":
        return ""
    m = _TOKEN.search(line)
    return _word(m.group()) if m else ""


def _mail_start(lines: list[str]) -> int | None:
    """Index of the first header line of a mail, or None without GAME/EMPIRE."""
    for i, line in enumerate(lines):
        if _first_word(line) in ("GAME", "EMPIRE"):
            start = i
            for j in range(i - 1, -1, -1):
                stripped = lines[j].strip()
                if not stripped or stripped.startswith("#"):
                    continue
                if _first_word(lines[j]) == "TURN":
                    start = j
                    continue
                break
            return start
    return None


def _read_lines(run: _Run, lines: list[str], start: int) -> None:
    for index in range(start, len(lines)):
        line = lines[index]
        lineno = index + 1
        if line in ("--", "-- "):
            return
        stripped = line.strip()
        if not stripped or stripped[0] in ">#":
            continue
        tokens = _tokens(line)
        if not tokens:
            continue
        word = _word(tokens[0].text)
        if word == "END":
            return
        if word in _HEADER_WORDS:
            _read_header(run, lineno, line, word, tokens)
        elif word in MailCommand.__members__:
            if len(tokens) > 1:
                run.problem(
                    lineno, "too_many_fields", line,
                    action=word, value=_q(tokens[1].text), usage=word,
                )
            elif MailCommand(word) not in run.result.commands:
                run.result.commands.append(MailCommand(word))
        else:
            run.seen_action = True
            action = ACTION_ALIASES.get(word) or (
                Action(word) if word in Action.__members__ else None
            )
            if action is None:
                run.problem(
                    lineno, "unknown_action", line, value=_q(tokens[0].text),
                    hint=_action_hint(word),
                )
            else:
                _read_action(run, ACTION_SPECS[action], lineno, line, tokens)


def _read_header(run: _Run, lineno: int, line: str, word: str, tokens: list[_Token]) -> None:
    header = run.result.header
    run.header_seen.add(word)
    shown = line
    rest = line[tokens[1].start :].strip() if len(tokens) > 1 else ""
    values: dict[str, object]
    if word == "GAME":
        if not rest:
            run.problem(lineno, "missing_game", line)
            return
        values = {"game": rest}
    elif word == "EMPIRE":
        if len(tokens) < 2:
            run.problem(lineno, "missing_empire", line)
            return
        code = tokens[1].text
        password = line[tokens[2].start :].strip() if len(tokens) > 2 else ""
        if password:
            shown = line[: tokens[2].start] + "********"
        if not _EMPIRE_RE.fullmatch(code):
            run.problem(lineno, "bad_empire", shown, value=_q(code))
            return
        if not password and header.password is None:
            run.problem(lineno, "missing_password", line, value=code.upper())
        values = {"empire": code.upper()}
        if password:
            values["password"] = password
    else:
        if len(tokens) != 2 or not _INT_RE.fullmatch(tokens[1].text) or int(tokens[1].text) < 1:
            run.problem(lineno, "bad_turn", line, value=_q(rest))
            return
        values = {"turn": int(tokens[1].text)}

    def same(a: object, b: object) -> bool:
        if isinstance(a, str) and isinstance(b, str) and word == "GAME":
            return a.casefold() == b.casefold()
        return a == b

    old = {k: getattr(header, k) for k in values}
    if any(old[k] is not None and not same(old[k], v) for k, v in values.items()):
        run.problem(
            lineno, "conflicting_header", shown, keyword=word, other=run.header_lines[word][0]
        )
        return
    new = [k for k in values if old[k] is None]
    for k in new:
        setattr(header, k, values[k])
    run.header_lines.setdefault(word, (lineno, shown))
    if header.line == 0:
        header.line = lineno
    if new and run.seen_action and run.mail:
        run.problem(lineno, "late_header", shown, keyword=word)


def _merge_tech_words(args: list[_Token]) -> list[_Token]:
    """``TECH LIFE SUPPORT 2`` -> ``TECH LIFESUPPORT 2``."""
    if len(args) >= 2 and not _is_blank(args[1].text):
        joined = args[0].text + args[1].text
        if joined.isascii() and _norm_tech(joined) in TECH_ALIASES:
            return [_Token(joined, args[0].start)] + args[2:]
    return args


def _read_action(
    run: _Run, spec: ActionSpec, lineno: int, line: str, tokens: list[_Token]
) -> None:
    name = spec.action.value
    args = tokens[1:]
    if spec.action is Action.TECH:
        args = _merge_tech_words(args)
    fields = list(spec.fields)
    text: str | None = None
    if spec.text is not None:
        if len(args) > len(fields):
            text = line[args[len(fields)].start :]
        args = args[: len(fields)]
    words = [t.text for t in args]
    if len(words) > len(fields):
        words = [w for w in words if not _is_blank(w)]
        if len(words) > len(fields):
            run.problem(
                lineno, "too_many_fields", line, action=name, value=_q(words[len(fields)]),
                usage=spec.usage,
            )
            return
    while len(words) < len(fields) and any(f.optional for f in fields):
        fields.remove(next(f for f in fields if f.optional))

    values: dict[str, object] = {f.attr: f.default for f in spec.fields if f.optional}
    failed = False
    for i, f in enumerate(fields):
        word = words[i] if i < len(words) else None
        if word is None or _is_blank(word):
            if f.optional:
                continue
            run.problem(lineno, "missing_field", line, action=name, field=f.label, usage=spec.usage)
            return
        try:
            values[f.attr] = _parse_field(f.kind, word)
        except _FieldError as err:
            run.problem(lineno, err.code, line, **err.kw)
            failed = True
    if failed:
        return

    if spec.text is not None:
        ok = _check_text(run, spec, lineno, line, text)
        if ok is None:
            return
        values["text"] = ok
    if values.get("empire") == _ALL_SENTINEL:
        values["empire"] = None
    where, to = values.get("where"), values.get("to")
    if spec.distinct and where is not None and where == to:
        run.problem(lineno, "same_system", line, action=name, value=where)
        return
    order = Order(line=lineno, action=spec.action, **values)  # type: ignore[arg-type]
    run.candidates.append(_Candidate(order, spec, line))


def _check_text(
    run: _Run, spec: ActionSpec, lineno: int, line: str, text: str | None
) -> str | None:
    name = spec.action.value
    if spec.action is Action.NAME:
        value = (text or "").strip()
    else:
        value = (text or "").rstrip()
    if not value:
        run.problem(
            lineno, "missing_field", line, action=name, field=spec.text, usage=spec.usage
        )
        return None
    what = "name" if spec.action is Action.NAME else "message"
    if _bad_text(value):
        run.problem(lineno, "bad_text", line, field=what)
        return None
    limit = MAX_NAME_LENGTH if spec.action is Action.NAME else MAX_MESSAGE_LENGTH
    if len(value) > limit:
        code = "name_too_long" if spec.action is Action.NAME else "message_too_long"
        run.problem(lineno, code, line, value=_q(value), length=len(value), limit=limit)
        return None
    return value


# -- checks on the whole set of orders ----------------------------------------


@dataclass(frozen=True)
class Knowledge:
    """What an empire owns and knows at the start of the turn.

    Working it out walks every system; an intake that parses many mails from
    one empire against one state computes it once (:func:`knowledge`) and
    passes it to each parse.
    """

    state: GameState
    empire: str
    owned: frozenset[int]
    known: frozenset[int]


def knowledge(state: GameState, empire: str) -> Knowledge | None:
    if empire not in state.empires:
        return None
    owned = frozenset(c for c, s in state.systems.items() if s.owner == empire)
    seen = {c for c in state.seen.get(empire, set()) if c in state.systems}
    return Knowledge(state, empire, owned, owned | seen)


def knowledge_all(state: GameState) -> dict[str, Knowledge]:
    """:func:`knowledge` of every empire, in one walk over the systems (a turn
    parses every empire's orders: one walk each would be quadratic)."""
    owned: dict[str, set[int]] = {code: set() for code in state.empires}
    for c, s in state.systems.items():
        if s.owner in owned:
            owned[s.owner].add(c)
    result = {}
    for code, mine in owned.items():
        seen = {c for c in state.seen.get(code, set()) if c in state.systems}
        result[code] = Knowledge(state, code, frozenset(mine), frozenset(mine | seen))
    return result


@dataclass
class _Context:
    state: GameState | None
    empire: str | None
    owned: Set[int] = field(default_factory=frozenset)
    known: Set[int] = field(default_factory=frozenset)
    captured: set[int] = field(default_factory=set)


def _context(state: GameState | None, empire: str | None, known: Knowledge | None = None) -> _Context:
    if state is None or empire is None or empire not in state.empires:
        return _Context(None, empire)
    if known is None or known.state is not state or known.empire != empire:
        known = knowledge(state, empire)
    assert known is not None
    return _Context(state, empire, known.owned, known.known)


def _codes_hint(code: int, pool: Set[int]) -> str:
    return _hint(str(code), [str(c) for c in sorted(pool)], cutoff=0.6)


def _state_checks(run: _Run, ctx: _Context, cand: _Candidate) -> bool:
    """Problems that need the game state; True when the order may be stored."""
    o, spec, line, name = cand.order, cand.spec, cand.text, cand.order.action.value
    ok = True

    def add(code: str, **kw: object) -> None:
        nonlocal ok
        run.problem(o.line, code, line, **kw)
        if PROBLEMS[code].severity is Severity.ERROR:
            ok = False

    if ctx.empire is not None and o.action is Action.GIFT and o.empire == ctx.empire:
        add("gift_to_self")
    state = ctx.state
    if state is None:
        return ok
    unknown: set[str] = set()
    for f in spec.fields:
        value = getattr(o, f.attr)
        if f.kind is FieldKind.SYSTEM and value is not None and value not in ctx.known:
            add("unknown_system", value=value, hint=_codes_hint(value, ctx.known))
            unknown.add(f.attr)
    where, to = o.where, o.to
    if spec.owned and where is not None and "where" not in unknown and where not in ctx.owned:
        early = o.action in STANCE_ACTIONS or o.action is Action.NAME
        if where in ctx.captured and not early:
            add("not_owned_yet", value=where)
        else:
            add("not_owned", value=where, hint=_codes_hint(where, ctx.owned))
    if to is not None and "to" not in unknown:
        if spec.to_star and not state.systems[to].is_star:
            add("target_is_planet", action=name, value=to)
        if spec.linked and where is not None and where in ctx.owned and not state.linked(where, to):
            add("not_linked", action=name, value=where, to=to)
        if spec.to_owned and to not in ctx.owned and to not in ctx.captured:
            add("target_not_owned", action=name, value=to)
    if o.action in (Action.GIFT, Action.MESSAGE) and o.empire is not None:
        if o.empire not in state.empires:
            hint = _hint(o.empire, list(state.empires), cutoff=0.6)
            add("unknown_empire", value=_q(o.empire), hint=hint)
    first = spec.fields[0] if spec.fields else None
    if (
        first is not None
        and first.optional
        and first.attr == "where"
        and where is None
        and o.number is not None
        and o.number.count in ctx.owned
    ):
        add("number_is_system", action=name, value=o.number.count)
    return ok


def _finish(run: _Run, ctx: _Context) -> None:
    """State checks, limits and duplicates, in line order; stores the orders."""
    slots = names = 0
    stances: dict[int, int] = {}
    settings: dict[Action, int] = {}
    named: dict[int, int] = {}
    for cand in run.candidates:
        o = cand.order
        if not _state_checks(run, ctx, cand):
            continue
        if o.uses_slot:
            if slots >= MAX_SLOTS:
                run.problem(o.line, "too_many_slots", cand.text, limit=MAX_SLOTS)
                continue
            slots += 1
        if o.action is Action.NAME:
            if names >= MAX_NAMES:
                run.problem(o.line, "too_many_names", cand.text, limit=MAX_NAMES)
                continue
            names += 1
        if o.action in _STANCES and o.where is not None:
            if o.where in stances:
                run.problem(
                    o.line, "duplicate_stance", cand.text, value=o.where, other=stances[o.where]
                )
            stances[o.where] = o.line
        if o.action in _SETTINGS:
            if o.action in settings:
                run.problem(
                    o.line, "duplicate_setting", cand.text, action=o.action.value,
                    other=settings[o.action],
                )
            settings[o.action] = o.line
        if o.action is Action.NAME and o.where is not None:
            if o.where in named:
                run.problem(
                    o.line, "duplicate_name", cand.text, value=o.where, other=named[o.where]
                )
            named[o.where] = o.line
        run.result.orders.append(o)
        if cand.spec.captures and o.to is not None:
            ctx.captured.add(o.to)


def _parse(
    text: str, state: GameState | None, empire: str | None, mail: bool, known: Knowledge | None = None
) -> ParsedOrders:
    run = _Run(mail=mail)
    lines = _split_lines(text)
    start = _mail_start(lines) if mail else 0
    if start is not None:
        _read_lines(run, lines, start)
    header = run.result.header
    if mail:
        if "GAME" not in run.header_seen:
            run.problem(header.line, "missing_game")
        if "EMPIRE" not in run.header_seen:
            run.problem(header.line, "missing_empire")
    if state is not None and header.empire is not None and header.empire not in state.empires:
        line, shown = run.header_lines["EMPIRE"]
        run.problem(line, "unknown_empire", shown, value=_q(header.empire), hint="")
    if state is not None and header.turn is not None and header.turn != state.turn:
        line, shown = run.header_lines["TURN"]
        run.problem(line, "wrong_turn", shown, value=header.turn, turn=state.turn)
    code = empire.upper() if empire is not None else header.empire
    _finish(run, _context(state, code, known))
    run.result.problems.sort(key=lambda p: p.line)
    return run.result


# -- public API ---------------------------------------------------------------


def parse_mail(
    text: str, state: GameState | None = None, empire: str | None = None, known: Knowledge | None = None
) -> ParsedOrders:
    """Parse a whole order mail: header, orders and mail commands.

    Without ``empire`` the EMPIRE header's code is used for the state checks.
    ``known`` (from :func:`knowledge`) saves working out the empire's
    knowledge again when many mails are parsed against one state.
    """
    return _parse(text, state, empire, mail=True, known=known)


def parse_orders(
    lines_text: str, state: GameState | None = None, empire: str | None = None, known: Knowledge | None = None
) -> ParsedOrders:
    """Parse order lines (no header needed; header lines are accepted too)."""
    return _parse(lines_text, state, empire, mail=False, known=known)


def parse_header(text: str) -> Header:
    """Just the mail's header (GAME, EMPIRE, TURN): what intake needs to find
    the game and check the password before the orders are read against the
    game. Gives the same header as :func:`parse_mail`."""
    lines = _split_lines(text)
    start = _mail_start(lines)
    if start is None:
        return Header()
    stop = start
    while stop < len(lines):
        stripped = lines[stop].strip()
        if stripped and not stripped.startswith(("#", ">")) and _first_word(lines[stop]) not in _HEADER_WORDS:
            break
        stop += 1
    if any(_first_word(line) in _HEADER_WORDS for line in lines[stop:]):
        # A header line after the first order still counts (late_header), and
        # END or a signature may hide it again: only the whole parse knows.
        return _parse(text, None, None, mail=True).header
    return _parse("\n".join(lines[:stop]), None, None, mail=True).header


def format_order(order: Order) -> str:
    """The canonical one-line form of ``order``; parsing it gives ``order`` back."""
    spec = ACTION_SPECS[order.action]
    words = [order.action.value]
    for f in spec.fields:
        value = getattr(order, f.attr)
        if f.kind is FieldKind.RECIPIENT:
            words.append(value or "ALL")
        elif value is None:
            if not f.optional:
                words.append("-")
        elif isinstance(value, Tech):
            words.append(value.value)
        else:
            words.append(str(value))
    if spec.text is not None and order.text:
        words.append(order.text)
    return " ".join(words)
