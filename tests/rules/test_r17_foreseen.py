"""rules.md §17.1: the order checks refuse what the empire's report already shows
must fail, with the engine's own reason functions, so the acknowledgement's code
and words are the turn's; what the report cannot show is checked at the turn.

Each refusal of the table is shown three ways: the parse refuses the line with
the reason's code and the report's words, the engine fails the same order with
that reason, and the report's sentence for it is those words. A hypothesis test
draws orders on generated galaxies: a refusal is always the turn's reason (no
false refusals), and a lone order the checks let through never fails for a
reason the report showed.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnproc.orders.orders import Order
from turnproc.orders.parser import parse_orders
from turnproc.orders.problems import FORESEEN
from turnproc.orders.vocabulary import REASONS
from turnproc.reports.narrative import narrate
from turnproc.rules.events import Event
from turnproc.rules.galaxy import between_squares
from turnproc.rules.generate import generate_galaxy, place_empire
from turnproc.rules.sight import star_between
from turnproc.rules.state import GameSettings, GameState, SystemType, Tech
from turnproc.rules.turn import resolve
from turnproc.rules.visibility import visible_systems

from .test_r19_bombard_link import bombard_field, link_field


def seen_all(state: GameState, empire: str = "ABC") -> GameState:
    """The builders' states as a report that has seen the whole map."""
    state.seen = {code: set(state.systems) for code in state.empires}
    return state


def turn_of(state: GameState, empire: str, text: str) -> tuple[dict[int, str], dict[int, Event]]:
    """The checks' refusals by line, and the engine's order events by line when
    every line reaches it (the refused ones too)."""
    parsed = parse_orders(text, state, empire)
    refused = {p.line: p.code for p in parsed.problems if p.code in FORESEEN}
    kept = {o.line for o in parsed.orders} | set(refused)
    orders = [o for o in parse_orders(text).orders if o.line in kept]
    _, events = resolve(state, {empire: orders}, random.Random(7))
    return refused, {e.data["line"]: e for e in events if e.kind == "order" and e.empire == empire}


def bombard_state() -> GameState:
    return seen_all(bombard_field().build())


def link_state(hyperspace: int = 1) -> GameState:
    return seen_all(link_field(hyperspace).build())


def with_reserve(state: GameState, reserve: int) -> GameState:
    state.empires["ABC"].reserve = reserve
    return state


#: (state, order line, the code the checks refuse it with and the turn fails it for).
REFUSED = [
    (bombard_state, "BOMBARD 104 107", "not_enemy"),
    (bombard_state, "BOMBARD 104 106", "not_planet"),
    (bombard_state, "BOMBARD 104 108", "not_planet"),
    (bombard_state, "ASSAULT 104 107 1", "own_system"),
    (bombard_state, "RESERVE 104 1", "no_reserve"),
    (link_state, "LINK 101 105", "beyond_hyperspace"),
    (link_state, "LINK 101 106", "bad_distance"),
    (lambda: link_state(9), "LINK 101 102", "target_owned"),
    (link_state, "DEEP 101 103 1", "too_far"),
    (link_state, "TRADE JUMP XYZ 2", "level_too_high"),
]


@pytest.mark.parametrize(("make", "line", "code"), REFUSED, ids=[r[1] for r in REFUSED])
def test_r17_1_a_refusal_is_the_turns_reason_in_the_turns_words(  # type: ignore[no-untyped-def]
    make, line: str, code: str
) -> None:
    """rules.md §17.1: "the line is marked ERROR with the reason's code, in the words
    above, and it is not stored"; "The host asks the very rule the turn asks"."""
    state = make()
    parsed = parse_orders(line, state, "ABC")
    assert not parsed.orders
    (problem,) = parsed.problems
    assert problem.code == code
    assert REASONS[code] in problem.message
    refused, events = turn_of(state, "ABC", line)
    assert refused == {1: code}
    assert events[1].data["reason"] == code
    assert REASONS[code] in narrate(events[1], "ABC")


def test_r17_1_bombard_of_a_nobodys_planet_and_from_a_planet() -> None:
    """rules.md §17.1: BOMBARD is refused when TO is nobody's, or FROM a planet."""
    state = bombard_state()
    planet = state.systems[105]
    planet.owner, planet.pop, planet.industry, planet.cruisers, planet.fighters = None, 0, 0, 0, 0
    state.systems[107].cruisers = 2
    refused, events = turn_of(state, "ABC", "BOMBARD 104 105\nBOMBARD 107 104")
    assert refused == {1: "not_enemy", 2: "not_star_from"}
    assert [events[n].data["reason"] for n in (1, 2)] == ["not_enemy", "not_star_from"]


def test_r17_1_link_across_a_known_star_already_linked_and_full() -> None:
    """rules.md §17.1: LINK is refused across a star you know, between linked stars,
    and from a star with 7 links."""
    state = link_state(9)
    state.links = state.links | {(101, 103)}
    refused, events = turn_of(state, "ABC", "LINK 101 103")
    assert refused == {1: "already_linked"} and events[1].data["reason"] == "already_linked"
    # 104 at (0,3): 102 at (0,1) stands on the way, and the report shows it
    # (ABC holds 102, so it sees 104 and who holds it).
    state = link_state(9)
    state.systems[102].owner = "ABC"
    parsed = parse_orders("LINK 101 104", state, "ABC")
    assert [p.code for p in parsed.problems] == ["blocked"]
    assert "(star 102)" in parsed.problems[0].message
    assert turn_of(state, "ABC", "LINK 101 104")[1][1].data["reason"] == "blocked"
    state = link_state(9)
    for n in range(6):  # 101 has its link to 102: 7 in all
        code = 120 + n
        state.systems[code] = type(state.systems[101])(code, SystemType.PL, 0, 0, star=101)
        state.links = state.links | {(101, code)}
    state.seen["ABC"] |= set(range(120, 126))
    state.systems[102].owner = "ABC"  # so that ABC sees 103 and who holds it
    refused, events = turn_of(state, "ABC", "LINK 101 103")
    assert refused == {1: "too_many_links"} and events[1].data["reason"] == "too_many_links"


def test_r17_1_checked_at_the_turn() -> None:
    """rules.md §17.1: a tech an earlier TECH line buys, any tech once an earlier
    move may take a system, and squares the report cannot see are checked at the
    turn: the line is OK."""
    state = link_state(1)
    for text in (
        "TECH JUMP 2\nDEEP 101 103 1",
        "MOVE 101 102 1\nDEEP 101 103 1",
        "TECH HYPERSPACE 3\nLINK 101 103",
    ):
        parsed = parse_orders(text, state, "ABC")
        assert not parsed.problems and len(parsed.orders) == 2, text
    # Distance² 4 along a row: a star the report does not show may stand between.
    state = link_state(9)
    state.systems[102].owner = None
    del state.systems[102]
    state.links = frozenset(p for p in state.links if 102 not in p) | {
        (101, 103),
        (103, 104),
        (103, 105),
        (103, 106),
    }
    state.seen["ABC"].discard(102)
    parsed = parse_orders("LINK 101 105", state, "ABC")
    assert not parsed.problems


def test_r17_1_an_owner_not_seen_now_is_checked_at_the_turn() -> None:
    """rules.md §17.1: "owners of systems you do not see now" are the turn's to judge:
    a LINK to a star out of sight whose owner the report cannot tell is OK."""
    state = link_state(9)
    state.systems[104].owner = "XYZ"
    state.links = frozenset(p for p in state.links if 104 not in p) | {(105, 104)}
    assert 104 not in visible_systems(state, "ABC")
    parsed = parse_orders("LINK 101 104", state, "ABC")
    # Along a row, distance² 9: the checks stop before the owner; the turn refuses it.
    assert not parsed.problems


def test_r17_1_reserve_is_told_before_a_blockade() -> None:
    """rules.md §17.1: RESERVE with no reserve is refused, and the turn gives
    no_reserve before it looks for a blockade (which only the slot can tell)."""
    state = with_reserve(bombard_state(), 0)
    state.systems[107].owner = "ABC"
    state.systems[104].owner = "XYZ"
    state.systems[104].cruisers = 3
    refused, events = turn_of(state, "ABC", "RESERVE 107 1")
    assert refused == {1: "no_reserve"} and events[1].data["reason"] == "no_reserve"
    state = with_reserve(bombard_state(), 2)
    assert not parse_orders("RESERVE 104 1", state, "ABC").problems


# -- generated games --------------------------------------------------------------------------

ACTIONS = ("BOMBARD", "LINK", "DEEP", "ASSAULT", "MOVE", "RESERVE", "TRADE", "TECH")
#: Reasons whose conditions a lone order's report always shows.
ALWAYS_SHOWN = {
    "not_star_from",
    "not_planet",
    "bad_distance",
    "too_far",
    "beyond_hyperspace",
    "no_reserve",
    "level_too_high",
    "own_system",
}


def generated(seed: int, jump: int, hyperspace: int, reserve: int, taken: int) -> GameState:
    state = generate_galaxy(f"foreseen-{seed}", 3, 10, GameSettings(ruleset=2))
    for code in ("ABC", "DEF", "GHI"):
        place_empire(state, code, f"Empire {code}")
    emp = state.empires["ABC"]
    emp.techs[Tech.JUMP], emp.techs[Tech.HYPERSPACE], emp.reserve = jump, hyperspace, reserve
    # Some systems change hands, so that planets and stars of every kind of owner are near.
    rng = random.Random(seed)
    marks = {c for e in state.empires.values() for c in (e.base, e.home)}
    for code in rng.sample(sorted(set(state.systems) - marks), taken):
        sys = state.systems[code]
        sys.owner = rng.choice(["ABC", "DEF", None])
        if sys.owner is None:
            sys.pop = sys.industry = sys.cruisers = sys.fighters = sys.colony_ships = 0
    for code in state.empires:
        state.seen[code] = state.seen.get(code, set()) | visible_systems(state, code)
    return state


@st.composite
def games_and_orders(draw: st.DrawFn) -> tuple[GameState, list[str]]:
    state = generated(
        draw(st.integers(0, 5)),
        draw(st.integers(0, 9)),
        draw(st.integers(0, 9)),
        draw(st.integers(0, 2)),
        draw(st.integers(0, 12)),
    )
    own = sorted(c for c, s in state.systems.items() if s.owner == "ABC")
    known = sorted(state.seen["ABC"])
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        action = draw(st.sampled_from(ACTIONS))
        a, b = draw(st.sampled_from(own)), draw(st.sampled_from(known))
        level = draw(st.integers(0, 4))
        tech = draw(st.sampled_from(["JUMP", "HYPERSPACE", "WEAPONS"]))
        lines.append(
            {
                "RESERVE": f"RESERVE {a} 1",
                "TRADE": f"TRADE {tech} DEF {level}",
                "TECH": f"TECH {tech}",
                "DEEP": f"DEEP {a} {b} 1",
                "ASSAULT": f"ASSAULT {a} {b} 1",
                "MOVE": f"MOVE {a} {b} 1",
            }.get(action, f"{action} {a} {b}")
        )
    return state, lines


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games_and_orders())
def test_r17_1_no_false_refusals_and_no_ok_for_what_the_report_shows(
    drawn: tuple[GameState, list[str]],
) -> None:
    """rules.md §17.1: whenever the checks refuse a line, the turn fails that order for
    that reason; a lone order the checks let through never fails for a reason its
    report always shows, nor for an owner or a star between that the report showed."""
    state, lines = drawn
    refused, events = turn_of(state, "ABC", "\n".join(lines))
    for line, code in refused.items():
        assert events[line].data["reason"] == code, (lines, line, code, events[line].data)
    if len(lines) != 1 or refused or 1 not in events:
        return
    reason = events[1].data["reason"]
    assert reason not in ALWAYS_SHOWN, (lines, reason)
    order: Order = parse_orders(lines[0]).orders[0]
    if order.to is None or order.where is None:
        return
    src, dst = state.systems[order.where], state.systems[order.to]
    visible = visible_systems(state, "ABC")
    if reason in ("not_enemy", "target_owned"):
        assert dst.code not in visible, (lines, reason)
    if reason == "blocked":
        assert star_between(src, dst, (state.systems[c] for c in state.seen["ABC"])) is None, lines
    if reason in ("already_linked", "too_many_links"):
        assert dst.code not in visible or between_squares(src, dst), (lines, reason)
