"""Events told as sentences, for the text and HTML reports.

Each kind has one phrasing function that speaks to the reader ("you",
"your cruisers") when the reader is involved. An unknown kind still reads
sensibly (its data as ``key value`` pairs), so a new event never breaks a
report. Which events a reader may see at all is the fog-of-war rule
(:func:`turnproc.rules.visibility.audience`), not decided here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from ..orders.vocabulary import REASONS, EventKind
from ..rules.eventdata import (
    BattleData,
    BlockadeData,
    BombardData,
    CaptureData,
    ControlStopData,
    DistsqData,
    EndData,
    ExplorationData,
    HyperspaceData,
    IncomeData,
    InterestData,
    LeftoversData,
    LinkData,
    MoveData,
    NameData,
    OrderData,
    PinData,
    ProbeLostData,
    PursuitData,
    ResearchData,
    RetreatResetData,
    StanceData,
    StandoffData,
    SupplyData,
    TradeData,
    VpData,
    WithdrawData,
)
from ..rules.events import Event

__all__ = ["narrate", "REASONS"]

FINDS = {
    "nothing": "nothing of use",
    "cruisers": "{amount} cruiser{s}",
    "fighters": "{amount} fighter{s}",
    "colony_ship": "a colony ship",
    "industry": "{amount} industry",
    "vp": "{amount} VP",
    "bp": "{amount} BP",
    "treasury": "{amount} BP for the treasury",
    "tech": "{amount} level{s} of {tech}",
    "population": "{amount} population",
}


def _n(count: object, word: str) -> str:
    """``3 cruisers``, ``1 cruiser``; ``colony ship`` → ``colony ships``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _were(count: object) -> str:
    """``1 was``, ``3 were``: the verb agreeing with a count."""
    return f"{count} was" if count == 1 else f"{count} were"


def _cap(text: str) -> str:
    """Capitalise a sentence start without touching the rest (``str.capitalize``
    would turn an empire code RIG into Rig)."""
    return text[:1].upper() + text[1:]


def _who(code: str | None, viewer: str) -> str:
    if code is None:
        return "nobody"
    return "you" if code == viewer else code


def _whose(code: str | None, viewer: str) -> str:
    return "your" if code == viewer else f"{code}'s"


def _reason(code: str | None) -> str:
    if not code:
        return ""
    return REASONS.get(code, code.replace("_", " "))


def _order(e: Event, viewer: str) -> str:
    d = cast(OrderData, e.data)
    if not d["ok"]:
        return _reason(d["reason"])
    parts: list[str] = []
    outcome = d.get("outcome")
    if outcome:
        parts.append(str(outcome).replace("_", " "))
    if "distsq" in d:
        parts.append(f"distance squared {d['distsq']}")
    asked, done = d.get("asked"), d.get("done", d.get("moved"))
    if asked is not None and done is not None and done != asked:
        parts.append(f"{done} of {asked}")
    if d.get("gained"):
        parts.append(f"+{d['gained']} BP")
    if d.get("case"):
        parts.append(f"probe {d['case']}")
    if d["action"] == "FIND":
        parts.append(f"{_n(d.get('destroyed', 0), 'probe')} destroyed")
    if d.get("tech") and d.get("level") is not None and d["action"] != "TRADE":
        parts.append(f"{d['tech']} now {d['level']}")
    cost = d["cost"] or 0
    treasury = d["treasury_cost"] or 0
    if cost:
        parts.append(f"cost {cost} BP")
    if treasury:
        parts.append(f"cost {treasury} treasury BP")
    return ", ".join(parts) or "done"


def _battle(e: Event, viewer: str) -> str:
    d = cast(BattleData, e.data)
    attacker, defender = d["attacker"], d["defender"]
    head = (
        f"Battle at {d['system']}: {_who(attacker, viewer)} attacked {_who(defender, viewer)} from "
        f"{d['from']} ({d.get('action', 'MOVE')}), attack {d['attack']} against defence {d['defence']}"
    )
    parts = [head]
    engage = d["engage"]
    if isinstance(engage, dict) and engage:
        first = attacker if engage.get("winner") == "attacker" else defender
        if engage.get("attacker_value") is None:
            parts.append("the defenders were static and could not manoeuvre")
        else:
            parts.append(
                f"engage values {engage.get('attacker_value')} against {engage.get('defender_value')} "
                f"({engage.get('defender_order')}): {_who(first, viewer)} out-manoeuvred the other side"
            )
    if d["fire_order"] == "defender_first":
        parts.append("the defender fired first")
    rounds = d["rounds"]
    if isinstance(rounds, list) and len(rounds) > 1:
        parts.append(f"{len(rounds)} rounds")
    losses = d["losses"]
    if isinstance(losses, dict):
        for side in ("attacker", "defender"):
            lost = losses.get(side)
            if isinstance(lost, dict) and any(lost.values()):
                what = ", ".join(_n(n, kind[:-1].replace("_", " ")) for kind, n in sorted(lost.items()) if n)
                parts.append(f"{_who(attacker if side == 'attacker' else defender, viewer)} lost {what}")
    pool = d.get("lost_in_space")
    if isinstance(pool, dict):
        # Only the reader's own pool: what drifted from another empire's losses is
        # its business (rules.md §19.2: the pools count toward nothing others see).
        mine = (
            pool.get("attacker")
            if attacker == viewer
            else pool.get("defender")
            if defender == viewer
            else None
        )
        if mine:
            parts.append(f"{_n(mine, 'cruiser')} of your losses drifted lost in space")
    if d["captured"]:
        parts.append(f"{_who(attacker, viewer)} captured the system")
    elif d["survivors"]:
        parts.append(f"the attack failed (defence level {d['defence_level']}) and the survivors went home")
    else:
        parts.append(f"the attack failed (defence level {d['defence_level']}); no attacking cruiser survived")
    return "; ".join(parts) + "."


def _capture(e: Event, viewer: str) -> str:
    d = cast(CaptureData, e.data)
    taker = _cap(_who(e.empire, viewer))
    source = f" from {_who(d['from_empire'], viewer)}" if d["from_empire"] else ""
    lost = " (1 VP lost)" if d["from_empire"] == viewer and d["vp_lost"] else ""
    return (
        f"{taker} took {d['system']}{source} by {d.get('how', 'MOVE')}; "
        f"{_n(d.get('cruisers', 0), 'cruiser')} moved in{lost}."
    )


def _exploration(e: Event, viewer: str) -> str:
    d = cast(ExplorationData, e.data)
    found = FINDS.get(str(d["find"]), "{find}").format(
        amount=d["amount"], tech=d["tech"], find=d["find"], s="" if d["amount"] == 1 else "s"
    )
    return f"Digging in the ruins of {d['system']} (roll {d['roll']}) found {found}."


def _distsq(e: Event, viewer: str) -> str:
    d = cast(DistsqData, e.data)
    return f"The distance squared from {d['from']} to {d['to']} is {d['distsq']}."


def _move(e: Event, viewer: str) -> str:
    d = cast(MoveData, e.data)
    ships = [_n(d[k], k[:-1].replace("_", " ")) for k in ("cruisers", "fighters", "colony_ships") if d.get(k)]
    sticky = " They may not leave again this turn." if d["sticky"] else ""
    return f"{', '.join(ships) or 'No ships'} moved from {d['from']} to {d['to']}.{sticky}"


def _hyperspace(e: Event, viewer: str) -> str:
    d = cast(HyperspaceData, e.data)
    return (
        f"Deep jump {d['from']} to {d['to']} (distance squared {d['distsq']}, Jump {d['jump']}): "
        f"{d['lost']} of {_n(d['ships'], 'ship')} lost in hyperspace."
    )


def _standoff(e: Event, viewer: str) -> str:
    d = cast(StandoffData, e.data)
    return (
        f"At {d['system']} {_who(d['defender'], viewer)} held off the attack of "
        f"{_who(d['attacker'], viewer)} (standoff)."
    )


def _withdraw(e: Event, viewer: str) -> str:
    d = cast(WithdrawData, e.data)
    text = f"{d['cruisers']} of {_whose(e.empire, viewer)} cruisers withdrew from {d['system']} to {d['to']}"
    if d["caught"]:
        text += f"; {_were(d['caught'])} caught and fought"
    if d["lost"]:
        text += f"; {_were(d['lost'])} lost retreating through enemy control"
    return text + "."


def _pursuit(e: Event, viewer: str) -> str:
    d = cast(PursuitData, e.data)
    if d["forced"]:
        return (
            f"{_cap(_who(e.empire, viewer))} ran down {_whose(d['withdrawer'], viewer)} withdrawing "
            f"fleet at {d['system']}."
        )
    return (
        f"{_cap(_who(e.empire, viewer))} may pursue {_whose(d['withdrawer'], viewer)} fleet into "
        f"{d['system']} this turn."
    )


def _pin(e: Event, viewer: str) -> str:
    d = cast(PinData, e.data)
    by = ", ".join(_who(x, viewer) for x in d["by"] or [])
    if not by or not d["strength"]:
        return (
            f"{_cap(_whose(e.empire, viewer))} cruisers entered enemy control at {d['system']} but "
            "nothing pinned them."
        )
    return (
        f"At {d['system']} {by} pinned {_whose(e.empire, viewer)} cruisers: {d['held']} held, "
        f"{d['ran']} ran the pin."
    )


def _control_stop(e: Event, viewer: str) -> str:
    d = cast(ControlStopData, e.data)
    by = ", ".join(_who(x, viewer) for x in d["by"] or [])
    return (
        f"{_cap(_whose(e.empire, viewer))} ships entering {d['system']} were stopped by the control of {by}."
    )


def _blockade(e: Event, viewer: str) -> str:
    d = cast(BlockadeData, e.data)
    return f"Planet {d['planet']} is blockaded by {_who(d['by'], viewer)} from {d['star']} and earns nothing."


def _leftovers(e: Event, viewer: str) -> str:
    d = cast(LeftoversData, e.data)
    parts = []
    if d["cruisers"]:
        parts.append(f"{_n(d['cruisers'], 'cruiser')} at {d['base']}")
    if d["fighters"]:
        parts.append(f"{_n(d['fighters'], 'fighter')} at {d['home']}")
    bought = " bought " + " and ".join(parts) if parts else " bought nothing"
    stashed = f"; {d['treasury']} BP went into the treasury" if d.get("treasury") else ""
    lost = f"; {d['lost']} BP {'was' if d['lost'] == 1 else 'were'} lost" if d["lost"] else ""
    return f"Your {d['balance']} leftover BP{bought}{stashed}{lost}."


def _income(e: Event, viewer: str) -> str:
    d = cast(IncomeData, e.data)
    blockaded = f" ({_n(len(d['blockaded']), 'blockaded planet')} earned nothing)" if d["blockaded"] else ""
    extra = f", {d['bp_income']} from BP Income tech" if d["bp_income"] else ""
    return f"Income for next turn: {d['total']} BP{extra}{blockaded}."


def _supply(e: Event, viewer: str) -> str:
    d = cast(SupplyData, e.data)
    text = f"Supply cost {d['total']} BP, paid {d['paid']}"
    if d["shortfall"]:
        scrapped = sum(int(s.get("cruisers", 0)) for s in d["scrapped"] or [])
        text += f"; {d['shortfall']} BP short, {_n(scrapped, 'cruiser')} scrapped"
    out = [s.get("system") for s in d["systems"] or [] if not s.get("in_supply", True)]
    if out:
        text += f"; out of supply: {', '.join(str(x) for x in out)}"
    return text + "."


def _interest(e: Event, viewer: str) -> str:
    d = cast(InterestData, e.data)
    return f"The treasury earned {d['amount']} BP interest ({d['rate']}%)."


def _research(e: Event, viewer: str) -> str:
    d = cast(ResearchData, e.data)
    return f"Research raised {d['tech']} to {d['level']}."


def _vp(e: Event, viewer: str) -> str:
    d = cast(VpData, e.data)
    return (
        f"You gained {d['gained']} VP ({d['industry_vp']} for industry, {d['cultural_vp']} for "
        f"culture); you have {d['vp']}."
    )


def _name(e: Event, viewer: str) -> str:
    d = cast(NameData, e.data)
    return f"System {d['system']} is now called {d['name']}."


def _stance(e: Event, viewer: str) -> str:
    d = cast(StanceData, e.data)
    if "base" in d:
        return f"BASE is now {d['base']}."
    if "home" in d:
        return f"HOME is now {d['home']}."
    target = f" (to {d['target']})" if d.get("target") else ""
    return f"{d['system']} now stands on {d.get('stance')}{target}."


def _eliminated(e: Event, viewer: str) -> str:
    return f"{_cap(_who(e.empire, viewer))} no longer own{'s' if e.empire != viewer else ''} any system."


def _end(e: Event, viewer: str) -> str:
    d = cast(EndData, e.data)
    why = {
        "turn_limit": "the turn limit was reached",
        "vp_target": "an empire reached the VP target",
        "last_empire": "one empire is left",
    }
    winner = d["winner"]
    who = f"{_who(winner, viewer)} won" if winner else "it ended in a tie"
    return f"The game is over: {why.get(str(d['reason']), d['reason'])}, and {who}."


def _bombard(e: Event, viewer: str) -> str:
    d = cast(BombardData, e.data)
    hits = [f"{d['pop_lost']} population", f"{d['industry_lost']} industry"]
    if d["cruisers_lost"]:
        hits.append(_n(d["cruisers_lost"], "cruiser"))
    if d["fighters_lost"]:
        hits.append(_n(d["fighters_lost"], "fighter"))
    return (
        f"{_cap(_who(d['attacker'], viewer))} bombarded planet {d['system']} of "
        f"{_who(d['defender'], viewer)} from {d['from']}: "
        f"rolls {d['pop_roll']} and {d['industry_roll']}, {', '.join(hits)} lost."
    )


def _link(e: Event, viewer: str) -> str:
    d = cast(LinkData, e.data)
    return f"A new link appeared between {d['from']} and {d['to']} (distance squared {d['distsq']})."


def _retreat_reset(e: Event, viewer: str) -> str:
    d = cast(RetreatResetData, e.data)
    return f"{d['system']} will now retreat to {d['to']}, where its cruisers came from."


def _trade(e: Event, viewer: str) -> str:
    d = cast(TradeData, e.data)
    return (
        f"{_cap(_who(d['taker'], viewer))} took {d['tech']} from {_who(e.empire, viewer)} "
        f"to level {d['level']}, paying {d['paid']} treasury BP "
        f"({d['received']} to {_who(e.empire, viewer)})."
    )


def _probe_lost(e: Event, viewer: str) -> str:
    d = cast(ProbeLostData, e.data)
    return f"Your probe at {d['system']} was found and destroyed."


def _generic(e: Event, viewer: str) -> str:
    details = ", ".join(f"{k.replace('_', ' ')} {_fmt(v)}" for k, v in sorted(e.data.items()))
    who = f"{e.empire}: " if e.empire and e.empire != viewer else ""
    return f"{who}{e.kind.replace('_', ' ')}" + (f" ({details})" if details else "")


def _fmt(v: Any) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} {_fmt(x)}" for k, x in sorted(v.items())) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)


_PHRASES: dict[str, Callable[[Event, str], str]] = {
    EventKind.ORDER: _order,
    EventKind.BATTLE: _battle,
    EventKind.CAPTURE: _capture,
    EventKind.EXPLORATION: _exploration,
    EventKind.DISTSQ: _distsq,
    EventKind.MOVE: _move,
    EventKind.HYPERSPACE_LOSS: _hyperspace,
    EventKind.STANDOFF: _standoff,
    EventKind.WITHDRAW: _withdraw,
    EventKind.PURSUIT: _pursuit,
    EventKind.PIN: _pin,
    EventKind.CONTROL_STOP: _control_stop,
    EventKind.BLOCKADE: _blockade,
    EventKind.LEFTOVERS: _leftovers,
    EventKind.INCOME: _income,
    EventKind.SUPPLY: _supply,
    EventKind.INTEREST: _interest,
    EventKind.RESEARCH: _research,
    EventKind.VP: _vp,
    EventKind.NAME: _name,
    EventKind.STANCE: _stance,
    EventKind.ELIMINATED: _eliminated,
    EventKind.END: _end,
    EventKind.BOMBARD: _bombard,
    EventKind.LINK: _link,
    EventKind.RETREAT_RESET: _retreat_reset,
    EventKind.TRADE: _trade,
    EventKind.PROBE_LOST: _probe_lost,
}


def narrate(event: Event, viewer: str) -> str:
    return _PHRASES.get(event.kind, _generic)(event, viewer)
