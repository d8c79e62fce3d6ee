"""The order form's rule-set-2 hints (docs/orders.md, "Your first order mail";
rules.md §19.2–19.6): the costs, the reserve and the lost-in-space pool, probes,
trading, and at each system LAYUP, BOMBARD and LINK, each only where it applies."""

from __future__ import annotations

import re
from pathlib import Path

from tests.rules.test_golden import GOLDEN, SEED, parse_case
from turnproc.orders.parser import parse_orders
from turnproc.reports.context import report_context
from turnproc.rules.state import GameState, Tech
from turnproc.rules.turn import resolve, turn_rng
from turnproc.scenario import load_scenario_file


def after(case: str) -> GameState:
    state = load_scenario_file(Path(GOLDEN / case / "scenario.toml")).state
    orders, _ = parse_case(GOLDEN / case, state)
    new, _ = resolve(state, orders, turn_rng(SEED, state.turn))
    return new


def form(state: GameState, code: str) -> str:
    return str(report_context(state, [], code, game_name="g", turn=state.turn - 1)["order_form"])


def test_r19_2_the_form_gives_reserve_and_recover_where_there_are_any() -> None:
    """rules.md §19.2: a player with cruisers in reserve sees a RESERVE hint, one with
    cruisers lost in space a RECOVER hint; one with neither sees neither."""
    state = after("v2_reserve")
    rig, zap = state.empires["RIG"], state.empires["ZAP"]
    assert rig.reserve > 0 and rig.lost_in_space > 0 and zap.reserve == 0
    text = form(state, "RIG")
    assert f"# In reserve: {rig.reserve} cruisers; RESERVE WHERE N brings them back." in text
    assert "RECOVER WHERE N brings back up to 3 a time" in text
    assert "# Rule set 2: LAYUP 1 BP, RESERVE 1, RECOVER 3 a cruiser, BOMBARD 2," in text
    assert "In reserve" not in form(state, "ZAP")


def test_r19_3_and_19_4_bombard_and_link_hints_are_orders_the_checks_take() -> None:
    """rules.md §19.3 and rules.md §19.4: BOMBARD of a linked planet another empire holds, from a
    star with cruisers; LINK only once Hyperspace allows one. Every hint that names
    its systems is an order the acknowledgement takes."""
    state = after("v2_reserve")
    text = form(state, "RIG")
    assert "BOMBARD 105 115" in text and "LINK 105 TO" not in text
    state.empires["RIG"].techs[Tech.HYPERSPACE] = 2
    assert "LINK 105 TO" in form(state, "RIG")
    named = re.findall(r"BOMBARD \d+ \d+", text)
    assert named and not parse_orders("\n".join(named), state, "RIG").problems


def test_r19_5_and_19_6_probes_and_trading_and_rule_set_1_has_none() -> None:
    """rules.md §19.5 and rules.md §19.6: PROBE lines up to the Probe tech, FIND, TRADE and TAKE; a
    rule-set-1 form is as it always was."""
    state = after("v2_reserve")
    probes = state.empires["RIG"].tech(Tech.PROBE)
    text = form(state, "RIG")
    assert f"# Up to {probes} PROBE CODE lines (no slot); FIND WHERE destroys probes." in text
    assert "# TRADE TECH EMPIRE [LEVEL] offers a tech; TAKE TECH EMPIRE accepts one." in text
    plain = after("plain")
    code = sorted(plain.empires)[0]
    v1 = form(plain, code)
    assert "Rule set 2" not in v1 and "LAYUP" not in v1 and "PROBE" not in v1
