"""Rule cases the suite lacked: Jump range at several Jump levels, DEEP from a planet or
belt (rules.md §6.3), pin boundaries and pins summed over two empires (rules.md §9.1),
an out-of-supply cruiser that controls nothing (rules.md §8.3), pursuit with the
engage module on (rules.md §9.2). In both rule sets where the rule is shared."""

from __future__ import annotations

import pytest

from turnproc.orders.orders import Action as A
from turnproc.rules.state import MODULES, Stance, Tech
from turnproc.rules.state import SystemType as T
from turnproc.rules.zoc import compute_supply, held_by_pin

from .builders import Builder, kinds, o, one, order_events, run, run_with

RULESETS = [1, 2]


def jump_field(ruleset: int, jump: int) -> Builder:
    """ABC's 101 at (0,0) with its planet 111 and belt 112; unowned stars at distance²
    1 (102), 2 (103), 4 (104), 5 (105), 9 (106)."""
    b = Builder(modules=(), ruleset=ruleset)
    b.empire("ABC", supply=100, jump=jump)
    b.star(101, 0, 0, owner="ABC", pop=5, industry=5, cruisers=50)
    b.planet(111, 101, owner="ABC", pop=2, cruisers=5)
    b.planet(112, 101, T.AB, owner="ABC", pop=1, cruisers=5)
    for code, (row, col) in {102: (1, 0), 103: (1, 1), 104: (0, 2), 105: (2, 1), 106: (3, 0)}.items():
        b.star(code, row, col)
    b.link(101, 102, 103, 104, 105, 106)
    return b


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("jump", [0, 1, 2, 4, 5, 9])
def test_r6_3_jump_range(ruleset: int, jump: int) -> None:
    """rules.md §6.3: "DEEP allowed when distance² ≤ Jump" (3.12); beyond it too_far."""
    targets = {102: 1, 103: 2, 104: 4, 105: 5, 106: 9}
    orders = [o(A.DEEP, 101, code, 1) for code in targets]
    _, events = run(jump_field(ruleset, jump).build(), {"ABC": orders})
    for event, (code, d2) in zip(order_events(events, "ABC"), targets.items(), strict=True):
        assert event["to"] == code
        if d2 <= jump:
            assert event["ok"], (jump, code)
        else:
            assert (event["reason"], event["distsq"]) == ("too_far", d2), (jump, code)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_r6_3_deep_from_a_planet_or_belt_measures_from_its_star(ruleset: int) -> None:
    """rules.md §6.3 and rules.md §2.3: planets and belts take their star's square, so a DEEP
    from planet 111 or belt 112 to 103 is distance² 2, as from 101."""
    orders = [o(A.DEEP, 111, 103, 2), o(A.DEEP, 112, 104, 2)]
    new, events = run(jump_field(ruleset, 2).build(), {"ABC": orders})
    first, second = order_events(events, "ABC")
    assert first["ok"] and one(events, "hyperspace_loss", "ABC")["distsq"] == 2
    assert (second["reason"], second["distsq"]) == ("too_far", 4)
    assert new.systems[103].owner == "ABC"


def pin_field(ruleset: int, zap: tuple[int, int], qrs: tuple[int, int] = (0, 0)) -> Builder:
    """ABC moves 5 cruisers 101 → 102; ZAP's 103 and QRS's 104, linked to 102, hold
    (cruisers, fighters) each and so pin whoever enters 102."""
    b = Builder(modules=("pinning",), ruleset=ruleset)
    b.empire("ABC", supply=100)
    b.empire("ZAP", supply=100)
    b.empire("QRS", supply=100)
    b.star(101, 0, 0, owner="ABC", pop=5, industry=5, cruisers=5)
    b.star(102, 0, 1, owner="ABC", pop=1)
    b.star(103, 0, 2, owner="ZAP", pop=5, cruisers=zap[0], fighters=zap[1])
    b.star(104, 1, 1, owner="QRS", pop=5, cruisers=qrs[0], fighters=qrs[1])
    b.star(105, 0, 3, owner="ABC", pop=1)
    b.link(101, 102, 103)
    b.link(102, 104)
    b.link(102, 105)
    return b


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize(
    ("zap", "strength", "held"),
    [((1, 1), 25, 2), ((1, 23), 47, 2), ((2, 0), 48, 2), ((2, 1), 49, 3)],
    ids=["25", "47", "48", "49"],
)
def test_r9_1_pin_boundaries(ruleset: int, zap: tuple[int, int], strength: int, held: int) -> None:
    """rules.md §9.1: "held = min(n, ceil(pin / 24))": 25 and 47 twelfths hold 2, 48 holds 2,
    49 holds 3; the rest run the pin and may move on."""
    assert held_by_pin(5, strength) == held
    orders = [o(A.MOVE, 101, 102, 5), o(A.MOVE, 102, 105, "ALL")]
    new, events = run(pin_field(ruleset, zap).build(), {"ABC": orders})
    pin = one(events, "pin", "ABC")
    assert (pin["strength"], pin["held"], pin["ran"], pin["by"]) == (strength, held, 5 - held, ["ZAP"])
    assert order_events(events, "ABC")[1]["moved"] == 5 - held
    assert (new.systems[102].cruisers, new.systems[105].cruisers) == (held, 5 - held)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_r9_1_pins_of_two_empires_add_up(ruleset: int) -> None:
    """rules.md §9.1: "Add every enemy controlling system linked to the destination": ZAP's
    24 and QRS's 25 make 49 twelfths, which hold 3 — neither alone would hold more than 2."""
    new, events = run(pin_field(ruleset, (1, 0), (1, 1)).build(), {"ABC": [o(A.MOVE, 101, 102, 5)]})
    pin = one(events, "pin", "ABC")
    assert (pin["strength"], pin["held"], sorted(pin["by"])) == (49, 3, ["QRS", "ZAP"])


def supply_field(ruleset: int, zap_pop: int) -> Builder:
    """zoc on. ZAP's lone cruiser at 104 (population ``zap_pop``) can reach ZAP's home 106
    only through 103, which RIG controls from 108: with no population of its own it is
    out of supply. RIG moves 107 → 105 (next to 104) and on to 109."""
    b = Builder(modules=("zoc",), ruleset=ruleset)
    b.empire("RIG", supply=100)
    b.empire("ZAP", supply=100)
    b.star(106, 0, 0, owner="ZAP", pop=5, industry=5)
    b.star(103, 0, 1)
    b.star(108, 1, 1, owner="RIG", pop=5, cruisers=2)
    b.star(104, 0, 2, owner="ZAP", pop=zap_pop, cruisers=1)
    b.star(105, 0, 3, owner="RIG", pop=1)
    b.star(107, 1, 3, owner="RIG", pop=5, cruisers=3)
    b.star(109, 0, 4, owner="RIG", pop=1)
    b.link(106, 103, 104, 105, 109)
    b.link(103, 108)
    b.link(105, 107)
    return b


@pytest.mark.parametrize("ruleset", RULESETS)
def test_r8_3_an_out_of_supply_cruiser_exerts_no_control(ruleset: int) -> None:
    """rules.md §8.3: "Out-of-supply forces exert no control": the move into 105 does not
    stop there, and the next move goes through; with ZAP's 104 in supply (populated),
    105 is enemy-controlled, the ships stop, and the same move fails."""
    orders = [o(A.MOVE, 107, 105, 3), o(A.MOVE, 105, 109, 3)]
    state = supply_field(ruleset, zap_pop=0).build()
    assert not compute_supply(state).in_supply("ZAP", 104)
    new, events = run(state, {"RIG": orders})
    assert [e["ok"] for e in order_events(events, "RIG")] == [True, True]
    assert not kinds(events, "control_stop") and new.systems[109].cruisers == 3
    state = supply_field(ruleset, zap_pop=1).build()
    assert compute_supply(state).in_supply("ZAP", 104)
    _, events = run(state, {"RIG": orders})
    assert one(events, "control_stop", "RIG")["by"] == ["ZAP"]
    assert order_events(events, "RIG")[1]["reason"] == "sticky"


def pursuit_field(ruleset: int) -> Builder:
    """All modules. RIG (Drive 3) attacks ZAP's 102 (RETREAT to 103, 4 cruisers) from 101
    with 30; ZAP's 103 stands on STANDOFF. ZAP Drive 1."""
    b = Builder(modules=MODULES, ruleset=ruleset)
    b.empire("RIG", supply=100, drive=3)
    b.empire("ZAP", supply=100)
    b.star(101, 0, 0, owner="RIG", pop=5, industry=5, cruisers=30)
    b.star(102, 0, 1, owner="ZAP", pop=1, cruisers=4, stance=Stance.RETREAT)
    b.systems[102].stance_target = 103
    b.star(103, 0, 2, owner="ZAP", pop=5, cruisers=2, stance=Stance.STANDOFF)
    b.link(101, 102, 103)
    return b


@pytest.mark.parametrize("ruleset", RULESETS)
def test_r9_2_pursuit_with_engage_and_no_dice_for_a_pursued_standoff(ruleset: int) -> None:
    """rules.md §9.2: "if the attacker's Drive is higher than the withdrawer's, the attacker's
    next MOVE or ASSAULT into the withdrawal system this turn cannot be evaded (no retreat,
    no standoff)". With engage on, the RETREAT rolls (4 dice: RIG 1, 1 - ZAP 6, 6, so it
    withdraws); the pursued STANDOFF at 103 draws no dice at all: exactly four d6 in the
    turn."""
    orders = [o(A.MOVE, 101, 102, 30), o(A.MOVE, 102, 103, "ALL")]
    # A strict script: a fifth randint (a STANDOFF roll) would fail the test.
    new, events = run_with(pursuit_field(ruleset).build(), {"RIG": orders}, [1, 1, 6, 6])
    assert one(events, "withdraw", "ZAP")["to"] == 103
    forced = [e.data for e in kinds(events, "pursuit", "RIG")]
    assert [p["forced"] for p in forced] == [False, True]
    assert not kinds(events, "standoff")
    battles = kinds(events, "battle", "RIG")
    assert battles[-1].data["system"] == 103 and battles[-1].data["engage"] is None
    assert new.systems[103].owner == "RIG"
    assert new.empires["RIG"].tech(Tech.DRIVE) >= 3
