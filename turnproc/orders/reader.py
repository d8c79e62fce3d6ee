"""Reading order text line by line: tokens, fields, header and action lines.

This is the first half of a parse: it turns each line into a candidate order
or a problem, using only the text. The checks against the game state and the
limits on the whole set of orders come after (:mod:`turnproc.rules.checks`).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field
from typing import NamedTuple

from ..rules.state import TECH_NAMES, Tech, normalise_tech_name
from .commands import MASK, read_command
from .grammar import (
    ACTION_ALIASES,
    ACTION_SPECS,
    HEADER_WORDS,
    KEYWORDS,
    MAX_MESSAGE_LENGTH,
    MAX_NAME_LENGTH,
    ActionSpec,
    FieldKind,
)
from .mailshape import bracketed_password, copy_end, first_word, is_placeholder, mobile_signature
from .orders import Action, CommandLine, MailCommand, Order, ParsedOrders, Quantity, Skipped, SkipReason
from .problems import make_problem

__all__ = [
    "Candidate",
    "Run",
    "did_you_mean",
    "first_word",
    "quote",
    "read_lines",
    "split_lines",
]

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


_new_token = tuple.__new__


def _tokens(line: str) -> list[_Token]:
    """The line's runs of characters other than whitespace and commas
    (``_TOKEN``), with where each starts."""
    # Every line of every mail is read into tokens (a header's twice): a line
    # without a comma is split by str.split, whose whitespace is the regular
    # expression's \s (tests/rules/test_fast_paths.py), and each token is
    # made by tuple.__new__, past the named tuple's own __new__.
    if "," in line:
        return [_new_token(_Token, (m.group(), m.start())) for m in _TOKEN.finditer(line)]
    tokens: list[_Token] = []
    find, at = line.find, 0
    for word in line.split():
        at = find(word, at)
        tokens.append(_new_token(_Token, (word, at)))
        at += len(word)
    return tokens


def _word(token: str) -> str:
    """Upper-cased keyword; non-ASCII words never match a keyword."""
    return token.upper() if token.isascii() else token


def quote(value: object) -> str:
    s = str(value)
    if len(s) > _QUOTE_MAX:
        s = s[: _QUOTE_MAX - 1] + "\u2026"
    return f'"{s}"'


def _close(word: str, candidates: list[str], cutoff: float = 0.7) -> list[str]:
    if not word or len(word) > _QUOTE_MAX:
        return []
    return list(dict.fromkeys(difflib.get_close_matches(word, candidates, n=3, cutoff=cutoff)))


def did_you_mean(word: str, candidates: list[str], cutoff: float = 0.7) -> str:
    close = _close(word, candidates, cutoff)
    if not close:
        return ""
    return " Did you mean " + " or ".join(close) + "?"


def _action_hint(word: str) -> str:
    close = _close(word, list(KEYWORDS))
    names = dict.fromkeys(ACTION_ALIASES[c].value if c in ACTION_ALIASES else c for c in close)
    return " Did you mean " + " or ".join(names) + "?" if names else ""


def _bad_text(text: str) -> bool:
    # U+FFFD: a character the mail could not carry (a NUL, or bytes of no charset).
    return "\ufffd" in text or any(
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


def _tech(word: str) -> Tech | None:
    # Only ASCII: str.upper() maps a few other letters (dotless i, long s) onto
    # ASCII ones, and a tech's name should not hide in look-alike letters.
    if not word.isascii():
        return None
    try:
        return Tech.from_name(word)
    except ValueError:
        return None


#: Quantities are frozen: the common ones are made once, not for every order
#: (a frozen dataclass sets each field through object.__setattr__).
_ALL = Quantity()
_COUNTS = [_ALL, *(Quantity(count=n) for n in range(1, 100))]


def _count(n: int) -> Quantity:
    """``Quantity(count=n)`` (n >= 1)."""
    return _COUNTS[n] if n < len(_COUNTS) else Quantity(count=n)


def _parse_quantity(token: str) -> Quantity:
    upper = _word(token)
    if upper == "ALL":
        return _ALL
    if _INT_RE.fullmatch(token):
        n = int(token)
        return _ALL if n == 0 else _count(n)
    m = _ALL_BUT_RE.fullmatch(token)
    if m:
        return Quantity(all_but=int(m.group(1)))
    raise _FieldError("bad_number", value=quote(token), expect=_EXPECT_NUMBER)


def _parse_field(kind: FieldKind, token: str) -> object:
    if kind is FieldKind.SYSTEM:
        if _SYSTEM_RE.fullmatch(token):
            return int(token)
        raise _FieldError("bad_system", value=quote(token))
    if kind is FieldKind.QUANTITY:
        return _parse_quantity(token)
    if kind is FieldKind.LEVELS:
        if _INT_RE.fullmatch(token) and int(token) >= 1:
            return _count(int(token))
        raise _FieldError("bad_number", value=quote(token), expect=_EXPECT_LEVELS)
    if kind is FieldKind.PARTS:
        if _INT_RE.fullmatch(token) and 1 <= int(token) <= 3:
            return _count(int(token))
        raise _FieldError("bad_parts", value=quote(token))
    if kind is FieldKind.TECH:
        tech = _tech(token)
        if tech is not None:
            return tech
        close = _close(normalise_tech_name(token), list(TECH_NAMES)) if token.isascii() else []
        names = list(dict.fromkeys(TECH_NAMES[c].value for c in close))
        if names:
            hint = " Did you mean " + " or ".join(names) + "?"
        else:
            hint = " Techs are " + ", ".join(t.value for t in Tech) + "."
        raise _FieldError("unknown_tech", value=quote(token), hint=hint)
    if kind is FieldKind.RECIPIENT and _word(token) == "ALL":
        return _ALL_SENTINEL
    # EMPIRE, RECIPIENT
    if _EMPIRE_RE.fullmatch(token):
        return token.upper()
    raise _FieldError("bad_empire", value=quote(token))


# -- the parser ---------------------------------------------------------------

_COMMAND_WORDS = frozenset(MailCommand.__members__)
#: The action a line's first word names: by its name, or by an alias (which
#: wins). Looked up once per line; Enum.__members__ builds a new mapping per call.
_ACTION_WORDS: dict[str, Action] = {**{name: Action(name) for name in Action.__members__}, **ACTION_ALIASES}


@dataclass
class Candidate:
    order: Order
    spec: ActionSpec
    text: str


@dataclass
class Run:
    """Mutable state of one parse."""

    mail: bool
    result: ParsedOrders = field(default_factory=ParsedOrders)
    candidates: list[Candidate] = field(default_factory=list)
    header_lines: dict[str, tuple[int, str]] = field(default_factory=dict)
    """Header keyword -> (line number, shown text) of the line that first set it."""
    header_seen: set[str] = field(default_factory=set)
    """Header keywords that appeared at all (even with a mistake)."""
    seen_action: bool = False

    def problem(self, line: int, code: str, text: str = "", **kw: object) -> None:
        self.result.problems.append(make_problem(line, code, text, **kw))


def split_lines(text: str) -> list[str]:
    lines = _LINE_BREAK.split(text)
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0].lstrip("\ufeff")
    return lines


def read_lines(
    run: Run, lines: list[str], start: int, marks: list[SkipReason | None] | None = None
) -> tuple[int, SkipReason] | None:
    """Read from ``start`` until the orders end; quoted stretches in between go
    to ``run.result.skipped``. Returns where reading stopped (the index of the
    first line not read) and why, or None at the end of the text. Without
    ``marks`` (order lines, not a mail) only quoted lines, END and a signature
    are recognised."""
    quoting = False  # the last non-blank line was quoted: a quoted line joins its stretch
    resume = start  # after a copy of the host's mail: reading goes on below it
    for index in range(start, len(lines)):
        if index < resume:
            continue
        line = lines[index]
        lineno = index + 1
        mark = marks[index] if marks is not None else None
        if line in ("--", "-- "):
            return index, SkipReason.SIGNATURE
        if mark is SkipReason.REPLY_HEADER:
            return index, mark
        if mark is SkipReason.HOST_REPORT and marks is not None:
            # The host's own mail pasted among the player's lines: none of it is
            # read, and the player's lines below it are.
            resume = copy_end(lines, marks, index)
            filled = [i for i in range(index, resume) if lines[i].strip()]
            if filled:  # a blank line marked as part of a copy: nothing to report skipped
                run.result.skipped.append(Skipped(lineno, filled[-1] + 1, SkipReason.HOST_REPORT))
            quoting = False
            continue
        stripped = line.strip()
        if stripped.startswith(">"):
            skipped = run.result.skipped
            if quoting:
                skipped[-1] = Skipped(skipped[-1].first_line, lineno, SkipReason.QUOTED)
            else:
                skipped.append(Skipped(lineno, lineno, SkipReason.QUOTED))
            quoting = True
            continue
        if not stripped:
            continue
        quoting = False
        if stripped[0] == "#":
            continue
        tokens = _tokens(line)
        if not tokens:
            continue
        word = _word(tokens[0].text)
        if word == "END":
            return index + 1, SkipReason.END
        if word in HEADER_WORDS:
            _read_header(run, lineno, line, word, tokens)
        elif word in _COMMAND_WORDS:
            _read_command(run, lineno, line, word, tokens)
        else:
            run.seen_action = True
            action = _ACTION_WORDS.get(word)
            if action is None and mobile_signature(line):
                return index, SkipReason.SIGNATURE
            if action is None:
                hint = _action_hint(word)
                # A mistyped PASSWORD line still holds the new password: never echo it.
                shown = line[: tokens[1].start] + MASK if "PASSWORD" in hint and len(tokens) > 1 else line
                run.problem(lineno, "unknown_action", shown, value=quote(tokens[0].text), hint=hint)
            else:
                _read_action(run, ACTION_SPECS[action], lineno, line, tokens)
    return None


def _read_command(run: Run, lineno: int, line: str, word: str, tokens: list[_Token]) -> None:
    """A mail command: kept once, in order of first appearance; given again
    with other arguments, the later line counts (warning ``duplicate_command``)."""
    read = read_command(lineno, line, word, tokens)
    if not isinstance(read, CommandLine):
        run.result.problems.append(read)
        return
    result = run.result
    earlier = result.command(read.command)
    if earlier is None:
        result.commands.append(read.command)
        result.command_lines.append(read)
        return
    if (earlier.number, earlier.text, earlier.code, earlier.name) != (
        read.number,
        read.text,
        read.code,
        read.name,
    ):
        shown = line[: tokens[1].start] + MASK if read.command is MailCommand.PASSWORD else line
        run.problem(lineno, "duplicate_command", shown, command=word, other=earlier.line)
        result.command_lines[result.command_lines.index(earlier)] = read


def _read_header(run: Run, lineno: int, line: str, word: str, tokens: list[_Token]) -> None:
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
            run.problem(lineno, "bad_empire", shown, value=quote(code))
            return
        if password and is_placeholder(password):
            # The order form's "<password>" copied as it is: the player has not
            # put theirs in yet, which is not a wrong password (docs/orders.md).
            if header.password is None:
                run.problem(lineno, "placeholder_password", shown, value=code.upper())
            password = ""
        elif not password and header.password is None:
            run.problem(lineno, "missing_password", line, value=code.upper())
        inner = bracketed_password(password)
        if inner is not None:
            # "EMPIRE RIG <k7mq2rtx>": the form's brackets kept around a real
            # password. Passwords the host gives out never hold < or >.
            password = inner
            if header.password is None:
                run.problem(lineno, "password_in_brackets", shown)
        values = {"empire": code.upper()}
        if password:
            values["password"] = password
    else:
        if len(tokens) != 2 or not _INT_RE.fullmatch(tokens[1].text) or int(tokens[1].text) < 1:
            run.problem(lineno, "bad_turn", line, value=quote(rest))
            return
        values = {"turn": int(tokens[1].text)}

    def same(a: object, b: object) -> bool:
        if isinstance(a, str) and isinstance(b, str) and word == "GAME":
            return a.casefold() == b.casefold()
        return a == b

    old = {k: getattr(header, k) for k in values}
    if any(old[k] is not None and not same(old[k], v) for k, v in values.items()):
        run.problem(lineno, "conflicting_header", shown, keyword=word, other=run.header_lines[word][0])
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
        if _tech(joined) is not None:
            return [_Token(joined, args[0].start)] + args[2:]
    return args


#: Each action's optional fields with their defaults (an order starts from these).
_DEFAULTS = {
    spec.action: {f.attr: f.default for f in spec.fields if f.optional} for spec in ACTION_SPECS.values()
}


def _read_action(run: Run, spec: ActionSpec, lineno: int, line: str, tokens: list[_Token]) -> None:
    name = spec.action._value_
    args = tokens[1:]
    if spec.fields and spec.fields[0].kind is FieldKind.TECH:
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
                lineno,
                "too_many_fields",
                line,
                action=name,
                value=quote(words[len(fields)]),
                usage=spec.usage,
            )
            return
    while len(words) < len(fields) and any(f.optional for f in fields):
        fields.remove(next(f for f in fields if f.optional))

    values: dict[str, object] = dict(_DEFAULTS[spec.action])
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
    order = Order.read(lineno, spec.action, values)
    run.candidates.append(Candidate(order, spec, line))


def _check_text(run: Run, spec: ActionSpec, lineno: int, line: str, text: str | None) -> str | None:
    name = spec.action.value
    if spec.action is Action.NAME:
        value = (text or "").strip()
    else:
        value = (text or "").rstrip()
    if not value:
        run.problem(lineno, "missing_field", line, action=name, field=spec.text, usage=spec.usage)
        return None
    what = "name" if spec.action is Action.NAME else "message"
    if _bad_text(value):
        run.problem(lineno, "bad_text", line, field=what)
        return None
    limit = MAX_NAME_LENGTH if spec.action is Action.NAME else MAX_MESSAGE_LENGTH
    if len(value) > limit:
        code = "name_too_long" if spec.action is Action.NAME else "message_too_long"
        run.problem(lineno, code, line, value=quote(value), length=len(value), limit=limit)
        return None
    return value
