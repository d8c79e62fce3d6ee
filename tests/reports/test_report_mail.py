"""The report mail as a player's mail program gets it: sent over real SMTP
(the test's aiosmtpd sink), the HTML shows the map as a PNG through ``cid:``
(Gmail and Outlook show no inline SVG), the SVG and the JSON are attached, and
the picture holds the whole seen map with its legend, in bounded size and time
however much of the galaxy the empire has seen (docs/rules.md §5)."""

from __future__ import annotations

import datetime as dt
import re
import time
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.conftest import IMAP_PASSWORD, IMAP_USER, SmtpSink
from tests.factories import imap_app
from tests.reports.test_formats import inline_picture
from tests.servers import free_port
from turnproc.outgoing.reportmail import send_outbox
from turnproc.reports.context import report_context
from turnproc.reports.mapimage import png_map, png_size
from turnproc.reports.mapsymbols import CELL, MARGIN
from turnproc.reports.svgmap import MAX_PNG_SIDE, MIN_LABEL_SCALE, label_limit, svg_map
from turnproc.rules.generate import generate_galaxy, place_empire
from turnproc.rules.state import GameSettings
from turnproc.turns.run import run_current_turn

NOW = dt.datetime(2026, 1, 9, 20, 0, tzinfo=dt.UTC)


def sent_reports(sink: SmtpSink) -> list[EmailMessage]:
    out = []
    for _, _, raw in sink.messages:
        msg = message_from_bytes(raw, policy=policy.default)
        assert isinstance(msg, EmailMessage)
        if "report for" in str(msg["Subject"]):
            out.append(msg)
    return out


def test_the_sent_report_shows_the_map_inline_and_attaches_svg_and_json(
    sqlite_url: str, smtp_server: SmtpSink
) -> None:
    app = imap_app(sqlite_url, free_port(), smtp_server.port, IMAP_USER, IMAP_PASSWORD)
    try:
        run_current_turn(app.sessions, "corpus", app.config, NOW)
        sent, failed = send_outbox(app.sessions, app.config, NOW)
    finally:
        app.close()
    assert failed == 0 and sent >= 2
    reports = sent_reports(smtp_server)
    assert len(reports) == 2
    for msg in reports:
        html_part = msg.get_body(preferencelist=("html",))
        assert html_part is not None
        html = html_part.get_content()
        png = inline_picture(msg, html)
        width, height = png_size(png)
        # The <img> says the picture's own width, so clients lay it out before it loads.
        assert re.search(rf'<img[^>]* width="{width}"', html)
        assert 0 < width <= MAX_PNG_SIDE + 1 and height > 0
        names = {p.get_filename() for p in msg.iter_attachments()}
        assert any(n and n.endswith("-map.svg") for n in names) and any(
            n and n.endswith(".json") for n in names
        )
        # The text alternative is still there for text-only clients.
        plain = msg.get_body(preferencelist=("plain",))
        assert plain is not None and "== Your systems ==" in plain.get_content()


def whole_galaxy_context(empires: int) -> dict:
    """A report of an empire that has seen every system of a generated galaxy."""
    state = generate_galaxy("big", empires, 30, GameSettings())
    codes = [f"E{chr(65 + i // 26)}{chr(65 + i % 26)}" for i in range(empires)]
    for code in codes:
        place_empire(state, code, f"Empire {code}")
    state.seen[codes[0]] = set(state.systems)
    return report_context(state, [], codes[0], game_name="big", turn=0)


def test_the_picture_holds_every_seen_system_with_its_label_and_the_legend() -> None:
    context = whole_galaxy_context(2)
    svg = svg_map(context, max_side=MAX_PNG_SIDE)
    assert "Legend" in svg and "yours (EAA)" in svg
    for s in context["map"]["systems"]:
        # Every system, planets and belts too, is drawn and labelled with its code.
        assert f"<title>{s['code']} {s['type']}" in svg
        assert re.search(rf">{s['code']}( [^<]*)?</text>", svg), s["code"]
    png = png_map(context)
    assert png_size(png)[0] <= MAX_PNG_SIDE + 1


@pytest.mark.slow
def test_a_map_of_the_whole_galaxy_is_bounded_in_size_and_time() -> None:
    # 200 empires x 30 systems: a map far wider than labels can be read at.
    context = whole_galaxy_context(200)
    stars = [s for s in context["map"]["systems"] if s["star"] is None]
    across = max(s["col"] for s in stars) - min(s["col"] for s in stars) + 1
    assert across > label_limit()
    start = time.perf_counter()
    png = png_map(context)
    seconds = time.perf_counter() - start
    width, height = png_size(png)
    assert width <= MAX_PNG_SIDE + 1 and height <= MAX_PNG_SIDE + 400
    assert len(png) < 2_000_000
    assert seconds < 20, seconds
    # Too small to read: the picture leaves the labels out, the legend stays.
    small = svg_map(context, max_side=MAX_PNG_SIDE)
    assert "Legend" in small and f">{stars[0]['code']}</text>" not in small


def test_the_limits_the_rulebook_states_are_the_codes() -> None:
    """rules.md §5.1 states the picture's limits in numbers: they are these."""
    text = (Path(__file__).parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    section = text.split("### 5.1 The map picture")[1].split("\n## ")[0]
    assert f"at most {MAX_PNG_SIDE:,} pixels wide and high" in section
    full = int((MAX_PNG_SIDE - 2 * MARGIN) / CELL)  # squares that fit at full size
    assert f"higher than {full} grid squares is scaled down" in section
    assert f"below {round(MIN_LABEL_SCALE * 100)} %" in section and f"more than {label_limit()}" in section
