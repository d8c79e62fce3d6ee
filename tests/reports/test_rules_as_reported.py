"""The report's promises in docs/rules.md, one test per rule: a system the
empire attacked is reported as it was right after the attack, even out of
scanner range (rules.md §14, ruling V2); the Empire line's balance adds up
(rules.md §13.1, ruling E8); every own and seen system's links are listed
(rules.md §5)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.reports.test_fog import CODES, play
from tests.rules.test_golden import SEED, parse_case
from turnproc.reports.context import report_context
from turnproc.reports.render import render_report_documents
from turnproc.rules.generate import generate_galaxy, place_empire
from turnproc.rules.state import GameSettings, Tech
from turnproc.rules.turn import resolve, turn_rng
from turnproc.scenario import load_scenario_file

PLAIN = Path(__file__).parents[1] / "rules" / "golden" / "plain"
BALANCE_LINE = re.compile(r"Balance for turn \d+: +(\d+) BP \(income (\d+) less supply (\d+)")


def test_r14_an_attacked_system_out_of_range_is_reported_as_right_after_the_attack() -> None:
    """rules.md §14 (ruling V2): RIG attacks ZAP's 104 and is repelled; later in
    the turn ZAP grows 104 from 2 to 5 population. With Scanner 0, RIG cannot
    see 104 at the end of the turn, yet its report shows 104 with its owner,
    population, industry and ships as they were right after the battle."""
    state = load_scenario_file(PLAIN / "scenario.toml").state
    state.empires["RIG"].techs[Tech.SCANNER] = 0
    orders, _ = parse_case(PLAIN, state)
    new, events = resolve(state, orders, turn_rng(SEED, state.turn))
    assert new.systems[104].pop == 5  # the end of the turn, which RIG did not see
    ctx = report_context(new, events, "RIG", game_name="plain", turn=1)
    rows = {r["code"]: r for r in ctx["scouting"]}
    row = rows[104]
    assert row["after_attack"] is True
    assert (row["owner"], row["pop"], row["industry"], row["cruisers"], row["fighters"]) == (
        "ZAP",
        2,
        2,
        2,
        0,
    )
    assert next(s for s in ctx["map"]["systems"] if s["code"] == 104)["owner"] == "ZAP"
    text = render_report_documents(ctx).text
    assert re.search(r"^104 .* owner ZAP pop 2 ind 2 crs 2 ftr 0 .*right after your attack", text, re.M)
    # ZAP, the defender, sees its own system as it is now.
    zap = {r["code"]: r for r in report_context(new, events, "ZAP", game_name="plain", turn=1)["systems"]}
    assert zap[104]["pop"] == 5


def test_r14_a_system_in_scanner_range_is_shown_as_it_is_now() -> None:
    """rules.md §14: in scanner range the end of the turn counts, attacked or not."""
    state = load_scenario_file(PLAIN / "scenario.toml").state
    orders, _ = parse_case(PLAIN, state)
    new, events = resolve(state, orders, turn_rng(SEED, state.turn))
    row = {r["code"]: r for r in report_context(new, events, "RIG", game_name="plain", turn=1)["scouting"]}[
        104
    ]
    assert "after_attack" not in row and row["pop"] == 5


def research_changes_income() -> tuple[object, list, str]:
    """A game where research at the end of turn 1 raises BP Income (its weight
    makes it the near-certain pick), after the income was counted."""
    state = generate_galaxy("balance", 2, 10, GameSettings())
    for code in ("AAA", "BBB"):
        place_empire(state, code, f"Empire {code}")
        state.empires[code].techs[Tech.BP_INCOME] = 500
    new, events = resolve(state, {"AAA": [], "BBB": []}, turn_rng("balance", state.turn))
    research = [e for e in events if e.kind == "research" and e.empire == "AAA"]
    assert research and research[0].data["tech"] == "BPINCOME"
    return new, events, "AAA"


def test_r13_1_the_balance_line_adds_up_when_research_changes_income() -> None:
    """rules.md §13.1 (ruling E8): balance = the income counted at step 2 less
    the supply paid at step 3; research at step 5 shows as next turn's income."""
    new, events, code = research_changes_income()
    ctx = report_context(new, events, code, game_name="g", turn=1)  # type: ignore[arg-type]
    e = ctx["empire"]
    assert e["economy_ran"] and e["balance"] == e["income"] - e["supply_paid"]
    assert e["next_income"] == e["income"] + 2  # one more BP Income level: 2 BP
    text = render_report_documents(ctx).text
    balance, income, supply = map(int, BALANCE_LINE.search(text).groups())  # type: ignore[union-attr]
    assert (balance, income, supply) == (e["balance"], e["income"], e["supply_paid"])
    assert f"Income next turn:    {e['next_income']} BP if nothing changes (research changed it" in text


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_r13_1_every_balance_line_adds_up(seed: int) -> None:
    """rules.md §13.1 (ruling E8), over random games: B = I - S in every report."""
    state, events = play(seed, 3, frozenset({"zoc", "pinning", "engage"}))
    for viewer in CODES:
        ctx = report_context(state, events, viewer, game_name="g", turn=state.turn - 1)
        found = BALANCE_LINE.search(render_report_documents(ctx).text)
        if ctx["empire"]["economy_ran"]:
            assert found is not None
            balance, income, supply = map(int, found.groups())
            assert balance == income - supply == state.empires[viewer].balance
        else:
            assert found is None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_r5_the_text_report_lists_every_own_and_seen_systems_links(seed: int) -> None:
    """rules.md §5: under each own system and each other system seen, its links."""
    state, events = play(seed, 2, frozenset())
    for viewer in CODES:
        ctx = report_context(state, events, viewer, game_name="g", turn=state.turn - 1)
        docs = render_report_documents(ctx)
        known = set(state.seen.get(viewer, set())) | {s.code for s in state.owned_by(viewer)}
        for section, rows in (("Your systems", ctx["systems"]), ("Other systems you see", ctx["scouting"])):
            body = docs.text.split(f"== {section} ==\n")[1].split("\n== ")[0]
            for s in rows:
                links = [n for n in state.neighbours(s["code"]) if n in known]
                assert links, s["code"]  # every system has a known neighbour here
                block = re.search(rf"^{s['code']} .*\n      links (.*)$", body, re.M)
                assert block is not None, (viewer, s["code"])
                assert [int(x) for x in block.group(1).split()] == links
                # The HTML lists them too, in the row's Links cell.
                assert f'data-label="Links">{" ".join(map(str, links))}</td>' in docs.html
