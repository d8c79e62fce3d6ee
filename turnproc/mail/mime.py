"""From a raw mail to the text a player meant: MIME decoding with the standard library.

Prefers text/plain; falls back to an HTML body turned into text; accepts a
``*.txt`` text attachment as the orders. Never raises on a broken mail: the
worst case is an empty text, which the parser answers with "no orders found".
"""

from __future__ import annotations

import email
import email.parser
import email.policy
import html
import logging
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from email.message import Message
from email.utils import collapse_rfc2231_value
from html.parser import HTMLParser

from ..orders.orders import Header
from ..orders.parser import parse_header
from .hygiene import decoded_words

log = logging.getLogger(__name__)

__all__ = [
    "MailLimits",
    "MailRefused",
    "MailTooDeep",
    "ReadBudget",
    "parse_message",
    "parse_headers",
    "message_text",
    "html_to_text",
]


class MailRefused(ValueError):
    """A mail of a shape no mail program makes, refused before (or while) it
    is read: the message says why, in words for its sender."""


class MailTooDeep(MailRefused):
    """MIME parts nested deeper than the standard library's parser can follow;
    no mail program makes such a mail."""


@dataclass(frozen=True)
class MailLimits:
    """The shape and the reading time a mail may have (the config's
    ``mail_max_parts``, ``mail_max_depth``, ``mail_read_seconds``). A mail
    program's mail has a few parts two or three deep (Gmail's: 3 parts, depth
    2; a mail forwarded as an attachment a few levels more); a mail of
    50,000 parts took the feed parser 4.5 s of CPU."""

    max_parts: int = 200
    max_depth: int = 20
    read_seconds: float = 2.0
    """CPU seconds reading one mail may take (its parts, decoding, HTML)."""


class ReadBudget:
    """The CPU time left to read one mail (the thread's own time, so a busy
    machine does not shorten it); :meth:`check` raises once it is spent."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end = time.thread_time() + seconds

    def check(self) -> None:
        if time.thread_time() > self._end:
            raise MailRefused(f"the mail took more than {self.seconds:g} s to read")


#: A multipart's boundary parameter, quoted or not, in the lower-cased mail
#: (the value is taken from the mail as it is: boundaries are case-sensitive).
_BOUNDARY_PARAM = re.compile(rb'boundary\s*=\s*(?:"([^"\r\n]+)"|([^\s;"]+))')
#: An encapsulated mail's Content-Type, in the lower-cased mail: a part of
#: its own, without a boundary.
_MESSAGE_TYPE = re.compile(rb"content-type:[ \t]*message/")


def check_shape(raw: bytes, limits: MailLimits) -> None:
    """Refuse a mail of more than ``limits.max_parts`` MIME parts before it
    is parsed, from its bytes alone: each part starts at a delimiter line of
    a boundary the mail declares (or is an encapsulated message), so their
    count bounds the parts from above. Patterns with a literal start over
    the lower-cased bytes: 5 ms for a 2.2 MB mail of 50,000 parts, which
    the parser read in 1.5-4.5 s (case-blind patterns took 45 ms)."""
    low = raw.lower()
    boundaries = {raw[slice(*found.span(found.lastindex or 0))] for found in _BOUNDARY_PARAM.finditer(low)}
    too_many = MailRefused(f"the mail has more than {limits.max_parts} MIME parts")
    if len(boundaries) > limits.max_parts:
        raise too_many  # each declared boundary is a multipart part of its own
    parts = sum(1 for _ in _MESSAGE_TYPE.finditer(low))
    for boundary in boundaries:
        delimiter = b"--" + boundary
        parts += raw.count(b"\n" + delimiter) + raw.startswith(delimiter)
        if parts > limits.max_parts + len(boundaries):  # each multipart's close delimiter is no part
            raise too_many


def _depth(msg: Message) -> int:
    """How deep ``msg``'s parts nest (1: a single part); walked without
    recursion, the parts being few once :func:`check_shape` let them in."""
    deepest, stack = 0, [(msg, 1)]
    while stack:
        part, depth = stack.pop()
        deepest = max(deepest, depth)
        payload = part.get_payload() if part.is_multipart() else None
        if isinstance(payload, list):
            stack.extend((sub, depth + 1) for sub in payload if isinstance(sub, Message))
    return deepest


def read_message(raw: bytes, limits: MailLimits) -> Message:
    """:func:`parse_message` within ``limits``: a mail of too many parts is
    refused before it is parsed, one nested too deep after (its parts are few
    by then). Raises :class:`MailRefused` with the reason."""
    check_shape(raw, limits)
    msg = parse_message(raw)
    if _depth(msg) > limits.max_depth:
        raise MailTooDeep(f"the mail's MIME parts are nested more than {limits.max_depth} deep")
    return msg


def parse_message(raw: bytes) -> Message:
    """The mail, parsed by the email package's parser with the compat32
    policy, whose headers stay plain text (the default policy builds a
    header object on every access). The MIME tree is walked here
    (:func:`_find_body`)."""
    try:
        return email.message_from_bytes(raw, policy=email.policy.compat32)
    except RecursionError:
        raise MailTooDeep("the mail's MIME parts are nested too deeply to read") from None


def parse_headers(raw: bytes) -> Message:
    """Only the header, for a mail whose body cannot be read (the body is
    not looked at: a refused mail may be megabytes of parts)."""
    ends = [at + len(blank) for blank in (b"\n\n", b"\r\n\r\n") if (at := raw.find(blank)) >= 0]
    head = raw[: min(ends)] if ends else raw
    return email.parser.BytesParser(policy=email.policy.compat32).parsebytes(head, headersonly=True)


def _content_params(part: Message) -> dict[str, str]:
    """The Content-Type parameters, parsed once (each ``get_param`` call would
    parse the header again), RFC 2231 values decoded."""
    return {str(k).lower(): collapse_rfc2231_value(v) for k, v in (part.get_params() or [])[1:]}


def _filename(part: Message) -> str:
    """The part's file name (Content-Disposition, else Content-Type's
    ``name``), decoded whichever way the mail program encoded it."""
    return decoded_words(part.get_filename() or "")


def _is_attachment(part: Message) -> bool:
    disposition = part.get("Content-Disposition")
    return disposition is not None and str(disposition).split(";", 1)[0].strip().lower() == "attachment"


def _find_body(
    root: Message, part: Message, preferencelist: tuple[str, ...]
) -> Iterator[tuple[int, Message]]:
    """(preference, part) for each part that may be the body, as the email
    package's ``EmailMessage.get_body`` finds them (RFC 2046: an attachment is
    never the body; in multipart/related only the start part is looked into)."""
    if _is_attachment(part):
        return
    maintype, _, subtype = part.get_content_type().partition("/")
    if maintype == "text":
        if subtype in preferencelist:
            yield preferencelist.index(subtype), part
        return
    if maintype != "multipart" or not root.is_multipart():
        return
    payload = part.get_payload() if part.is_multipart() else []
    subparts = [p for p in payload if isinstance(p, Message)]
    if subtype != "related":
        for subpart in subparts:
            yield from _find_body(root, subpart, preferencelist)
        return
    candidate = None
    start = part.get_param("start")
    if start:
        candidate = next((p for p in subparts if p.get("Content-ID") == start), None)
    if candidate is None and subparts:
        candidate = subparts[0]
    if candidate is not None:
        yield from _find_body(root, candidate, preferencelist)


def _body(msg: Message, kind: str) -> Message | None:
    """The part a mail program shows as the body, if it is text/``kind``."""
    return next((part for _, part in _find_body(msg, msg, (kind,))), None)


def _decode(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    params = _content_params(part)
    charset = params.get("charset", "").strip().lower() or "utf-8"
    for candidate in (charset, "utf-8", "windows-1252", "latin-1"):
        try:
            text = payload.decode(candidate)
            break
        except (LookupError, UnicodeDecodeError):
            continue
    else:  # latin-1 decodes every byte, so this is unreachable
        text = payload.decode("latin-1", errors="replace")
    if params.get("format", "").lower() == "flowed":
        text = _unflow(text, delsp=params.get("delsp", "").lower() == "yes")
    # PostgreSQL cannot store NUL; deleting it would read another line than the
    # one written ("null\x00byte" as "nullbyte"). The replacement character
    # keeps its place, and the parser calls text holding it bad_text.
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd")


def _unflow(text: str, delsp: bool) -> str:
    """RFC 3676: a line ending in a space continues on the next line."""
    out: list[str] = []
    buf = ""
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.startswith(" "):
            line = line[1:]  # space-stuffing
        if line.endswith(" ") and line != "-- ":
            buf += line[:-1] if delsp else line
            continue
        out.append(buf + line)
        buf = ""
    if buf:
        out.append(buf)
    return "\n".join(out)


class _TextExtractor(HTMLParser):
    """HTML as a mail program shows it, line for line: a block element starts
    and ends a line (without adding empty ones), ``<br>`` ends one, so the line
    numbers in the acknowledgement are the lines the player sees."""

    _BLOCKS = frozenset(
        {
            "p",
            "div",
            "tr",
            "li",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "pre",
            "table",
            "blockquote",
            "ul",
            "ol",
            "hr",
        }
    )

    def __init__(self, budget: ReadBudget | None = None) -> None:
        super().__init__(convert_charrefs=True)
        self._budget, self._calls = budget, 0
        self.lines: list[str] = []
        self.line: list[str] = []
        self._skip = 0
        self._quote = 0
        self._pre = 0

    def _end_line(self, *, force: bool) -> None:
        if self.line or force:
            text = "".join(self.line)
            if not force and not text.strip(" \t\n\r\f"):
                # The source's line break between </p> and <p> (as Outlook
                # writes them) is no line a mail program shows; a paragraph
                # holding &nbsp; (Outlook's empty line) is one.
                self.line = []
                return
            self.lines.append(("> " + text) if self._quote and text.strip() else text)
            self.line = []

    def _spend(self) -> None:
        # The clock read now and then: a tag costs the parser microseconds.
        self._calls += 1
        if self._budget is not None and self._calls % 1000 == 0:
            self._budget.check()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._spend()
        if tag in ("script", "style", "head", "title"):
            self._skip += 1
        if tag == "br":
            self._end_line(force=True)
        elif tag in self._BLOCKS:
            self._end_line(force=False)
        if tag == "blockquote":
            self._quote += 1
        if tag == "pre":
            self._pre += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        self._spend()
        if tag in ("script", "style", "head", "title"):
            self._skip = max(0, self._skip - 1)
        if tag in self._BLOCKS:
            self._end_line(force=False)
        if tag == "blockquote":
            self._quote = max(0, self._quote - 1)
        if tag == "pre":
            self._pre = max(0, self._pre - 1)

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._pre:
            # Preformatted text (the report's order form) keeps its lines, as
            # every mail program shows them; a break right after <pre> is none.
            if not self.line and data.startswith("\n"):
                data = data[1:]
            *whole, rest = data.split("\n")
            for part in whole:
                self.line.append(part)
                self._end_line(force=True)
            self.line.append(rest)
            return
        # Source line breaks are spaces in HTML; only markup breaks lines.
        self.line.append(" ".join(data.split("\n")) if "\n" in data else data)

    def text(self) -> str:
        self._end_line(force=False)
        return "\n".join(self.lines)


def html_to_text(markup: str, budget: ReadBudget | None = None) -> str:
    """The text a mail program shows for ``markup``; :class:`MailRefused`
    when ``budget`` runs out first."""
    parser = _TextExtractor(budget)
    try:
        parser.feed(markup)
        parser.close()
    except MailRefused:
        raise
    except Exception:  # noqa: BLE001 - HTMLParser is lenient; a failure here must not lose the mail
        log.warning("HTML body could not be parsed; using it with tags stripped")
        return html.unescape(re.sub(r"<[^>]+>", "\n", markup))
    text = parser.text().replace("\xa0", " ")
    lines = [" ".join(line.split()) if line.strip() else "" for line in text.split("\n")]
    return "\n".join(lines).strip("\n")


def _has_header(text: str, header_of: Callable[[str], Header] = parse_header) -> bool:
    """Whether ``text`` holds an order header, as the one parser reads headers."""
    header = header_of(text)
    return bool(header.game or header.empire)


def message_text(
    msg: Message, header_of: Callable[[str], Header] = parse_header, budget: ReadBudget | None = None
) -> str:
    """The orders text of ``msg``: plain body, else HTML as text, else a .txt
    attachment. ``header_of``: the one parser's header of a text (a caller
    that parses the chosen text's header next may keep the one it gave here).
    :class:`MailRefused` when ``budget`` runs out first."""
    if not msg.is_multipart() and msg.get_content_type() == "text/plain":
        # Most order mails are a single text part: skip the MIME-tree walk.
        return _decode(msg)
    try:
        body = _body(msg, "plain")
        text = _decode(body) if body is not None else ""
        if text.strip() and _has_header(text, header_of):
            return text
        # "Orders attached": a .txt attachment with the header beats a body without one.
        for part in msg.walk():
            if budget is not None:
                budget.check()
            filename = _filename(part).lower()
            if filename.endswith(".txt") and part.get_content_maintype() == "text":
                attached = _decode(part)
                if _has_header(attached, header_of) or not text.strip():
                    return attached
        if text.strip():
            return text
        body = _body(msg, "html")
        if body is not None:
            return html_to_text(_decode(body), budget)
    except MailRefused:
        raise
    except RecursionError:
        log.warning("MIME tree too deep in %s", msg.get("Message-ID", "<no id>"))
        return ""
    except Exception:  # a malformed MIME tree: read what we can below
        log.warning("malformed MIME structure in %s", msg.get("Message-ID", "<no id>"), exc_info=True)
    if not msg.is_multipart():
        return _decode(msg)
    return ""
