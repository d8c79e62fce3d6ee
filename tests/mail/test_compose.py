"""Outgoing mails are written directly as bytes (turnproc/mail/compose.py);
what a mail program reads from them is checked here with the standard
library's own parser: headers, the tree of parts, texts, pictures and
attachments byte for byte, replies threaded, the same bytes every time."""

from __future__ import annotations

import datetime as dt
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest

from turnproc.mail.compose import compose

WHEN = dt.datetime(2026, 1, 9, 20, 0, tzinfo=dt.UTC)
PNG = bytes(range(256)) * 10
SVG = b"<svg/>" * 50


def parsed(raw: bytes) -> EmailMessage:
    msg = message_from_bytes(raw, policy=policy.default)
    assert isinstance(msg, EmailMessage) and not msg.defects
    return msg


@pytest.mark.parametrize(
    "subject, name, text",
    [
        ("[g] Turn 1 report for Rigel (RIG)", "Host", "STAR CHASE\n\n== Orders ==\nMOVE 101 102 5\nEND\n\n"),
        ("[g] Turn 1 report for Ærø Ünion (AEU)", "Hôte du jeu", "naïve — text\twith tabs \nand = signs=\n" + "x" * 300 + "\n"),
        ("short", "H", "no final newline"),
    ],
)
def test_a_report_mail_reads_back_part_for_part(subject: str, name: str, text: str) -> None:
    html = f"<p style=\"x=1\">{text}</p>\n"
    raw = compose(
        sender=f"{name} <turns@example.org>", recipient="ann@example.org", subject=subject, text=text, html=html,
        when=WHEN, message_id="<abc.123@example.org>", boundary_seed="0123456789abcdef01234567",
        attachments=[("g-turn1-AEU-map.svg", "image/svg+xml", SVG), ("g-turn1-AEU.json", "application/json", b'{"a":1}')],
        inline=[("map@report.turnproc", "g-turn1-AEU-map.png", "image/png", PNG)],
    )  # fmt: skip
    msg = parsed(raw)
    assert (msg["Subject"], msg["To"], msg["Message-ID"]) == (subject, "ann@example.org", "<abc.123@example.org>")
    assert msg["From"].addresses[0].display_name == name and msg["Date"].datetime == WHEN
    assert msg["Auto-Submitted"] == "auto-generated" and msg["In-Reply-To"] is None
    tree = [p.get_content_type() for p in msg.walk()]
    assert tree == [
        "multipart/mixed", "multipart/related", "multipart/alternative", "text/plain", "text/html", "image/png",
        "image/svg+xml", "application/json",
    ]  # fmt: skip
    plain, rich = msg.get_body(preferencelist=("plain",)), msg.get_body(preferencelist=("html",))
    assert plain is not None and rich is not None
    assert plain.get_content() == text.replace("\r\n", "\n") and rich.get_content() == html
    picture = next(p for p in msg.walk() if p.get_content_type() == "image/png")
    assert picture["Content-ID"] == "<map@report.turnproc>" and picture.get_content_disposition() == "inline"
    assert picture.get_content() == PNG
    files = {p.get_filename(): p.get_content() for p in msg.iter_attachments()}
    assert files == {"g-turn1-AEU-map.svg": SVG, "g-turn1-AEU.json": b'{"a":1}'}
    assert b"=_0123456789abcdef01234567_0" in raw and max(len(line) for line in raw.split(b"\n")) <= 998


def test_an_answer_is_one_text_part_threaded_under_the_players_mail() -> None:
    raw = compose(
        sender="Host <t@example.org>", recipient="bo@example.org", subject="Re: orders", text="Thanks.\n", when=WHEN,
        message_id="<m2@example.org>", in_reply_to="<p1@player.example>", references="<p0@player.example>",
    )  # fmt: skip
    msg = parsed(raw)
    assert msg.get_content_type() == "text/plain" and msg.get_content() == "Thanks.\n"
    assert msg["In-Reply-To"] == "<p1@player.example>"
    assert msg["References"] == "<p0@player.example> <p1@player.example>"
    assert msg["Auto-Submitted"] == "auto-replied"


def test_the_same_mail_is_the_same_bytes() -> None:
    args = dict(
        sender="Host <t@example.org>", recipient="b@example.org", subject="s", text="t\n", html="<p>t</p>", when=WHEN,
        message_id="<x@example.org>", boundary_seed="feed",
    )  # fmt: skip
    assert compose(**args) == compose(**args)  # type: ignore[arg-type]


@pytest.mark.parametrize("to", ["ann@example.org", "Ann Lee <ann@example.org>", "Zoë Ærø <z@example.org>", "undisclosed-recipients:;"])
def test_the_outbox_shows_the_recipient_as_the_mail_reads(to: str) -> None:
    """The outbox row's recipient, given by the caller, is what the To: header says."""
    from turnproc.mail.compose import shown_address

    raw = compose(sender="H <h@example.org>", recipient=to, subject="s", text="t", when=WHEN, message_id="<m@x>")
    assert shown_address(to) == str(parsed(raw)["To"])
