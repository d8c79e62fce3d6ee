"""How each mail command is written, and what a player may choose.

The reader (:mod:`.reader`) hands every line whose first word is a
:class:`~turnproc.orders.orders.MailCommand` to :func:`read_command`, which
gives back the checked :class:`~turnproc.orders.orders.CommandLine` or the
player's mistake as a :class:`~turnproc.orders.orders.Problem`. What the
commands do is the intake's business; what they look like is decided here
(docs/orders.md, "Mail commands"):

* ``REPORT`` alone, or ``REPORT n`` with a turn number (0 is the start of
  the game, before turn 1 ran).
* ``ORDERS``, ``CLEAR``, ``WAIT``, ``HELP``, ``BACK`` and ``QUIT`` stand alone.
* ``PASSWORD new`` takes one word, checked by :func:`password_weakness`. The
  line is shown masked in every problem, so no answer echoes the new password.
* ``ADDRESS name@domain`` (angle brackets around it are dropped).
* ``CONFIRM code`` takes one word: the code mailed to the new address.
* ``VACATION n``: 1 or more turns (the game's limit is the intake's check).
* ``JOIN game CODE name``: the rest of the line after the code is the
  empire's name, straight or curly quotes around it dropped, 1 to
  :data:`MAX_EMPIRE_NAME` characters.

Also here, for the header-less mail: :data:`HEADERLESS` are the commands a mail
may carry with no GAME or EMPIRE line (from an address that plays nowhere yet).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

from .orders import CommandLine, MailCommand, Problem
from .problems import make_problem

__all__ = [
    "HEADERLESS",
    "MAX_EMPIRE_NAME",
    "MIN_PASSWORD_LENGTH",
    "MIN_PASSWORD_SYMBOLS",
    "MASK",
    "is_address",
    "password_weakness",
    "read_command",
    "usage",
]

MAX_EMPIRE_NAME = 32
MIN_PASSWORD_LENGTH = 10
MAX_PASSWORD_LENGTH = 128
MIN_PASSWORD_SYMBOLS = 6
"""Different characters a chosen password must have (``aaaaaaaaaa`` is not one)."""
MASK = "********"

#: Commands a mail may carry without a GAME/EMPIRE header.
HEADERLESS = frozenset({MailCommand.HELP, MailCommand.JOIN, MailCommand.CONFIRM})

_ADDRESS = re.compile(r"[^@\s<>,;\"']+@[^@\s<>,;\"']+\.[^@\s<>,;\"'.]+", re.ASCII)
_NUMBER = re.compile(r"[0-9]{1,6}", re.ASCII)
_CODE = re.compile(r"[A-Za-z]{3}", re.ASCII)
_QUOTES = "\"'\u201c\u201d\u201e\u2018\u2019\u00ab\u00bb"
_USAGE = {
    MailCommand.REPORT: "REPORT [TURN]",
    MailCommand.PASSWORD: "PASSWORD <new password>",
    MailCommand.ADDRESS: "ADDRESS <new address>",
    MailCommand.CONFIRM: "CONFIRM <code>",
    MailCommand.VACATION: "VACATION <turns>",
    MailCommand.JOIN: 'JOIN <game> <code> "<empire name>"',
}

Tokens = Sequence[tuple[str, int]]
"""A line's fields: (text, where it starts in the line)."""


def usage(command: MailCommand) -> str:
    return _USAGE.get(command, command.value)


def is_address(text: str) -> bool:
    """Whether ``text`` looks like name@domain.tld."""
    return _ADDRESS.fullmatch(text) is not None


def password_weakness(password: str) -> str | None:
    """Why ``password`` may not be chosen, in the player's words; None when it may."""
    if len(password) < MIN_PASSWORD_LENGTH:
        return f"it has {len(password)} characters; a password needs at least {MIN_PASSWORD_LENGTH}"
    if len(password) > MAX_PASSWORD_LENGTH:
        return f"it has {len(password)} characters; at most {MAX_PASSWORD_LENGTH} are allowed"
    if any(ch.isspace() or ch in "<>" or unicodedata.category(ch)[0] == "C" for ch in password):
        return "it may not contain spaces, < or >, or control characters"
    if len(set(password)) < MIN_PASSWORD_SYMBOLS:
        return f"it needs at least {MIN_PASSWORD_SYMBOLS} different characters"
    return None


def _quote(value: str) -> str:
    return f'"{value[:39]}\u2026"' if len(value) > 40 else f'"{value}"'


def read_command(lineno: int, line: str, word: str, tokens: Tokens) -> CommandLine | Problem:
    """The command on ``line`` (its first field is ``word``, upper case)."""
    command = MailCommand(word)
    args = [text for text, _ in tokens[1:]]
    shown = line
    if command is MailCommand.PASSWORD and args:
        shown = line[: tokens[1][1]] + MASK

    def problem(code: str, **kw: object) -> Problem:
        return make_problem(lineno, code, shown, **kw)

    def missing(field: str) -> Problem:
        return problem("missing_field", action=word, field=field, usage=usage(command))

    if command is MailCommand.JOIN:
        return _read_join(lineno, line, tokens, problem, missing)
    takes = {
        MailCommand.REPORT: 1,
        MailCommand.PASSWORD: 1,
        MailCommand.ADDRESS: 1,
        MailCommand.CONFIRM: 1,
        MailCommand.VACATION: 1,
    }.get(command, 0)
    if len(args) > takes:
        if command is MailCommand.PASSWORD:
            return problem("weak_password", why="it may not contain spaces, < or >, or control characters")
        return problem("too_many_fields", action=word, value=_quote(args[takes]), usage=usage(command))
    arg = args[0] if args else None
    if command is MailCommand.REPORT:
        if arg is None:
            return CommandLine(lineno, command)
        if not _NUMBER.fullmatch(arg):
            return problem(
                "bad_number", value=_quote(arg), expect="a turn number (REPORT 3 for turn 3's report)"
            )
        return CommandLine(lineno, command, number=int(arg))
    if command is MailCommand.VACATION:
        if arg is None:
            return missing("TURNS")
        if not _NUMBER.fullmatch(arg) or int(arg) < 1:
            return problem("bad_number", value=_quote(arg), expect="a number of turns (1 or more)")
        return CommandLine(lineno, command, number=int(arg))
    if command is MailCommand.PASSWORD:
        if arg is None:
            return missing("a new password")
        why = password_weakness(arg)
        return problem("weak_password", why=why) if why else CommandLine(lineno, command, text=arg)
    if command is MailCommand.ADDRESS:
        if arg is None:
            return missing("an address")
        address = arg[1:-1] if arg.startswith("<") and arg.endswith(">") else arg
        if not is_address(address) or len(address) > 254:
            return problem("bad_address", value=_quote(arg))
        return CommandLine(lineno, command, text=address)
    if command is MailCommand.CONFIRM:
        return CommandLine(lineno, command, text=arg) if arg is not None else missing("the code")
    return CommandLine(lineno, command)


def _read_join(
    lineno: int, line: str, tokens: Tokens, problem: Callable[..., Problem], missing: Callable[[str], Problem]
) -> CommandLine | Problem:
    if len(tokens) < 2:
        return missing("the game")
    if len(tokens) < 3:
        return missing("an empire code")
    game, code = tokens[1][0], tokens[2][0]
    if not _CODE.fullmatch(code):
        return problem("bad_empire", value=_quote(code))
    name = line[tokens[3][1] :].strip().strip(_QUOTES).strip() if len(tokens) > 3 else ""
    if not name:
        return missing("the empire's name")
    # Format characters too (Cf: U+202E turns text around, a zero-width space
    # or a BOM makes a name look like another's): a name is shown to everyone.
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp") and ch != "\t" for ch in name):
        return problem("bad_text", field="name")
    if len(name) > MAX_EMPIRE_NAME:
        return problem("name_too_long", value=_quote(name), length=len(name), limit=MAX_EMPIRE_NAME)
    return CommandLine(lineno, MailCommand.JOIN, text=game, code=code.upper(), name=" ".join(name.split()))
