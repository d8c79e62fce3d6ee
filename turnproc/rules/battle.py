"""Encounters and battles (rules.md §10, Star Chase 3.6, 3.9, 3.10; seed 003).

An encounter is a MOVE, ASSAULT or DEEP into another empire's system. In
order:

1. Pursuit (``pinning``): a pending pursuit of this system's withdrawer by the
   attacker is used up by its next MOVE/ASSAULT there; it makes the encounter
   one that cannot be evaded (no RETREAT, no STANDOFF).
2. The defender's stance: RETREAT may withdraw cruisers (rules.md §11.3, Star Chase
   3.5), STANDOFF may hold the attack off, AMBUSH may fire first. With
   ``engage`` these need the engage roll; without it RETREAT withdraws whenever
   attack > defence, AMBUSH always works and STANDOFF is DEFEND.
3. Rounds (rules.md §10.2): each side loses half the other's strength, the weaker also
   half the difference. MOVE and DEEP fight one round, ASSAULT repeats.
4. Winning (3.9) and capture (3.10).

Random numbers, in order: the attacker's two d6, then the defender's two d6
(``randint(1, 6)`` each), drawn only when the roll can change the outcome:
an out-matched RETREAT with a valid destination, a STANDOFF, or an AMBUSH
against a MOVE from its FROM; never for statics or a pursued withdrawer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..orders.orders import Action
from ..orders.vocabulary import EventKind
from .eventdata import Engage, RoundData, ShipsAfter, Sides
from .galaxy import population_limit
from .resolution import Resolution
from .state import Empire, Stance, System, SystemType, Tech
from .zoc import controlling_systems, enemy_controllers

__all__ = [
    "STATIC_ENGAGE_VALUE",
    "EncounterResult",
    "sighting",
    "attack_strength",
    "defence_strength",
    "defence_level",
    "round_losses",
    "attacker_wins",
    "engage_roll",
    "encounter",
    "capture",
    "claim_unowned",
    "battle_losses_lost",
    "static_value",
]

#: Statics (a system with no ships, only population) do not roll (seed 003).
STATIC_ENGAGE_VALUE = -3
#: Rule set 2: a system with fighters or colony ships but no cruisers is a
#: military static (rules.md §20.2, seed 003).
MILITARY_STATIC_ENGAGE_VALUE = -1


def battle_losses_lost(ctx: Resolution, empire: str | None, cruisers: int) -> int:
    """Half (rounded down) of the ``cruisers`` a side lost in one battle go to
    ``empire``'s lost-in-space pool (rules.md §19.2); returns how many did.
    Nothing in rule set 1: there they are all destroyed."""
    if not ctx.v2 or empire is None or cruisers <= 0:
        return 0
    to_pool = cruisers // 2
    ctx.state.empires[empire].lost_in_space += to_pool
    return to_pool


def static_value(sys: System, v2: bool) -> int | None:
    """The engage value of a defending static, or None when the system rolls.

    Rule set 1: only a system with no ships at all is a static (-3). Rule set 2
    adds military statics (fighters or colony ships, no cruisers: -1).
    """
    if sys.cruisers + sys.fighters + sys.colony_ships == 0:
        return STATIC_ENGAGE_VALUE
    if v2 and sys.cruisers == 0:
        return MILITARY_STATIC_ENGAGE_VALUE
    return None


@dataclass(frozen=True)
class EncounterResult:
    outcome: str
    """``captured``, ``repelled`` (survivors went home) or ``held_off`` (standoff)."""
    survivors: int


def attack_strength(cruisers: int, weapons: int) -> int:
    """Moving cruisers + Weapons; no cruisers left, no attack."""
    return cruisers + weapons if cruisers > 0 else 0


def defence_strength(sys: System, defender: Empire | None, weapons_bonus: bool = True) -> int:
    """5 × colony ships + cruisers + fighters + population (× 2 on a planet)
    + Weapons where cruisers or fighters defend + Defence on a populated planet."""
    planet = sys.type is SystemType.PL
    strength = 5 * sys.colony_ships + sys.cruisers + sys.fighters
    strength += sys.pop * (2 if planet else 1)
    if defender is not None:
        if weapons_bonus and sys.fleet > 0:
            strength += defender.tech(Tech.WEAPONS)
        if planet and sys.pop > 0:
            strength += defender.tech(Tech.DEFENCE)
    return strength


def defence_level(sys: System, marines: int) -> int:
    """What the attacker's survivors must exceed to capture (3.9)."""
    level = sys.pop * (2 if sys.type is SystemType.PL else 1)
    return max(0, level - marines)


def round_losses(attack: int, defence: int) -> tuple[int, int]:
    """(attacker loses, defender loses) for one simultaneous round (rules.md §10.2)."""
    att_loss = defence // 2
    def_loss = attack // 2
    if attack < defence:
        att_loss += (defence - attack) // 2
    elif defence < attack:
        def_loss += (attack - defence) // 2
    return att_loss, def_loss


def attacker_wins(fleet_left: int, survivors: int, sys: System, marines: int) -> bool:
    """3.9: the defending fleet is gone and more attackers survive than the defence level."""
    return fleet_left == 0 and survivors > defence_level(sys, marines)


def engage_roll(ctx: Resolution, drive: int, bonus: int) -> tuple[int, list[int]]:
    """The higher of two d6 + the group's Drive + split bonus."""
    dice = [ctx.rng.randint(1, 6), ctx.rng.randint(1, 6)]
    return max(dice) + drive + bonus, dice


def _take_defender_losses(sys: System, n: int) -> tuple[int, int]:
    """Fighters go first, then cruisers; colony ships and population are never hit."""
    fighters = min(n, sys.fighters)
    sys.fighters -= fighters
    cruisers = min(n - fighters, sys.cruisers)
    sys.cruisers -= cruisers
    return fighters, cruisers


def retreat_target_allowed(sys: System, target: System, v2: bool) -> bool:
    """A RETREAT destination's kind: a star; in rule set 2 also an asteroid belt of
    the same star (rules.md §20.3)."""
    if target.is_star:
        return True
    return v2 and target.type is SystemType.AB and target.star == sys.code


def _retreat_target_ok(ctx: Resolution, sys: System) -> bool:
    target = sys.stance_target
    if target is None or target == sys.code or target not in ctx.state.systems:
        return False
    tsys = ctx.state.systems[target]
    return (
        tsys.owner == sys.owner
        and retreat_target_allowed(sys, tsys, ctx.v2)
        and ctx.state.linked(sys.code, target)
    )


def _is_static(ctx: Resolution, sys: System) -> bool:
    return static_value(sys, ctx.v2) is not None


def _withdraw(ctx: Resolution, attacker: str, sys: System, count: int, caught: int) -> None:
    """Move ``count`` cruisers of ``sys`` to its RETREAT destination (rules.md §11.3)."""
    state = ctx.state
    defender = sys.owner
    assert defender is not None and sys.stance_target is not None
    target = state.systems[sys.stance_target]
    lost = 0
    if ctx.v2:
        # rules.md §20.3: control by any empire but the withdrawer's own costs ships.
        losing = ctx.zoc and bool(enemy_controllers(state, ctx.supply, defender, target.code))
    else:
        losing = ctx.zoc and bool(controlling_systems(state, ctx.supply, attacker, target.code))
    if losing:
        # Retreat losses: one in five, rounded up (rules.md §8.4).
        lost = -(-count // 5)
    sys.cruisers -= count
    # Pinned cruisers may be among those that fled; keep the held count within
    # what is left.
    ctx.cruisers_destroyed(defender, sys, 0)
    target.cruisers += count - lost
    ctx.emit(
        EventKind.WITHDRAW,
        defender,
        system=sys.code,
        to=target.code,
        cruisers=count,
        caught=caught,
        lost=lost,
        attacker=attacker,
    )
    if ctx.pinning:
        att_drive = state.empires[attacker].tech(Tech.DRIVE)
        def_drive = state.empires[defender].tech(Tech.DRIVE)
        into_belt = target.type is SystemType.AB
        # Rule set 1 lets a pursuer force a withdrawal into a belt; rule set 2
        # reads seed 000 the other way: a belt cannot be pursued (rules.md §20.3).
        if ctx.v2:
            chase = att_drive > def_drive and not into_belt
        else:
            chase = att_drive > def_drive or into_belt
        if chase:
            ctx.pursuit[(attacker, target.code)] = defender
            ctx.emit(
                EventKind.PURSUIT,
                attacker,
                system=target.code,
                withdrawer=defender,
                forced=False,
            )


def _engage_data(
    att: tuple[int, list[int]] | None,
    dfn: tuple[int, list[int]] | None,
    def_order: str,
    winner: Literal["attacker", "defender"],
) -> Engage:
    return {
        "attacker_order": "EE",
        "attacker_value": att[0] if att else None,
        "attacker_dice": att[1] if att else None,
        "defender_order": def_order,
        "defender_value": dfn[0] if dfn else STATIC_ENGAGE_VALUE,
        "defender_dice": dfn[1] if dfn else None,
        "winner": winner,
    }


def _roll_both(
    ctx: Resolution, attacker: Empire, defender: Empire, sys: System, bonus: int, def_order: str
) -> tuple[bool, Engage]:
    """Roll for both sides; True when the defender out-manoeuvres the attacker.

    Statics do not roll and never win; ties favour the attacker.
    """
    value = static_value(sys, ctx.v2)
    if value is not None:
        data = _engage_data(None, None, def_order, "attacker")
        data["defender_value"] = value
        return False, data
    att = engage_roll(ctx, attacker.tech(Tech.DRIVE), 0)
    dfn = engage_roll(ctx, defender.tech(Tech.DRIVE), bonus)
    def_wins = dfn[0] > att[0]
    return def_wins, _engage_data(att, dfn, def_order, "defender" if def_wins else "attacker")


def encounter(
    ctx: Resolution, attacker: str, action: Action, src: System, dst: System, n: int
) -> EncounterResult:
    """Resolve ``n`` cruisers of ``attacker`` at ``src`` moving into enemy ``dst``.

    The ``n`` cruisers are still counted in ``src`` when this is called; this
    takes them out (capture) or takes out only the losses (repelled).
    """
    state = ctx.state
    defender_code = dst.owner
    assert defender_code is not None and defender_code != attacker
    att_emp = state.empires[attacker]
    def_emp = state.empires[defender_code]
    weapons = att_emp.tech(Tech.WEAPONS)
    attack = attack_strength(n, weapons)

    forced = False
    if ctx.pinning and action in (Action.MOVE, Action.ASSAULT):
        withdrawer = ctx.pursuit.pop((attacker, dst.code), None)
        if withdrawer is not None and withdrawer == defender_code:
            forced = True
            ctx.emit(EventKind.PURSUIT, attacker, system=dst.code, withdrawer=withdrawer, forced=True)

    stance = dst.stance
    if forced and stance in (Stance.RETREAT, Stance.STANDOFF):
        stance = Stance.DEFEND
    engage_info: Engage | None = None
    weapons_bonus = True
    ambush = False

    if stance is Stance.RETREAT and dst.cruisers > 0 and _retreat_target_ok(ctx, dst):
        if attack > defence_strength(dst, def_emp):
            escaping = dst.cruisers
            caught = 0
            if ctx.engage:
                parts = max(1, min(3, dst.retreat_parts))
                def_wins, engage_info = _roll_both(ctx, att_emp, def_emp, dst, parts - 1, "RT")
                if not def_wins:
                    caught = min(dst.cruisers, -(-dst.cruisers // parts))
                    escaping = dst.cruisers - caught
            if escaping > 0:
                _withdraw(ctx, attacker, dst, escaping, caught)
    elif stance is Stance.STANDOFF and ctx.engage and ctx.v2 and _is_static(ctx, dst):
        # rules.md §20.2: a static's engage value is reported, no dice are drawn
        # and it fights as if it stood on DEFEND (statics never avoid battle).
        _, engage_info = _roll_both(ctx, att_emp, def_emp, dst, 0, "SF")
    elif stance is Stance.STANDOFF and ctx.engage and not _is_static(ctx, dst):
        def_wins, engage_info = _roll_both(ctx, att_emp, def_emp, dst, 0, "SF")
        if def_wins:
            ctx.emit(
                EventKind.STANDOFF,
                attacker,
                system=dst.code,
                attacker=attacker,
                defender=defender_code,
                engage=engage_info,
                after=sighting(dst),
                **{"from": src.code},
            )
            return EncounterResult("held_off", n)
        weapons_bonus = False
    elif stance is Stance.AMBUSH and action is Action.MOVE and dst.stance_target == src.code:
        if ctx.engage:
            ambush, engage_info = _roll_both(ctx, att_emp, def_emp, dst, 0, "EE")
        else:
            ambush = True

    # -- the battle ---------------------------------------------------------------
    first_attack = attack
    first_defence = defence_strength(dst, def_emp, weapons_bonus)
    survivors = n
    rounds: list[RoundData] = []
    lost_f = lost_c = 0
    while True:
        a = attack_strength(survivors, weapons)
        d = defence_strength(dst, def_emp, weapons_bonus)
        if ambush and not rounds:
            # Defender fires first; the attacker answers with what is left and
            # then loses one extra ship.
            att_loss, _ = round_losses(a, d)
            att_loss = min(att_loss, survivors)
            survivors -= att_loss
            a2 = attack_strength(survivors, weapons)
            _, def_loss = round_losses(a2, d)
            extra = min(1, survivors)
            survivors -= extra
            att_loss += extra
        else:
            att_loss, def_loss = round_losses(a, d)
            att_loss = min(att_loss, survivors)
            survivors -= att_loss
        f, c = _take_defender_losses(dst, def_loss)
        ctx.cruisers_destroyed(defender_code, dst, c)
        lost_f += f
        lost_c += c
        rounds.append(
            {
                "attack": a,
                "defence": d,
                "attacker_cruisers_lost": att_loss,
                "defender_fighters_lost": f,
                "defender_cruisers_lost": c,
            }
        )
        if action is not Action.ASSAULT:
            break
        if dst.fleet == 0 or survivors == 0:
            break
        if att_loss == 0 and f + c == 0:
            # rules.md §10.6 (ruling B2): a round where nobody loses anything would repeat forever.
            break

    marines = att_emp.tech(Tech.MARINES)
    level = defence_level(dst, marines)
    won = attacker_wins(dst.fleet, survivors, dst, marines)
    pool: dict[str, Sides] = {}
    if ctx.v2:
        pool["lost_in_space"] = {
            "attacker": battle_losses_lost(ctx, attacker, n - survivors),
            "defender": battle_losses_lost(ctx, defender_code, lost_c),
        }
    battle = ctx.emit(
        EventKind.BATTLE,
        attacker,
        system=dst.code,
        action=action.value,
        attacker=attacker,
        defender=defender_code,
        attack=first_attack,
        defence=first_defence,
        engage=engage_info,
        fire_order="defender_first" if ambush else "simultaneous",
        rounds=rounds,
        losses={
            "attacker": {"cruisers": n - survivors},
            "defender": {"fighters": lost_f, "cruisers": lost_c},
        },
        survivors=survivors,
        defence_level=level,
        winner="attacker" if won else "defender",
        captured=won,
        **pool,
        **{"from": src.code},
    )
    if won:
        src.cruisers -= n
        capture(ctx, attacker, dst, survivors, action.value)
    else:
        src.cruisers -= n - survivors
    # Filled in only now, so that a capture's changes are in it.
    battle.data["after"] = sighting(dst)
    return EncounterResult("captured" if won else "repelled", survivors)


def sighting(sys: System) -> ShipsAfter:
    """What an attacker sees of ``sys`` right after its attack: its report
    shows the system so even out of scanner range (rules.md §14, ruling V2)."""
    return {
        "owner": sys.owner,
        "pop": sys.pop,
        "industry": sys.industry,
        "cruisers": sys.cruisers,
        "fighters": sys.fighters,
        "colony_ships": sys.colony_ships,
        "stance": sys.stance.value,
    }


def _forget_loser_points(loser: Empire, code: int) -> None:
    if loser.base == code:
        loser.base = None
    if loser.home == code:
        loser.home = None


def capture(ctx: Resolution, attacker: str, dst: System, survivors: int, how: str) -> None:
    """3.10: the loser loses 1 VP; pop, industry and colony ships are halved and
    change hands; the winner's survivors move in."""
    state = ctx.state
    loser_code = dst.owner
    assert loser_code is not None
    loser = state.empires[loser_code]
    # Rule set 2 reads 3.10 as naming MOVE and ASSAULT only: a DEEP capture
    # takes the system whole and costs the loser no VP (rules.md §20.4).
    whole = ctx.v2 and how == Action.DEEP.value
    # rules.md §10.4 (ruling B3): VP never go below zero.
    vp_lost = 0 if whole else min(1, loser.vp)
    loser.vp -= vp_lost
    _forget_loser_points(loser, dst.code)
    ctx.system_lost(loser_code, dst.code)
    if not whole:
        dst.pop //= 2
        dst.industry //= 2
        dst.colony_ships //= 2
    dst.fighters = 0
    dst.cruisers = survivors
    _change_hands(ctx, dst, attacker)
    ctx.emit(
        EventKind.CAPTURE,
        attacker,
        system=dst.code,
        from_empire=loser_code,
        cruisers=survivors,
        pop=dst.pop,
        industry=dst.industry,
        colony_ships=dst.colony_ships,
        how=how,
        vp_lost=vp_lost,
    )


def _change_hands(ctx: Resolution, sys: System, new_owner: str) -> None:
    ctx.ownership_changed(sys.owner, new_owner)
    sys.owner = new_owner
    sys.stance = Stance.DEFEND
    sys.stance_target = None
    sys.retreat_parts = 1
    # A black dwarf's limit follows its owner's Life Support; industry may
    # not exceed the limit (population may, and pays supply for it).
    limit = population_limit(sys, ctx.state.empires[new_owner])
    sys.industry = min(sys.industry, limit)


def claim_unowned(ctx: Resolution, empire: str, sys: System, cruisers: int, how: str) -> bool:
    """Take an unowned system without battle; True when it was never owned
    (the caller then explores it, rules.md §12)."""
    first = not sys.ever_owned
    sys.cruisers += cruisers
    _change_hands(ctx, sys, empire)
    sys.ever_owned = True
    ctx.make_sticky(empire, sys.code)
    ctx.emit(
        EventKind.CAPTURE,
        empire,
        system=sys.code,
        from_empire=None,
        cruisers=cruisers,
        pop=sys.pop,
        industry=sys.industry,
        colony_ships=sys.colony_ships,
        how=how,
        vp_lost=0,
    )
    return first
