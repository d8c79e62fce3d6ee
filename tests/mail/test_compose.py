"""Outgoing mails are written directly as bytes (turnproc/mail/compose.py);
what a mail program reads from them is checked here with the standard
library's own parser: headers, the tree of parts, texts, pictures and
attachments byte for byte, replies threaded, the same bytes every time."""

from __future__ import annotations

import datetime as dt
import itertools
from email import message_from_bytes, policy
from email.message import EmailMessage
from html.parser import HTMLParser
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from turnproc.mail import compose as compose_module
from turnproc.mail.compose import MAX_LINE, compose, pack_markup

WHEN = dt.datetime(2026, 1, 9, 20, 0, tzinfo=dt.UTC)
PNG = bytes(range(256)) * 10
SVG = b"<svg/>" * 50


class _Document(HTMLParser):
    """An HTML text as what a browser builds from it: tags, their attributes
    and the text between them, character references read."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.events: list[tuple[Any, ...]] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.events.append(("start", tag, tuple(attrs)))

    def handle_endtag(self, tag: str) -> None:
        self.events.append(("end", tag))

    def handle_data(self, data: str) -> None:
        self.events.append(("data", data))


def same_document(a: str, b: str) -> bool:
    return _Document(a).events == _Document(b).events


def parsed(raw: bytes) -> EmailMessage:
    msg = message_from_bytes(raw, policy=policy.default)
    assert isinstance(msg, EmailMessage) and not msg.defects
    return msg


@pytest.mark.parametrize(
    "subject, name, text",
    [
        ("[g] Turn 1 report for Rigel (RIG)", "Host", "STAR CHASE\n\n== Orders ==\nMOVE 101 102 5\nEND\n\n"),
        (
            "[g] Turn 1 report for Ærø Ünion (AEU)",
            "Hôte du jeu",
            "naïve — text\twith tabs \nand = signs=\n" + "x" * 300 + "\n",
        ),
        ("short", "H", "no final newline"),
    ],
)
def test_a_report_mail_reads_back_part_for_part(subject: str, name: str, text: str) -> None:
    html = f'<p style="x=1">{text}</p>\n'
    raw = compose(
        sender=f"{name} <turns@example.org>",
        recipient="ann@example.org",
        subject=subject,
        text=text,
        html=html,
        when=WHEN,
        message_id="<abc.123@example.org>",
        boundary_seed="0123456789abcdef01234567",
        attachments=[
            ("g-turn1-AEU-map.svg", "image/svg+xml", SVG),
            ("g-turn1-AEU.json", "application/json", b'{"a":1}'),
        ],
        inline=[("map@report.turnproc", "g-turn1-AEU-map.png", "image/png", PNG)],
    )
    msg = parsed(raw)
    assert (msg["Subject"], msg["To"], msg["Message-ID"]) == (
        subject,
        "ann@example.org",
        "<abc.123@example.org>",
    )
    assert msg["From"].addresses[0].display_name == name and msg["Date"].datetime == WHEN
    assert msg["Auto-Submitted"] == "auto-generated" and msg["In-Reply-To"] is None
    tree = [p.get_content_type() for p in msg.walk()]
    assert tree == [
        "multipart/mixed",
        "multipart/related",
        "multipart/alternative",
        "text/plain",
        "text/html",
        "image/png",
        "image/svg+xml",
        "application/json",
    ]
    plain, rich = msg.get_body(preferencelist=("plain",)), msg.get_body(preferencelist=("html",))
    assert plain is not None and rich is not None
    assert plain.get_content() == text.replace("\r\n", "\n") and same_document(rich.get_content(), html)
    picture = next(p for p in msg.walk() if p.get_content_type() == "image/png")
    assert picture["Content-ID"] == "<map@report.turnproc>" and picture.get_content_disposition() == "inline"
    assert picture.get_content() == PNG
    files = {p.get_filename(): p.get_content() for p in msg.iter_attachments()}
    assert files == {"g-turn1-AEU-map.svg": SVG, "g-turn1-AEU.json": b'{"a":1}'}
    assert b"=_0123456789abcdef01234567_0" in raw and max(len(line) for line in raw.split(b"\n")) <= 998


def test_an_answer_is_one_text_part_threaded_under_the_players_mail() -> None:
    raw = compose(
        sender="Host <t@example.org>",
        recipient="bo@example.org",
        subject="Re: orders",
        text="Thanks.\n",
        when=WHEN,
        message_id="<m2@example.org>",
        in_reply_to="<p1@player.example>",
        references="<p0@player.example>",
    )
    msg = parsed(raw)
    assert msg.get_content_type() == "text/plain" and msg.get_content() == "Thanks.\n"
    assert msg["In-Reply-To"] == "<p1@player.example>"
    assert msg["References"] == "<p0@player.example> <p1@player.example>"
    assert msg["Auto-Submitted"] == "auto-replied"


def test_the_same_mail_is_the_same_bytes() -> None:
    args = dict(
        sender="Host <t@example.org>",
        recipient="b@example.org",
        subject="s",
        text="t\n",
        html="<p>t</p>",
        when=WHEN,
        message_id="<x@example.org>",
        boundary_seed="feed",
    )
    assert compose(**args) == compose(**args)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "to",
    ["ann@example.org", "Ann Lee <ann@example.org>", "Zoë Ærø <z@example.org>", "undisclosed-recipients:;"],
)
def test_the_outbox_shows_the_recipient_as_the_mail_reads(to: str) -> None:
    """The outbox row's recipient, given by the caller, is what the To: header says."""
    from turnproc.mail.compose import shown_address

    raw = compose(
        sender="H <h@example.org>", recipient=to, subject="s", text="t", when=WHEN, message_id="<m@x>"
    )
    assert shown_address(to) == str(parsed(raw)["To"])


@pytest.mark.parametrize(
    "to", ["ann@example.org", "Zoë Ærø <z@example.org>", "undisclosed-recipients:;", "a@b, c@d"]
)
def test_addresses_read_in_another_process_give_the_same_mail(to: str) -> None:
    """A rendering process given the addresses as the flush's process read
    them (``addresses``) writes the headers it would write reading them itself."""
    from turnproc.mail.compose import parsed_address, read_addresses

    sender = "Host <h@example.org>"
    read = read_addresses(sender, to)
    parsed_address.cache_clear()
    args = dict(sender=sender, recipient=to, subject="s", text="t", when=WHEN, message_id="<m@x>")
    assert compose(**args, addresses=read) == compose(**args)  # type: ignore[arg-type]
    parsed_address.cache_clear()
    compose(**args, addresses=read)  # type: ignore[arg-type]
    assert parsed_address.cache_info().misses == 0


def _encodings(raw: bytes) -> dict[str, str]:
    return {
        p.get_content_type(): p["Content-Transfer-Encoding"]
        for p in parsed(raw).walk()
        if not p.is_multipart()
    }


def test_parts_travel_as_they_are_when_they_can() -> None:
    """A mail server spends its time per line: an ASCII text, an HTML made
    ASCII and an SVG go unencoded (7bit); the compact JSON, one long line, is
    quoted-printable; the PNG base64. What the reader gets is the same."""
    text, svg, data = (
        "Turn 1\n= orders =\n",
        b'<svg width="9">\n<circle r="1"/>\n</svg>\n',
        b'{"a":"' + b"x" * 3000 + b'"}',
    )
    html = (
        '<p style="margin:0">Ærø — ' + '<span style="color:red">x</span>' * 60 + "</p>\n<pre>a\n  b</pre>\n"
    )
    raw = compose(
        sender="H <h@example.org>",
        recipient="b@example.org",
        subject="s",
        text=text,
        html=html,
        when=WHEN,
        message_id="<m@x>",
        boundary_seed="feed",
        attachments=[("m.svg", "image/svg+xml", svg), ("r.json", "application/json", data)],
        inline=[("map@report.turnproc", "m.png", "image/png", PNG)],
    )
    assert _encodings(raw) == {
        "text/plain": "7bit",
        "text/html": "7bit",
        "image/png": "base64",
        "image/svg+xml": "7bit",
        "application/json": "quoted-printable",
    }
    assert max(len(line) for line in raw.split(b"\n")) <= 998
    msg = parsed(raw)
    rich = msg.get_body(preferencelist=("html",))
    assert rich is not None and same_document(rich.get_content(), html) and rich.get_content() != html
    assert "<pre>a\n  b</pre>" in rich.get_content()  # preformatted text keeps its lines
    assert {p.get_filename(): p.get_content() for p in msg.iter_attachments()} == {
        "m.svg": svg,
        "r.json": data,
    }


@pytest.mark.parametrize(
    "text",
    [
        "naïve\n",  # not ASCII: a text part has no character references
        "a\rb\n",  # a CR of its own
        "x" * 999 + "\n",  # a line too long for SMTP
        "--=_feed_0\n",  # could read as a boundary of this mail
        "nul\0\n",
    ],
)
def test_a_text_that_cannot_travel_as_it_is_is_quoted_printable(text: str) -> None:
    raw = compose(
        sender="H <h@example.org>",
        recipient="b@example.org",
        subject="s",
        text=text,
        when=WHEN,
        message_id="<m@x>",
        boundary_seed="feed",
        attachments=[("notes.txt", "text/plain", text.encode("utf-8"))],
    )
    msg = parsed(raw)
    assert msg.get_content_type() == "multipart/mixed"
    parts = [p for p in msg.walk() if not p.is_multipart()]
    assert [p["Content-Transfer-Encoding"] for p in parts] == ["quoted-printable", "quoted-printable"]
    assert [p.get_payload(decode=True) for p in parts] == [text.encode("utf-8")] * 2
    assert max(len(line) for line in raw.split(b"\n")) <= 998


def test_an_html_line_too_long_and_unbreakable_is_quoted_printable() -> None:
    html = "<p>" + "word " * 300 + "</p>\n"  # no tag to break it in
    raw = compose(
        sender="H <h@example.org>",
        recipient="b@example.org",
        subject="s",
        text="t\n",
        html=html,
        when=WHEN,
        message_id="<m@x>",
    )
    assert _encodings(raw)["text/html"] == "quoted-printable"
    rich = parsed(raw).get_body(preferencelist=("html",))
    assert rich is not None and rich.get_content() == html


class _Rendered(_Document):
    """A document as a browser shows it: white space between tags is one
    space wherever it is (it collapses), but inside ``<pre>`` kept as written;
    in a style sheet, a run of white space is one space (to CSS, outside its
    strings, which hold no line break, all white space is the same)."""

    def __init__(self, html: str) -> None:
        self.pre = 0
        self.style = False
        super().__init__(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.pre += tag == "pre" or any(k == "style" and v and "white-space:pre" in v for k, v in attrs)
        self.style = self.style or tag == "style"
        super().handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        self.pre -= bool(self.pre) and tag in ("pre", "p")
        self.style = self.style and tag != "style"
        super().handle_endtag(tag)

    def handle_data(self, data: str) -> None:
        if self.style:
            data = " ".join(data.split())
        super().handle_data(data if self.pre or data.strip() else " ")


def test_a_reports_html_and_map_travel_in_few_lines_as_the_same_documents() -> None:
    """A mail server's work is per line (compose.pack_markup): a report's
    HTML and its SVG map go with the breaks between tags made spaces, the
    same document to a browser and to an SVG reader, the order form's lines
    in <pre> as they were."""
    from xml.etree import ElementTree

    from tests.reports.test_report_mail import whole_galaxy_context
    from turnproc.outgoing.reportmail import report_mail
    from turnproc.reports.links import game_links
    from turnproc.reports.render import render_report_documents

    context = whole_galaxy_context(2)
    # As the mail has it: with the footer saying where the rules are.
    docs = render_report_documents(context, links=game_links("", context["game"]))
    raw = report_mail("Host <h@example.org>", "ann@example.org", "<r@x>", WHEN, context, "g-turn0-EAA")
    msg = parsed(raw)
    rich = msg.get_body(preferencelist=("html",))
    assert rich is not None and rich["Content-Transfer-Encoding"] == "7bit"
    html = rich.get_content()
    assert html.count("\n") < docs.html.count("\n") and html.count(">\n<") * 5 < docs.html.count(">\n<")
    assert _Rendered(html).events == _Rendered(docs.html).events
    order_form = docs.html.split("<pre")[1].split("</pre>")[0]
    assert order_form.count("\n") > 3 and order_form in html
    # The style sheet in as few lines as 998 characters allow, no empty line between the blocks.
    style = html.split("<style>")[1].split("</style>")[0]
    assert (
        style.count("\n") <= len(style) // MAX_LINE + 1
        and docs.html.count("\n", 0, docs.html.index("</style>")) > 10
    )
    assert "\n\n" not in html.split("<pre")[0] and "\n\n" in docs.html.split("<pre")[0]
    svg = next(p for p in msg.iter_attachments() if p.get_content_type() == "image/svg+xml")
    sent = svg.get_content()
    sent = sent if isinstance(sent, bytes) else sent.encode()
    assert sent.count(b"\n") * 4 < docs.svg.count("\n")

    def shape(element: ElementTree.Element) -> list[tuple[str, dict[str, str], str]]:
        return [(e.tag, e.attrib, (e.text or "").strip()) for e in element.iter()]

    assert shape(ElementTree.fromstring(sent)) == shape(ElementTree.fromstring(docs.svg.encode()))
    assert max(len(line) for line in raw.split(b"\n")) <= 998


_PIECES = [
    "<p>",
    "</p>",
    "text",
    "a &lt; b",
    "",
    "<td class='n'>1</td>",
    "> <",
    "x" * 600,
    "<style>",
    "</style>",
    "p { margin: 0; }",
    "  .n { text-align: right; }",
    "<span style='a'>",
    "<br>",
]


@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_packing_keeps_the_document(pieces: list[str]) -> None:
    """Outside a <pre>: only white space between tags and in style sheets
    goes, and no line grows past 998 characters that was not so long."""
    text = "\n".join(pieces)
    packed = pack_markup(text)
    assert _Rendered(packed).events == _Rendered(text).events
    assert packed.replace("\n", "").replace(" ", "") == text.replace("\n", "").replace(" ", "")
    assert max(map(len, packed.split("\n"))) <= max(MAX_LINE, *map(len, text.split("\n")))


@given(
    st.lists(
        st.sampled_from(["<p>", "</p>", "<span style='x'>", "</span>", "text", "y" * 300]),
        min_size=1,
        max_size=60,
    )
)
def test_a_long_line_is_broken_inside_its_tags_as_few_times_as_it_must(pieces: list[str]) -> None:
    line = "".join(pieces)
    broken = compose_module._break_long(line)
    assert broken.replace("\n", " ") == line
    lines = broken.split("\n")
    # Each break was needed: the line it ends could not have taken the next
    # line up to where that one could have been broken.
    for first, second in itertools.pairwise(lines):
        found = compose_module._TAG_OPENING.search(second)
        assert len(first) + 1 + (found.end(1) if found else len(second)) > MAX_LINE
    if compose_module._TAG_OPENING.search(line):
        assert _Rendered(broken).events == _Rendered(line).events
