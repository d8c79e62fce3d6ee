"""MIME mails of every shape for the reading tests: the trees mail programs
build (parts, alternatives, related pictures, attachments, any charset and
transfer encoding) and the shapes they do not (delimiters in a row, no close
delimiter, text that looks like a delimiter, forwarded mails, digests)."""

from __future__ import annotations

import base64
import html
import quopri

from hypothesis import strategies as st

ORDERS = (
    "GAME corpus\nEMPIRE RIG sesame\nTURN 1\nMOVE 101 103 2\n"
    "MESSAGE ALL Greetings from Rigel caf\u00e9\nEND\n"
)
TEXTS = [
    ORDERS,
    "See the attached orders.\n\n-- \nAnn\n",
    "",
    "> GAME corpus\n> EMPIRE RIG old\nthanks!\n",
    "GAME corpus\r\nEMPIRE RIG sesame\r\nTURN 1\r\nDISTSQ 101 104\r\nEND\r\n",
    # Breaks a line to str.splitlines, not to a mail parser.
    "GAME corpus\nEMPIRE RIG sesame\x0c\nTURN 1\x0bMOVE 101 103 2\x1c\nEND\x1d\x1e\n",
]


def encode(data: bytes, cte: str) -> bytes:
    if cte == "base64":
        return base64.encodebytes(data)
    if cte == "quoted-printable":
        return quopri.encodestring(data)
    return data


@st.composite
def leaf(draw: st.DrawFn, number: int) -> str:
    ctype = draw(
        st.sampled_from(["text/plain", "text/plain", "text/html", "application/octet-stream", "text/csv"])
    )
    charset = draw(st.sampled_from(["utf-8", "iso-8859-1", "windows-1252", None]))
    cte = draw(st.sampled_from(["7bit", "8bit", "quoted-printable", "base64", None]))
    disposition = draw(st.sampled_from([None, "inline", "attachment", "ATTACHMENT"]))
    filename = draw(
        st.sampled_from(
            [
                None,
                'filename="orders.txt"',
                "filename=ORDERS.TXT",
                'filename="notes.pdf"',
                'filename="=?utf-8?q?ordres_=C3=A9t=C3=A9.txt?="',
                "filename*=utf-8''ordres%20%C3%A9t%C3%A9.txt",
            ]
        )
    )
    name = draw(st.sampled_from([None, 'name="orders.txt"', "name=plan.bin"]))
    flowed = draw(st.booleans())
    text = draw(st.sampled_from(TEXTS))
    if ctype == "text/html":
        text = (
            '<div dir="ltr">'
            + "".join(f"<div>{html.escape(line)}</div>" for line in text.splitlines())
            + "</div>"
        )
    elif flowed:
        text = text.replace("MOVE 101 103 2\n", "MOVE 101 \n103 2\n")
    data = text.encode(charset or "utf-8", "replace")
    params = "".join(
        f"; {p}"
        for p in (f'charset="{charset}"' if charset else None, name, "format=flowed" if flowed else None)
        if p
    )
    head = f"Content-Type: {ctype}{params}\n"
    if cte:
        head += f"Content-Transfer-Encoding: {cte}\n"
    if disposition or filename:
        head += f"Content-Disposition: {disposition or 'inline'}{'; ' + filename if filename else ''}\n"
    head += f"Content-ID: <part{number}@example>\n"
    return head + "\n" + encode(data, cte or "7bit").decode("latin-1")


@st.composite
def entity(draw: st.DrawFn, depth: int = 0, number: int = 0) -> str:
    """A MIME entity: a leaf, or a multipart of up to three entities, most
    of the shapes mail programs send and some they do not."""
    if depth >= 3 or draw(st.integers(0, 2)) == 0:
        if draw(st.integers(0, 9)) == 0:  # a forwarded mail
            return "Content-Type: message/rfc822\n\n" + draw(entity(depth + 1, number * 4 + 1))
        return draw(leaf(number))
    subtype = draw(st.sampled_from(["mixed", "alternative", "related", "report", "digest"]))
    count = draw(st.integers(0, 3))
    parts = [draw(entity(depth + 1, number * 4 + i + 1)) for i in range(count)]
    # A boundary the next level's begins with: its delimiter lines must not split this one's.
    boundary = draw(st.sampled_from([f"=_b{depth}_{number}", f"=_b{depth}", "0000a1b2c3"]))
    start = draw(st.sampled_from([None, f"<part{number * 4 + 2}@example>", "<nowhere@example>"]))
    disposition = draw(st.sampled_from(["", "Content-Disposition: attachment\n"]))
    cte = draw(
        st.sampled_from(["", "Content-Transfer-Encoding: 7bit\n", "Content-Transfer-Encoding: base64\n"])
    )
    head = (
        f"Content-Type: multipart/{subtype}; "
        f'boundary="{boundary}"{f"; start={chr(34)}{start}{chr(34)}" if start else ""}\n'
    )
    after = draw(st.sampled_from(["", " ", "\t ", "x"]))  # what follows a delimiter on its line
    preamble = draw(
        st.sampled_from(["", "This is a multi-part message in MIME format.\n", "\n", "--not-the-boundary\n"])
    )
    epilogue = draw(st.sampled_from(["", "\n", "epilogue text\n", f"--{boundary}\n", "trailing"]))
    delimiters = [f"--{boundary}{after}\n"] * len(parts)
    if parts and draw(st.integers(0, 9)) == 0:
        delimiters[0] *= 2  # delimiters in a row
    close = draw(st.sampled_from([f"--{boundary}--\n", f"--{boundary}--{after}\n", f"--{boundary}--", ""]))
    lookalike = draw(st.sampled_from(["", f"--{boundary}x\n", f"--{boundary}--x\n"]))
    # The line end before a delimiter is the delimiter's: a part that ends in
    # one may have no other (a nested multipart then has no epilogue at all).
    ends = [draw(st.sampled_from(["\n", ""])) if part.endswith("\n") else "\n" for part in parts]
    body = (
        preamble
        + "".join(f"{d}{part}{end}{lookalike}" for d, part, end in zip(delimiters, parts, ends))
        + close
        + epilogue
    )
    return head + cte + disposition + f"Content-ID: <part{number}@example>\n\n" + body


#: Header lines as mail programs and servers write them, and some they should not.
HEADERS = [
    "Subject: orders\n",
    "Subject: orders for\n\tturn 1\n",  # folded
    "Subject:orders\n",
    "X-MS-Has-Attach:\n",
    "Subject: orders   \n",
    "Received: from mx.example (mx.example [192.0.2.1])\n        by host; Mon, 5 Jan 2026 18:02:00 +0000\n",
    "X-Odd: value\r\n",
    "From nobody Mon Jan  5 18:02:00 2026\n",  # an envelope line
    "\tcontinued from nothing\n",
    ":no name\n",
    "not a header\n",
]


@st.composite
def headers(draw: st.DrawFn) -> str:
    """A mail's first header lines: two of :data:`HEADERS`."""
    return "".join(draw(st.lists(st.sampled_from(HEADERS), min_size=0, max_size=2)))


def mail(tree: str, *, crlf: bool = False, first: str = "") -> bytes:
    text = (
        first
        + "From: Ann <ann@example.org>\nTo: turns@example.org\nSubject: orders\nMIME-Version: 1.0\n"
        + tree
    )
    return (text.replace("\n", "\r\n") if crlf else text).encode("latin-1")
