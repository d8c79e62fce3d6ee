"""Building outgoing mails: one message per mail, with a stable Message-ID,
written directly as RFC 5322 bytes (see :func:`compose`): a night mails a
thousand reports and answers a thousand order mails.
"""

from __future__ import annotations

import base64
import datetime as dt
import quopri
import re
import secrets
from collections.abc import Mapping
from email.header import Header
from email.headerregistry import Address, HeaderRegistry
from email.utils import encode_rfc2231, format_datetime, formataddr
from functools import lru_cache

__all__ = [
    "message_id_domain",
    "compose",
    "shown_address",
    "bare_address",
    "parsed_address",
    "read_addresses",
    "pack_markup",
    "DOMAIN_FALLBACK",
    "MAX_LINE",
]

DOMAIN_FALLBACK = "turnproc.invalid"

#: RFC 5322 2.1.1: a line holds at most 998 characters, its CRLF aside.
MAX_LINE = 998
#: An HTML tag's name and the space after it: a line break there means
#: nothing to HTML (HTML 5.2, 8.1.2.3: attributes are separated by whitespace).
_TAG_OPENING = re.compile(r"(<[A-Za-z][A-Za-z0-9]*) ")
#: A style sheet's start and end (HTML's <style>, SVG's too): white space
#: between them is CSS's, where a line break is a space.
_STYLE_OPEN = re.compile(r"<style[\s>]", re.IGNORECASE)
_STYLE_CLOSE = re.compile(r"</style\s*>", re.IGNORECASE)


_REGISTRY = HeaderRegistry()


@lru_cache(maxsize=2048)
def parsed_address(value: str) -> tuple[str, str]:
    """(name, address) of the one address ``value`` names, read by the email
    package's strict header parser as :func:`.identity.from_address` reads a
    From; both empty when it names none, more than one, or has a defect.
    Cached: a night's thousand answers each read the host's own address."""
    try:
        header = _REGISTRY("to", value)
    except (ValueError, IndexError, TypeError):
        return "", ""
    addresses: tuple[Address, ...] = getattr(header, "addresses", ())
    if header.defects or len(addresses) != 1:
        return "", ""
    return addresses[0].display_name, addresses[0].addr_spec


def read_addresses(*values: str) -> dict[str, tuple[str, str]]:
    """:func:`parsed_address` of each of ``values``, for :func:`compose` in a
    process that has not read them (its ``addresses``)."""
    return {value: parsed_address(value) for value in values}


def bare_address(value: str) -> str:
    """The addr-spec of ``value`` (``Host <a@b>`` -> ``a@b``), or ``value`` when it has none."""
    return parsed_address(value)[1] or value


def message_id_domain(from_address: str) -> str:
    """The right-hand side of the Message-IDs we make: our own address's domain."""
    return parsed_address(from_address)[1].rpartition("@")[2] or DOMAIN_FALLBACK


def shown_address(value: str) -> str:
    """``value`` as the To: header of :func:`compose` reads, decoded (what the
    outbox shows as the recipient)."""
    name, addr = parsed_address(value)
    if not addr:
        return value
    return formataddr((name, addr)) if name.isascii() else f"{name} <{addr}>"


def _address(value: str, known: Mapping[str, tuple[str, str]] | None) -> str:
    name, addr = known[value] if known and value in known else parsed_address(value)
    return formataddr((name, addr), charset="utf-8") if addr else value


def _header_value(value: str) -> str:
    return value if value.isascii() else Header(value, "utf-8").encode()


def _disposition(kind: str, filename: str) -> bytes:
    if filename.isascii() and '"' not in filename:
        return f'Content-Disposition: {kind}; filename="{filename}"\n'.encode("ascii")
    return f"Content-Disposition: {kind}; filename*={encode_rfc2231(filename, 'utf-8')}\n".encode("ascii")


def _has_long_line(data: bytes) -> bool:
    return max(map(len, data.split(b"\n"))) > MAX_LINE


def _as_is(data: bytes, seed: str) -> bool:
    """Whether ``data`` may travel unencoded (7bit, RFC 2045 2.7): ASCII, no
    NUL, no CR of its own, no line over 998 characters, and no text that could
    read as one of this mail's boundaries. A mail server spends its time per
    line: a report's HTML sent as it is has half the lines it has in
    quoted-printable, where every ``style="`` costs ``=3D`` and a soft break
    every 76 characters."""
    return (
        data.isascii()
        and b"\0" not in data
        and b"\r" not in data
        and not _has_long_line(data)
        and f"=_{seed}".encode("ascii") not in data
    )


def pack_markup(text: str) -> str:
    """HTML or SVG in fewer lines, the same document: a line break (or an
    empty line) between the end of one tag and the start of the next becomes
    a space (to HTML, outside ``<pre>``, and to SVG both are the same white
    space between elements), and so does a break inside a style sheet (white
    space to CSS), as long as the line stays within 998 characters. A mail
    server's work is per line: a big game's report HTML goes from some 190
    lines to 60 (its order form keeps its lines), its map from 120 to a dozen.
    Escaped text never holds ``<`` or ``>``, so a break inside a text (a
    ``<pre>``, a press message kept as written) is never one of these."""
    lines = text.split("\n")
    out: list[str] = []
    line = lines[0]
    styling = _STYLE_OPEN.search(line) is not None and _STYLE_CLOSE.search(line) is None
    index = 1
    while index < len(lines):
        following = lines[index]
        index += 1
        if not following and line[-1:] == ">":
            after = index  # empty lines between two tags go too
            while after < len(lines) and not lines[after]:
                after += 1
            if after < len(lines) and lines[after][:1] == "<":
                following, index = lines[after], after + 1
        if styling:
            joined = f"{line} {following.strip()}" if following.strip() else line
        elif following[:1] == "<" and line[-1:] == ">":
            joined = f"{line} {following}"
        else:
            joined = ""
        if joined and len(joined) <= MAX_LINE:
            line = joined
        else:
            out.append(line)
            line = following
        if _STYLE_OPEN.search(following):
            styling = True
        if _STYLE_CLOSE.search(following):
            styling = False
    out.append(line)
    return "\n".join(out)


def _break_long(line: str) -> str:
    """A line over 998 characters broken after its tags' names (where a line
    break means nothing), where it must and no more."""
    cuts: list[int] = []
    start, candidate = 0, -1
    for found in _TAG_OPENING.finditer(line):
        at = found.end(1)  # the space after the tag's name
        if at - start > MAX_LINE and candidate >= start:
            cuts.append(candidate)
            start = candidate + 1
        candidate = at
    if len(line) - start > MAX_LINE and candidate >= start:
        cuts.append(candidate)
    pieces, begin = [], 0
    for cut in cuts:
        pieces.append(line[begin:cut])
        begin = cut + 1
    pieces.append(line[begin:])
    return "\n".join(pieces)


def _html_as_ascii(html: str) -> bytes:
    """The HTML with every non-ASCII character as a character reference, its
    lines packed (:func:`pack_markup`) and every line still over 998
    characters broken after its tags' names, where a line break means
    nothing: the same document, which can travel as it is."""
    data = pack_markup(html).encode("ascii", "xmlcharrefreplace")
    if not _has_long_line(data):
        return data
    lines = data.decode("ascii").split("\n")
    return "\n".join(_break_long(line) if len(line) > MAX_LINE else line for line in lines).encode("ascii")


def _encoded(data: bytes, seed: str, *, text: bool) -> tuple[str, bytes]:
    """(Content-Transfer-Encoding, the data so encoded): as it is when it can
    be (:func:`_as_is`); else quoted-printable for a text, and for ASCII data
    (the compact JSON: one long line); else base64."""
    if _as_is(data, seed):
        return "7bit", data
    if text or (data.isascii() and b"\0" not in data):
        return "quoted-printable", quopri.encodestring(data)
    return "base64", base64.encodebytes(data)


def _text_part(body: str, subtype: str, seed: str) -> bytes:
    data = body.encode("utf-8")
    if subtype == "html":
        as_ascii = _html_as_ascii(body)
        if _as_is(as_ascii, seed):
            data = as_ascii
    encoding, data = _encoded(data, seed, text=True)
    head = (
        f'Content-Type: text/{subtype}; charset="utf-8"\nMIME-Version: 1.0\n'
        f"Content-Transfer-Encoding: {encoding}\n\n"
    )
    return head.encode("ascii") + data


def _binary_part(mime: str, data: bytes, headers: bytes, seed: str) -> bytes:
    encoding, body = _encoded(data, seed, text=False)
    head = f"Content-Type: {mime}\nMIME-Version: 1.0\nContent-Transfer-Encoding: {encoding}\n".encode("ascii")
    return head + headers + b"\n" + body


def _multipart(subtype: str, boundary: str, parts: list[bytes]) -> bytes:
    sep = f"\n--{boundary}\n".encode("ascii")
    head = f'Content-Type: multipart/{subtype}; boundary="{boundary}"\nMIME-Version: 1.0\n\n'.encode("ascii")
    return head + f"--{boundary}\n".encode("ascii") + sep.join(parts) + f"\n--{boundary}--\n".encode("ascii")


def compose(
    *,
    sender: str,
    recipient: str,
    subject: str,
    text: str,
    when: dt.datetime,
    message_id: str,
    html: str | None = None,
    in_reply_to: str | None = None,
    references: str | None = None,
    attachments: list[tuple[str, str, bytes]] | None = None,
    inline: list[tuple[str, str, str, bytes]] | None = None,
    boundary_seed: str | None = None,
    addresses: Mapping[str, tuple[str, str]] | None = None,
) -> bytes:
    """A mail as bytes: a plain-text body, an optional HTML alternative and
    attachments given as ``(filename, mime type, data)``. ``inline``
    pictures, given as ``(Content-ID, filename, mime type, data)``, go with
    the HTML in a multipart/related part, where the HTML shows them as
    ``<img src="cid:ID">`` (RFC 2387): that is how Gmail and Outlook show a
    picture in a mail. A part travels as it is (7bit) when it can (see
    :func:`_as_is`; HTML is made ASCII by character references and its long
    lines broken inside tags), else texts are quoted-printable (8-bit-clean
    servers are not guaranteed), ASCII data too, and the rest base64.

    Written directly, not through the email package's generator, which
    re-reads every line of every part: for a report that cost more than
    rendering it. The MIME boundaries come from ``boundary_seed`` (else a
    random one), so the same mail built twice is the same bytes; a boundary
    holding ``=_`` cannot occur in a quoted-printable or base64 part, and a
    part holding its text is encoded.
    ``in_reply_to`` threads the mail under a player's (an answer).
    ``addresses``: ``sender`` and ``recipient`` as :func:`parsed_address`
    has read them already, in another process (:func:`read_addresses`): a
    process that renders mails starts with an empty cache, and the email
    package's parser costs about a millisecond an address."""
    seed = boundary_seed or secrets.token_hex(12)
    inline, attachments = inline or [], attachments or []
    if html is None:
        body = _text_part(text, "plain", seed)
    else:
        body = _multipart(
            "alternative", f"=_{seed}_2", [_text_part(text, "plain", seed), _text_part(html, "html", seed)]
        )
    pictures = [
        _binary_part(
            mime, data, f"Content-ID: <{cid}>\n".encode("ascii") + _disposition("inline", filename), seed
        )
        for cid, filename, mime, data in inline
    ]
    if pictures:
        body = _multipart("related", f"=_{seed}_1", [body, *pictures])
    files = [
        _text_part(data.decode("utf-8"), mime.partition("/")[2], seed).replace(
            b"\n\n", b"\n" + _disposition("attachment", filename) + b"\n", 1
        )
        if mime.startswith("text/")
        else _binary_part(mime, data, _disposition("attachment", filename), seed)
        for filename, mime, data in attachments
    ]
    if files:
        body = _multipart("mixed", f"=_{seed}_0", [body, *files])
    head, _, rest = body.partition(b"MIME-Version: 1.0\n")
    # Auto-Submitted tells vacation responders and list servers not to answer us.
    headers = (
        f"From: {_address(sender, addresses)}\nTo: {_address(recipient, addresses)}\n"
        f"Subject: {_header_value(subject)}\n"
        f"Date: {format_datetime(when)}\nMessage-ID: {message_id}\n"
        f"Auto-Submitted: {'auto-replied' if in_reply_to else 'auto-generated'}\n"
    )
    if in_reply_to:
        thread = f"{references} {in_reply_to}".strip() if references else in_reply_to
        headers += f"In-Reply-To: {in_reply_to}\nReferences: {thread}\n"
    return head + b"MIME-Version: 1.0\n" + headers.encode("utf-8") + rest
