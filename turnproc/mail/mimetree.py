"""A mail read into its MIME tree without the email package's feed parser,
which reads a mail a line at a time through a stack of generators and
compiles a regular expression for every boundary it meets (0.27 ms each on
the test machine: a third of reading a Gmail or Outlook mail, which send a
text and an HTML alternative, and each pushed a pattern the program uses
out of ``re``'s cache).

Only the plain shapes mail programs send are read here: headers without
defects, parts between single delimiter lines closed by the close
delimiter, no ``message/*`` part and no digest. Anything else is left to the
feed parser (:func:`read_tree` gives None). What is read here is the
tree the feed parser builds with the compat32 policy: the same parts,
headers, payloads, preambles and epilogues, line ends and all (RFC 2046
5.1.1: the line end before a delimiter belongs to the delimiter), which
tests/mail/test_mimetree.py holds it to.
"""

from __future__ import annotations

import re
from email.message import Message

__all__ = ["read_tree"]

_EOL = re.compile(r"\r\n|\r|\n")
#: What str.splitlines breaks lines at besides CR and LF, and a mail read as
#: ASCII may hold (the other breaks are not ASCII).
_OTHER_BREAKS = "\x0b\x0c\x1c\x1d\x1e"
#: A header line or its continuation, as the feed parser tells them (its headerRE).
_HEADER = re.compile(r"(From |[\041-\071\073-\176]*:|[\t ])")
_TRAILING_EOL = re.compile(r"(\r\n|\r|\n)\Z")
#: Deeper trees go to the feed parser (which refuses the too deep).
_MAX_DEPTH = 10


def read_tree(raw: bytes) -> Message | None:
    """``raw`` as the feed parser would parse it (compat32), when it is of
    a plain shape; else None."""
    text = raw.decode("ascii", "surrogateescape")  # as the bytes parser reads it
    return _entity(_lines(text), 0)


def _lines(text: str) -> list[str]:
    """The lines of ``text``, each with its line end, split where the feed
    parser splits them (CR, LF and CRLF only)."""
    if not any(c in text for c in _OTHER_BREAKS):
        return text.splitlines(keepends=True)
    out: list[str] = []
    start = 0
    for found in _EOL.finditer(text):
        out.append(text[start : found.end()])
        start = found.end()
    if start < len(text):
        out.append(text[start:])
    return out


def _entity(lines: list[str], depth: int) -> Message | None:
    """One entity from its lines: its headers, and its body kept as it
    stands or split into parts; None for a shape left to the feed parser."""
    msg = Message()
    end = 0
    name_line: list[str] = []  # the header being read: its first line and continuations
    while end < len(lines) and _HEADER.match(lines[end]):
        line = lines[end]
        if line[0] in " \t":
            if not name_line:
                return None  # a continuation before any header: a defect
            name_line.append(line)
        elif line.startswith("From ") or line[0] == ":":
            return None  # an envelope line, a header without a name
        else:
            if name_line:
                msg.set_raw(*_header(name_line))
            name_line = [line]
        end += 1
    if name_line:
        msg.set_raw(*_header(name_line))
    if end < len(lines):
        if not _EOL.match(lines[end]):
            return None  # no empty line after the headers: a defect
        end += 1
    body = lines[end:]
    maintype = msg.get_content_maintype()
    if maintype == "message":
        return None
    if maintype != "multipart":
        msg.set_payload("".join(body))
        return msg
    return msg if _split(msg, body, depth) else None


def _header(lines: list[str]) -> tuple[str, str]:
    """(name, value) of a header from its lines, as the compat32 policy
    keeps it: the value unfolded by nothing, its line ends inside kept."""
    name, value = lines[0].split(":", 1)
    return name, (value.lstrip(" \t") + "".join(lines[1:])).rstrip("\r\n")


def _delimiter(line: str, separator: str) -> str | None:
    """"part" or "close" when ``line`` is a delimiter line of ``separator``
    (``--`` and the boundary, then ``--`` for the close one, then only
    spaces or tabs), else None: the feed parser's boundary pattern."""
    if not line.startswith(separator):
        return None
    rest = line[len(separator) :]
    close = rest.startswith("--")
    if close:
        rest = rest[2:]
    if rest.rstrip("\r\n").strip(" \t"):
        return None
    return "close" if close else "part"


def _split(msg: Message, body: list[str], depth: int) -> bool:
    """Give ``msg`` its parts, preamble and epilogue from ``body``; False
    for a shape left to the feed parser."""
    boundary = msg.get_boundary()
    if depth >= _MAX_DEPTH or boundary is None or msg.get_content_type() == "multipart/digest":
        return False
    if str(msg.get("content-transfer-encoding", "8bit")).lower() not in ("7bit", "8bit", "binary"):
        return False
    separator = "--" + boundary
    preamble: list[str] = []
    parts: list[list[str]] = []
    current: list[str] | None = None
    closed_at: int | None = None
    for index, line in enumerate(body):
        kind = _delimiter(line, separator) if line.startswith(separator) else None
        if kind is None:
            (preamble if current is None else current).append(line)
            continue
        if current is not None:
            if not current:
                return False  # delimiters in a row: the feed parser passes over them
            parts.append(current)
        if kind == "close":
            closed_at = index
            break
        current = []
    if closed_at is None or not parts:
        return False
    subparts: list[Message | str] = []
    for lines in parts:
        part = _entity(lines, depth + 1)
        if part is None:
            return False
        # The line end before a delimiter is the delimiter's, not the part's.
        if part.get_content_maintype() == "multipart":
            if part.epilogue == "":
                part.epilogue = None
            elif part.epilogue is not None:
                part.epilogue = _TRAILING_EOL.sub("", part.epilogue)
        else:
            # The payload as it stands: get_payload() would decode a mail's
            # raw 8-bit bytes, where the parser keeps them as they came.
            part._payload = _TRAILING_EOL.sub("", part._payload)  # type: ignore[attr-defined]
        subparts.append(part)
    if preamble:
        preamble[-1] = _TRAILING_EOL.sub("", preamble[-1])
        msg.preamble = "".join(preamble)
    msg.set_payload(subparts)
    msg.epilogue = "".join(body[closed_at + 1 :])
    return True
