"""Every report format: the JSON validates against the published schema, the
HTML escapes whatever players write, the text layout survives it, and each
report mail carries text, HTML, the map and the JSON."""

from __future__ import annotations

import json
import mailbox
import re
from email import message_from_bytes, policy
from email.message import EmailMessage
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from tests.reports.test_fog import CODES, play
from turnproc.reports.context import report_context
from turnproc.reports.render import MAP_CID, NEAR_CID, render_report_documents, report_json
from turnproc.rules.events import Event
from turnproc.service.demo import run_demo


def inline_picture(msg: EmailMessage, html: str, cid: str = MAP_CID) -> bytes:
    """A map picture as a mail program finds it: the HTML's one ``cid:``
    reference to ``cid`` (the whole map or the neighbourhood), resolved to the
    part of the same multipart/related with that Content-ID (RFC 2387)."""
    refs = re.findall(r'<img[^>]* src="cid:([^"]+)"', html)
    assert refs.count(cid) == 1, refs
    related = [p for p in msg.walk() if p.get_content_type() == "multipart/related"]
    assert len(related) == 1
    parts = [p for p in related[0].iter_parts() if p.get("Content-ID") == f"<{cid}>"]
    assert len(parts) == 1 and parts[0].get_content_type() == "image/png"
    assert parts[0].get_content_disposition() == "inline"
    data = parts[0].get_content()
    assert isinstance(data, bytes)
    return data


SCHEMA = json.loads(
    resources.files("turnproc.reports").joinpath("report.schema.json").read_text(encoding="utf-8")
)


def validate(data: dict) -> None:
    jsonschema.validate(data, SCHEMA, cls=jsonschema.Draft202012Validator)


def test_the_schema_is_a_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_reports_of_random_games_validate(seed: int) -> None:
    state, events = play(seed, 3, frozenset({"zoc", "pinning", "engage"}))
    for viewer in CODES:
        docs = render_report_documents(
            report_context(state, events, viewer, game_name="g", turn=state.turn - 1)
        )
        validate(json.loads(docs.json))


@pytest.mark.slow  # plays the demo
def test_demo_report_mails_carry_every_format(tmp_path: Path) -> None:
    run_demo(tmp_path / "d", turns=2)
    out = mailbox.Maildir(tmp_path / "d" / "mail" / "out", create=False)
    reports = []
    for key in out.iterkeys():
        msg = message_from_bytes(out.get_bytes(key), policy=policy.default)
        if "report for" in str(msg["Subject"]):
            reports.append(msg)
    assert len(reports) == 8
    for msg in reports:
        assert msg.get_body(preferencelist=("plain",)).get_content().startswith("STAR CHASE")
        html = msg.get_body(preferencelist=("html",)).get_content()
        assert html.lstrip().startswith("<!DOCTYPE html>") and "<svg" not in html
        assert inline_picture(msg, html)[:8] == b"\x89PNG\r\n\x1a\n"
        assert inline_picture(msg, html, NEAR_CID)[:8] == b"\x89PNG\r\n\x1a\n"
        attachments = {part.get_filename(): part for part in msg.iter_attachments()}
        svg = next(p for name, p in attachments.items() if name.endswith("-map.svg"))
        assert svg.get_content_type() == "image/svg+xml"
        data = next(p for name, p in attachments.items() if name.endswith(".json"))
        validate(
            json.loads(
                data.get_content() if isinstance(data.get_content(), str) else data.get_content().decode()
            )
        )


HOSTILE = {
    "name": "<script>x</script>",
    "message": '"quotes" & <b>tags</b> <img src=x onerror=alert(1)> ' + "W" * 300,
    "rtl": "\u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627",
    "emoji": "\U0001f680\U0001f31f\U0001f47e",
}


def hostile_context() -> dict:
    state, events = play(5, 1, frozenset())
    viewer = CODES[0]
    own = state.owned_by(viewer)
    own[0].name = HOSTILE["name"]
    own[1].name = HOSTILE["rtl"][:24]
    state.empires[viewer].name = HOSTILE["emoji"] + " League"
    events = [
        *events,
        Event("message", CODES[1], {"from": CODES[1], "to": None, "text": HOSTILE["message"]}),
        Event(
            "message",
            CODES[2],
            {"from": CODES[2], "to": viewer, "text": HOSTILE["rtl"] + " " + HOSTILE["emoji"]},
        ),
    ]
    return report_context(state, events, viewer, game_name="g", turn=1)


def test_hostile_player_text_is_escaped_in_html() -> None:
    docs = render_report_documents(hostile_context())
    assert "<script>" not in docs.html and "&lt;script&gt;" in docs.html
    # The two pictures are the maps (the whole one and the neighbourhood); the player's <img> is text.
    assert docs.html.count("<img") == 2 and "<img src=x" not in docs.html and "&lt;img" in docs.html
    assert "onerror" not in docs.svg
    assert HOSTILE["emoji"] in docs.html and HOSTILE["rtl"][:10] in docs.html
    validate(json.loads(docs.json))


def test_hostile_player_text_keeps_the_text_layout() -> None:
    text = render_report_documents(hostile_context()).text
    section = text.split("== Your systems ==\n")[1].split("\n\n")[0].splitlines()
    header, rows = section[0], section[1:]
    # Every row keeps its columns: the name is clipped to its 24 characters
    # (plus the two invisible isolates around right-to-left script).
    for row in rows:
        if row.startswith("      links "):  # each system's links, under its row
            continue
        assert re.match(r"^\d{3,5} +[A-Z]{2} ", row), row
        assert len(row.replace("\u2068", "").replace("\u2069", "")) <= len(header) + 12, row
    assert "\u2068" in text  # right-to-left names are isolated
    assert max(len(line) for line in text.splitlines() if not line.startswith("From ")) < 200


def test_a_control_character_in_a_name_cannot_break_the_map() -> None:
    """XML forbids most control characters: one in a name is drawn as U+FFFD,
    and the SVG and the PNG are still made (it used to stop the mail)."""
    state, events = play(5, 1, frozenset())
    viewer = CODES[0]
    state.owned_by(viewer)[0].name = "Bad\x02Name\x1b"
    state.empires[viewer].name = "Evil\x00Empire"
    for compact in (False, True):
        context = report_context(state, events, viewer, game_name="g", turn=1)
        if compact:
            context["bulletin"] = {"subject": "s", "turn": 1, "empires": 60, "top": 10}
        docs = render_report_documents(context)
        assert "\x02" not in docs.svg and "\x00" not in docs.svg and "\ufffd" in docs.svg
        assert docs.png.startswith(b"\x89PNG")


def test_the_json_report_is_the_standard_librarys_bytes() -> None:
    """The attachment's JSON is written by orjson; it must be byte for byte what
    ``json.dumps(sort_keys=True, ensure_ascii=False)`` compact gives, hostile
    text and all, and a lone surrogate still gets written."""
    for context in (
        hostile_context(),
        {"x": "a\x1b\u2028</script>\U0001f600", "k": {1: 2}, "f": 1.5, "n": None},
    ):
        assert report_json(context) == json.dumps(
            context, sort_keys=True, ensure_ascii=False, separators=(",", ":")
        )
    assert report_json({"bad": "\ud800"}) == '{"bad":"\ud800"}'
