"""A JSON report read back into a game state (turnproc/reports/rebuild.py) holds
what the report shows and what the order checks ask (rules.md §14): the
empire's systems, ships and links, every system it knows, the empires of the
roundup, its purses and techs. Checked on every golden report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from turnproc.reports.rebuild import ReportError, state_from_report
from turnproc.rules.checks import known_systems
from turnproc.rules.state import techs_of

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*/*.json"))


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: f"{p.parent.name}-{p.stem}")
def test_a_golden_report_reads_back(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    view = state_from_report(data)
    state, code = view.state, data["empire"]["code"]
    assert (view.game, view.empire, view.turn, state.turn) == (
        data["game"],
        code,
        data["turn"],
        data["next_turn"],
    )
    known = known_systems(state, code)
    assert known is not None
    assert set(known.owned) == {s["code"] for s in data["systems"]}
    assert set(known.known) == {s["code"] for s in data["map"]["systems"]}
    for row in data["systems"]:
        assert list(state.neighbours(row["code"])) == row["links"]
        system = state.systems[row["code"]]
        assert (system.cruisers, system.fighters, system.colony_ships, system.pop, system.industry) == (
            row["cruisers"],
            row["fighters"],
            row["colony_ships"],
            row["pop"],
            row["industry"],
        )
        assert system.is_star == (row["type"] not in ("PL", "AB"))
    empire = state.empires[code]
    assert (empire.balance, empire.treasury, empire.base, empire.home) == tuple(
        data["empire"][k] for k in ("balance", "treasury", "base", "home")
    )
    assert {t.value: empire.tech(t) for t in techs_of(data.get("ruleset", 1))} == data["empire"]["techs"]
    assert sorted(state.empires) == sorted(r["code"] for r in data["roundup"])


def test_the_deadline_in_words_whatever_its_form() -> None:
    data = json.loads(GOLDEN[0].read_text(encoding="utf-8"))
    assert state_from_report(data).deadline == data["deadline_text"]
    old = {k: v for k, v in data.items() if k != "deadline_text"} | {
        "deadline": "Friday 20:00"
    }  # before schema 2
    assert state_from_report(old).deadline == "Friday 20:00"
    iso = {
        **data,
        "deadline": "2026-01-09T20:00:00+00:00",
        "deadline_text": "Friday 09 January 2026, 20:00 GMT",
    }
    assert state_from_report(iso).deadline == "Friday 09 January 2026, 20:00 GMT"
    nested = old | {"deadline": {"iso": "2026-01-09T20:00:00+00:00", "text": "Friday 20:00"}}
    assert state_from_report(nested).deadline == "Friday 20:00"


@pytest.mark.parametrize(
    "change, words",
    [
        ({"empire": {"code": "RIG"}}, "empire.balance is missing"),
        ({"next_turn": "two"}, "next_turn is missing or not a number"),
        (
            {"map": {"systems": [{"code": 101, "type": "XX", "row": 0, "col": 0}], "links": []}},
            "type of system 101 is 'XX'",
        ),
        ({"roundup": []}, "not in the report's roundup"),
    ],
)
def test_a_damaged_report_is_refused_by_name(change: dict[str, object], words: str) -> None:
    data = {**json.loads(GOLDEN[0].read_text(encoding="utf-8")), **change}
    with pytest.raises(ReportError, match=words):
        state_from_report(data)
