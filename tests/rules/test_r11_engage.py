"""rules.md §11 (the ``engage`` module, seed 003), withdrawals, retreat
losses (rules.md §8.4) and pursuit (rules.md §9.2). Engage dice are scripted with ``Dice``:
the attacker's two d6 come first, then the defender's."""

from __future__ import annotations

from turnproc.orders.orders import Action as A
from turnproc.rules.state import Stance, Tech

from .builders import Builder, kinds, o, one, order_events, run_with


def arena(
    modules: tuple[str, ...],
    stance: Stance = Stance.DEFEND,
    target: int | None = None,
    parts: int = 1,
) -> Builder:
    """ABC 101 – ABC 103 (20 cruisers) – XYZ 104 (pop 2, 6 cruisers) – XYZ 105
    (pop 5) – XYZ 106 (pop 5). Attack 20 > defence 8."""
    b = Builder(modules=modules)
    b.empire("ABC", supply=1000)
    b.empire("XYZ", supply=1000)
    b.star(101, 0, 0, owner="ABC", pop=5)
    b.star(103, 0, 1, owner="ABC", pop=5, cruisers=20)
    b.star(
        104,
        0,
        2,
        owner="XYZ",
        pop=2,
        cruisers=6,
        stance=stance,
        stance_target=target,
        retreat_parts=parts,
    )
    b.star(105, 0, 3, owner="XYZ", pop=5)
    b.star(106, 1, 3, owner="XYZ", pop=5)
    b.link(101, 103, 104, 105, 106)
    return b


ATTACK = {"ABC": [o(A.MOVE, 103, 104, 20)]}
ATTACKER_WINS = [6, 6, 1, 1]  # attacker 6 + Drive 1 = 7, defender 1 + 1 = 2
DEFENDER_WINS = [1, 1, 6, 6]


# -- STANDOFF ----------------------------------------------------------------------------


def test_standoff_defender_wins_the_roll_no_battle_cost_spent() -> None:
    """rules.md §11.5 SF defender: if it wins the roll there is no battle this action — the
    attack is held off, the attacker's cruisers stay where they were and the
    action's cost is spent."""
    state = arena(("engage",), Stance.STANDOFF).build()
    new, events = run_with(state, ATTACK, DEFENDER_WINS)
    assert not kinds(events, "battle")
    sf = one(events, "standoff", "ABC")
    assert sf["engage"]["defender_value"] == 7 and sf["engage"]["attacker_value"] == 2
    d = order_events(events, "ABC")[0]
    assert (d["ok"], d["cost"], d["outcome"]) == (True, 1, "held_off")
    assert new.systems[103].cruisers == 20 and new.systems[104].cruisers == 6


def test_standoff_defender_loses_the_roll_fights_without_weapons() -> None:
    """rules.md §11.5: if it loses, battle, and the defender gets no Weapons bonus."""
    b = arena(("engage",), Stance.STANDOFF)
    b.empires["XYZ"].techs[Tech.WEAPONS] = 3
    new, events = run_with(b.build(), ATTACK, ATTACKER_WINS)
    battle = one(events, "battle", "ABC")
    assert battle["defence"] == 8  # not 11
    assert battle["engage"]["winner"] == "attacker"


def test_engage_ties_favour_the_attacker() -> None:
    """rules.md §11.1: the side with the higher value out-manoeuvres the other; ties favour the attacker."""
    new, events = run_with(arena(("engage",), Stance.STANDOFF).build(), ATTACK, [3, 1, 2, 3])
    battle = one(events, "battle", "ABC")
    assert battle["engage"]["attacker_value"] == battle["engage"]["defender_value"] == 4


def test_standoff_without_engage_is_defend() -> None:
    b = arena((), Stance.STANDOFF)
    b.empires["XYZ"].techs[Tech.WEAPONS] = 3
    _, events = run_with(b.build(), ATTACK, [])
    battle = one(events, "battle", "ABC")
    assert battle["engage"] is None and battle["defence"] == 11


def test_engage_value_uses_drive() -> None:
    """Engage value = the higher of two d6 + Drive + split bonus."""
    b = arena(("engage",), Stance.STANDOFF)
    b.empires["ABC"].techs[Tech.DRIVE] = 4
    _, events = run_with(b.build(), ATTACK, [2, 5, 6, 6])
    e = one(events, "battle", "ABC")["engage"]
    assert (e["attacker_value"], e["attacker_dice"], e["defender_value"]) == (9, [2, 5], 7)


# -- RETREAT -----------------------------------------------------------------------------


def test_retreat_wins_roll_cruisers_withdraw_rest_defends() -> None:
    """rules.md §11.3 RT defender: only when attack > defence; if it wins the roll its
    cruisers withdraw to the RETREAT destination before the battle, and the
    rest of the system defends without them."""
    state = arena(("engage",), Stance.RETREAT, 105).build()
    new, events = run_with(state, ATTACK, DEFENDER_WINS)
    w = one(events, "withdraw", "XYZ")
    assert (w["system"], w["to"], w["cruisers"], w["caught"], w["lost"]) == (104, 105, 6, 0, 0)
    battle = one(events, "battle", "ABC")
    assert battle["defence"] == 2 and battle["captured"]
    assert new.systems[105].cruisers == 6
    assert new.systems[104].owner == "ABC"


def test_retreat_loses_roll_one_part_is_caught() -> None:
    """rules.md §11.3: if it loses, with parts p, one part of ceil(n/p) cruisers is caught
    and fights with the system, the other parts escape. Parts 3 give +2."""
    state = arena(("engage",), Stance.RETREAT, 105, parts=3).build()
    new, events = run_with(state, ATTACK, [6, 6, 4, 1])  # 7 v 4 + 1 + 2 = 7: tie
    e = one(events, "battle", "ABC")["engage"]
    assert (e["defender_value"], e["defender_order"], e["winner"]) == (7, "RT", "attacker")
    w = one(events, "withdraw", "XYZ")
    assert (w["cruisers"], w["caught"]) == (4, 2)
    battle = one(events, "battle", "ABC")
    assert battle["defence"] == 4
    assert new.systems[105].cruisers == 4


def test_retreat_one_part_loses_roll_all_caught() -> None:
    state = arena(("engage",), Stance.RETREAT, 105).build()
    new, events = run_with(state, ATTACK, ATTACKER_WINS)
    assert not kinds(events, "withdraw")
    assert one(events, "battle", "ABC")["defence"] == 8


def test_retreat_only_when_outmatched() -> None:
    b = arena(("engage",), Stance.RETREAT, 105)
    b.systems[103].cruisers = 8  # 8 is not more than 8
    _, events = run_with(b.build(), {"ABC": [o(A.MOVE, 103, 104, 8)]}, [])
    assert not kinds(events, "withdraw")
    assert one(events, "battle", "ABC")["engage"] is None


def test_retreat_without_engage_withdraws_whenever_outmatched() -> None:
    """rules.md §11.3: without engage, no roll; RETREAT withdraws whenever attack > defence (3.5)."""
    state = arena((), Stance.RETREAT, 105, parts=3).build()
    new, events = run_with(state, ATTACK, [])
    assert one(events, "withdraw", "XYZ")["cruisers"] == 6
    assert one(events, "battle", "ABC")["engage"] is None


def test_retreat_to_a_lost_destination_defends() -> None:
    """rules.md §6.17 (ruling S1): a RETREAT destination no longer owned does not withdraw."""
    b = arena((), Stance.RETREAT, 105)
    b.systems[105].owner = "ABC"
    _, events = run_with(b.build(), ATTACK, [])
    assert not kinds(events, "withdraw")


def test_retreat_losses_into_attacker_control_under_zoc() -> None:
    """rules.md §8.4: cruisers that withdraw into a system controlled by the enemy they
    flee from lose one in five, rounded up."""
    b = arena(("zoc",), Stance.RETREAT, 105)
    b.star(107, 1, 4, owner="ABC", pop=5, cruisers=1)
    b.link(105, 107)
    new, events = run_with(b.build(), ATTACK, [])
    w = one(events, "withdraw", "XYZ")
    assert (w["cruisers"], w["lost"]) == (6, 2)
    assert new.systems[105].cruisers == 4


def test_no_retreat_losses_without_zoc() -> None:
    b = arena((), Stance.RETREAT, 105)
    b.star(107, 1, 4, owner="ABC", pop=5, cruisers=1)
    b.link(105, 107)
    _, events = run_with(b.build(), ATTACK, [])
    assert one(events, "withdraw", "XYZ")["lost"] == 0


# -- AMBUSH and statics ----------------------------------------------------------------------


def test_ambush_under_engage_works_only_if_the_defender_wins_the_roll() -> None:
    """rules.md §11.4: AMBUSH against a MOVE from the named system works only if the
    defender wins the roll."""
    state = arena(("engage",), Stance.AMBUSH, 103).build()
    _, events = run_with(state, ATTACK, DEFENDER_WINS)
    assert one(events, "battle", "ABC")["fire_order"] == "defender_first"
    _, events = run_with(state, ATTACK, ATTACKER_WINS)
    assert one(events, "battle", "ABC")["fire_order"] == "simultaneous"


def test_statics_do_not_roll_and_never_avoid_battle() -> None:
    """rules.md §11.1: statics — a system with no ships, only population — do not roll:
    engage value −3, and they never avoid battle."""
    b = arena(("engage",), Stance.STANDOFF)
    b.systems[104].cruisers = 0
    _, events = run_with(b.build(), ATTACK, [])  # no dice may be drawn
    battle = one(events, "battle", "ABC")
    assert battle["engage"] is None
    b = arena(("engage",), Stance.AMBUSH, 103)
    b.systems[104].cruisers = 0
    _, events = run_with(b.build(), ATTACK, [])
    battle = one(events, "battle", "ABC")
    assert battle["engage"]["defender_value"] == -3
    assert battle["fire_order"] == "simultaneous"


def test_default_defend_draws_no_dice() -> None:
    _, events = run_with(arena(("engage",)).build(), ATTACK, [])
    assert one(events, "battle", "ABC")["engage"] is None


# -- pursuit (pinning) ---------------------------------------------------------------------------


def pursuit_arena(att_drive: int) -> Builder:
    b = arena(("pinning",), Stance.RETREAT, 105)
    b.systems[105].stance = Stance.RETREAT
    b.systems[105].stance_target = 106
    b.empires["ABC"].techs[Tech.DRIVE] = att_drive
    return b


CHASE = {"ABC": [o(A.MOVE, 103, 104, 20), o(A.MOVE, 104, 105, "ALL")]}


def test_faster_pursuer_forces_the_next_encounter() -> None:
    """rules.md §9.2: if the attacker's Drive is higher than the withdrawer's, the
    attacker's next MOVE or ASSAULT into the withdrawal system this turn cannot
    be evaded (no retreat, no standoff)."""
    new, events = run_with(pursuit_arena(2).build(), CHASE, [])
    assert len(kinds(events, "withdraw")) == 1
    pursuits = [e.data for e in kinds(events, "pursuit", "ABC")]
    assert [p["forced"] for p in pursuits] == [False, True]
    battles = kinds(events, "battle", "ABC")
    assert battles[1].data["defence"] == 6 + 5
    assert new.systems[105].owner == "ABC"


def test_equal_drive_withdrawer_escapes_again() -> None:
    new, events = run_with(pursuit_arena(1).build(), CHASE, [])
    assert len(kinds(events, "withdraw")) == 2
    assert not kinds(events, "pursuit")
    assert new.systems[106].cruisers == 6


def test_no_pursuit_without_pinning() -> None:
    b = pursuit_arena(2)
    b.settings = type(b.settings)(modules=frozenset())
    _, events = run_with(b.build(), CHASE, [])
    assert len(kinds(events, "withdraw")) == 2
