"""Scenario files: round trips, defaults, and an error naming the key/line for each
kind of malformed file."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnproc.rules.economy import income
from turnproc.rules.generate import check_galaxy, generate_galaxy, place_empire
from turnproc.rules.state import TECH_START, GameSettings, Stance, SystemType, Tech
from turnproc.scenario import (
    Scenario,
    ScenarioError,
    dump_scenario,
    load_scenario,
    load_scenario_file,
    scenario_from_state,
)

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "two-empires.toml"
EXAMPLE_TEXT = EXAMPLE.read_text(encoding="utf-8")

MINIMAL = """\
[[empires]]
code = "ALF"
name = "Alfheim"
base = 100

[[systems]]
code = 100
type = "YD"
row = 0
col = 0
owner = "ALF"
pop = 2
cruisers = 3

[[systems]]
code = 101
type = "PL"
star = 100

[[systems]]
code = 102
type = "RD"
row = 1
col = 1

[map]
links = [[100, 101], [100, 102]]
"""


def error_of(text: str, source: str = "map.toml") -> str:
    with pytest.raises(ScenarioError) as info:
        load_scenario(text, source)
    return str(info.value)


def line_of(text: str, needle: str) -> int:
    """1-based number of the first line containing ``needle``."""
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


# -- round trips -----------------------------------------------------------------------


def test_example_file_loads() -> None:
    scenario = load_scenario_file(EXAMPLE)
    state = scenario.state
    assert len(state.systems) == 12 and set(state.empires) == {"ALF", "BET"}
    assert scenario.emails == {"ALF": "alf@example.org", "BET": "bet@example.org"}
    assert check_galaxy(state) == []
    assert state.settings == GameSettings(ruleset=2)
    assert state.systems[100].stance is Stance.AMBUSH and state.systems[100].stance_target == 102
    assert state.systems[109].pop == 0 and state.systems[109].owner is None
    assert state.empires["BET"].tech(Tech.DRIVE) == 2
    assert state.empires["ALF"].techs == {**TECH_START, Tech.PROBE: 3}


def test_example_file_round_trips() -> None:
    scenario = load_scenario_file(EXAMPLE)
    again = load_scenario(dump_scenario(scenario))
    assert again.state == scenario.state
    assert again.emails == scenario.emails
    assert dump_scenario(again) == dump_scenario(scenario)


def test_r19_rule_set_2_state_round_trips() -> None:
    """rules.md §19: scenario files carry the rule set, the reserve, the lost-in-space
    pool, the probes and links made by LINK."""
    state = load_scenario_file(EXAMPLE).state
    alf = state.empires["ALF"]
    alf.reserve, alf.lost_in_space = 4, 3
    alf.active_probe, alf.inactive_probes = 104, (102, 106)
    alf.techs[Tech.HYPERSPACE] = 9
    state.links = state.links | {(104, 105)}  # as LINK 104 105 makes it (distance² 9)
    scenario = Scenario(state=state, emails={})
    text = dump_scenario(scenario)
    assert "ruleset = 2" in text and "inactive_probes = [102, 106]" in text
    again = load_scenario(text).state
    assert again == state and again.settings.ruleset == 2


def test_r19_a_scenario_without_ruleset_is_rule_set_1() -> None:
    """docs/scenarios.md: "a file without it is a version-1 game"; only 1 and 2 exist."""
    text = EXAMPLE.read_text(encoding="utf-8").replace("ruleset = 2\n", "")
    assert load_scenario(text).state.settings.ruleset == 1
    with pytest.raises(ScenarioError, match="not a rule set"):
        load_scenario(EXAMPLE.read_text(encoding="utf-8").replace("ruleset = 2", "ruleset = 3"))


def test_generated_game_with_empires_round_trips() -> None:
    state = generate_galaxy("round-trip", 4)
    for code in ("AAA", "BBB", "CCC"):
        place_empire(state, code, f"Empire {code}")
    # Some state a game picks up in play, to cover every kind of key.
    base = state.empires["AAA"].base
    assert base is not None
    star = state.systems[base]
    star.stance, star.stance_target, star.retreat_parts = Stance.RETREAT, state.neighbours(base)[0], 3
    star.name = 'Q " b\\s \t tab é ✶ \x7f'
    some_unowned = next(s for s in state.systems.values() if s.owner is None)
    some_unowned.ever_owned, some_unowned.industry = True, 4
    state.empires["BBB"].techs[Tech.WEAPONS] = 3
    state.empires["BBB"].active, state.empires["BBB"].missed_turns = False, 2
    state.empires["CCC"].vp, state.empires["CCC"].lost_in_space = -1, 7
    state.turn, state.finished = 9, True
    state.settings = GameSettings(modules=frozenset(), turn_limit=12, vp_target=77)

    scenario = scenario_from_state(state, {"AAA": "a@example.org"})
    again = load_scenario(dump_scenario(scenario))
    assert again.state == state
    assert again.emails == {"AAA": "a@example.org"}


def test_dump_is_valid_toml_in_the_documented_layout() -> None:
    text = dump_scenario(load_scenario_file(EXAMPLE))
    data = tomllib.loads(text)
    assert set(data) == {"game", "empires", "systems", "map"}
    assert "[[systems]]" in text and "[empires.techs]" in text
    assert data["map"]["links"][0] == [100, 101]


@settings(max_examples=60, deadline=None)
@given(name=st.text(max_size=24), empire_name=st.text(min_size=1).filter(str.strip))
def test_any_names_round_trip(name: str, empire_name: str) -> None:
    state = load_scenario(MINIMAL).state
    state.systems[102].name = name
    state.empires["ALF"].name = empire_name
    assert load_scenario(dump_scenario(Scenario(state))).state == state


def test_scenario_from_state_is_the_constructor() -> None:
    state = generate_galaxy("wrap", 2)
    scenario = scenario_from_state(state)
    assert scenario.state is state and scenario.emails == {}


# -- defaults --------------------------------------------------------------------------


def test_defaults_follow_a_new_empires_start() -> None:
    state = load_scenario(MINIMAL).state
    empire = state.empires["ALF"]
    assert state.turn == 1 and not state.finished
    assert empire.treasury == 50 and empire.techs == TECH_START
    assert empire.balance == income(state, "ALF") == 2
    assert empire.home is None and empire.base == 100
    assert state.seen["ALF"] == {100, 101, 102}  # own system and Scanner 1 around it
    planet = state.systems[101]
    assert (planet.row, planet.col, planet.star) == (0, 0, 100)
    assert state.systems[100].ever_owned and not state.systems[102].ever_owned


def test_tech_names_are_case_insensitive() -> None:
    text = edit(
        MINIMAL,
        "base = 100\n",
        'base = 100\ntechs = { Life_Support = 7, BPINCOME = 1, "Cultural Level" = 2 }\n',
    )
    empire = load_scenario(text).state.empires["ALF"]
    assert empire.tech(Tech.LIFE_SUPPORT) == 7
    assert empire.tech(Tech.BP_INCOME) == 1 and empire.tech(Tech.CULTURAL) == 2


def test_types_and_stances_are_case_insensitive() -> None:
    text = edit(MINIMAL, 'type = "RD"', 'type = "rd"\nstance = "standoff"')
    system = load_scenario(text).state.systems[102]
    assert system.type is SystemType.RD and system.stance is Stance.STANDOFF


# -- errors ------------------------------------------------------------------------------


def test_toml_syntax_error_gives_line_and_column() -> None:
    message = error_of(edit(MINIMAL, "row = 1", "row = = 1"))
    assert message.startswith("map.toml: TOML syntax error")
    assert f"line {line_of(MINIMAL, 'row = 1')}" in message and "column" in message


def test_error_names_file_line_and_key() -> None:
    text = EXAMPLE_TEXT.replace('type = "SG"', 'type = "XX"')
    message = error_of(text, "two-empires.toml")
    line = line_of(text, 'type = "XX"')
    assert message.startswith(f"two-empires.toml:{line}: systems[5].type: 'XX' is not a system type")
    assert "(YD, WD, RD, BD, RG, SG, PL, AB)" in message


def test_error_in_a_tech_sub_table_names_its_line() -> None:
    text = EXAMPLE_TEXT.replace("drive = 2", "drvie = 2")
    message = error_of(text, "two-empires.toml")
    assert message.startswith(f"two-empires.toml:{line_of(text, 'drvie')}: empires[1].techs.drvie")
    assert "did you mean 'drive'" in message


def test_error_in_a_link_names_its_line() -> None:
    text = EXAMPLE_TEXT.replace("[106, 107],", "[106, 103],")
    message = error_of(text, "two-empires.toml")
    assert message.startswith(f"two-empires.toml:{line_of(text, '[106, 103]')}: map.links[")
    assert "AB 103 belongs to star 102" in message


MALFORMED: list[tuple[str, str, str, list[str]]] = [
    # (name, old, new, fragments the message must contain)
    ("unknown top-level key", "[map]", "[mapp]", ["mapp: unknown key", "did you mean 'map'"]),
    ("unknown system key", "cruisers = 3", "cruiser = 3", ["systems[0].cruiser", "did you mean 'cruisers'"]),
    ("links in the wrong place", "[map]\nlinks", "links", ["systems[2].links", "[map]"]),
    (
        "unknown game key",
        "[[empires]]",
        "[game]\nturns = 3\n\n[[empires]]",
        ["game.turns", "did you mean 'turn'"],
    ),
    ("string for a number", "pop = 2", 'pop = "2"', ["systems[0].pop", "whole number", "'2'"]),
    ("boolean for a number", "pop = 2", "pop = true", ["systems[0].pop", "whole number"]),
    ("float for a number", "pop = 2", "pop = 2.5", ["systems[0].pop", "whole number"]),
    ("negative count", "cruisers = 3", "cruisers = -3", ["systems[0].cruisers", "below the minimum 0"]),
    ("missing type", 'type = "RD"\n', "", ["systems[2]", "missing key 'type'"]),
    ("bad system type", 'type = "RD"', 'type = "XX"', ["systems[2].type", "'XX' is not a system type"]),
    (
        "duplicate system code",
        "code = 102",
        "code = 101",
        ["systems[2].code", "already declared as systems[1]"],
    ),
    ("code too wide", "code = 102", "code = 1002", ["systems[2].code", "100–999", "1002"]),
    (
        "star on a taken square",
        "row = 1\ncol = 1",
        "row = 0\ncol = 0",
        ["systems[2].row", "already taken by star 100"],
    ),
    ("planet without a star", "star = 100\n", "", ["systems[1]", "missing key 'star'"]),
    ("planet of a planet", "star = 100", "star = 101", ["systems[1].star", "not a star"]),
    ("planet of an unknown star", "star = 100", "star = 999", ["systems[1].star", "999 is not a system"]),
    (
        "planet off its star's square",
        "star = 100",
        "star = 100\nrow = 4",
        ["systems[1].row", "its star's square"],
    ),
    ("star with a star key", 'type = "RD"', 'type = "RD"\nstar = 100', ["systems[2].star", "is a star"]),
    (
        "unknown owner",
        'owner = "ALF"',
        'owner = "ZZZ"',
        ["systems[0].owner", "'ZZZ' is not a declared empire"],
    ),
    (
        "ships in an unowned system",
        'type = "RD"',
        'type = "RD"\nfighters = 1',
        ["systems[2].fighters", "no owner"],
    ),
    (
        "bad stance",
        'type = "RD"',
        'type = "RD"\nstance = "HIDE"',
        ["systems[2].stance", "'HIDE' is not a stance"],
    ),
    (
        "stance target unknown",
        "cruisers = 3",
        "cruisers = 3\nstance_target = 555",
        ["systems[0].stance_target", "555"],
    ),
    (
        "retreat parts",
        "cruisers = 3",
        "cruisers = 3\nretreat_parts = 4",
        ["systems[0].retreat_parts", "maximum 3"],
    ),
    (
        "name too long",
        'type = "RD"',
        'type = "RD"\nname = "' + "x" * 25 + '"',
        ["systems[2].name", "at most 24"],
    ),
    ("home slot on a planet", "star = 100", "star = 100\nhome_slot = true", ["systems[1].home_slot"]),
    (
        "link to an unknown system",
        "[100, 102]]",
        "[100, 102], [100, 777]]",
        ["map.links[2]", "777 is not a system"],
    ),
    (
        "illegal link",
        "[100, 102]]",
        "[100, 102], [101, 102]]",
        ["map.links[2]", "PL 101 belongs to star 100"],
    ),
    ("self link", "[100, 102]]", "[100, 102], [102, 102]]", ["map.links[2]", "to itself"]),
    (
        "duplicate link",
        "[100, 102]]",
        "[100, 102], [102, 100]]",
        ["map.links[2]", "already given as map.links[1]"],
    ),
    ("link not a pair", "[100, 102]]", "[100, 102], [100]]", ["map.links[2]", "pair of system codes"]),
    ("unreachable system", ", [100, 102]]", "]", ["map.links", "not every system is reachable", "102"]),
    (
        "duplicate empire",
        "[[systems]]",
        '[[empires]]\ncode = "ALF"\nname = "Again"\n\n[[systems]]',
        ["empires[1].code", "declared twice"],
    ),
    ("bad empire code", 'code = "ALF"', 'code = "alf"', ["empires[0].code", "3 capital letters"]),
    ("empire without name", 'name = "Alfheim"\n', "", ["empires[0]", "missing key 'name'"]),
    ("base not owned", "base = 100", "base = 102", ["empires[0].base", "not owned by ALF"]),
    ("home not a system", "base = 100", "base = 100\nhome = 12", ["empires[0].home", "12 is not a system"]),
    (
        "bad email",
        "base = 100",
        'base = 100\nemail = "not an address"',
        ["empires[0].email", "not an e-mail"],
    ),
    (
        "unknown tech",
        "base = 100",
        "base = 100\ntechs = { weapns = 1 }",
        ["empires[0].techs.weapns", "did you mean 'weapons'"],
    ),
    (
        "negative tech",
        "base = 100",
        "base = 100\ntechs = { drive = -1 }",
        ["empires[0].techs.drive", "below the minimum 0"],
    ),
    (
        "tech twice",
        "base = 100",
        "base = 100\ntechs = { drive = 1, DRIVE = 2 }",
        ["empires[0].techs.DRIVE", "already given"],
    ),
    ("seen unknown", "base = 100", "base = 100\nseen = [100, 404]", ["empires[0].seen[1]", "404"]),
    (
        "bad module",
        "[[empires]]",
        '[game]\nmodules = ["zoc", "fog"]\n\n[[empires]]',
        ["game.modules[1]", "'fog' is not a rule module"],
    ),
    ("turn zero", "[[empires]]", "[game]\nturn = 0\n\n[[empires]]", ["game.turn", "below the minimum 1"]),
    ("empires not an array", "[[empires]]", "[empires]", ["empires: should be an array, not a table"]),
]


@pytest.mark.parametrize(
    ("old", "new", "fragments"),
    [pytest.param(old, new, fragments, id=name) for name, old, new, fragments in MALFORMED],
)
def test_malformed_file_names_the_key(old: str, new: str, fragments: list[str]) -> None:
    message = error_of(edit(MINIMAL, old, new))
    assert re.match(r"map\.toml(:\d+)?: ", message), message
    for fragment in fragments:
        assert fragment in message, message


def test_too_many_links_on_a_star() -> None:
    systems = "".join(f'\n[[systems]]\ncode = {110 + i}\ntype = "RD"\nrow = 5\ncol = {i}\n' for i in range(7))
    links = ", ".join(f"[100, {110 + i}]" for i in range(7))
    text = edit(MINIMAL, "[map]", systems + "\n[map]")
    text = edit(text, "[100, 102]]", f"[100, 102], {links}]")
    message = error_of(text)
    assert "map.links" in message and "star 100 has 9 links" in message


def test_empty_scenario_is_refused() -> None:
    assert "at least one [[systems]]" in error_of("")


def test_missing_file_is_a_scenario_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(ScenarioError, match=r"nope\.toml: cannot read"):
        load_scenario_file(missing)


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(MINIMAL.replace('type = "RD"', 'type = "XX"'), encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario_file(bad)
    assert str(info.value).startswith(f"{bad}:{line_of(bad.read_text(), 'XX')}: systems[2].type")


def test_scenario_error_is_a_value_error() -> None:
    assert issubclass(ScenarioError, ValueError)


def test_population_without_an_owner_is_refused() -> None:
    from turnproc.scenario import ScenarioError, load_scenario

    text = '[[systems]]\ncode = 100\ntype = "YD"\nrow = 0\ncol = 0\npop = 3\n'
    with pytest.raises(ScenarioError, match=r"systems\[0\]\.pop: system 100 has population but no owner"):
        load_scenario(text, "natives.toml")
