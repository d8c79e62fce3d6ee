"""What the reports say, sentence by sentence: plurals, battles nobody
survived, who a press message is from and to, orders in line order, the JSON's
deadline and schema id, and the order form the one parser reads back."""

from __future__ import annotations

import datetime as dt
import json
from importlib import resources
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tests.reports.test_fog import CODES, play
from turnproc.orders.parser import parse_mail
from turnproc.reports.context import SCHEMA_ID, SCHEMA_VERSION, report_context
from turnproc.reports.narrative import narrate
from turnproc.reports.orderform import WIDTH
from turnproc.reports.render import press_heading, render_report_documents
from turnproc.rules.events import Event


@pytest.mark.parametrize(("lost", "words"), [(1, "1 BP was lost"), (2, "2 BP were lost")])
def test_leftovers_lost_agree_with_their_number(lost: int, words: str) -> None:
    e = Event("leftovers", "RIG", {"balance": lost, "cruisers": 0, "fighters": 0, "lost": lost})
    assert words in narrate(e, "RIG")


def test_withdrawals_agree_with_their_number() -> None:
    e = Event(
        "withdraw",
        "ZAP",
        {"system": 104, "to": 105, "cruisers": 3, "caught": 1, "lost": 2, "attacker": "RIG"},
    )
    text = narrate(e, "RIG")
    assert "1 was caught" in text and "2 were lost" in text


def test_a_failed_attack_nobody_survived_sends_no_survivors_home() -> None:
    data = {
        "system": 104,
        "attacker": "RIG",
        "defender": "ZAP",
        "from": 101,
        "attack": 9,
        "defence": 14,
        "losses": {"attacker": {"cruisers": 9}, "defender": {"cruisers": 0, "fighters": 2}},
        "survivors": 0,
        "captured": False,
        "defence_level": 2,
        "engage": None,
        "fire_order": "simultaneous",
        "rounds": [{"attack": 9, "defence": 14}],
    }
    text = narrate(Event("battle", "RIG", data), "RIG")
    assert (
        "you lost 9 cruisers" in text
        and "survivors went home" not in text
        and "no attacking cruiser survived" in text
    )
    assert "survivors went home" in narrate(Event("battle", "RIG", {**data, "survivors": 1}), "RIG")


def test_press_says_whom_a_message_is_to() -> None:
    assert press_heading({"from": "ORI", "to": "RIG", "private": True}, "RIG") == "From ORI to you (private)"
    assert press_heading({"from": "RIG", "to": "ORI", "private": True}, "RIG") == "From you to ORI (private)"
    assert press_heading({"from": "ORI", "to": "ALL", "private": False}, "RIG") == "From ORI to all"


def test_orders_are_listed_in_line_order() -> None:
    state, events = play(2, 2, frozenset({"engage"}))
    for viewer in CODES:
        lines = [o["line"] for o in report_context(state, events, viewer, game_name="g", turn=1)["orders"]]
        assert lines == sorted(lines, key=lambda n: (n is None, n or 0))


def test_the_json_deadline_is_iso_8601_with_the_text_beside_it() -> None:
    state, events = play(1, 1, frozenset())
    when = dt.datetime(2026, 7, 9, 20, 0, tzinfo=ZoneInfo("Europe/London"))
    ctx = json.loads(
        render_report_documents(
            report_context(state, events, "AAA", game_name="g", turn=1, deadline=when)
        ).json
    )
    assert ctx["deadline"] == "2026-07-09T20:00:00+01:00"
    assert dt.datetime.fromisoformat(ctx["deadline"]) == when
    assert ctx["deadline_text"] == "Thursday 09 July 2026, 20:00 BST"
    by_hand = report_context(state, events, "AAA", game_name="g", turn=1)
    assert by_hand["deadline"] is None and by_hand["deadline_text"] is None


def test_the_schema_id_is_versioned_and_the_reports_name_it() -> None:
    schema = json.loads(
        resources.files("turnproc.reports").joinpath("report.schema.json").read_text(encoding="utf-8")
    )
    assert schema["$id"] == SCHEMA_ID == schema["properties"]["schema"]["const"]
    assert SCHEMA_ID.endswith(f":{SCHEMA_VERSION}") and "example" not in SCHEMA_ID
    state, events = play(1, 1, frozenset())
    assert report_context(state, events, "AAA", game_name="g", turn=1)["schema"] == SCHEMA_ID


@pytest.mark.parametrize("seed", [1, 3])
def test_the_order_form_lists_every_system_and_reads_back_as_no_orders(seed: int) -> None:
    """The form's comment lines are not read (docs/orders.md): sent back with a
    password and nothing else, it is a mail with a header and no orders."""
    state, events = play(seed, 2, frozenset())
    for viewer in CODES:
        ctx = report_context(state, events, viewer, game_name="g", turn=1)
        form = ctx["order_form"]
        assert all(len(line) <= WIDTH for line in form.splitlines())
        for s in ctx["systems"]:
            assert f"\n# {s['code']} {s['type']}" in form
            assert f"#   links {' '.join(map(str, s['links']))}" in form
        parsed = parse_mail(form.replace("<password>", "secret"), state, viewer)
        assert parsed.header.empire == viewer and parsed.orders == [] and parsed.problems == []
        # With an order written in, that order and only it is read.
        own = ctx["systems"][0]["code"]
        filled = parse_mail(
            form.replace("<password>", "secret").replace("\nEND", f"\nGROW {own} 1\nEND"), state, viewer
        )
        assert [o.action.value for o in filled.orders] == ["GROW"] and filled.errors == []


def test_a_report_stored_before_schema_2_can_still_be_sent_again() -> None:
    """A player may ask for an old report (REPORT): one stored in the first
    JSON format still renders, and its JSON is sent as it was stored."""
    old = json.loads((Path(__file__).parent / "stored" / "report-schema-1.json").read_text(encoding="utf-8"))
    assert "deadline_text" not in old
    docs = render_report_documents(old)
    assert "Orders for turn 2 are due Friday 09 January 2026, 20:00 GMT." in docs.text
    assert "Balance for turn 2:  0 BP (income 86 less supply 86)" in docs.text
    assert json.loads(docs.json) == old and docs.png[:4] == b"\x89PNG"


def test_the_form_width_docs_orders_states_is_the_codes() -> None:
    text = (Path(__file__).parents[2] / "docs" / "orders.md").read_text(encoding="utf-8")
    assert f"the form's lines are at most {WIDTH} characters long" in " ".join(text.split())
