"""Reading a mail's orders with plain-text headers (the compat32 policy) finds
the same text as the email package's full API (``EmailMessage.get_body``,
the default policy) finds, for every shape of MIME tree: the reader walks the
tree itself because the full API took 5 ms a Gmail mail."""

from __future__ import annotations

import email
import email.policy
from email.message import EmailMessage
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.mail.mimegen import ORDERS, entity, mail
from turnproc.intake.prepare import MAX_TEXT, parse_raw
from turnproc.mail import mime
from turnproc.mail.mime import message_text, parse_message
from turnproc.orders.parser import parse_header, shape_mail

CORPUS = Path(__file__).parent / "corpus"


def _reference(raw: bytes) -> str | None:
    """What the reader found when it read a mail with the full API: the
    default policy's parse and ``get_body``, ``walk`` and ``get_filename``;
    None where that API fails on a broken tree (a multipart part whose own
    parts could not be found: ``get_body`` takes its text for a list)."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    if not msg.is_multipart() and msg.get_content_type() == "text/plain":
        return mime._decode(msg)
    try:
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
    except AttributeError:
        return None
    return mime._decode(msg) if not msg.is_multipart() else ""


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(entity(), st.booleans())
def test_every_mime_tree_reads_as_the_full_api_reads_it(tree: str, crlf: bool) -> None:
    raw = mail(tree, crlf=crlf)
    reference = _reference(raw)
    if reference is not None:  # else the reader reads on where the full API gave up
        assert message_text(parse_message(raw)) == reference


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.glob("*.eml")))
def test_every_mail_of_the_corpus_reads_as_the_full_api_reads_it(name: str) -> None:
    raw = (CORPUS / name).read_bytes()
    assert message_text(parse_message(raw)) == _reference(raw)


def test_an_encoded_attachment_name_is_read_decoded() -> None:
    """Outlook writes a non-ASCII file name as an encoded word; the attached
    orders are found by its decoded ``.txt``."""
    tree = (
        'Content-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain\n\nSee attached.\n'
        '--b\nContent-Type: text/plain; charset="utf-8"\n'
        'Content-Disposition: attachment; filename="=?utf-8?q?ordres_=C3=A9t=C3=A9.txt?="\n\n'
        f"{ORDERS}--b--\n"
    )
    assert message_text(parse_message(mail(tree))) == ORDERS.rstrip("\n")


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(entity())
def test_the_header_kept_from_choosing_the_text_is_the_chosen_texts(tree: str) -> None:
    """Intake keeps the header parse the reader made while it chose among a
    mail's texts: it is the chosen text's own, and so is its shape."""
    parsed = parse_raw(mail(tree))
    assert parsed.shaped == shape_mail(parsed.text[:MAX_TEXT])
    assert parsed.header == parse_header(parsed.text[:MAX_TEXT])


@pytest.mark.parametrize(
    "markup, lines",
    [
        ("<p>A</p>\n<p>B</p>", ["A", "B"]),
        (
            "<p class=MsoNormal>A<o:p></o:p></p>\r\n<p class=MsoNormal><o:p>&nbsp;</o:p></p>\r\n"
            "<p class=MsoNormal>B</p>",
            ["A", "", "B"],
        ),
        ("<div>A</div>\n\n<div>B<br>C</div>", ["A", "B", "C"]),
        ("<p>A<br><br>B</p>", ["A", "", "B"]),
    ],
)
def test_html_lines_are_the_lines_a_mail_program_shows(markup: str, lines: list[str]) -> None:
    """Line breaks in the source between blocks (as Outlook writes them) are no
    lines; an empty paragraph with &nbsp; (Outlook's empty line) and <br> are."""
    assert mime.html_to_text(markup).split("\n") == lines
