"""Reading a mail's orders with plain-text headers (the compat32 policy) finds
the same text as the email package's full API (``EmailMessage.get_body``,
the default policy) finds, for every shape of MIME tree: the reader walks the
tree itself because the full API took 5 ms a Gmail mail."""

from __future__ import annotations

import base64
import email
import email.policy
import html
import quopri
from email.message import EmailMessage
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnproc.intake.prepare import MAX_TEXT, parse_raw
from turnproc.mail import mime
from turnproc.mail.mime import message_text, parse_message
from turnproc.rules.parser import parse_header, shape_mail

CORPUS = Path(__file__).parent / "corpus"

ORDERS = "GAME corpus\nEMPIRE RIG sesame\nTURN 1\nMOVE 101 103 2\nMESSAGE ALL Greetings from Rigel caf\u00e9\nEND\n"
TEXTS = [
    ORDERS,
    "See the attached orders.\n\n-- \nAnn\n",
    "",
    "> GAME corpus\n> EMPIRE RIG old\nthanks!\n",
    "GAME corpus\r\nEMPIRE RIG sesame\r\nTURN 1\r\nDISTSQ 101 104\r\nEND\r\n",
]


def _reference(raw: bytes) -> str:
    """What the reader found when it read a mail with the full API: the
    default policy's parse and ``get_body``, ``walk`` and ``get_filename``."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    if not msg.is_multipart() and msg.get_content_type() == "text/plain":
        return mime._decode(msg)
    body = msg.get_body(preferencelist=("plain",))
    text = mime._decode(body) if body is not None else ""
    if text.strip() and mime._has_header(text):
        return text
    for part in msg.walk():
        filename = (part.get_filename() or "").lower()
        if filename.endswith(".txt") and part.get_content_maintype() == "text":
            attached = mime._decode(part)
            if mime._has_header(attached) or not text.strip():
                return attached
    if text.strip():
        return text
    body = msg.get_body(preferencelist=("html",))
    if body is not None:
        return mime.html_to_text(mime._decode(body))
    return mime._decode(msg) if not msg.is_multipart() else ""


def _encode(data: bytes, cte: str) -> bytes:
    if cte == "base64":
        return base64.encodebytes(data)
    if cte == "quoted-printable":
        return quopri.encodestring(data)
    return data


@st.composite
def _leaf(draw: st.DrawFn, number: int) -> str:
    ctype = draw(st.sampled_from(["text/plain", "text/plain", "text/html", "application/octet-stream", "text/csv"]))
    charset = draw(st.sampled_from(["utf-8", "iso-8859-1", "windows-1252", None]))
    cte = draw(st.sampled_from(["7bit", "8bit", "quoted-printable", "base64", None]))
    disposition = draw(st.sampled_from([None, "inline", "attachment", "ATTACHMENT"]))
    filename = draw(
        st.sampled_from(
            [None, 'filename="orders.txt"', "filename=ORDERS.TXT", 'filename="notes.pdf"',
             'filename="=?utf-8?q?ordres_=C3=A9t=C3=A9.txt?="', "filename*=utf-8''ordres%20%C3%A9t%C3%A9.txt"]
        )
    )  # fmt: skip
    name = draw(st.sampled_from([None, 'name="orders.txt"', "name=plan.bin"]))
    flowed = draw(st.booleans())
    text = draw(st.sampled_from(TEXTS))
    if ctype == "text/html":
        text = '<div dir="ltr">' + "".join(f"<div>{html.escape(line)}</div>" for line in text.splitlines()) + "</div>"
    elif flowed:
        text = text.replace("MOVE 101 103 2\n", "MOVE 101 \n103 2\n")
    data = text.encode(charset or "utf-8", "replace")
    params = "".join(f"; {p}" for p in (f'charset="{charset}"' if charset else None, name, "format=flowed" if flowed else None) if p)
    head = f"Content-Type: {ctype}{params}\n"
    if cte:
        head += f"Content-Transfer-Encoding: {cte}\n"
    if disposition or filename:
        head += f"Content-Disposition: {disposition or 'inline'}{'; ' + filename if filename else ''}\n"
    head += f"Content-ID: <part{number}@example>\n"
    return head + "\n" + _encode(data, cte or "7bit").decode("latin-1")


@st.composite
def _entity(draw: st.DrawFn, depth: int = 0, number: int = 0) -> str:
    if depth >= 3 or draw(st.integers(0, 2)) == 0:
        return draw(_leaf(number))
    subtype = draw(st.sampled_from(["mixed", "alternative", "related", "report"]))
    count = draw(st.integers(0, 3))
    parts = [draw(_entity(depth + 1, number * 4 + i + 1)) for i in range(count)]
    boundary = f"=_b{depth}_{number}"
    start = draw(st.sampled_from([None, f"<part{number * 4 + 2}@example>", "<nowhere@example>"]))
    disposition = draw(st.sampled_from(["", "Content-Disposition: attachment\n"]))
    head = f'Content-Type: multipart/{subtype}; boundary="{boundary}"{f"; start={chr(34)}{start}{chr(34)}" if start else ""}\n'
    body = "".join(f"--{boundary}\n{part}\n" for part in parts) + f"--{boundary}--\n"
    return head + disposition + f"Content-ID: <part{number}@example>\n\n" + body


def _mail(entity: str) -> bytes:
    return ("From: Ann <ann@example.org>\nTo: turns@example.org\nSubject: orders\nMIME-Version: 1.0\n" + entity).encode("latin-1")


@settings(max_examples=400, deadline=None)
@given(_entity())
def test_every_mime_tree_reads_as_the_full_api_reads_it(entity: str) -> None:
    raw = _mail(entity)
    assert message_text(parse_message(raw)) == _reference(raw)


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.glob("*.eml")))
def test_every_mail_of_the_corpus_reads_as_the_full_api_reads_it(name: str) -> None:
    raw = (CORPUS / name).read_bytes()
    assert message_text(parse_message(raw)) == _reference(raw)


def test_an_encoded_attachment_name_is_read_decoded() -> None:
    """Outlook writes a non-ASCII file name as an encoded word; the attached
    orders are found by its decoded ``.txt``."""
    entity = (
        'Content-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain\n\nSee attached.\n'
        '--b\nContent-Type: text/plain; charset="utf-8"\n'
        'Content-Disposition: attachment; filename="=?utf-8?q?ordres_=C3=A9t=C3=A9.txt?="\n\n'
        f"{ORDERS}--b--\n"
    )
    assert message_text(parse_message(_mail(entity))) == ORDERS.rstrip("\n")


@settings(max_examples=200, deadline=None)
@given(_entity())
def test_the_header_kept_from_choosing_the_text_is_the_chosen_texts(entity: str) -> None:
    """Intake keeps the header parse the reader made while it chose among a
    mail's texts: it is the chosen text's own, and so is its shape."""
    parsed = parse_raw(_mail(entity))
    assert parsed.shaped == shape_mail(parsed.text[:MAX_TEXT])
    assert parsed.header == parse_header(parsed.text[:MAX_TEXT])
