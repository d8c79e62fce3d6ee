"""Golden reports: for every golden turn (tests/rules/golden/), each empire's
text and JSON report, compared with files under tests/reports/golden/.
Rewrite them after a deliberate change with ``pytest --update-golden``."""

from __future__ import annotations

import datetime as dt
import difflib
import json
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tests.rules.test_golden import CASES, SEED, parse_case
from turnproc.reports.context import report_context
from turnproc.reports.render import render_report_documents
from turnproc.rules.turn import resolve, turn_rng
from turnproc.scenario import load_scenario_file

GOLDEN = Path(__file__).parent / "golden"
DEADLINE = dt.datetime(2026, 1, 9, 20, 0, tzinfo=ZoneInfo("Europe/London"))


def reports_for(case: Path) -> dict[str, str]:
    state = load_scenario_file(case / "scenario.toml").state
    orders, _ = parse_case(case, state)
    new, events = resolve(state, orders, turn_rng(SEED, state.turn))
    files: dict[str, str] = {}
    for code in sorted(new.empires):
        docs = render_report_documents(
            report_context(new, events, code, game_name=case.name, turn=state.turn, deadline=DEADLINE)
        )
        files[f"{code}.txt"] = docs.text
        # Pretty-printed here so a change reads as a small diff.
        files[f"{code}.json"] = (
            json.dumps(json.loads(docs.json), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        )
    return files


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_golden_reports(case: Path, update_golden: bool) -> None:
    folder = GOLDEN / case.name
    produced = reports_for(case)
    if update_golden:
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        for name, text in produced.items():
            (folder / name).write_text(text, encoding="utf-8")
        return
    assert folder.is_dir(), f"no golden reports for {case.name}: run pytest --update-golden"
    expected = {p.name: p.read_text(encoding="utf-8") for p in folder.iterdir()}
    assert sorted(expected) == sorted(produced)
    for name, text in produced.items():
        if text != expected[name]:
            diff = "".join(
                difflib.unified_diff(
                    expected[name].splitlines(True), text.splitlines(True), f"golden/{name}", "now"
                )
            )
            pytest.fail(f"{case.name}/{name} differs from its golden file:\n{diff[:4000]}")
