"""Order and problem values: slots, JSON-safe dicts, tech spellings, header codes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnproc.orders.orders import Action, Order, Problem, Quantity, Severity, slots_used
from turnproc.orders.parser import parse_mail, parse_orders
from turnproc.orders.problems import PROBLEMS, is_header_code
from turnproc.rules.state import TECH_NAMES, Tech

from .test_parser import any_order, make_state

A = Action


def test_slots_used_counts_all_but_name_and_message() -> None:
    orders = [
        Order(1, A.MOVE, where=101, to=102, number=Quantity(3)),
        Order(2, A.NAME, where=101, text="Haven"),
        Order(3, A.MESSAGE, text="hello"),
        Order(4, A.TAX),
        Order(5, A.DEFEND, where=101),
    ]
    assert slots_used(orders) == 3
    assert slots_used([]) == 0


def test_slots_used_of_a_parse_is_its_property() -> None:
    parsed = parse_orders("TAX\nNAME 101 Haven\nMESSAGE ALL hi\nCASH 5")
    assert slots_used(parsed.orders) == parsed.slots_used == 2


def _round_trips_through_json(order: Order) -> None:
    data = json.loads(json.dumps(order.to_dict()))
    assert Order.from_dict(data) == order


@pytest.mark.slow
@settings(max_examples=300)
@given(any_order)
def test_parsed_orders_round_trip_through_dicts(order: Order) -> None:
    from turnproc.orders.orders import format_order

    for parsed in parse_orders(format_order(order)).orders:
        _round_trips_through_json(parsed)


@settings(max_examples=200)
@given(st.text(max_size=300))
def test_problems_round_trip_through_dicts(text: str) -> None:
    result = parse_mail(text, make_state())
    for problem in result.problems:
        assert Problem.from_dict(json.loads(json.dumps(problem.to_dict()))) == problem
    for order in result.orders:
        _round_trips_through_json(order)


def test_order_dict_shape() -> None:
    order = Order(3, A.TECH, tech=Tech.LIFE_SUPPORT, number=Quantity(all_but=2))
    assert order.to_dict() == {
        "line": 3,
        "action": "TECH",
        "number": {"count": None, "all_but": 2},
        "tech": "LIFESUPPORT",
    }
    assert Problem(2, "bad_turn", "m", Severity.ERROR, "TURN x").to_dict()["severity"] == "error"


@pytest.mark.parametrize(
    "text,tech",
    [
        ("life support", Tech.LIFE_SUPPORT),  # scenario files: spaces
        ("Life_Support", Tech.LIFE_SUPPORT),
        ("LIFE-SUPPORT", Tech.LIFE_SUPPORT),
        ("l.s", Tech.LIFE_SUPPORT),  # orders: dots
        ("Cultural Level", Tech.CULTURAL),
        ("bp", Tech.BP_INCOME),
        ("defense", Tech.DEFENCE),
        ("scanners", Tech.SCANNER),
    ],
)
def test_tech_from_name_accepts_order_and_scenario_spellings(text: str, tech: Tech) -> None:
    assert Tech.from_name(text) is tech


def test_tech_from_name_knows_every_tech_by_value_and_name() -> None:
    for tech in Tech:
        assert Tech.from_name(tech.value) is tech
        assert Tech.from_name(tech.name.lower()) is tech
    for name, tech in TECH_NAMES.items():
        assert Tech.from_name(name) is tech


def test_tech_from_name_refuses_other_words() -> None:
    with pytest.raises(ValueError, match="'warp'"):
        Tech.from_name("warp")


def test_header_codes_are_flagged_in_the_catalogue() -> None:
    header = {code for code in PROBLEMS if is_header_code(code)}
    assert header == {
        "missing_game",
        "missing_empire",
        "missing_password",
        "bad_empire",
        "bad_turn",
        "wrong_turn",
        "conflicting_header",
        "late_header",
        "placeholder_password",
        "password_in_brackets",
        "header_only_quoted",
    }
    assert not is_header_code("no_such_code")
