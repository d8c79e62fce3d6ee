"""rules.md §19: every game records its rule set, and a version-1 game resolves
exactly as before version 2 existed: its golden turns are byte-identical."""

from __future__ import annotations

import hashlib
import re

import pytest

from turnproc.orders.orders import Action as A
from turnproc.rules.serialize import state_from_dict, state_to_dict, state_to_json, state_to_record
from turnproc.rules.state import GameSettings
from turnproc.scenario import load_scenario_file

from .builders import duel, o, order_events, run
from .test_golden import GOLDEN, render_case

#: sha256 of each version-1 golden turn as it was before rule set 2 was written.
#: ``--update-golden`` cannot move these: a change here is a change to how
#: version-1 games play, which must never happen. Hashed without the
#: ``after.*`` fields a battle event has carried since (the attacked system as
#: the attacker saw it, for its report: rules.md §14, ruling V2): they record
#: what happened, they change nothing that happens.
V1_GOLDEN = {
    "plain": "832c59305942a2e132fd06cc3cd22aa95e0894975b1c477ead7a4729f6387afa",
    "zoc": "b9998b5bf889b63fd97f617fee60559b21047063a7fb3c285b2e0b768988ae85",
    "pinning": "6bf4389e62b4bbec3278f45d0a361132b945cc4615f812b1d2c38c819f28e369",
    "engage": "ee43fb71e7fe50d4576b6f902063a24de021e7bb84b3b0f2329e7f39cdec563e",
    "all_modules": "45c10f1b4baef20c8a3974c63ca26216cc52f717104d920cd4ea7d6e0675075a",
}


@pytest.mark.parametrize("name", sorted(V1_GOLDEN))
def test_r19_version_1_golden_turns_are_byte_identical(name: str) -> None:
    """rules.md §19: "Games created before version 2 existed play rule set 1 ... exactly
    as written, turn after turn." The engine's output for each version-1 golden
    turn hashes to what it was before rule set 2."""
    case = GOLDEN / name
    assert load_scenario_file(case / "scenario.toml").state.settings.ruleset == 1
    rendered = render_case(case)
    played = re.sub(r" after\.\w+=\S+", "", rendered)
    assert hashlib.sha256(played.encode("utf-8")).hexdigest() == V1_GOLDEN[name]
    assert rendered.encode("utf-8") == (case / "expected.txt").read_bytes()


def test_r19_every_rule_set_2_concept_has_a_golden_turn() -> None:
    """The issue's "a golden turn per new concept plus one with all of them and all
    modules on"."""
    v2 = {p.name for p in GOLDEN.iterdir() if (p / "scenario.toml").exists() and p.name.startswith("v2_")}
    assert v2 == {
        "v2_reserve",
        "v2_bombard",
        "v2_link",
        "v2_probes",
        "v2_trade",
        "v2_economy",
        "v2_corrections",
        "v2_all_modules",
    }
    for name in v2:
        state = load_scenario_file(GOLDEN / name / "scenario.toml").state
        assert state.settings.ruleset == 2, name
    assert load_scenario_file(GOLDEN / "v2_all_modules" / "scenario.toml").state.settings.modules == {
        "zoc",
        "pinning",
        "engage",
    }


def test_r19_the_rule_set_survives_serialisation() -> None:
    """rules.md §19: the version travels with the state (turn records, scenario files)."""
    state = duel(ruleset=2).build()
    state.empires["ABC"].reserve = 3
    state.empires["ABC"].active_probe = 103
    state.empires["ABC"].inactive_probes = (101, 102)
    for form in (state_to_dict, state_to_record):  # golden files; turn records
        back = state_from_dict(form(state))
        assert back.settings == GameSettings(modules=frozenset(), ruleset=2)
        assert (back.empires["ABC"].reserve, back.empires["ABC"].inactive_probes) == (3, (101, 102))
        assert state_to_json(back) == state_to_json(state)
    old = state_to_dict(duel().build())
    del old["settings"]["ruleset"]  # a turn record written before version 2
    assert state_from_dict(old).settings.ruleset == 1


def test_r19_a_version_1_game_fails_every_rule_set_2_order() -> None:
    """rules.md §19 (ruling R1): such an order "that reaches the turn anyway fails with
    not_in_ruleset", costs nothing and changes nothing."""
    b = duel()
    b.systems[101].cruisers = 5
    orders = [
        o(A.LAYUP, 101, None, 1),
        o(A.RESERVE, 101, None, 1),
        o(A.RECOVER, 101, None, 1),
        o(A.BOMBARD, 101, 102),
        o(A.LINK, 101, 103),
        o(A.FIND, 101),
        o(A.PROBE, 103),
    ]
    new, events = run(b.build(), {"ABC": orders})
    done = order_events(events, "ABC")
    assert [e["reason"] for e in done] == ["not_in_ruleset"] * len(orders)
    assert sum(e["cost"] for e in done) == 0
    assert new.systems[101].cruisers == 5 and new.empires["ABC"].reserve == 0
