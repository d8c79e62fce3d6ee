"""The shape of an order mail: which lines are the player's, and which header counts.

Real order mail carries more than orders: a greeting, the host's report pasted
above, the mail being replied to below (quoted with ``>`` by Gmail and
Thunderbird, unquoted under a "From: / Sent:" block by Outlook). This module
finds, from the text alone, the lines that are not the player's and the header
block the parse starts at; :mod:`.parser` documents the decisions (the player's
words are in docs/orders.md, "Where the host starts and stops reading").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .orders import SkipReason, Skipped

__all__ = [
    "HeaderBlock",
    "Shape",
    "bracketed_password",
    "empire_password",
    "first_word",
    "is_placeholder",
    "mail_shape",
    "mark_lines",
    "quoted_header_line",
    "unread",
]

# One pattern per language a mail program writes its reply line in; each
# anchors on both ends so an order line can never match one.
_ATTRIBUTION = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"on\s.*\bwrote\s*:",
        r"am\s.*\bschrieb\b.*:",
        r"le\s.*\ba\s+écrit\s*:",
        r"el\s.*\bescribió\s*:",
        r"il\s+giorno\s.*\bha\s+scritto\s*:",
        r"op\s.*\bschreef\b.*:",
    )
]
_MAX_ATTRIBUTION = 400
_ORIGINAL = re.compile(
    r"-{2,}\s*(original message|ursprüngliche nachricht|message d'origine|mensaje original"
    r"|messaggio originale|oorspronkelijk bericht|forwarded message"
    r"|weitergeleitete nachricht)\s*-{2,}",
    re.IGNORECASE,
)
# Outlook's block above the mail replied to: "From:" then, within a few lines,
# "Sent:" (German "Von:" / "Gesendet:"; HTML mail turned to text may bold them).
_FROM = re.compile(r"\*?(from|von|de|da|van)\s*:\*?\s*\S", re.IGNORECASE)
_SENT = re.compile(
    r"\*?(sent|gesendet|date|datum|envoyé|enviado|inviato|verzonden)\s*:\*?", re.IGNORECASE
)
_UNDERSCORES = re.compile(r"_{5,}")
# The host's report (templates/report): its first line, and the heading of the
# order form that ends it (in the text report, and as the HTML report reads
# when a mail program turns it into text).
_REPORT_START = re.compile(r"star chase - game .* - turn \d+ report.*", re.IGNORECASE)
_FORM_HEADING = re.compile(r"(==\s*)?order form for turn \d+(\s*==)?", re.IGNORECASE)
# The HTML report's first two lines as text: "demo - turn 3", then
# "Rigel League (RIG) - rank 1, 3 VP. ..."; the first alone is too plain to go by.
_HTML_TITLE = re.compile(r".+ - turn \d+( \(corrected\))?", re.IGNORECASE)
_HTML_RANK = re.compile(r".+ \([A-Za-z]{3}\) - rank \d+, \d+ VP\..*")

_PLACEHOLDER_WORDS = frozenset(
    {"", "pw", "pwd", "pass", "passwd", "password", "passwort", "kennwort", "secret",
     "mot de passe", "contraseña", "wachtwoord", "code"}
)


def _normal(text: str) -> str:
    return " ".join(text.replace("_", " ").replace("-", " ").casefold().split())


def is_placeholder(password: str) -> bool:
    """Whether ``password`` is the order form's ``<password>`` or the like.

    Wrapped in ``<`` ``>``, and the inside is a word for a password
    (``<your password>``, ``<pw>``), or has a space in it: passwords the host
    gives out are one word, so ``<my secret>`` is a description, not one.
    """
    inner = bracketed_password(password)
    if inner is None:
        return False
    words = _normal(inner)
    if words.startswith("your "):
        words = words[5:]
    return (
        words in _PLACEHOLDER_WORDS
        or " " in inner.strip()
        or any(w in words for w in ("password", "passwort", "kennwort"))
    )


def bracketed_password(password: str) -> str | None:
    """The inside of ``<...>``, or None when ``password`` is not wrapped so."""
    if len(password) >= 2 and password[0] == "<" and password[-1] == ">":
        return password[1:-1]
    return None


def _reply_line(lines: list[str], i: int) -> bool:
    line = lines[i].strip()
    if _ORIGINAL.fullmatch(line):
        return True
    nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
    # Gmail wraps a long "On ..., Name <address> wrote:" over two lines. Every
    # attribution ends with a colon and is short: checking that first keeps the
    # patterns' backtracking off long lines (a 256 KiB mail took seconds).
    for text in (line, line + " " + nxt if nxt else ""):
        if text.endswith(":") and len(text) <= _MAX_ATTRIBUTION:
            if any(pattern.fullmatch(text) for pattern in _ATTRIBUTION):
                return True
    if _FROM.match(line):
        return any(_SENT.match(lines[j].strip()) for j in range(i + 1, min(i + 4, len(lines))))
    if _UNDERSCORES.fullmatch(line):
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        return j < len(lines) and _FROM.match(lines[j].strip()) is not None and _reply_line(lines, j)
    return False


def _html_report(lines: list[str], i: int) -> bool:
    if not _HTML_TITLE.fullmatch(lines[i].strip()):
        return False
    j = i + 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    return j < len(lines) and _HTML_RANK.fullmatch(lines[j].strip()) is not None


#: A line :func:`_mark` marks holds ``:``, ``-``, ``_`` or ``>``, or comes before a
#: line ending in ``:`` (an attribution over two lines), or holds these words
#: (the order form's heading, the one pattern that needs none of those).
_FORM_WORDS = re.compile(r"order form", re.IGNORECASE)


def _mark(lines: list[str], i: int) -> SkipReason | None:
    """The mark of line ``i`` (see :func:`mark_lines`)."""
    line = lines[i].strip()
    if line.startswith(">"):
        return SkipReason.QUOTED
    if not line or line[0].isdigit() or line.startswith("#"):
        return None
    if _reply_line(lines, i):
        return SkipReason.REPLY_HEADER
    if _REPORT_START.fullmatch(line) or _FORM_HEADING.fullmatch(line) or _html_report(lines, i):
        return SkipReason.HOST_REPORT
    return None


def mark_lines(lines: list[str]) -> list[SkipReason | None]:
    """Per line: QUOTED, REPLY_HEADER (a reply line), HOST_REPORT (a report's
    first line or its order form's heading), or None for an ordinary line."""
    marks: list[SkipReason | None] = []
    last = len(lines) - 1
    for i, raw in enumerate(lines):
        # Cheap exit for the lines most mails are made of (order lines, blank
        # lines): none of _mark's patterns can match a line without what each
        # needs (tests/rules/test_parser_mail_shapes.py holds this to _mark).
        if (
            ":" not in raw and "-" not in raw and "_" not in raw and ">" not in raw
            and (i == last or not lines[i + 1].rstrip().endswith(":")) and _FORM_WORDS.search(raw) is None
        ):  # fmt: skip
            marks.append(None)
        else:
            marks.append(_mark(lines, i))
    return marks


@dataclass(frozen=True)
class HeaderBlock:
    start: int
    """Index of its first line (a TURN line just above GAME/EMPIRE included)."""
    placeholder: bool
    """An EMPIRE line in it has the order form's placeholder for a password."""


@dataclass(frozen=True)
class Shape:
    marks: list[SkipReason | None]
    start: int | None
    """Index of the line the parse starts at: the chosen header block's first line."""
    words: list[str]
    """Each line's :func:`first_word` (asked for every line by the header block
    and the header: read once)."""


_TOKEN = re.compile(r"[^\s,]+")


def first_word(line: str) -> str:
    """The line's first word upper-cased ("" for blank, quoted and comment
    lines); non-ASCII words never match a keyword."""
    stripped = line.strip()
    if not stripped or stripped[0] in ">#":
        return ""
    m = _TOKEN.search(line)
    if m is None:
        return ""
    return m.group().upper() if m.group().isascii() else m.group()


def empire_password(line: str) -> str:
    """What an EMPIRE line gives as the password: the rest after the code."""
    tokens = list(_TOKEN.finditer(line))
    return line[tokens[2].start() :].strip() if len(tokens) > 2 else ""


def _blocks(lines: list[str], words: list[str]) -> list[HeaderBlock]:
    """Runs of GAME/EMPIRE/TURN lines (blank and comment lines between) holding
    GAME or EMPIRE; TURN lines directly above belong to the run. ``words``:
    each line's :func:`first_word`."""
    found: list[HeaderBlock] = []
    i = 0
    while i < len(lines):
        if words[i] not in ("GAME", "EMPIRE"):
            i += 1
            continue
        start = i
        for j in range(i - 1, -1, -1):
            stripped = lines[j].strip()
            if not stripped or stripped.startswith("#"):
                continue
            if words[j] == "TURN":
                start = j
                continue
            break
        placeholder = False
        while i < len(lines):
            stripped = lines[i].strip()
            word = words[i]
            if word == "EMPIRE" and is_placeholder(empire_password(lines[i])):
                placeholder = True
            elif word not in ("GAME", "EMPIRE", "TURN") and stripped and not stripped.startswith("#"):
                break
            i += 1
        found.append(HeaderBlock(start, placeholder))
    return found


def mail_shape(lines: list[str]) -> Shape:
    """Mark the lines and choose the header block (the rule is in :mod:`.parser`)."""
    marks = mark_lines(lines)
    words = [first_word(line) for line in lines]
    reply = next((i for i, m in enumerate(marks) if m is SkipReason.REPLY_HEADER), len(lines))
    blocks = _blocks(lines, words)
    real = [b for b in blocks if not b.placeholder]
    mine = [b for b in real if b.start < reply]
    if mine:
        return Shape(marks, mine[0].start, words)
    if real:
        # Bottom-posting: the player wrote below the mail they answer.
        return Shape(marks, real[0].start, words)
    forms = [b for b in blocks if b.start < reply]
    return Shape(marks, forms[-1].start if forms else None, words)


def quoted_header_line(lines: list[str]) -> int | None:
    """Index of the first quoted line that would be a GAME or EMPIRE line unquoted."""
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(">") and first_word(stripped.lstrip("> \t")) in ("GAME", "EMPIRE"):
            return i
    return None


def unread(
    lines: list[str], marks: list[SkipReason | None], first: int, stop: int, default: SkipReason
) -> list[Skipped]:
    """The lines ``first`` to ``stop`` (indexes, ``stop`` excluded) as stretches
    not read, each with its reason; blank lines only join or are left out."""
    out: list[Skipped] = []
    sticky: SkipReason | None = None
    for i in range(first, stop):
        stripped = lines[i].strip()
        if not stripped:
            continue
        mark = marks[i]
        if sticky is None and mark in (SkipReason.REPLY_HEADER, SkipReason.HOST_REPORT):
            sticky = mark
        reason = sticky or (SkipReason.QUOTED if mark is SkipReason.QUOTED else default)
        if sticky is SkipReason.HOST_REPORT and first_word(stripped) == "END":
            # A pasted report ends with its order form's END; what follows is the player's.
            sticky = None
        if out and out[-1].reason is reason:
            out[-1] = Skipped(out[-1].first_line, i + 1, reason)
        else:
            out.append(Skipped(i + 1, i + 1, reason))
    return out
