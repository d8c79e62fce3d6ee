"""The report mail written directly as bytes reads, in a mail program, exactly
as the email package's message does: the same headers, the same tree of
parts, the same texts, pictures and attachments, byte for byte."""

from __future__ import annotations

import datetime as dt
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest

from turnproc.mail.compose import compose, compose_bytes

WHEN = dt.datetime(2026, 1, 9, 20, 0, tzinfo=dt.UTC)


def tree(raw: bytes) -> list[tuple[str, str | None, str | None, bytes | str]]:
    msg = message_from_bytes(raw, policy=policy.default)
    assert isinstance(msg, EmailMessage)
    out: list[tuple[str, str | None, str | None, bytes | str]] = [
        ("headers", None, None, "|".join(f"{k}={msg[k]}" for k in ("From", "To", "Subject", "Date", "Message-ID")))
    ]
    for part in msg.walk():
        if part.is_multipart():
            out.append((part.get_content_type(), None, None, b""))
        else:
            out.append((part.get_content_type(), part.get_filename(), part["Content-ID"], part.get_content()))
    return out


@pytest.mark.parametrize(
    "subject, name, text",
    [
        ("[g] Turn 1 report for Rigel (RIG)", "Host", "STAR CHASE\n\n== Orders ==\nMOVE 101 102 5\nEND\n\n"),
        ("[g] Turn 1 report for Ærø Ünion (AEU)", "Hôte du jeu", "naïve — text\twith tabs \nand = signs=\n" + "x" * 300 + "\n"),
        ("short", "H", "no final newline"),
    ],
)
def test_compose_bytes_reads_as_compose(subject: str, name: str, text: str) -> None:
    args = dict(
        sender=f"{name} <turns@example.org>", recipient="ann@example.org", subject=subject, text=text,
        html=f"<p>{text}</p>\n", when=WHEN, message_id="<abc.123@example.org>",
        attachments=[("g-turn1-AEU-map.svg", "image/svg+xml", b"<svg/>" * 50), ("g-turn1-AEU.json", "application/json", b'{"a":1}')],
        inline=[("map@report.turnproc", "g-turn1-AEU-map.png", "image/png", bytes(range(256)) * 10)],
    )  # fmt: skip
    old = compose(**args).as_bytes()  # type: ignore[arg-type]
    new = compose_bytes(boundary_seed="0123456789abcdef01234567", **args)  # type: ignore[arg-type]
    assert tree(new) == tree(old)
    assert b"=_0123456789abcdef01234567_0" in new


def test_compose_bytes_is_the_same_bytes_for_the_same_mail() -> None:
    args = dict(
        sender="Host <t@example.org>", recipient="b@example.org", subject="s", text="t\n", html="<p>t</p>", when=WHEN,
        message_id="<x@example.org>", attachments=[], inline=[], boundary_seed="feed",
    )  # fmt: skip
    assert compose_bytes(**args) == compose_bytes(**args)  # type: ignore[arg-type]
