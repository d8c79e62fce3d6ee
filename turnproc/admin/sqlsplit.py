"""Split a GM's SQL script into statements, without a database.

The DBAPI drivers run one statement at a time (SQLite's ``executescript``
would, but it commits on its own, which is exactly what a checked script must
not do), so the script is cut on ``;`` — but only on a ``;`` outside quoted
strings, quoted identifiers, comments and PostgreSQL dollar quotes. Each
statement keeps the line it starts on, so every message can say where.

Only data statements are let through: the tool itself owns the transaction
(``BEGIN``/``COMMIT`` inside a script would end it early), and schema changes
belong in migrations.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

__all__ = ["ALLOWED_KEYWORDS", "ScriptSyntaxError", "Statement", "refusal", "split_statements"]

#: First words of the statements a GM script may hold.
ALLOWED_KEYWORDS = frozenset({"SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "VALUES"})

_TRANSACTION_WORDS = frozenset({"BEGIN", "START", "COMMIT", "END", "ROLLBACK", "ABORT", "SAVEPOINT", "RELEASE", "PREPARE"})
#: Other statements SQLite or PostgreSQL know: refused as not allowed, not as typos.
_OTHER_COMMANDS = frozenset({
    "CREATE", "DROP", "ALTER", "TRUNCATE", "GRANT", "REVOKE", "PRAGMA", "VACUUM", "ATTACH", "DETACH",
    "REINDEX", "ANALYZE", "ANALYSE", "EXPLAIN", "COPY", "SET", "RESET", "SHOW", "LOCK", "CALL", "DO",
    "REPLACE", "MERGE", "COMMENT", "CLUSTER", "LISTEN", "NOTIFY", "UNLISTEN", "DISCARD", "LOAD",
    "SECURITY", "REFRESH", "IMPORT", "DECLARE", "FETCH", "MOVE", "CLOSE", "CHECKPOINT", "DEALLOCATE",
    "EXECUTE", "TABLE",
})  # fmt: skip
_DOLLAR_TAG = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$")
_WORD = re.compile(r"[A-Za-z_]+")


class ScriptSyntaxError(ValueError):
    """The script cannot even be cut into statements (an unclosed quote or comment)."""

    def __init__(self, message: str, line: int) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}")


@dataclass(frozen=True)
class Statement:
    number: int
    """1-based position in the script."""
    line: int
    """Line of the script the statement starts on (after any leading comments)."""
    text: str
    """The statement, without its closing ``;``."""

    @property
    def keyword(self) -> str:
        """The statement's first word in capitals (``UPDATE``), skipping comments and ``(``."""
        match = _WORD.search(_strip_leading(self.text).lstrip("( \t\r\n"))
        return match.group(0).upper() if match else ""

    @property
    def first_line(self) -> str:
        """The statement's first line, shortened for messages."""
        first = self.text.strip().splitlines()[0].strip() if self.text.strip() else ""
        return first if len(first) <= 72 else first[:69] + "..."

    def where(self) -> str:
        """``statement 3 (line 12: "UPDATE empires ...")`` for messages."""
        return f'statement {self.number} (line {self.line}: "{self.first_line}")'


def _strip_leading(text: str) -> str:
    """``text`` without leading whitespace and comments."""
    i = 0
    while i < len(text):
        if text[i].isspace():
            i += 1
        elif text.startswith("--", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
        else:
            break
    return text[i:]


def split_statements(script: str, *, dialect: str = "sqlite") -> list[Statement]:
    """The statements of ``script`` in order; empty ones (``;;``, comments only) dropped.

    ``dialect`` decides the two places SQLite and PostgreSQL lex differently:
    PostgreSQL nests ``/* */`` comments and has ``$tag$`` quotes.
    """
    postgres = dialect.startswith("postgres")
    out: list[Statement] = []
    n = len(script)
    i = 0
    line = 1
    # Where the current statement's first real character is (None: not seen yet).
    first: int | None = None
    first_line = 1

    def mark() -> None:
        nonlocal first, first_line
        if first is None:
            first, first_line = i, line

    def close(end: int) -> None:
        nonlocal first
        if first is not None:
            text = script[first:end].rstrip()
            if text:
                out.append(Statement(len(out) + 1, first_line, text))
        first = None

    while i < n:
        c = script[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif script.startswith("--", i):
            end = script.find("\n", i)
            i = n if end < 0 else end
        elif script.startswith("/*", i):
            opened, depth = line, 1
            i += 2
            while depth:
                if i >= n:
                    raise ScriptSyntaxError("a /* comment starting here is never closed with */", opened)
                if script.startswith("*/", i):
                    depth -= 1
                    i += 2
                elif postgres and script.startswith("/*", i):
                    depth += 1
                    i += 2
                else:
                    line += script[i] == "\n"
                    i += 1
        elif c in "'\"":
            mark()
            # E'...' (PostgreSQL) lets a backslash escape the quote.
            backslash = (
                postgres and c == "'" and i > 0 and script[i - 1] in "eE"
                and (i < 2 or not (script[i - 2].isalnum() or script[i - 2] == "_"))
            )
            opened = line
            i += 1
            while True:
                if i >= n:
                    what = "quoted string" if c == "'" else "quoted name"
                    raise ScriptSyntaxError(f"a {what} opened here with {c} is never closed", opened)
                ch = script[i]
                if backslash and ch == "\\":
                    line += script[i + 1 : i + 2] == "\n"
                    i += 2
                    continue
                if ch == c:
                    if script.startswith(c + c, i):  # '' inside a string is one quote
                        i += 2
                        continue
                    i += 1
                    break
                line += ch == "\n"
                i += 1
        elif c == "$" and postgres and (i == 0 or not (script[i - 1].isalnum() or script[i - 1] == "_")):
            mark()
            tag = _DOLLAR_TAG.match(script, i)
            if tag is None:
                i += 1
                continue
            end = script.find(tag.group(0), tag.end())
            if end < 0:
                raise ScriptSyntaxError(f"a {tag.group(0)} quote opened here is never closed", line)
            line += script.count("\n", i, end)
            i = end + len(tag.group(0))
        elif c == ";":
            close(i)
            i += 1
        else:
            mark()
            i += 1
    close(n)
    return out


def refusal(statement: Statement) -> str | None:
    """Why ``statement`` may not run in a GM script, or None when it may."""
    word = statement.keyword
    if word in ALLOWED_KEYWORDS:
        return None
    if word in _TRANSACTION_WORDS:
        return (
            f"{statement.where()}: {word} is not allowed; turnproc runs the whole script "
            "in one transaction itself and commits only when every check passes"
        )
    if word in _OTHER_COMMANDS:
        return (
            f"{statement.where()}: {word} is not allowed in a GM script; only "
            "SELECT, INSERT, UPDATE, DELETE and WITH are (schema changes go through migrations)"
        )
    guess = difflib.get_close_matches(word, sorted(ALLOWED_KEYWORDS), n=1, cutoff=0.6)
    hint = f"; did you mean {guess[0]}?" if guess else ""
    return f"{statement.where()}: syntax error: {word or statement.first_line!r} does not begin an SQL statement{hint}"
