"""The turn bulletin of a big game (docs/orders.md, "Your report and the turn
bulletin"): what a report in such a game keeps, what the bulletin holds, and
that a game without one gets its reports exactly as before. The sending, the
threshold and REPORT are tested with the turn and the mail."""

from __future__ import annotations

import datetime as dt
import json
import random
from importlib import resources
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reports.test_fog import perturb, play
from tests.reports.test_golden_reports import GOLDEN
from tests.rules.test_golden import CASES, SEED, parse_case
from turnproc.reports.bulletin import BULLETIN_SCHEMA_ID, bulletin_context, bulletin_pointer, bulletin_subject
from turnproc.reports.context import BULLETIN_TOP, TurnView, report_context
from turnproc.reports.render import render, render_report_documents
from turnproc.rules.events import Event
from turnproc.rules.generate import generate_galaxy, place_empire
from turnproc.rules.state import GameSettings, GameState
from turnproc.rules.turn import resolve, turn_rng
from turnproc.rules.visibility import audience, visible_systems
from turnproc.scenario import load_scenario_file

DEADLINE = dt.datetime(2026, 1, 9, 20, 0, tzinfo=ZoneInfo("Europe/London"))
CODES = [f"E{chr(ord('A') + i)}{chr(ord('A') + i)}" for i in range(16)]  # EAA, EBB, ... EPP


def _schema(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(
        resources.files("turnproc.reports").joinpath(name).read_text(encoding="utf-8")
    )
    return loaded


REPORT_SCHEMA = jsonschema.Draft202012Validator(
    _schema("report.schema.json"), format_checker=jsonschema.FormatChecker()
)
BULLETIN_SCHEMA = jsonschema.Draft202012Validator(
    _schema("bulletin.schema.json"), format_checker=jsonschema.FormatChecker()
)


def big_game() -> tuple[GameState, list[Event]]:
    """Sixteen empires, ranked by VP in the order of CODES (EAA first); the
    last one, EPP, has a private message from ENN and sees nobody's system."""
    state = generate_galaxy("bulletin", len(CODES), 6, GameSettings())
    for code in CODES:
        place_empire(state, code, f"Empire {code}")
    for i, code in enumerate(CODES):
        state.empires[code].vp = 100 - i
    events = [
        Event(kind="message", empire="EBB", data={"text": "Hello <everyone>"}),
        Event(kind="message", empire="ENN", data={"to": "EPP", "text": "a secret for EPP"}),
        Event(kind="message", empire="EMM", data={"to": "ECC", "text": "a secret for ECC"}),
        Event(kind="message", empire="EOO", data={"text": "Second public word"}),
    ]
    return state, events


def bulletin_report(state: GameState, events: list[Event], code: str, **extra: Any) -> dict[str, Any]:
    pointer = bulletin_pointer("big", 4, len(state.empires), corrected=bool(extra.get("corrected")))
    return report_context(
        state, events, code, game_name="big", turn=4, deadline=DEADLINE, bulletin=pointer, **extra
    )


def test_14_bulletin_report_roundup_is_top_own_and_met() -> None:
    """rules.md §14 (ruling V3): the first ten rows, the empire's own, and the
    empires it has met (here: ENN, by a private message), in standings order."""
    state, events = big_game()
    assert not {s.owner for c in visible_systems(state, "EPP") for s in [state.systems[c]]} - {None, "EPP"}
    context = bulletin_report(state, events, "EPP")
    assert [r["code"] for r in context["roundup"]] == [*CODES[:BULLETIN_TOP], "ENN", "EPP"]
    assert [r["rank"] for r in context["roundup"]] == [*range(1, BULLETIN_TOP + 1), 14, 16]
    assert context["empire"]["rank"] == 16
    assert context["bulletin"] == {
        "subject": "[big] Turn 4 bulletin: roundup and press",
        "turn": 4,
        "empires": 16,
        "top": 10,
    }
    docs = render_report_documents(context)
    assert (
        "The top 10, you and the empires you have met, of 16 empires (all are in the bulletin):" in docs.text
    )
    roundup_text = docs.text.split("== Roundup ==")[1].split("== Press ==")[0]
    assert "EMM" not in roundup_text and " 14. ENN" in roundup_text and " 16. EPP" in roundup_text
    assert "The top 10, you and the empires you have met, of 16 empires" in docs.html


def test_14_an_empire_owning_a_system_in_sight_is_met() -> None:
    """rules.md §14 (ruling V3): an empire owning a system the reader sees is in
    its roundup, though nothing of this turn names it."""
    state, events = big_game()
    seen = sorted(visible_systems(state, "EPP") - {s.code for s in state.owned_by("EPP")})
    state.systems[seen[0]].owner = "ELL"
    context = bulletin_report(state, events, "EPP")
    assert [r["code"] for r in context["roundup"]][BULLETIN_TOP:] == ["ELL", "ENN", "EPP"]


def test_bulletin_report_leaves_public_press_out_and_keeps_private() -> None:
    state, events = big_game()
    context = bulletin_report(state, events, "EPP")
    assert context["press"] == [{"from": "ENN", "to": "EPP", "private": True, "text": "a secret for EPP"}]
    docs = render_report_documents(context)
    press = docs.text.split("== Press ==")[1].split("== Order form")[0]
    assert press == "\nFrom ENN to you (private): a secret for EPP\nPublic press is in the bulletin.\n\n"
    assert "Hello" not in docs.text and "Hello" not in docs.html and "Hello" not in docs.json
    assert "Public press is in the bulletin." in docs.html
    quiet = render_report_documents(bulletin_report(state, events, "EAA"))
    assert "(no private messages)\nPublic press is in the bulletin." in quiet.text
    assert "No private messages." in quiet.html


def test_bulletin_report_points_to_the_bulletin() -> None:
    """The report names the bulletin by its subject, says it is a separate mail
    to every player, and that REPORT n sends both again."""
    state, events = big_game()
    docs = render_report_documents(bulletin_report(state, events, "EPP"))
    assert (
        "The roundup of all 16 empires and the public press are in the turn bulletin,\n"
        'a separate mail to every player: "[big] Turn 4 bulletin: roundup and press".\n'
        "REPORT 4 sends this report and that bulletin again.\n"
    ) in docs.text
    assert '<b class="name">[big] Turn 4 bulletin: roundup and press</b>' in docs.html
    assert (
        "a separate mail to every player" in docs.html
        and "<code>REPORT 4</code> sends this report and that bulletin again." in docs.html
    )


def test_bulletin_report_keeps_all_else_and_follows_the_schema() -> None:
    """Everything that is the empire's alone stays in its report: only the
    roundup, the press and the pointer differ from the report of a small game."""
    state, events = big_game()
    full = report_context(state, events, "EPP", game_name="big", turn=4, deadline=DEADLINE)
    short = bulletin_report(state, events, "EPP")
    assert set(short) == set(full) | {"bulletin"}
    assert {k for k in full if full[k] != short[k]} == {"roundup", "press"}
    REPORT_SCHEMA.validate(json.loads(render_report_documents(short).json))
    REPORT_SCHEMA.validate(json.loads(render_report_documents(full).json))


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_without_a_bulletin_reports_are_as_before(case: Path) -> None:
    """bulletin=None is today's report, key for key and byte for byte (the golden reports)."""
    state = load_scenario_file(case / "scenario.toml").state
    orders, _ = parse_case(case, state)
    new, events = resolve(state, orders, turn_rng(SEED, state.turn))
    for code in sorted(new.empires):
        context = report_context(
            new, events, code, game_name=case.name, turn=state.turn, deadline=DEADLINE, bulletin=None
        )
        assert "bulletin" not in context
        assert context == report_context(
            new, events, code, game_name=case.name, turn=state.turn, deadline=DEADLINE
        )
        docs = render_report_documents(context)
        assert docs.text == (GOLDEN / case.name / f"{code}.txt").read_text(encoding="utf-8")
        assert "bulletin" not in docs.text and "bulletin" not in docs.html


def big_bulletin(**extra: Any) -> dict[str, Any]:
    state, events = big_game()
    context = bulletin_context(
        state, events, game_name="big", turn=4, deadline=DEADLINE, corrected=bool(extra)
    )
    context.update(extra)
    return context


def test_bulletin_has_every_empire_and_all_public_press() -> None:
    context = big_bulletin()
    assert context["schema"] == BULLETIN_SCHEMA_ID and context["empires"] == 16
    assert [r["code"] for r in context["roundup"]] == CODES
    assert context["press"] == [
        {"from": "EBB", "to": "ALL", "private": False, "text": "Hello <everyone>"},
        {"from": "EOO", "to": "ALL", "private": False, "text": "Second public word"},
    ]
    assert context["deadline"] == "2026-01-09T20:00:00+00:00" and context["next_turn"] == 1
    BULLETIN_SCHEMA.validate(json.loads(json.dumps(context)))
    rendered = render("bulletin", context)
    assert rendered.subject == bulletin_subject("big", 4) == "[big] Turn 4 bulletin: roundup and press"
    assert rendered.html is not None
    for code in CODES:
        assert f". {code} Empire {code}" in rendered.text and f"<td>{code}</td>" in rendered.html
    assert "From EBB to all: Hello <everyone>\nFrom EOO to all: Second public word\n" in rendered.text
    assert "<strong>From EBB to all</strong>: Hello &lt;everyone&gt;" in rendered.html
    assert "Orders for turn 1 are due Friday 09 January 2026, 20:00 GMT." in rendered.text
    assert "Orders for turn 1 are due Friday 09 January 2026, 20:00 GMT." in rendered.html
    assert "From the GM" not in rendered.text and "re-ran" not in rendered.text


def test_bulletin_html_is_mail_safe() -> None:
    """As the report: inline styles, no script, no outside picture, a phone layout."""
    html = render("bulletin", big_bulletin()).html
    assert html is not None
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert "<script" not in html and "<img" not in html and "http" not in html.replace("https://", "")
    assert '<body style="' in html and "@media (max-width: 640px)" in html


def test_bulletin_prints_announcements_and_the_correction() -> None:
    context = big_bulletin(
        announcements=[{"subject": "Break <1>", "text": "No turn\nnext week"}], correction_reason="a <bug>"
    )
    BULLETIN_SCHEMA.validate(json.loads(json.dumps(context)))
    rendered = render("bulletin", context)
    assert rendered.html is not None
    assert rendered.subject == "[big] Turn 4 bulletin: roundup and press (corrected)"
    assert "== From the GM: Break <1> ==\nNo turn\nnext week\n" in rendered.text
    assert "The GM re-ran this turn; this bulletin replaces the earlier one. Why: a <bug>" in rendered.text
    assert "From the GM: Break &lt;1&gt;</h2>" in rendered.html and "Why: a &lt;bug&gt;" in rendered.html


def test_bulletin_without_public_press() -> None:
    state, _ = big_game()
    rendered = render("bulletin", bulletin_context(state, [], game_name="big", turn=4, deadline=None))
    assert rendered.text.endswith("== Public press ==\n(no messages)\n")
    assert "Orders for turn 1 are due at the GM's next run." in rendered.text


def test_bulletin_schema_id_matches_the_code() -> None:
    schema = _schema("bulletin.schema.json")
    assert schema["$id"] == BULLETIN_SCHEMA_ID == schema["properties"]["schema"]["const"]
    assert BULLETIN_SCHEMA_ID.startswith("urn:turnproc:schema:bulletin:")


def test_14_the_bulletin_holds_only_what_is_public() -> None:
    """rules.md §14: the roundup and the public press are public; nothing else
    (positions, fleets, purses, private press) changes the bulletin."""
    state, events = big_game()
    plain = bulletin_context(
        state, [e for e in events if audience(e) is None], game_name="big", turn=4, deadline=DEADLINE
    )
    other = state.copy()
    for s in other.systems.values():
        s.owner, s.cruisers, s.pop = "EAA", s.cruisers + 7, s.pop + 1
    for e in other.empires.values():
        e.balance, e.treasury = 999, 999
    noisy = [
        *events,
        Event(kind="battle", empire="EAA", data={"attacker": "EAA", "defender": "EBB", "system": 100}),
    ]
    assert bulletin_context(other, noisy, game_name="big", turn=4, deadline=DEADLINE) == plain
    rendered = render("bulletin", plain)
    assert rendered.html is not None
    assert "secret" not in rendered.text + rendered.html + json.dumps(plain)


def played(seed: int) -> tuple[GameState, list[Event]]:
    """A played game of the fog-of-war test, with more empires joined and
    ranked so the roundup has rows to leave out."""
    state, events = play(seed, 2, frozenset())
    rng = random.Random(seed)
    for e in state.empires.values():
        e.vp = rng.randint(0, 3)
    return state, events


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6))
def test_14_bulletin_reports_list_everyone_they_meet(seed: int) -> None:
    """rules.md §14 (ruling V3), over played games: the roundup of a bulletin
    game's report holds every owner of a system on its map that it sees, and
    everyone named with it in an event it reads; and, with a top of one row,
    the report stays the same whatever happens out of its sight."""
    state, events = played(seed)
    view = TurnView.build(state, events)
    for code in state.empires:
        pointer = {**bulletin_pointer("fog", state.turn - 1, len(state.empires)), "top": 1}
        context = report_context(
            state, events, code, game_name="fog", turn=state.turn - 1, view=view, bulletin=pointer
        )
        listed = [r["code"] for r in context["roundup"]]
        assert listed == [r["code"] for r in view.roundup if r["code"] in listed]
        assert view.roundup[0]["code"] in listed and code in listed
        owners = {s["owner"] for s in context["map"]["systems"] if s["owner"] is not None}
        named = {c for e in view.events[code] if (who := audience(e)) for c in who}
        assert owners | named <= set(listed)
        hidden_state, hidden_events = perturb(state, events, code, random.Random(seed))
        again = report_context(
            hidden_state, hidden_events, code, game_name="fog", turn=state.turn - 1, bulletin=pointer
        )
        assert render_report_documents(again).text == render_report_documents(context).text
