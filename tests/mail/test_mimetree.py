"""A mail read without the feed parser (turnproc/mail/mimetree.py) is the very tree the feed
parser builds (compat32): parts, headers, payloads, preambles, epilogues and
line ends; a shape it is not sure of is left to the feed parser."""

from __future__ import annotations

import email
import email.policy
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.mail.mimegen import entity, headers, mail
from turnproc.mail.mimetree import read_tree

CORPUS = Path(__file__).parent / "corpus"


def _tree(msg: Message) -> dict[str, Any]:
    """Everything of a parsed message the reader (or anyone) may look at."""
    payload = msg._payload  # type: ignore[attr-defined] # as stored: get_payload() decodes raw 8-bit text
    return {
        "class": type(msg).__name__,
        "headers": list(msg.raw_items()),
        "unixfrom": msg.get_unixfrom(),
        "default_type": msg.get_default_type(),
        "preamble": msg.preamble,
        "epilogue": msg.epilogue,
        "defects": [type(d).__name__ for d in msg.defects],
        "charset": msg.get_charset(),
        "payload": [_tree(p) for p in payload] if isinstance(payload, list) else payload,
    }


def _feed_parsed(raw: bytes) -> dict[str, Any]:
    return _tree(email.message_from_bytes(raw, policy=email.policy.compat32))


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(entity(), st.booleans(), headers())
def test_a_split_mail_is_the_tree_the_feed_parser_builds(tree: str, crlf: bool, first: str) -> None:
    raw = mail(tree, crlf=crlf, first=first)
    split = read_tree(raw)
    if split is not None:
        assert _tree(split) == _feed_parsed(raw)


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.glob("*.eml")))
def test_every_multipart_mail_of_the_corpus_is_split_as_the_feed_parser_splits_it(name: str) -> None:
    raw = (CORPUS / name).read_bytes()
    split = read_tree(raw)
    feed = email.message_from_bytes(raw, policy=email.policy.compat32)
    # Left to the feed parser: a bounce (its delivery report is message/*
    # parts) and a mail cut off before its close delimiter.
    assert (split is not None) == (name not in ("bounce.eml", "truncated.eml")), "which are split here"
    if split is not None:
        assert _tree(split) == _tree(feed)


def test_the_shapes_mail_programs_send_are_split_here() -> None:
    """Gmail's and Outlook's alternatives, a text with attached orders, a
    related picture: none needs the feed parser (each would cost it a
    pattern compiled for its boundary)."""
    shapes = {
        "alternative": 'Content-Type: multipart/alternative; boundary="0000a"\n\n--0000a\nContent-Type: text/plain\n\n'
        "GAME x\n\n--0000a\nContent-Type: text/html\n\n<div>GAME x</div>\n\n--0000a--\n",
        "mixed": 'Content-Type: multipart/mixed; boundary="b1"\n\nThis is a multi-part message in MIME format.\n--b1\n'
        'Content-Type: text/plain\n\nSee attached\n--b1\nContent-Type: text/plain; name="orders.txt"\n'
        'Content-Disposition: attachment; filename="orders.txt"\n\nGAME x\n--b1--\n',
        "related": 'Content-Type: multipart/related; boundary="r"\n\n--r\nContent-Type: multipart/alternative; boundary="a"\n\n'
        "--a\nContent-Type: text/plain\n\nGAME x\n--a\nContent-Type: text/html\n\n<p>GAME x</p>\n--a--\n\n--r\n"
        "Content-Type: image/png\nContent-Transfer-Encoding: base64\n\niVBORw0KGgo=\n--r--\n",
        # A nested multipart's close delimiter right before the next delimiter: no epilogue at all.
        "nested": 'Content-Type: multipart/mixed; boundary="m"\n\n--m\nContent-Type: multipart/alternative; boundary="a"\n\n'
        "--a\nContent-Type: text/plain\n\nGAME x\n--a--\n--m\nContent-Type: text/plain\n\nsee above\n--m--\n",
        # Characters str.splitlines breaks at and a mail parser does not.
        "breaks": 'Content-Type: multipart/alternative; boundary="q"\n\n--q\nContent-Type: text/plain\n\n'
        "GAME x\x0c--q\nEMPIRE\x0b--q--\n\n--q--\n",
    }
    for name, tree in shapes.items():
        for crlf in (False, True):
            raw = mail(tree, crlf=crlf)
            split = read_tree(raw)
            assert split is not None, name
            assert _tree(split) == _feed_parsed(raw), name


def test_what_the_feed_parser_finds_fault_with_is_left_to_it() -> None:
    """No close delimiter, delimiters in a row, a forwarded mail, a digest,
    a header without its empty line: the feed parser reads those (and
    records what it found wrong)."""
    shapes = [
        'Content-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain\n\nhi\n',
        'Content-Type: multipart/mixed; boundary="b"\n\n--b\n--b\nContent-Type: text/plain\n\nhi\n--b--\n',
        'Content-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: message/rfc822\n\nSubject: x\n\nhi\n--b--\n',
        'Content-Type: multipart/digest; boundary="b"\n\n--b\n\nSubject: x\n\nhi\n--b--\n',
        'Content-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/plain\nnot a header\n--b--\n',
        'Content-Type: multipart/mixed\n\n--b\nContent-Type: text/plain\n\nhi\n--b--\n',
        "Content-Type: text/plain\nnot a header\n\nGAME x\n",
    ]
    for tree in shapes:
        assert read_tree(mail(tree)) is None, tree
