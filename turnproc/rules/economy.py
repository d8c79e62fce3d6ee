"""End-of-turn economy (rules.md §13): leftovers, income, supply, interest, research, VP.

:func:`income` and :func:`is_blockaded` are pure helpers other packages use;
:func:`end_of_turn` runs rules.md §13.1 steps 1–6 in order, every step for every
empire (in empire-code order) before the next step. Empires that own no system
any more earn, pay and score nothing (rules.md §13.1, ruling E2); their balance is lost.

Random numbers: research draws one ``randrange(total weight)`` per empire
that owns a system, in empire-code order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..orders.vocabulary import EventKind
from .galaxy import population_limit
from .resolution import Resolution, holdings
from .state import TECH_START, V1_TECHS, Empire, GameState, System, SystemType, Tech
from .zoc import SupplyMap, compute_supply

__all__ = [
    "is_blockaded",
    "system_income",
    "bp_income",
    "income",
    "supply_cost",
    "research_weight",
    "research_pick",
    "end_of_turn",
    "CRUISER_COST",
    "FIGHTER_COST",
]

CRUISER_COST = 10
FIGHTER_COST = 3
#: One cruiser is scrapped per this many BP of supply shortfall (rounded up).
SHORTFALL_PER_CRUISER = 3
#: Balance BP per treasury BP, for STASH and (rule set 2) the leftovers.
STASH_RATE = 3


def is_blockaded(state: GameState, planet: System) -> bool:
    """A planet is blockaded when its star belongs to another empire whose
    cruisers + fighters + 5 × colony ships there exceed the planet's population
    + cruisers (rules.md §13.4)."""
    if planet.star is None or planet.owner is None:
        return False
    if state.v2 and planet.type is not SystemType.PL:
        # rules.md §20.5: an asteroid belt is never blockaded in rule set 2.
        return False
    star = state.systems[planet.star]
    if star.owner is None or star.owner == planet.owner:
        return False
    blockaders = star.cruisers + star.fighters + 5 * star.colony_ships
    return blockaders > planet.pop + planet.cruisers


def system_income(state: GameState, system: System) -> int:
    """``min(pop, limit) + min(pop, industry)``; nothing from a blockaded planet."""
    if system.owner is None or is_blockaded(state, system):
        return 0
    limit = population_limit(system, state.empires.get(system.owner))
    return min(system.pop, limit) + min(system.pop, system.industry)


def bp_income(empire: Empire) -> int:
    """What the BP Income tech adds to the income: 2 BP a level (rules.md §3.4)."""
    return 2 * empire.tech(Tech.BP_INCOME)


def income(state: GameState, empire: str, owned: Iterable[System] | None = None) -> int:
    """Next turn's balance for ``empire``: its systems' income plus 2 × BP Income.

    ``owned`` (the empire's systems) may be passed by a caller that already
    has them, to save a walk over the whole galaxy."""
    systems = state.owned_by(empire) if owned is None else owned
    total = sum(system_income(state, s) for s in systems)
    return total + bp_income(state.empires[empire])


def supply_cost(state: GameState, system: System, in_supply: bool = True) -> int:
    """``max(0, (10c + 3f + 20 colony) / 3 − pop − Supply)`` (doubled out of
    supply) + 1 per population above the limit.

    rules.md §13.2 (ruling E3): doubling applies to the ships' part only; population above
    the limit is not a force.
    """
    if system.owner is None:
        return 0
    emp = state.empires[system.owner]
    ships = (10 * system.cruisers + 3 * system.fighters + 20 * system.colony_ships) // 3
    cost = max(0, ships - system.pop - emp.tech(Tech.SUPPLY))
    if not in_supply:
        cost *= 2
    return cost + max(0, system.pop - population_limit(system, emp))


def _leftovers(ctx: Resolution, code: str) -> None:
    state = ctx.state
    emp = state.empires[code]
    balance = emp.balance
    cruisers = fighters = 0
    base = state.systems.get(emp.base) if emp.base is not None else None
    if base is not None and base.owner == code and not is_blockaded(state, base):
        cruisers = balance // CRUISER_COST
        balance -= cruisers * CRUISER_COST
        base.cruisers += cruisers
    home = state.systems.get(emp.home) if emp.home is not None else None
    if home is not None and home.owner == code and not is_blockaded(state, home):
        fighters = balance // FIGHTER_COST
        balance -= fighters * FIGHTER_COST
        home.fighters += fighters
    extra: dict[str, int] = {}
    if state.v2:
        # rules.md §19.7: what is left goes into the treasury at STASH's 3 : 1.
        stashed = balance // STASH_RATE
        balance -= stashed * STASH_RATE
        emp.treasury += stashed
        extra["treasury"] = stashed
    ctx.emit(
        EventKind.LEFTOVERS,
        code,
        balance=emp.balance,
        cruisers=cruisers,
        base=emp.base if cruisers else None,
        fighters=fighters,
        home=emp.home if fighters else None,
        lost=balance,
        **extra,
    )
    emp.balance = 0


def _income(ctx: Resolution, code: str, systems: list[System]) -> None:
    state = ctx.state
    emp = state.empires[code]
    per_system = []
    blockaded = []
    for sys in systems:
        if is_blockaded(state, sys):
            blockaded.append(sys.code)
            assert sys.star is not None
            ctx.emit(
                EventKind.BLOCKADE,
                code,
                planet=sys.code,
                star=sys.star,
                by=state.systems[sys.star].owner,
            )
            continue
        per_system.append({"system": sys.code, "income": system_income(state, sys)})
    bonus = bp_income(emp)
    total = sum(p["income"] for p in per_system) + bonus
    emp.balance = total
    ctx.emit(
        EventKind.INCOME,
        code,
        systems=per_system,
        blockaded=blockaded,
        bp_income=bonus,
        total=total,
    )


def _supply(ctx: Resolution, code: str, systems: list[System], supply: SupplyMap | None) -> None:
    state = ctx.state
    emp = state.empires[code]
    costs: list[tuple[int, System]] = []
    rows = []
    for sys in systems:
        in_supply = supply is None or supply.in_supply(code, sys.code)
        cost = supply_cost(state, sys, in_supply)
        rows.append({"system": sys.code, "cost": cost, "in_supply": in_supply})
        costs.append((cost, sys))
    total = sum(c for c, _ in costs)
    paid = min(total, emp.balance)
    emp.balance -= paid
    shortfall = total - paid
    # rules.md §13.1 (ruling E4): ceil(shortfall / 3) cruisers, costliest system
    # first (ties: lower code); what cannot be scrapped is forgiven.
    to_scrap = -(-shortfall // SHORTFALL_PER_CRUISER)
    scrapped = []
    for _, sys in sorted(costs, key=lambda cs: (-cs[0], cs[1].code)):
        if to_scrap == 0:
            break
        n = min(to_scrap, sys.cruisers)
        if n:
            sys.cruisers -= n
            to_scrap -= n
            scrapped.append({"system": sys.code, "cruisers": n})
    ctx.emit(
        EventKind.SUPPLY,
        code,
        systems=rows,
        total=total,
        paid=paid,
        shortfall=shortfall,
        scrapped=scrapped,
        forgiven=to_scrap,
    )


def _interest(ctx: Resolution, code: str) -> None:
    emp = ctx.state.empires[code]
    rate = emp.tech(Tech.TREASURY)
    if rate <= 0:
        return
    amount = emp.treasury * rate // 100
    emp.treasury += amount
    ctx.emit(EventKind.INTEREST, code, rate=rate, amount=amount, treasury=emp.treasury)


def research_weight(techs: Mapping[Tech, int], among: Iterable[Tech] = V1_TECHS) -> int:
    """Sum of (level + 1) over the game's techs (``among``): the range of the draw."""
    return sum(techs.get(t, TECH_START[t]) + 1 for t in among)


def research_pick(techs: Mapping[Tech, int], draw: int, among: Iterable[Tech] = V1_TECHS) -> Tech:
    """The tech a research draw in ``range(research_weight(techs, among))`` lands
    on, walking ``among`` in :class:`Tech` order, each (level + 1) wide."""
    for tech in among:
        width = techs.get(tech, TECH_START[tech]) + 1
        if draw < width:
            return tech
        draw -= width
    raise ValueError("research draw beyond the total weight")


def _research(ctx: Resolution, code: str) -> None:
    emp = ctx.state.empires[code]
    among = ctx.state.techs
    tech = research_pick(emp.techs, ctx.rng.randrange(research_weight(emp.techs, among)), among)
    emp.techs[tech] = emp.tech(tech) + 1
    ctx.emit(EventKind.RESEARCH, code, tech=tech.value, level=emp.techs[tech])


def _victory_points(ctx: Resolution, code: str, systems: list[System]) -> None:
    emp = ctx.state.empires[code]
    industry_vp = sum(s.industry for s in systems) // 10
    cultural_vp = emp.tech(Tech.CULTURAL) // 2
    gained = industry_vp + cultural_vp
    emp.vp += gained
    ctx.emit(
        EventKind.VP,
        code,
        industry_vp=industry_vp,
        cultural_vp=cultural_vp,
        gained=gained,
        vp=emp.vp,
    )


def end_of_turn(ctx: Resolution) -> None:
    """rules.md §13.1 in order; exploration already happened at capture time (rules.md §12)."""
    state = ctx.state
    # Ownership does not change during the economy, so one index serves all steps.
    held = holdings(state)
    playing = [code for code in sorted(state.empires) if held.get(code)]
    for code in sorted(state.empires):
        if code in playing:
            _leftovers(ctx, code)
        else:
            state.empires[code].balance = 0
    for code in playing:
        _income(ctx, code, held[code])
    # Supply is worked out again for rules.md §13.1, from where the ships are now (rules.md §8.3).
    supply = compute_supply(state) if state.has_module("zoc") else None
    for code in playing:
        _supply(ctx, code, held[code], supply)
    for code in playing:
        _interest(ctx, code)
    for code in playing:
        _research(ctx, code)
    for code in playing:
        _victory_points(ctx, code, held[code])
