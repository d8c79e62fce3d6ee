"""rules.md §7–9: sticky systems, mobility, zones of control (zoc), pinning."""

from __future__ import annotations

import pytest

from turnproc.orders.orders import Action as A
from turnproc.rules.state import Stance, Tech
from turnproc.rules.state import SystemType as T
from turnproc.rules.zoc import compute_supply, controlling_systems, held_by_pin, pin_strength

from .builders import Builder, kinds, o, one, order_events, run


def chain(modules: tuple[str, ...] = ()) -> Builder:
    """ABC owns 101 (YD), 102 (RG), 103 (YD) with its planet 113 and belt 114."""
    b = Builder(modules=modules)
    b.empire("ABC", supply=1000)
    b.star(101, 0, 0, owner="ABC", pop=5, cruisers=10)
    b.star(102, 0, 1, T.RG, owner="ABC", pop=5)
    b.star(103, 0, 2, owner="ABC", pop=5)
    b.planet(113, 103, owner="ABC", pop=5)
    b.planet(114, 103, T.AB, owner="ABC", pop=5)
    b.star(104, 0, 3, T.SG, owner="ABC", pop=5)
    b.link(101, 102, 103, 104)
    b.link(101, 103)
    return b


# -- sticky systems (Star Chase 3.2) -----------------------------------------------------


def test_dwarf_moves_do_not_stick_so_cruisers_may_move_again() -> None:
    new, events = run(chain().build(), {"ABC": [o(A.MOVE, 101, 103, 4), o(A.MOVE, 103, 101, 4)]})
    assert all(d["ok"] for d in order_events(events))
    assert new.systems[101].cruisers == 10


@pytest.mark.parametrize("dst,via", [(102, 101), (113, 103), (114, 103), (104, 103)])
def test_cruiser_move_into_a_non_dwarf_sticks(dst: int, via: int) -> None:
    """rules.md §7.1: a cruiser move into a non-dwarf system (RG, SG, PL, AB) makes it sticky."""
    orders = [o(A.MOVE, 101, via, 4)] if via != 101 else []
    orders += [o(A.MOVE, via, dst, 4), o(A.MOVE, dst, via, 1)]
    new, events = run(chain().build(), {"ABC": orders})
    last = order_events(events)[-1]
    assert (last["ok"], last["reason"]) == (False, "sticky")
    assert one(events, "move", "ABC") if via == 101 else True


def test_sticky_holds_ships_that_arrive_later_and_all_kinds() -> None:
    """rules.md §7.1: none of that empire's ships there may leave that turn, including
    ships that arrive later."""
    b = chain()
    b.systems[103].cruisers = 3
    b.systems[103].fighters = 2
    b.systems[102].fighters = 1
    orders = [
        o(A.MOVE, 101, 102, 2),  # RG: sticky
        o(A.MOVE, 103, 102, 3),  # arrives later
        o(A.MOVE, 102, 101, 1),
        o(A.MOVEF, 102, 101, 1),
    ]
    new, events = run(b.build(), {"ABC": orders})
    assert [d["reason"] for d in order_events(events)] == [None, None, "sticky", "sticky"]
    assert new.systems[102].cruisers == 5


def test_stickiness_lasts_only_for_the_turn() -> None:
    new, _ = run(chain().build(), {"ABC": [o(A.MOVE, 101, 102, 4)]})
    _, events = run(new, {"ABC": [o(A.MOVE, 102, 101, 4)]})
    assert order_events(events)[0]["ok"]


def test_movef_destination_sticks_for_cruisers_too() -> None:
    b = chain()
    b.systems[101].fighters = 1
    b.systems[103].cruisers = 2
    _, events = run(b.build(), {"ABC": [o(A.MOVEF, 101, 103, 1), o(A.MOVE, 103, 101, 2)]})
    assert order_events(events)[1]["reason"] == "sticky"


# -- zones of control (seed 002) ---------------------------------------------------------


def front(modules: tuple[str, ...]) -> Builder:
    """ABC: 101 (pop) – 102 – 103 – 104 (no pop); XYZ: 105 (pop) with 1 cruiser,
    6 fighters. 106 (ABC, no pop) is linked to 104 and 105, so XYZ controls
    104 and 106."""
    b = Builder(modules=modules)
    b.empire("ABC", supply=1000)
    b.empire("XYZ", supply=1000)
    b.star(101, 0, 0, owner="ABC", pop=10)
    b.star(102, 0, 1, owner="ABC", pop=1)
    b.star(103, 0, 2, owner="ABC", pop=1, cruisers=5)
    b.star(104, 0, 3, owner="ABC")
    b.star(105, 0, 5, owner="XYZ", pop=10, cruisers=1, fighters=6)
    b.star(106, 1, 4, owner="ABC")
    b.link(101, 102, 103, 104, 105)
    b.link(104, 106, 105)
    return b


def test_zoc_entering_enemy_control_stops_the_mover() -> None:
    """rules.md §8.2: entering a system controlled by an enemy makes it sticky for the mover."""
    new, events = run(front(("zoc",)).build(), {"ABC": [o(A.MOVE, 103, 104, 5), o(A.MOVE, 104, 103, 5)]})
    assert [d["reason"] for d in order_events(events)] == [None, "sticky"]
    assert one(events, "control_stop", "ABC") == {"system": 104, "by": ["XYZ"]}


def test_without_zoc_control_does_not_stop_movement() -> None:
    new, events = run(front(()).build(), {"ABC": [o(A.MOVE, 103, 104, 5), o(A.MOVE, 104, 106, 5)]})
    assert all(d["ok"] for d in order_events(events))
    assert not kinds(events, "control_stop") and not kinds(events, "pin")


def test_zoc_no_move_from_enemy_control_straight_into_more() -> None:
    """rules.md §8.2: ships that start an action in an enemy-controlled system may leave
    it, but not directly into another enemy-controlled system."""
    b = front(("zoc",))
    b.systems[104].cruisers = 4
    _, events = run(b.build(), {"ABC": [o(A.MOVE, 104, 106, 2), o(A.MOVE, 104, 103, 2)]})
    assert [d["reason"] for d in order_events(events)] == ["zoc", None]
    b = front(())
    b.systems[104].cruisers = 4
    _, events = run(b.build(), {"ABC": [o(A.MOVE, 104, 106, 2)]})
    assert order_events(events)[0]["ok"]


def test_zoc_does_not_hinder_attacks() -> None:
    """rules.md §8.2 (ruling Z3): attacking from enemy control into enemy control is allowed."""
    b = front(("zoc",))
    b.systems[104].cruisers = 40
    _, events = run(b.build(), {"ABC": [o(A.MOVE, 104, 105, 40)]})
    assert order_events(events)[0]["ok"]
    assert one(events, "battle", "ABC")["captured"]


def test_supply_is_blocked_by_enemy_control_unless_own_ships_are_there() -> None:
    """rules.md §8.3: a path of links to a populated system, every system on the way not
    enemy-controlled or holding that empire's ships; out of supply doubles
    supply cost and exerts no control."""
    b = front(("zoc",))
    b.systems[103].cruisers = 0
    b.systems[106].cruisers = 6  # cut off: 104 is XYZ-controlled and empty
    b.empires["ABC"].techs[Tech.SUPPLY] = 0
    state = b.build()
    supply = compute_supply(state)
    assert not supply.in_supply("ABC", 106)
    assert supply.in_supply("ABC", 103) and supply.in_supply("ABC", 101)
    assert supply.reach("ABC", [101, 104, 106]) == {101, 104}  # the start may be controlled
    assert not supply.in_supply("ABC", 106)  # answered again from memory
    assert controlling_systems(state, supply, "ABC", 105) == []
    assert controlling_systems(state, None, "ABC", 105) == [106]
    new, events = run(state, {})
    rows = {r["system"]: r for r in one(events, "supply", "ABC")["systems"]}
    assert rows[106] == {"system": 106, "cost": 2 * (60 // 3), "in_supply": False}
    # Own ships in 104 reopen the line.
    b.systems[104].fighters = 1
    assert compute_supply(b.build()).in_supply("ABC", 106)


def test_a_populated_system_is_always_a_supply_source() -> None:
    b = front(("zoc",))
    b.systems[103].cruisers = 0
    b.systems[104].pop = 1  # XYZ-controlled, no ABC ships, but populated
    b.systems[106].cruisers = 6
    supply = compute_supply(b.build())
    assert supply.in_supply("ABC", 104)
    assert supply.in_supply("ABC", 106)  # 106 – 104 is a line to a populated system


def test_without_zoc_everything_is_in_supply() -> None:
    b = front(())
    b.systems[103].cruisers = 0
    b.systems[106].cruisers = 6
    b.empires["ABC"].techs[Tech.SUPPLY] = 0
    _, events = run(b.build(), {})
    rows = {r["system"]: r for r in one(events, "supply", "ABC")["systems"]}
    assert rows[106]["in_supply"] and rows[106]["cost"] == 20


def test_control_into_a_planet_only_from_its_own_star() -> None:
    b = Builder(modules=("zoc",))
    b.empire("XYZ")
    b.star(101, 0, 0, owner="XYZ", pop=1, cruisers=1)
    b.star(102, 0, 1)
    b.planet(112, 102)
    b.link(101, 102)
    state = b.build()
    assert controlling_systems(state, None, "XYZ", 102) == [101]
    assert controlling_systems(state, None, "XYZ", 112) == []


# -- pinning (seed 000) ---------------------------------------------------------------------


def test_pin_strength_in_twelfths() -> None:
    """rules.md §9.1: cruiser 24, fighter 1 (6 fighters = 1/2); held = min(n, ceil(pin/24))."""
    state = front(("zoc", "pinning")).build()
    assert pin_strength(state, None, "ABC", 104) == (24 + 6, ["XYZ"])
    assert held_by_pin(5, 30) == 2
    assert held_by_pin(1, 30) == 1
    assert held_by_pin(5, 0) == 0
    assert held_by_pin(5, 48) == 2


@pytest.mark.parametrize("modules", [("zoc", "pinning"), ("pinning",)])
def test_pinning_holds_part_of_the_fleet_the_rest_runs(modules: tuple[str, ...]) -> None:
    """rules.md §9.1: held cruisers stay and may not move again this turn; the rest run
    the pin and may move on in later slots."""
    new, events = run(front(modules).build(), {"ABC": [o(A.MOVE, 103, 104, 5), o(A.MOVE, 104, 103, "ALL")]})
    pin = one(events, "pin", "ABC")
    assert (pin["strength"], pin["held"], pin["ran"]) == (30, 2, 3)
    second = order_events(events)[1]
    assert second["ok"] and second["moved"] == 3
    assert (new.systems[104].cruisers, new.systems[103].cruisers) == (2, 3)


def test_all_held_cruisers_cannot_move() -> None:
    b = front(("zoc", "pinning"))
    b.systems[105].cruisers = 3
    _, events = run(b.build(), {"ABC": [o(A.MOVE, 103, 104, 2), o(A.MOVE, 104, 103, 1)]})
    assert order_events(events)[1]["reason"] == "pinned"


def test_retreat_stance_does_not_pin() -> None:
    """rules.md §9.1: only an enemy whose controlling system's stance is not RETREAT pins."""
    b = front(("zoc", "pinning"))
    b.systems[105].stance = Stance.RETREAT
    b.systems[105].stance_target = 106
    b.systems[106].owner = "XYZ"
    b.systems[104].owner = "ABC"
    _, events = run(b.build(), {"ABC": [o(A.MOVE, 103, 104, 5), o(A.MOVE, 104, 103, 5)]})
    assert one(events, "pin", "ABC")["held"] == 0
    assert order_events(events)[1]["ok"]


def test_scrapping_takes_held_cruisers_first() -> None:
    """rules.md §9.1 (ruling M6)."""
    new, events = run(
        front(("zoc", "pinning")).build(),
        {"ABC": [o(A.MOVE, 103, 104, 5), o(A.SCRAPC, 104, None, 1), o(A.MOVE, 104, 103, "ALL")]},
    )
    assert order_events(events)[2]["moved"] == 3
