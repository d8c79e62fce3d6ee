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

from .orders import Skipped, SkipReason

__all__ = [
    "HeaderBlock",
    "Shape",
    "bracketed_password",
    "copy_end",
    "empire_password",
    "first_word",
    "is_placeholder",
    "mail_shape",
    "mark_lines",
    "mobile_signature",
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
_SENT = re.compile(r"\*?(sent|gesendet|date|datum|envoyé|enviado|inviato|verzonden)\s*:\*?", re.IGNORECASE)
_UNDERSCORES = re.compile(r"_{5,}")
# The host's report (templates/mail/report): its first line, and the heading of the
# order form that ends it (in the text report, and as the HTML report reads
# when a mail program turns it into text).
_REPORT_START = re.compile(r"star chase - game .* - turn \d+ report.*", re.IGNORECASE)
_FORM_HEADING = re.compile(r"(==\s*)?order form for turn \d+(\s*==)?", re.IGNORECASE)
# The first line of every other mail the host sends a player (templates/): a
# welcome, an acknowledgement, an answer, a notice. With the report's, these
# start a copy of the host's mail (:func:`_host_copies`);
# tests/mail/test_host_copies.py holds each to what its template writes.
_HOST_FIRST = re.compile(
    r"star chase - game .* - turn \d+ bulletin.*"
    r"|welcome to star chase game \S+! .*"
    r"|game \S+, empire [a-z]{3} \(.*\): (the gm has given you a new|there are no orders on file for turn).*"
    r"|game \S+, empire [a-z]{3}: the deadline of turn \d+ has changed\."
    r"|(orders|mail) received for game \S+, empire [a-z]{3}, turn \d+.*"
    r"|your orders for game \S+, empire [a-z]{3}, turn \d+ are withdrawn\."
    r"|your mail could not be accepted: .*"
    r"|this is the star chase turn host at .*"
    r"|a message from the gm of game \S+ to every player:"
    r"|(someone with the password|the mail address) of empire [a-z]{3} in star chase game .*"
    r"|(your request to join|the game master did not approve your request to join) star chase game .*",
    re.IGNORECASE,
)
# Each of those first lines holds one of these (a cheap test before the patterns).
_HOST_WORDS = re.compile(r"game|host at|could not", re.IGNORECASE)
# The host's signature, last in each of its mails: "-- " and then this line,
# and in a report the lines of templates/mail/_links.txt under it.
_HOST_SIGNATURE = re.compile(r"turnproc\b.*", re.IGNORECASE)
_HOST_LINKS = re.compile(
    r"the rulebook|how to send orders:|the game's site:|the order desk|ask the game master", re.IGNORECASE
)
# The HTML report's first two lines as text: "demo - turn 3", then
# "Rigel League (RIG) - rank 1, 3 VP. ..."; the first alone is too plain to go by.
_HTML_TITLE = re.compile(r".+ - turn \d+( \(corrected\))?", re.IGNORECASE)
_HTML_RANK = re.compile(r".+ \([A-Za-z]{3}\) - rank \d+, \d+ VP\..*")

_PLACEHOLDER_WORDS = frozenset(
    {
        "",
        "pw",
        "pwd",
        "pass",
        "passwd",
        "password",
        "passwort",
        "kennwort",
        "secret",
        "mot de passe",
        "contraseña",
        "wachtwoord",
        "code",
    }
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


def _host_first(lines: list[str], i: int) -> bool:
    """Whether line ``i`` is the first line of a mail the host sent."""
    line = lines[i].strip()
    if _HOST_WORDS.search(line) is not None:
        if _REPORT_START.fullmatch(line) is not None or _HOST_FIRST.fullmatch(line) is not None:
            return True
    return " - " in line and _html_report(lines, i)


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
_FORM_WORDS = re.compile(
    r"order form|star chase|for game |of game |could not be accepted|game \S+, empire", re.IGNORECASE
)


def _mark(lines: list[str], i: int) -> SkipReason | None:
    """The mark of line ``i`` (see :func:`mark_lines`)."""
    line = lines[i].strip()
    if line.startswith(">"):
        return SkipReason.QUOTED
    if not line or line[0].isdigit() or line.startswith("#"):
        return None
    if _reply_line(lines, i):
        return SkipReason.REPLY_HEADER
    if _host_first(lines, i) or _FORM_HEADING.fullmatch(line):
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
            ":" not in raw
            and "-" not in raw
            and "_" not in raw
            and ">" not in raw
            and (i == last or not lines[i + 1].rstrip().endswith(":"))
            and _FORM_WORDS.search(raw) is None
        ):
            marks.append(None)
        else:
            marks.append(_mark(lines, i))
    return marks


# What phones and their mail programs put under a mail, on a line of its own:
# a signature without "-- " above it.
_MOBILE = re.compile(
    r"sent from my .{1,60}"
    r"|sent (from|with|via) (outlook|yahoo mail|mail|proton ?mail|samsung|aol|blackberry)\b.{0,60}"
    r"|get outlook for (ios|android)|von meinem .{1,40} gesendet|envoyé de mon .{1,40}"
    r"|enviado desde mi .{1,40}|inviato da(l mio)? .{1,40}|verzonden (vanaf|met) mijn .{1,40}",
    re.IGNORECASE,
)


def mobile_signature(line: str) -> bool:
    """Whether ``line`` is a phone's signature ("Sent from my iPhone", "Get
    Outlook for Android", "Von meinem iPhone gesendet", ...)."""
    return _MOBILE.fullmatch(line.strip()) is not None


@dataclass(frozen=True)
class HeaderBlock:
    start: int
    """Index of its first line (a TURN line just above GAME/EMPIRE included)."""
    placeholder: bool
    """An EMPIRE line in it has the order form's placeholder for a password."""
    signed: bool = False
    """An EMPIRE line in it has a password that is not the placeholder."""


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
        placeholder = signed = False
        while i < len(lines):
            stripped = lines[i].strip()
            word = words[i]
            password = empire_password(lines[i]) if word == "EMPIRE" else ""
            if password and is_placeholder(password):
                placeholder = True
            elif password:
                signed = True
            elif word not in ("GAME", "EMPIRE", "TURN") and stripped and not stripped.startswith("#"):
                break
            i += 1
        found.append(HeaderBlock(start, placeholder, signed))
    return found


def _signature_end(lines: list[str], i: int) -> int | None:
    """When line ``i`` starts the host's signature ("-- ", then "turnproc ..."
    and, in a report, where the rules are), the index of its last line."""
    if (
        lines[i] not in ("--", "-- ")
        or i + 1 >= len(lines)
        or not _HOST_SIGNATURE.fullmatch(lines[i + 1].strip())
    ):
        return None
    j = i + 1
    while j + 1 < len(lines) and _HOST_LINKS.match(lines[j + 1].strip()):
        j += 1
    return j


def _host_copies(
    lines: list[str], marks: list[SkipReason | None], blocks: list[HeaderBlock]
) -> list[SkipReason | None]:
    """``marks`` with every line of each copy of a mail the host sent marked
    HOST_REPORT: from the mail's first line to the end of the host's signature
    (a report: to its order form's END, and the signature or the links under
    it); without either, to the line above the next header block with a
    password (no mail of the host holds one: its examples have the
    placeholder), or to the end of the mail. The order form in a copy (its
    GAME line to its END) stays the player's: it is where a player writes,
    and it never holds orders of the host's. Quoted lines and reply lines
    keep their marks."""
    starts = [i for i, mark in enumerate(marks) if mark is SkipReason.HOST_REPORT and _host_first(lines, i)]
    if not starts:
        return marks
    marks = list(marks)
    # Where the player's own header starts: a password (a heading "Empire" of
    # the HTML report as text, or prose starting "Game g4, ...", is none).
    real = sorted(b.start for b in blocks if b.signed and not b.placeholder)
    i = 0
    for start in starts:
        if start < i:
            continue  # a report quoted inside a welcome: one copy
        stop = next((b for b in real if b > start), len(lines))
        end = stop - 1
        form = False
        for j in range(start + 1, stop):
            if _FORM_HEADING.fullmatch(lines[j].strip()):
                form = True
            elif form:
                form = first_word(lines[j]) != "END"
                if not form:
                    # A report ends with its form's END; a welcome goes on to its signature.
                    end = j
                    after = next((k for k in range(j + 1, stop) if lines[k].strip()), None)
                    signature = _signature_end(lines, after) if after is not None else None
                    if signature is not None:
                        end = signature
                    # The HTML report, read as text, puts its tables after the form
                    # (the phone's order: summary, maps, form, then the long tables)
                    # and where the rules are last: the copy runs to those lines.
                    if _HTML_TITLE.fullmatch(lines[start].strip()):
                        after = next(
                            (k for k in range(j + 1, stop) if _HOST_LINKS.match(lines[k].strip())), after
                        )
                    while after is not None and after < stop and _HOST_LINKS.match(lines[after].strip()):
                        end, after = after, after + 1
                    break
            else:
                signature = _signature_end(lines, j)
                if signature is not None:
                    end = signature
                    break
        form = False
        for j in range(start, end + 1):
            if form:
                form = first_word(lines[j]) != "END"
                continue
            if marks[j] is None or marks[j] is SkipReason.HOST_REPORT:
                marks[j] = SkipReason.HOST_REPORT
            if _FORM_HEADING.fullmatch(lines[j].strip()):
                form = True
        i = end + 1
    return marks


def copy_end(lines: list[str], marks: list[SkipReason | None], i: int) -> int:
    """Where the copy of the host's mail at line ``i`` ends (the index after
    it), its order form included: read from the player's header above, a
    pasted form is the host's (its header lines would be read again)."""
    j, form = i, False
    while j < len(lines):
        if form:
            form = first_word(lines[j]) != "END"
        elif marks[j] is SkipReason.HOST_REPORT:
            form = _FORM_HEADING.fullmatch(lines[j].strip()) is not None
        else:
            break
        j += 1
    return j


def mail_shape(lines: list[str]) -> Shape:
    """Mark the lines and choose the header block (the rule is in :mod:`.parser`)."""
    words = [first_word(line) for line in lines]
    blocks = _blocks(lines, words)
    marks = _host_copies(lines, mark_lines(lines), blocks)
    reply = next((i for i, m in enumerate(marks) if m is SkipReason.REPLY_HEADER), len(lines))
    # A header block in a copy of the host's mail (the welcome's example) is never the player's.
    blocks = [b for b in blocks if marks[b.start] is not SkipReason.HOST_REPORT]
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
    copy = first  # lines before this index are in a copy of the host's mail
    for i in range(first, stop):
        stripped = lines[i].strip()
        if not stripped:
            continue
        mark = marks[i]
        if sticky is None and mark is SkipReason.REPLY_HEADER:
            sticky = mark
        if sticky is None and mark is SkipReason.HOST_REPORT and i >= copy:
            copy = copy_end(lines, marks, i)
        reason = sticky or (
            SkipReason.HOST_REPORT
            if i < copy
            else SkipReason.QUOTED
            if mark is SkipReason.QUOTED
            else default
        )
        if out and out[-1].reason is reason:
            out[-1] = Skipped(out[-1].first_line, i + 1, reason)
        else:
            out.append(Skipped(i + 1, i + 1, reason))
    return out
