"""The one parser and rule set 2 (rules.md §19): the acknowledgement knows which rule
set a game plays, counts PROBE lines apart from the 16 slots, takes TRADE's optional
level, and suggests the new words."""

from __future__ import annotations

from turnproc.orders.orders import Action as A
from turnproc.orders.orders import Quantity
from turnproc.orders.parser import parse_orders
from turnproc.rules.state import GameState, Tech
from turnproc.rules.state import SystemType as T

from .builders import Builder


def game(ruleset: int, probe: int = 2, hyperspace: int = 0, reserve: int = 0) -> GameState:
    b = Builder(modules=(), ruleset=ruleset)
    b.empire("ABC", probe=probe, hyperspace=hyperspace).reserve = reserve
    b.empire("XYZ")
    b.star(101, 0, 0, owner="ABC", pop=5, industry=5, cruisers=5)
    b.planet(111, 101, T.AB, owner="ABC", pop=1)
    b.star(102, 0, 1, owner="ABC", pop=5)
    b.star(103, 1, 1)
    b.planet(112, 101, owner="XYZ", pop=3)
    b.star(104, 0, 4, owner="XYZ", pop=5)
    b.link(101, 102, 103, 104)
    state = b.build()
    state.seen = {"ABC": set(state.systems), "XYZ": set(state.systems)}
    return state


def codes(text: str, state: GameState) -> list[str]:
    return [p.code for p in parse_orders(text, state, "ABC").problems]


def test_r19_a_version_1_game_refuses_the_new_orders_and_techs() -> None:
    """rules.md §19 (ruling R1): "its acknowledgement refuses LAYUP, RESERVE, RECOVER,
    BOMBARD, LINK, PROBE, FIND, TRADE and TAKE, the three new techs and STASH without a
    number (problem not_in_ruleset)"."""
    text = "\n".join(
        [
            "LAYUP 101 1",
            "RESERVE 101 1",
            "RECOVER 101 1",
            "BOMBARD 101 112",
            "LINK 101 103",
            "PROBE 103",
            "FIND 101",
            "TRADE WEAPONS XYZ",
            "TAKE DRIVE XYZ",
            "TECH HYPERSPACE",
        ]
    )
    v1 = parse_orders(text, game(1), "ABC")
    assert [p.code for p in v1.problems] == ["not_in_ruleset"] * 10 and v1.orders == []
    assert "rule set 2" in v1.problems[0].message and "rule set 1" in v1.problems[0].message
    assert codes("STASH", game(1)) == ["not_in_ruleset"]
    v2 = parse_orders(text, game(2, hyperspace=2, reserve=1), "ABC")
    assert v2.problems == [] and len(v2.orders) == 10


def test_r19_5_probe_lines_are_counted_apart_from_the_slots() -> None:
    """rules.md §19.5: "at most Probe (tech) of them per turn; they use no action slot"."""
    text = "\n".join(["TAX"] * 16 + ["PROBE 103", "PROBE 104", "PROBE 102"])
    parsed = parse_orders(text, game(2, probe=2), "ABC")
    assert parsed.slots_used == 16
    assert [p.code for p in parsed.problems] == ["too_many_probes"]
    assert [o.where for o in parsed.orders if o.action is A.PROBE] == [103, 104]


def test_r19_6_trade_level_is_optional_and_one_take_a_turn() -> None:
    """rules.md §19.6: "TRADE tech, empire [, level]"; ruling R7: one TAKE a turn."""
    parsed = parse_orders("TRADE BP INCOME XYZ\nTRADE LIFE SUPPORT XYZ 4\nTAKE WEAPONS XYZ", game(2), "ABC")
    assert parsed.problems == []
    first, second, take = parsed.orders
    assert (first.tech, first.empire, first.number) == (Tech.BP_INCOME, "XYZ", None)
    assert (second.tech, second.number) == (Tech.LIFE_SUPPORT, Quantity(4))
    assert (take.action, take.tech, take.empire) == (A.TAKE, Tech.WEAPONS, "XYZ")
    assert codes("TAKE WEAPONS XYZ\nTAKE DRIVE XYZ", game(2)) == ["second_take"]
    assert codes("TRADE WEAPONS XYZ 0", game(2)) == ["bad_number"]


def test_r19_7_stash_without_a_number_only_as_action_16() -> None:
    """rules.md §19.7 (ruling R8): STASH without a number as the 16th action is taken;
    anywhere else it is stash_not_last."""
    assert codes("\n".join(["TAX"] * 15 + ["STASH"]), game(2)) == []
    assert codes("STASH\nTAX", game(2)) == ["stash_not_last"]
    assert codes("STASH 3\nTAX", game(2)) == []


def test_r19_4_a_link_in_the_same_orders_makes_a_move_legal() -> None:
    """rules.md §19.4 (ruling R5): later orders may use a link an earlier LINK line makes."""
    assert codes("MOVE 101 103 2", game(2, hyperspace=2)) == ["not_linked"]
    assert codes("LINK 101 103\nMOVE 101 103 2", game(2, hyperspace=2)) == []
    assert codes("MOVE 101 103 2\nLINK 101 103", game(2, hyperspace=2)) == ["not_linked"]


def test_r20_3_retreat_into_an_own_belt_is_taken_in_rule_set_2() -> None:
    """rules.md §20.3: "RETREAT may name an asteroid belt of the same star"."""
    assert codes("RETREAT 101 111", game(2)) == []
    assert codes("RETREAT 101 111", game(1)) == ["target_is_planet"]


def test_r19_did_you_mean_knows_the_new_words() -> None:
    """The acknowledgement's hints cover the new orders and techs."""
    parsed = parse_orders("BOMBAD 101 111\nLAYUPP 101 2\nTECH HYPERSPCE", game(2), "ABC")
    messages = [p.message for p in parsed.problems]
    assert "BOMBARD" in messages[0] and "LAYUP" in messages[1] and "HYPERSPACE" in messages[2]
