"""rules.md §19.2: the fleet reserve (LAYUP, RESERVE), lost in space (battle losses,
RECOVER) — every success and failure path, in rule set 2."""

from __future__ import annotations

from turnproc.orders.orders import Action as A
from turnproc.rules.state import SystemType as T
from turnproc.rules.state import Tech

from .builders import Builder, kinds, o, one, order_events, run


def v2(modules: tuple[str, ...] = (), **kw: object) -> Builder:
    """ABC owns 101 (8 cruisers) – 102 – planet 103 of 102; XYZ owns 104 next to 102."""
    b = Builder(modules=modules, ruleset=2, **kw)  # type: ignore[arg-type]
    b.empire("ABC", supply=100)
    b.empire("XYZ", supply=100)
    b.star(101, 0, 0, owner="ABC", pop=5, industry=5, cruisers=8)
    b.star(102, 0, 1, owner="ABC", pop=5, industry=5)
    b.planet(103, 102, owner="ABC", pop=3)
    b.star(104, 0, 2, owner="XYZ", pop=5, industry=5)
    b.link(101, 102, 104)
    return b


def test_r19_2_layup_takes_cruisers_into_the_reserve() -> None:
    """rules.md §19.2: "LAYUP where, –, n (1 BP): n cruisers at WHERE (an owned system, not
    sticky for you) leave the map into your reserve." ALL and AB-n work as for MOVE."""
    new, events = run(v2().build(), {"ABC": [o(A.LAYUP, 101, None, 3), o(A.LAYUP, 101, None, "AB-4")]})
    first, second = order_events(events, "ABC")
    assert (first["ok"], first["cost"], first["done"]) == (True, 1, 3)
    assert (second["ok"], second["done"]) == (True, 1)
    assert new.systems[101].cruisers == 4 and new.empires["ABC"].reserve == 4


def test_r19_2_layup_failures() -> None:
    """rules.md §19.2 LAYUP fails: not owned, sticky, no cruisers, a number asking none, no money."""
    b = v2()
    b.empires["ABC"].balance = 2
    state = b.build()
    orders = [
        o(A.LAYUP, 104, None, 1),  # XYZ's
        o(A.LAYUP, 102, None, 1),  # no cruisers there
        o(A.LAYUP, 101, None, "AB-8"),  # asks none
        o(A.MOVE, 101, 102, 1),  # 1 BP
        o(A.RESERVE, 102, None, 1),  # no reserve yet: fails, costs nothing
        o(A.LAYUP, 101, None, 1),  # 1 BP: the last
        o(A.LAYUP, 101, None, 1),  # no money
    ]
    _, events = run(state, {"ABC": orders})
    reasons = [e["reason"] for e in order_events(events, "ABC")]
    assert reasons == ["not_owned", "no_ships", "nothing", None, "no_reserve", None, "no_money"]


def test_r19_2_layup_not_from_a_sticky_system() -> None:
    """rules.md §19.2: LAYUP needs a system "not sticky for you": a RESERVE there makes it sticky."""
    b = v2()
    b.empires["ABC"].reserve = 2
    _, events = run(b.build(), {"ABC": [o(A.RESERVE, 101, None, 1), o(A.LAYUP, 101, None, 1)]})
    assert [e["reason"] for e in order_events(events, "ABC")] == [None, "sticky"]


def test_r19_2_reserve_brings_cruisers_back_and_sticks() -> None:
    """rules.md §19.2: "RESERVE where, –, n (1 BP): n reserve cruisers appear at WHERE, any
    system you own that is not a blockaded planet; WHERE becomes sticky.\""""
    b = v2()
    b.empires["ABC"].reserve = 5
    new, events = run(b.build(), {"ABC": [o(A.RESERVE, 102, None, "ALL"), o(A.MOVE, 102, 101, 1)]})
    reserve, move = order_events(events, "ABC")
    assert (reserve["ok"], reserve["cost"], reserve["done"]) == (True, 1, 5)
    assert move["reason"] == "sticky"
    assert new.systems[102].cruisers == 5 and new.empires["ABC"].reserve == 0


def test_r19_2_cruisers_laid_up_this_turn_cannot_come_back() -> None:
    """rules.md §19.2: "Cruisers laid up this turn cannot come back this turn." (ruling R2:
    a RESERVE asking more brings what there is.)"""
    b = v2()
    b.empires["ABC"].reserve = 4
    orders = [o(A.LAYUP, 101, None, 2), o(A.RESERVE, 102, None, "ALL"), o(A.RESERVE, 102, None, 1)]
    new, events = run(b.build(), {"ABC": orders})
    _, back, again = order_events(events, "ABC")
    assert back["done"] == 4 and again["reason"] == "no_reserve"
    assert new.empires["ABC"].reserve == 2


def test_r19_2_reserve_and_recover_refuse_a_blockaded_planet_and_others_systems() -> None:
    """rules.md §19.2: RESERVE and RECOVER need a system you own "that is not a blockaded planet"."""
    b = v2()
    b.empires["ABC"].reserve = 3
    b.empires["ABC"].lost_in_space = 3
    b.systems[102].owner = "XYZ"
    b.systems[102].cruisers = 9  # blockades ABC's planet 103
    orders = [
        o(A.RESERVE, 103, None, 1),
        o(A.RECOVER, 103, None, 1),
        o(A.RESERVE, 104, None, 1),
        o(A.RECOVER, 104, None, 1),
    ]
    _, events = run(b.build(), {"ABC": orders})
    assert [e["reason"] for e in order_events(events, "ABC")] == [
        "blockaded",
        "blockaded",
        "not_owned",
        "not_owned",
    ]


def test_r19_2_recover_brings_at_most_two_plus_recovery_at_three_bp_each() -> None:
    """rules.md §19.2: "RECOVER where, –, n (3 BP per cruiser brought back): up to
    min(n, pool, 2 + Recovery) cruisers from the pool appear at WHERE ... WHERE becomes
    sticky. The action may be repeated.\""""
    b = v2()
    b.empires["ABC"].lost_in_space = 7
    b.empires["ABC"].techs[Tech.RECOVERY] = 1
    orders = [o(A.RECOVER, 102, None, "ALL"), o(A.RECOVER, 102, None, 10), o(A.MOVE, 102, 101, 1)]
    new, events = run(b.build(), {"ABC": orders})
    first, second, move = order_events(events, "ABC")
    assert (first["done"], first["cost"]) == (3, 9)
    assert (second["asked"], second["done"], second["cost"]) == (10, 3, 9)
    assert move["reason"] == "sticky"
    assert new.empires["ABC"].lost_in_space == 1 and new.systems[102].cruisers == 6


def test_r19_2_recover_failures() -> None:
    """rules.md §19.2 RECOVER fails with an empty pool, a number asking none, or money for not one."""
    b = v2()
    b.empires["ABC"].balance = 2
    _, events = run(b.build(), {"ABC": [o(A.RECOVER, 101, None, 1)]})
    assert order_events(events, "ABC")[0]["reason"] == "no_pool"
    b = v2()
    b.empires["ABC"].lost_in_space = 2
    b.empires["ABC"].balance = 2
    _, events = run(b.build(), {"ABC": [o(A.RECOVER, 101, None, "AB-5"), o(A.RECOVER, 101, None, 1)]})
    assert [e["reason"] for e in order_events(events, "ABC")] == ["nothing", "no_money"]


def test_r19_2_half_the_battle_losses_go_lost_in_space() -> None:
    """rules.md §19.2: "Of the cruisers a side loses in one battle (MOVE, ASSAULT, DEEP,
    BOMBARD), half (rounded down) go to its owner's lost-in-space pool; the rest are
    destroyed." The rules.md §10.5 vector: the attacker loses 9 (4 drift), the defender
    3 cruisers (1 drifts) and 2 fighters (never lost in space)."""
    b = v2()
    b.systems[101].cruisers = 0
    b.systems[102].cruisers = 10
    home = b.systems[104]
    home.pop, home.industry, home.colony_ships, home.fighters, home.cruisers = 2, 2, 1, 2, 5
    new, events = run(b.build(), {"ABC": [o(A.MOVE, 102, 104, 10)]})
    battle = one(events, "battle", "ABC")
    assert battle["losses"] == {"attacker": {"cruisers": 9}, "defender": {"fighters": 2, "cruisers": 3}}
    assert battle["lost_in_space"] == {"attacker": 4, "defender": 1}
    assert new.empires["ABC"].lost_in_space == 4 and new.empires["XYZ"].lost_in_space == 1


def test_r19_2_rule_set_1_destroys_every_battle_loss() -> None:
    """rules.md §19.2 is rule set 2 only: a version-1 battle sends nothing lost in space and
    its event has no lost_in_space field (rules.md §19, ruling R1)."""
    b = v2()
    b.settings = type(b.settings)(modules=frozenset(), ruleset=1)
    b.systems[102].cruisers = 10
    b.systems[104].cruisers = 5
    new, events = run(b.build(), {"ABC": [o(A.MOVE, 102, 104, 10)]})
    assert "lost_in_space" not in one(events, "battle", "ABC")
    assert new.empires["ABC"].lost_in_space == 0


def test_r19_2_hyperspace_losses_all_go_to_the_pool() -> None:
    """rules.md §19.2: "Hyperspace losses (DEEP) all go to the pool, as now." Distance² 4 with
    Jump 4: a ship is lost when its randrange(40) draw is below 4."""
    b = v2()
    b.empires["ABC"].techs[Tech.JUMP] = 4
    b.star(105, 2, 0)  # unowned, distance² 4 from 101: no battle after the jump
    b.link(104, 105)
    for seed in range(1, 40):
        new, events = run(b.build(), {"ABC": [o(A.DEEP, 101, 105, 8)]}, seed=seed)
        loss = one(events, "hyperspace_loss", "ABC")
        assert not kinds(events, "battle")
        assert new.empires["ABC"].lost_in_space == loss["lost"]
        if loss["lost"]:
            return
    raise AssertionError("no seed lost a ship: the test proves nothing")


def test_r19_2_the_report_counts_come_from_a_reserve_event() -> None:
    """rules.md §19.2: "The report shows reserve and lost-in-space counts": one ``reserve``
    event per playing empire at the end of a rule-set-2 turn."""
    b = v2()
    b.empires["ABC"].reserve = 2
    b.empires["ABC"].lost_in_space = 1
    _, events = run(b.build(), {})
    assert one(events, "reserve", "ABC") == {"reserve": 2, "lost_in_space": 1}
    assert one(events, "reserve", "XYZ") == {"reserve": 0, "lost_in_space": 0}


def test_r19_2_reserve_counts_toward_nothing_else() -> None:
    """rules.md §19.2: reserve cruisers "cost no supply, cannot fight": 20 in reserve, none on
    the map: the supply cost is nothing and an attack meets an empty system."""
    b = v2()
    b.systems[101].cruisers = 0
    b.empires["ABC"].reserve = 20
    b.systems[104].cruisers = 3
    new, events = run(b.build(), {"XYZ": [o(A.MOVE, 104, 102, 3)]})
    assert one(events, "supply", "ABC")["total"] == 0
    assert one(events, "battle", "XYZ")["defence"] == 5  # population only
    assert new.empires["ABC"].reserve == 20


def test_r19_2_a_planet_reserve_target_works_when_not_blockaded() -> None:
    """rules.md §19.2: a planet you own that is not blockaded may take reserve cruisers."""
    b = v2()
    b.empires["ABC"].reserve = 1
    new, _ = run(b.build(), {"ABC": [o(A.RESERVE, 103, None, 1)]})
    assert new.systems[103].cruisers == 1 and new.systems[103].type is T.PL
