"""rules.md §4: turns, orders and the execution order."""

from __future__ import annotations

import random

import pytest

from turnproc.orders.orders import Action as A
from turnproc.orders.orders import Order
from turnproc.rules.serialize import state_to_json
from turnproc.rules.state import Stance
from turnproc.rules.state import SystemType as T
from turnproc.rules.turn import InvariantError, resolve, turn_rng

from .builders import Builder, duel, kinds, numbered, o, one, order_events, run


def test_resolve_does_not_mutate_its_input_and_increments_the_turn() -> None:
    state = duel().build()
    before = state_to_json(state)
    new, _ = run(state, {"ABC": [o(A.MOVE, 102, 103, 1), o(A.NEWCRS, 101, None, 2)]})
    assert state_to_json(state) == before
    assert new.turn == state.turn + 1
    assert new is not state


def test_every_order_gets_exactly_one_order_event_in_execution_order() -> None:
    state = duel().build()
    abc = [o(A.TAX), o(A.MOVE, 999, 103, 1), o(A.MESSAGE, text="hi"), o(A.DEFEND, 101)]
    xyz = [o(A.TAX), o(A.NAME, 104, text="Home")]
    _, events = run(state, {"ABC": abc, "XYZ": xyz})
    assert len(order_events(events, "ABC")) == 4
    assert len(order_events(events, "XYZ")) == 2
    lines = sorted(d["line"] for d in order_events(events, "ABC"))
    assert lines == [1, 2, 3, 4]
    for d in order_events(events):
        assert set(d) >= {"line", "action", "text", "slot", "ok", "reason", "cost"}


def test_impossible_actions_fail_at_no_cost_with_a_reason() -> None:
    """rules.md §4.2: an action that has become impossible fails, costs nothing, says why."""
    b = duel()
    b.systems[101].cruisers = 3
    state = b.build()
    abc = [
        o(A.MOVE, 104, 103, 1),  # not owned
        o(A.MOVE, 102, 103, 1),  # no ships in 102
        o(A.MOVE, 101, 103, 1),  # not linked
        o(A.MOVE, 101, 555, 1),  # no such system
        o(A.MOVE, 101, 101, 1),  # same system
    ]
    new, events = run(state, {"ABC": abc})
    got = [(d["ok"], d["reason"], d["cost"]) for d in order_events(events, "ABC")]
    assert got == [
        (False, "not_owned", 0),
        (False, "no_ships", 0),
        (False, "not_linked", 0),
        (False, "no_system", 0),
        (False, "same_system", 0),
    ]


def test_no_money_fails_and_costs_nothing() -> None:
    b = duel()
    b.empires["ABC"].balance = 0
    b.systems[101].cruisers = 3
    state = b.build()
    _, events = run(state, {"ABC": [o(A.MOVE, 101, 102, 1)]})
    d = order_events(events, "ABC")[0]
    assert (d["ok"], d["reason"], d["cost"]) == (False, "no_money", 0)


def test_slots_interleave_and_slot_order_is_drawn_once_per_turn() -> None:
    """rules.md §4.1: every empire's action 1, then every empire's action 2 ...; within a
    slot empires act in a random order drawn once per turn."""
    state = duel().build()
    orders = {"ABC": [o(A.TAX)] * 3, "XYZ": [o(A.TAX)] * 3}
    _, events = run(state, orders, seed=7)
    slot_order = one(events, "turn")["slot_order"]
    seq = [(e.data["slot"], e.empire) for e in kinds(events, "order")]
    assert seq == [(s, code) for s in (1, 2, 3) for code in slot_order]


def test_slot_order_is_random_but_seeded() -> None:
    state = duel().build()
    orders: dict[str, list[Order]] = {}
    seen = set()
    for seed in range(20):
        _, events = run(state, orders, seed=seed)
        seen.add(tuple(one(events, "turn")["slot_order"]))
    assert seen == {("ABC", "XYZ"), ("XYZ", "ABC")}
    expected = ["ABC", "XYZ"]
    random.Random(3).shuffle(expected)
    _, events = run(state, orders, seed=3)
    assert one(events, "turn")["slot_order"] == expected


def test_who_acts_first_in_a_slot_gets_the_unowned_system() -> None:
    b = duel()
    b.systems[102].cruisers = 4
    b.systems[104].cruisers = 4
    state = b.build()
    orders = {"ABC": [o(A.MOVE, 102, 103, 4)], "XYZ": [o(A.MOVE, 104, 103, 4)]}
    new, events = run(state, orders, seed=5)
    first = one(events, "turn")["slot_order"][0]
    # The first mover captures it; the second meets it in battle.
    assert one(events, "capture", first)["from_empire"] is None
    assert len(kinds(events, "battle")) == 1


def test_stances_take_effect_before_slot_1_whatever_slot_they_use() -> None:
    """rules.md §4.1: stances, BASE and HOME take effect before slot 1 and still use a slot."""
    b = duel()
    b.systems[102].cruisers = 10
    b.systems[104].cruisers = 2
    state = b.build()
    xyz = [o(A.TAX)] * 5 + [o(A.RETREAT, 104, 105)]
    new, events = run(state, {"ABC": [o(A.MOVE, 102, 103, 10), o(A.MOVE, 103, 104, 10)], "XYZ": xyz})
    stance = next(d for d in order_events(events, "XYZ") if d["action"] == "RETREAT")
    assert stance["slot"] == 6 and stance["ok"]
    # The stance order's event comes before any slot's action.
    first_slot_event = next(i for i, e in enumerate(events) if e.kind == "order" and e.data["slot"] == 1)
    stance_index = next(
        i for i, e in enumerate(events) if e.kind == "order" and e.data["action"] == "RETREAT"
    )
    assert stance_index < first_slot_event
    # Slot 6 of XYZ does nothing else: its 5 TAXes and the stance are all.
    assert [d["slot"] for d in order_events(events, "XYZ")] == [6, 1, 2, 3, 4, 5]
    # 103 is sticky for ABC after the capture, so the second MOVE fails; the
    # RETREAT stance persists to the next turn.
    assert new.systems[104].stance is Stance.RETREAT


def test_stance_persists_between_turns() -> None:
    state = duel().build()
    new, _ = run(state, {"XYZ": [o(A.STANDOFF, 104)]})
    new2, _ = run(new, {})
    assert new2.systems[104].stance is Stance.STANDOFF


def test_base_and_home_before_slot_1() -> None:
    """Leftovers use BASE/HOME as set this turn, whatever slot set them."""
    b = duel()
    b.empires["ABC"].base = 101
    b.empires["ABC"].home = 101
    b.empires["ABC"].balance = 23
    state = b.build()
    new, events = run(state, {"ABC": [o(A.TAX), o(A.BASE, 102), o(A.HOME, 102)]})
    assert new.empires["ABC"].base == 102
    assert new.systems[102].cruisers == 2  # 25 BP: 2 cruisers
    assert new.systems[102].fighters == 1  # 5 BP: 1 fighter, 2 lost
    d = one(events, "leftovers", "ABC")
    assert (d["cruisers"], d["fighters"], d["lost"]) == (2, 1, 2)


def test_name_before_slot_1_and_at_most_24_characters() -> None:
    """rules.md §6.18: NAME an owned system (≤ 24 characters); not a slot."""
    b = duel()
    b.systems[102].cruisers = 0
    b.systems[103].owner = None
    b.systems[104].cruisers = 20
    state = b.build()
    abc = [
        o(A.NAME, 102, text="Frontier"),
        o(A.NAME, 101, text="x" * 25),
        o(A.NAME, 101, text="Third"),
    ]
    new, events = run(state, {"ABC": abc})
    got = [(d["ok"], d["reason"], d["slot"]) for d in order_events(events, "ABC")]
    assert got == [(True, None, None), (False, "too_long", None), (False, "too_many_names", None)]
    assert new.systems[102].name == "Frontier"
    assert new.systems[101].name == ""


def test_name_uses_ownership_at_the_start_of_the_turn() -> None:
    b = duel()
    b.systems[102].cruisers = 1
    b.systems[104].cruisers = 0
    b.systems[103].owner = "XYZ"
    b.systems[103].cruisers = 20
    b.systems[103].ever_owned = True
    state = b.build()
    new, events = run(state, {"ABC": [o(A.NAME, 102, text="Lost soon")], "XYZ": [o(A.MOVE, 103, 102, 20)]})
    assert new.systems[102].owner == "XYZ"
    assert new.systems[102].name == "Lost soon"


def test_messages_public_and_private() -> None:
    state = duel().build()
    abc = [
        o(A.MESSAGE, text="Hello all"),
        o(A.MESSAGE, empire="XYZ", text="Psst"),
        o(A.MESSAGE, empire="QQQ", text="Nobody"),
    ]
    _, events = run(state, {"ABC": abc})
    msgs = [e.data for e in kinds(events, "message", "ABC")]
    assert msgs == [
        {"from": "ABC", "to": None, "text": "Hello all"},
        {"from": "ABC", "to": "XYZ", "text": "Psst"},
    ]
    assert order_events(events, "ABC")[2]["reason"] == "unknown_empire"
    assert all(d["slot"] is None for d in order_events(events, "ABC"))


def test_more_than_16_actions_fail_but_name_and_message_use_no_slot() -> None:
    state = duel().build()
    abc = [o(A.MESSAGE, text="m")] * 3 + [o(A.TAX)] * 17
    new, events = run(state, {"ABC": abc})
    taxes = [d for d in order_events(events, "ABC") if d["action"] == "TAX"]
    assert [d["ok"] for d in taxes] == [True] * 16 + [False]
    assert taxes[-1]["reason"] == "too_many_actions"
    assert [d["slot"] for d in taxes[:16]] == list(range(1, 17))


def test_ships_built_earlier_may_act_in_later_slots() -> None:
    b = duel()
    b.empires["ABC"].balance = 30
    state = b.build()
    new, events = run(state, {"ABC": [o(A.NEWCRS, 102, None, 2), o(A.MOVE, 102, 103, 2)]})
    assert new.systems[103].owner == "ABC"
    assert new.systems[103].cruisers >= 2


def test_move_into_own_system_is_a_plain_move() -> None:
    b = duel()
    b.systems[101].cruisers = 5
    state = b.build()
    new, events = run(state, {"ABC": [o(A.MOVE, 101, 102, 3)]})
    assert (new.systems[101].cruisers, new.systems[102].cruisers) == (2, 3)
    d = order_events(events, "ABC")[0]
    assert d["ok"] and d["cost"] == 1 and d["moved"] == 3
    assert one(events, "move", "ABC")["cruisers"] == 3


def test_move_into_an_unowned_system_captures_and_explores() -> None:
    b = duel()
    b.systems[102].cruisers = 5
    state = b.build()
    new, events = run(state, {"ABC": [o(A.MOVE, 102, 103, "ALL")]})
    assert new.systems[103].owner == "ABC"
    assert new.systems[103].ever_owned
    assert one(events, "capture", "ABC")["system"] == 103
    assert one(events, "exploration", "ABC")["system"] == 103


def test_move_into_an_enemy_system_is_an_encounter() -> None:
    b = duel()
    b.systems[102].cruisers = 3
    b.systems[103].owner = "XYZ"
    b.systems[103].ever_owned = True
    b.systems[103].cruisers = 1
    state = b.build()
    new, events = run(state, {"ABC": [o(A.MOVE, 102, 103, 3)]})
    assert one(events, "battle", "ABC")["defender"] == "XYZ"


def test_number_all_and_all_but() -> None:
    b = duel()
    b.systems[101].cruisers = 7
    state = b.build()
    new, _ = run(state, {"ABC": [o(A.MOVE, 101, 102, "AB-2")]})
    assert (new.systems[101].cruisers, new.systems[102].cruisers) == (2, 5)
    new, events = run(state, {"ABC": [o(A.MOVE, 101, 102, 10)]})
    assert new.systems[102].cruisers == 7
    d = order_events(events, "ABC")[0]
    assert (d["asked"], d["moved"]) == (10, 7)


# -- DISTSQ (3.13) ---------------------------------------------------------------


@pytest.mark.parametrize(
    "drow,dcol,expected",
    [(1, 0, 1), (1, 1, 2), (2, 1, 5), (2, 2, 8), (3, 2, 13), (5, 1, 26), (0, 3, 9), (4, 1, 17)],
)
def test_distsq_table(drow: int, dcol: int, expected: int) -> None:
    """3.12 table: (1,0)→1, (1,1)→2, (2,1)→5, (2,2)→8, (3,2)→13, (5,1)→26."""
    b = Builder(modules=())
    b.empire("ABC")
    b.star(101, 10, 10, owner="ABC", pop=1)
    b.star(102, 10 + drow, 10 + dcol)
    b.link(101, 102)
    new, events = run(b.build(), {"ABC": [o(A.DISTSQ, 101, 102)]})
    assert one(events, "distsq", "ABC") == {"from": 101, "to": 102, "distsq": expected}
    d = order_events(events, "ABC")[0]
    assert d["ok"] and d["slot"] == 1 and d["cost"] == 0 and d["distsq"] == expected
    assert 102 in new.seen["ABC"]


def test_distsq_from_a_planet_measures_from_its_star() -> None:
    """rules.md §6.4: DISTSQ from a planet measures from its star's square."""
    b = Builder(modules=())
    b.empire("ABC")
    b.star(101, 0, 0)
    b.planet(111, 101, owner="ABC", pop=1)
    b.star(102, 3, 2)
    b.star(103, 9, 9)
    b.link(101, 102, 103)
    _, events = run(b.build(), {"ABC": [o(A.DISTSQ, 111, 102), o(A.DISTSQ, 111, 103)]})
    answers = [e.data["distsq"] for e in kinds(events, "distsq")]
    assert answers == [13, 162]


def test_distsq_needs_from_owned_and_to_not_a_planet() -> None:
    """3.13: you must own FROM; TO may not be a planet or asteroid belt."""
    b = Builder(modules=())
    b.empire("ABC")
    b.star(101, 0, 0, owner="ABC", pop=1)
    b.star(102, 0, 1)
    b.planet(112, 102)
    b.planet(113, 102, type=T.AB)
    b.link(101, 102)
    _, events = run(b.build(), {"ABC": [o(A.DISTSQ, 102, 101), o(A.DISTSQ, 101, 112), o(A.DISTSQ, 101, 113)]})
    assert [d["reason"] for d in order_events(events)] == ["not_owned", "not_star", "not_star"]
    assert not kinds(events, "distsq")


# -- income and leftovers ----------------------------------------------------------


def test_income_at_the_end_of_the_turn() -> None:
    """rules.md §13.1: per owned system min(pop, limit) + min(pop, industry), + 2 × BP Income."""
    b = Builder(modules=())
    b.empire("ABC", balance=0, bp_income=1)
    b.star(101, 0, 0, owner="ABC", pop=20, industry=10)
    b.planet(111, 101, owner="ABC", pop=70, industry=5)  # limit 60
    b.star(102, 0, 1)
    b.link(101, 102)
    new, events = run(b.build())
    d = one(events, "income", "ABC")
    assert d["systems"] == [{"system": 101, "income": 30}, {"system": 111, "income": 65}]
    assert d["bp_income"] == 2 and d["total"] == 97
    # Supply cost: 111 has 10 population above its limit of 60.
    assert new.empires["ABC"].balance == 97 - 10


def test_leftovers_become_cruisers_at_base_then_fighters_at_home() -> None:
    """rules.md §13.1: remaining balance buys cruisers at BASE, then fighters at HOME; rest lost."""
    b = Builder(modules=())
    e = b.empire("ABC", balance=38)
    e.base, e.home = 101, 111
    b.star(101, 0, 0, owner="ABC", pop=5, industry=0)
    b.planet(111, 101, owner="ABC", pop=5)
    new, events = run(b.build())
    assert new.systems[101].cruisers == 3
    assert new.systems[111].fighters == 2
    d = one(events, "leftovers", "ABC")
    assert d == {"balance": 38, "cruisers": 3, "base": 101, "fighters": 2, "home": 111, "lost": 2}


def test_leftovers_skipped_where_base_or_home_not_owned() -> None:
    b = Builder(modules=())
    e = b.empire("ABC", balance=38)
    e.base, e.home = None, 111
    b.star(101, 0, 0, owner="ABC", pop=5)
    b.planet(111, 101, owner="ABC", pop=5)
    new, events = run(b.build())
    assert new.systems[101].cruisers == 0
    assert new.systems[111].fighters == 12
    assert one(events, "leftovers", "ABC")["lost"] == 2


# -- engine contract ------------------------------------------------------------------


def test_turn_rng_is_derived_from_sha256_of_seed_and_turn() -> None:
    import hashlib

    r = turn_rng("secret", 4)
    digest = hashlib.sha256(b"secret:4").digest()
    assert r.random() == random.Random(int.from_bytes(digest, "big")).random()
    assert turn_rng("secret", 4).random() == turn_rng("secret", 4).random()
    assert turn_rng("secret", 4).random() != turn_rng("secret", 5).random()


def test_orders_for_unknown_empire_are_refused() -> None:
    with pytest.raises(ValueError):
        resolve(duel().build(), {"QQQ": []}, random.Random(1))


def test_a_broken_input_state_is_refused() -> None:
    b = duel()
    b.systems[103].cruisers = 2  # ships in an unowned system
    with pytest.raises(InvariantError) as info:
        resolve(b.build(), {}, random.Random(1))
    assert "ships_unowned" in str(info.value)


def test_a_finished_game_resolves_no_more_turns() -> None:
    state = duel().build()
    state.finished = True
    with pytest.raises(ValueError):
        resolve(state, {}, random.Random(1))


def test_orders_numbered_helper_keeps_written_order() -> None:
    orders = numbered(o(A.TAX), o(A.TAX))
    assert [x.line for x in orders] == [1, 2]
