"""From a raw mail to the text a player meant: MIME decoding with the standard library.

Prefers text/plain; falls back to an HTML body turned into text; accepts a
``*.txt`` text attachment as the orders. Never raises on a broken mail: the
worst case is an empty text, which the parser answers with "no orders found".
"""

from __future__ import annotations

import email
import email.policy
import html
import logging
import re
from email.message import EmailMessage, Message
from html.parser import HTMLParser

log = logging.getLogger(__name__)

__all__ = ["parse_message", "message_text", "html_to_text"]


def parse_message(raw: bytes) -> EmailMessage:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def _content_params(part: Message) -> dict[str, str]:
    """The Content-Type parameters, parsed once (each ``get_param`` call would
    parse the header again)."""
    header = part.get("Content-Type")
    params = getattr(header, "params", None)
    if params is not None:
        return {str(k).lower(): str(v) for k, v in params.items()}
    return {str(k).lower(): str(v) for k, v in (part.get_params() or [])[1:]}


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
    return text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


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
    _BLOCKS = {"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table", "blockquote"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0
        self._quote = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "head"):
            self._skip += 1
        if tag == "blockquote":
            self._quote += 1
        if tag in self._BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "head"):
            self._skip = max(0, self._skip - 1)
        if tag == "blockquote":
            self._quote = max(0, self._quote - 1)
        if tag in self._BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._quote:
            # Quoted replies in HTML mail are the same as "> " lines in text mail.
            data = "\n".join("> " + line for line in data.split("\n"))
        self.parts.append(data)


def html_to_text(markup: str) -> str:
    parser = _TextExtractor()
    try:
        parser.feed(markup)
        parser.close()
    except Exception:  # HTMLParser is lenient; a failure here must not lose the mail
        log.warning("HTML body could not be parsed; using it with tags stripped")
        return html.unescape(re.sub(r"<[^>]+>", "\n", markup))
    text = "".join(parser.parts).replace("\xa0", " ")
    lines = [line.strip() for line in text.split("\n")]
    return "\n".join(lines)


def message_text(msg: EmailMessage) -> str:
    """The orders text of ``msg``: plain body, else HTML as text, else a .txt attachment."""
    if not msg.is_multipart() and msg.get_content_type() == "text/plain":
        # Most order mails are a single text part: skip the MIME-tree walk.
        return _decode(msg)
    try:
        body = msg.get_body(preferencelist=("plain",))
        if body is not None:
            text = _decode(body)
            if text.strip():
                return text
        for part in msg.walk():
            filename = (part.get_filename() or "").lower()
            if filename.endswith(".txt") and part.get_content_maintype() == "text":
                return _decode(part)
        body = msg.get_body(preferencelist=("html",))
        if body is not None:
            return html_to_text(_decode(body))
    except Exception:  # a malformed MIME tree: read what we can below
        log.warning("malformed MIME structure in %s", msg.get("Message-ID", "<no id>"), exc_info=True)
    if not msg.is_multipart():
        return _decode(msg)
    return ""
