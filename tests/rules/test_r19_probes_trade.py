"""rules.md §19.5 probes and FIND, rules.md §19.6 TRADE and TAKE (rule set 2): the three
probe cases and every failure, what probes see, the trade match and its costs."""

from __future__ import annotations

from turnproc.orders.orders import Action as A
from turnproc.rules.state import Tech
from turnproc.rules.trade import take_cost

from .builders import Builder, kinds, o, one, order_events, run


def chain() -> Builder:
    """A chain of stars 101–106 at (0,0)..(0,10), two squares apart (distance² 4 between
    neighbours); ABC owns 101, XYZ owns 106. Jump 1: only links reach."""
    b = Builder(modules=(), ruleset=2)
    b.empire("ABC", supply=100, probe=2)
    b.empire("XYZ", supply=100)
    for i, code in enumerate(range(101, 107)):
        owner = {101: "ABC", 106: "XYZ"}.get(code)
        b.star(
            code,
            0,
            2 * i,
            owner=owner,
            pop=5 if owner else 0,
            industry=5 if owner else 0,
            cruisers=3 if code == 105 else 0,
        )
    b.systems[105].owner = "XYZ"
    b.systems[105].pop = 1
    b.link(101, 102, 103, 104, 105, 106)
    return b


def probe(target: int) -> object:
    return o(A.PROBE, target)


def test_r19_5_launch_then_move_along_a_link() -> None:
    """rules.md §19.5 case 3: "a new probe is launched at T (2 BP from the balance), when T is
    linked to a system you own"; case 2: "T is linked to your active probe's system ...:
    the active probe moves to T." Probe lines use no slot and run after slot 16."""
    b = chain()
    new, events = run(b.build(), {"ABC": [probe(102), probe(103)]})
    launch, move = order_events(events, "ABC")
    assert (launch["case"], launch["cost"], launch["slot"]) == ("launched", 2, None)
    assert (move["case"], move["cost"]) == ("moved", 0)
    emp = new.empires["ABC"]
    assert (emp.active_probe, emp.inactive_probes) == (103, ())


def test_r19_5_jump_range_counts_like_a_link() -> None:
    """rules.md §19.5 case 2: "or within distance² ≤ Jump of it": the active probe at 102
    cannot reach 104 (not linked, distance² 16) with Jump 4, and can with Jump 16."""
    b = chain()
    b.empires["ABC"].techs[Tech.JUMP] = 4
    b.empires["ABC"].active_probe = 102
    new, events = run(b.build(), {"ABC": [probe(104)]})  # 102 -> 104: distance² 16
    assert order_events(events, "ABC")[0]["reason"] == "out_of_range"
    b.empires["ABC"].techs[Tech.JUMP] = 16
    new, events = run(b.build(), {"ABC": [probe(104)]})
    assert order_events(events, "ABC")[0]["case"] == "moved"
    assert new.empires["ABC"].active_probe == 104


def test_r19_5_reactivate_an_inactive_probe() -> None:
    """rules.md §19.5 case 1: "T holds one of your inactive probes: that probe becomes active;
    the active one becomes inactive where it stands.\""""
    b = chain()
    emp = b.empires["ABC"]
    emp.active_probe, emp.inactive_probes = 104, (102,)
    new, events = run(b.build(), {"ABC": [probe(102)]})
    assert order_events(events, "ABC")[0]["case"] == "activated"
    assert (new.empires["ABC"].active_probe, new.empires["ABC"].inactive_probes) == (102, (104,))


def test_r19_5_a_new_launch_retires_the_active_probe_and_loses_the_oldest() -> None:
    """rules.md §19.5 case 3: "the old active probe (if any) becomes inactive. If that leaves
    more inactive probes than Probe (tech), the oldest is lost.\""""
    b = chain()
    emp = b.empires["ABC"]
    emp.techs[Tech.PROBE] = 1
    emp.active_probe, emp.inactive_probes = 104, (103,)
    new, events = run(b.build(), {"ABC": [probe(102)]})  # not near 104: a launch
    line = order_events(events, "ABC")[0]
    assert (line["case"], line["lost"]) == ("launched", 103)
    assert (new.empires["ABC"].active_probe, new.empires["ABC"].inactive_probes) == (102, (104,))


def test_r19_5_failures_out_of_range_money_and_the_probe_limit() -> None:
    """rules.md §19.5: "at most Probe (tech) of them per turn"; "A line that fits none of
    these fails and costs nothing"; a launch needs 2 BP."""
    b = chain()
    b.empires["ABC"].techs[Tech.PROBE] = 1
    _, events = run(b.build(), {"ABC": [probe(104), probe(102)]})
    assert [e["reason"] for e in order_events(events, "ABC")] == ["out_of_range", "too_many_probes"]
    b = chain()
    b.empires["ABC"].balance = 1
    _, events = run(b.build(), {"ABC": [probe(102)]})
    assert order_events(events, "ABC")[0]["reason"] == "no_money"


def test_r19_5_probes_see_their_system_and_its_neighbours() -> None:
    """rules.md §19.5: "A probe sees the system it stands in and every system linked to it
    (as in rules.md §14) at the end of the turn; the report's "Scouting and probes" section
    lists them with the probe's state." What they see joins the map the empire has seen."""
    b = chain()
    b.empires["ABC"].active_probe = 103
    new, events = run(b.build(), {"ABC": [probe(104)]})
    view = one(events, "probe_view", "ABC")
    assert view["probes"] == [{"system": 104, "state": "active"}]
    assert [s["system"] for s in view["systems"]] == [103, 104, 105]
    enemy = next(s for s in view["systems"] if s["system"] == 105)
    assert (enemy["owner"], enemy["cruisers"]) == ("XYZ", 3)
    assert {103, 104, 105} <= new.seen["ABC"]
    assert not kinds(events, "probe_view", "XYZ")


def test_r19_5_find_destroys_other_empires_probes_nearby() -> None:
    """rules.md §19.5: "FIND where (1 BP): destroys every other empire's probe in WHERE (a
    system you own) and in the systems linked to it. Each owner is told that a probe was
    lost and where, not by whom; the finder is told how many probes it destroyed.\""""
    b = chain()
    b.empires["ABC"].active_probe = 105
    b.empires["ABC"].inactive_probes = (104, 102)
    new, events = run(b.build(), {"XYZ": [o(A.FIND, 105)]})
    find = order_events(events, "XYZ")[0]
    assert (find["ok"], find["cost"], find["destroyed"]) == (True, 1, 2)
    lost = kinds(events, "probe_lost", "ABC")
    assert [e.data for e in lost] == [{"system": 104}, {"system": 105}]
    assert (new.empires["ABC"].active_probe, new.empires["ABC"].inactive_probes) == (None, (102,))


def test_r19_5_find_failures() -> None:
    """rules.md §19.5: FIND needs a system you own and 1 BP."""
    b = chain()
    b.empires["XYZ"].balance = 0
    _, events = run(b.build(), {"XYZ": [o(A.FIND, 101), o(A.FIND, 106)]})
    assert [e["reason"] for e in order_events(events, "XYZ")] == ["not_owned", "no_money"]


# -- TRADE and TAKE -----------------------------------------------------------------------


def traders(taker_treasury: int = 10) -> Builder:
    b = chain()
    b.empires["ABC"].techs[Tech.WEAPONS] = 4
    b.empires["XYZ"].techs[Tech.WEAPONS] = 2
    b.empires["XYZ"].treasury = taker_treasury
    return b


def trade(tech: Tech, to: str, level: int | None = None) -> object:
    return o(A.TRADE, None, None, level, empire=to, tech=tech)


def take(tech: Tech, frm: str) -> object:
    return o(A.TAKE, empire=frm, tech=tech)


def test_r19_6_take_matches_a_trade() -> None:
    """rules.md §19.6: "a TAKE succeeds when EMPIRE ordered a matching TRADE to you and the
    offered level is above yours. You rise by exactly one level and pay half the TECH cost
    of that level, rounded up (new level² / 2); half of what you paid, rounded down, goes
    into the trader's treasury." The rulebook's example: 2 → 3, 5 paid, 2 received."""
    new, events = run(
        traders().build(),
        {"ABC": [trade(Tech.WEAPONS, "XYZ")], "XYZ": [take(Tech.WEAPONS, "ABC")]},
    )
    assert take_cost(3) == 5
    took = order_events(events, "XYZ")[0]
    assert (took["ok"], took["treasury_cost"], took["level"]) == (True, 5, 3)
    assert one(events, "trade", "ABC") == {
        "taker": "XYZ",
        "tech": "WEAPONS",
        "level": 3,
        "paid": 5,
        "received": 2,
    }
    # The leftovers go into the treasury too (rules.md §19.7).
    stashed = {code: one(events, "leftovers", code)["treasury"] for code in ("ABC", "XYZ")}
    assert new.empires["XYZ"].treasury == 10 - 5 + stashed["XYZ"]
    assert new.empires["ABC"].treasury == 2 + stashed["ABC"]


def test_r19_6_take_failures() -> None:
    """rules.md §19.6: no matching TRADE, an offer not above your level, a TAKE you cannot
    pay for, a second TAKE (ruling R7), yourself, an unknown empire."""
    cases = [
        ({"XYZ": [take(Tech.WEAPONS, "ABC")]}, "no_offer"),
        ({"ABC": [trade(Tech.WEAPONS, "XYZ", 2)], "XYZ": [take(Tech.WEAPONS, "ABC")]}, "no_offer"),
        ({"ABC": [trade(Tech.DRIVE, "XYZ")], "XYZ": [take(Tech.WEAPONS, "ABC")]}, "no_offer"),
        ({"XYZ": [take(Tech.WEAPONS, "XYZ")]}, "self"),
        ({"XYZ": [take(Tech.WEAPONS, "QQQ")]}, "unknown_empire"),
    ]
    for orders, reason in cases:
        _, events = run(traders().build(), orders)
        assert order_events(events, "XYZ")[-1]["reason"] == reason, orders
    _, events = run(
        traders(taker_treasury=4).build(),
        {"ABC": [trade(Tech.WEAPONS, "XYZ")], "XYZ": [take(Tech.WEAPONS, "ABC")]},
    )
    assert order_events(events, "XYZ")[0]["reason"] == "no_treasury"
    _, events = run(
        traders().build(),
        {
            "ABC": [trade(Tech.WEAPONS, "XYZ"), trade(Tech.DRIVE, "XYZ")],
            "XYZ": [take(Tech.DRIVE, "ABC"), take(Tech.WEAPONS, "ABC")],
        },
    )
    # The second TAKE fails in its slot; the first waits for the match after slot 16.
    second, first = order_events(events, "XYZ")
    assert second["reason"] == "one_take" and second["slot"] == 2 and first["slot"] == 1
    assert first["reason"] == "no_offer"  # ABC's Drive 1 is not above XYZ's


def test_r19_6_trade_level_is_never_above_your_own() -> None:
    """rules.md §19.6: "offers that tech, at LEVEL (default: your own level; never above it)"."""
    _, events = run(traders().build(), {"ABC": [trade(Tech.WEAPONS, "XYZ", 5), trade(Tech.WEAPONS, "ABC")]})
    assert [e["reason"] for e in order_events(events, "ABC")] == ["level_too_high", "self"]


def test_r19_6_a_level_bought_this_turn_may_be_offered() -> None:
    """rules.md §19.6: "You may offer a level you bought this turn" (TECH in an earlier slot)."""
    b = traders()
    b.empires["ABC"].treasury = 25
    orders = {
        "ABC": [o(A.TECH, tech=Tech.WEAPONS, n=1), trade(Tech.WEAPONS, "XYZ", 5)],
        "XYZ": [take(Tech.WEAPONS, "ABC")],
    }
    _, events = run(b.build(), orders)
    assert [e["ok"] for e in order_events(events, "ABC")] == [True, True]
    assert order_events(events, "XYZ")[0]["level"] == 3


def test_r19_6_a_level_received_by_trade_may_not_be_offered_on() -> None:
    """rules.md §19.6: "... but not one you received by trade this turn": XYZ takes Weapons
    3 from ABC, then offers its Weapons on to QRS (at 2): QRS's TAKE finds nothing above
    its own 2 (ruling R7: levels are checked again at the match)."""
    b = traders()
    b.empire("QRS", supply=100, treasury=20, weapons=2)
    b.star(107, 0, 12, owner="QRS", pop=5, industry=5)
    b.link(106, 107)
    orders = {
        "ABC": [trade(Tech.WEAPONS, "XYZ")],
        "XYZ": [take(Tech.WEAPONS, "ABC"), trade(Tech.WEAPONS, "QRS")],
        "QRS": [o(A.TAX), o(A.TAX), take(Tech.WEAPONS, "XYZ")],
    }
    _, events = run(b.build(), orders)
    assert order_events(events, "XYZ")[0]["ok"]
    assert order_events(events, "QRS")[-1]["reason"] == "no_offer"


def test_r19_6_trade_and_take_are_not_in_rule_set_1() -> None:
    """rules.md §19 (ruling R1): a version-1 game fails every rule-set-2 order."""
    b = traders()
    b.settings = type(b.settings)(modules=frozenset(), ruleset=1)
    _, events = run(
        b.build(), {"ABC": [trade(Tech.WEAPONS, "XYZ"), probe(102)], "XYZ": [take(Tech.WEAPONS, "ABC")]}
    )
    assert {e["reason"] for e in order_events(events)} == {"not_in_ruleset"}
