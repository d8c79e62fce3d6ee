"""Report contexts: pure functions from (state, events, empire) to a dict that
the templates render and the JSON report is.

Only what the empire may see (rules.md §14) goes into a context; templates and
the map never reach into the state themselves, so fog of war is enforced here,
in one place. The dict is JSON-safe and follows ``report.schema.json``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from ..orders.vocabulary import EventKind
from ..rules import visibility
from ..rules.economy import bp_income, income, is_blockaded, system_income
from ..rules.eventdata import BattleData, OrderData, StandoffData
from ..rules.events import Event
from ..rules.galaxy import population_limit
from ..rules.state import Empire, GameState, System, Tech
from ..rules.visibility import audience, press_author, visible_from
from ..timing.deadlines import format_deadline
from .narrative import narrate
from .orderform import order_form
from .schema import (
    SCHEMA_ID,
    SCHEMA_VERSION,
    Arrow,
    ArrowKind,
    BulletinPointer,
    Happening,
    MapSystem,
    OrderRow,
    OwnSystemRow,
    PressRow,
    ReportBody,
    ReportContext,
    RoundupRow,
    SystemRow,
    TurnHead,
)

__all__ = [
    "position_context",
    "SCHEMA_VERSION",
    "SCHEMA_ID",
    "TurnView",
    "report_context",
    "roundup",
    "standings",
    "order_form",
    "attacked_systems",
    "turn_arrows",
    "BULLETIN_TOP",
    "public_press",
    "turn_head",
]

#: Kinds with a section of their own in a rule-set-2 report, not told as happenings.
_SECTION_KINDS = (EventKind.PROBE_VIEW, EventKind.RESERVE)
#: Kinds a report tells elsewhere (orders, press, systems) or not at all.
_NOT_HAPPENINGS = frozenset(
    {EventKind.ORDER, EventKind.MESSAGE, EventKind.STANCE, EventKind.NAME, EventKind.STICKY, *_SECTION_KINDS}
)
#: In a bulletin game, how many rows from the top of the standings every
#: report keeps (rules.md §14, ruling V3); the rest is in the bulletin.
BULLETIN_TOP = 10


def roundup(state: GameState) -> list[RoundupRow]:
    """Every empire's code, name, VP and rank (public, rules.md §14). Ties share a rank."""
    return standings(state.empires.values())


def standings(empires: Iterable[Empire]) -> list[RoundupRow]:
    """The roundup of these empires (:func:`roundup`): best first, ties share a rank."""
    ordered = sorted(empires, key=lambda e: (-e.vp, e.code))
    rows: list[RoundupRow] = []
    rank = 0
    last_vp: int | None = None
    for i, e in enumerate(ordered, start=1):
        if e.vp != last_vp:
            rank, last_vp = i, e.vp
        rows.append({"code": e.code, "name": e.name, "vp": e.vp, "rank": rank, "active": e.active})
    return rows


@dataclass
class TurnView:
    """What every report of one turn shares, worked out once for all of them:
    who owns what, the roundup, and which events each empire may read. A
    thousand-empire turn would otherwise walk the galaxy and the event list a
    thousand times."""

    owned: dict[str, list[System]]
    roundup: list[RoundupRow]
    events: dict[str, list[Event]]
    #: ``events`` without the public press, which only the press section reads:
    #: in a big game the public press is most of every empire's list.
    told: dict[str, list[Event]]
    #: Empire -> the empires named with it in the private events it reads
    #: (rules.md §14, ruling V3).
    named: dict[str, set[str]]
    #: Empire code -> its row's index in ``roundup``.
    position: dict[str, int]

    @classmethod
    def build(cls, state: GameState, events: list[Event]) -> TurnView:
        owned: dict[str, list[System]] = {code: [] for code in state.empires}
        systems = state.systems
        for system_code in sorted(systems):
            s = systems[system_code]
            mine = owned.get(s.owner) if s.owner is not None else None
            if mine is not None:
                mine.append(s)
        readable: dict[str, list[Event]] = {code: [] for code in state.empires}
        told: dict[str, list[Event]] = {code: [] for code in state.empires}
        named: dict[str, set[str]] = {code: set() for code in state.empires}
        # Public events go to every list: a big game's public press is a few
        # hundred events times a thousand readers, so without a lookup each.
        every_readable = list(readable.values())
        every_told = list(told.values())
        for e in events:
            readers = audience(e)
            if readers is None:
                for events_of in every_readable:
                    events_of.append(e)
                if e.kind != EventKind.MESSAGE:
                    for events_of in every_told:
                        events_of.append(e)
                continue
            for empire in readers:
                if empire in readable:
                    readable[empire].append(e)
                    told[empire].append(e)
                    named[empire].update(readers)
        rows = roundup(state)
        position = {row["code"]: i for i, row in enumerate(rows)}
        return cls(owned=owned, roundup=rows, events=readable, told=told, named=named, position=position)


def public_press(events: Iterable[Event]) -> list[PressRow]:
    """The press messages to every empire among ``events``, as the bulletin
    shows them (which press is public: :func:`turnproc.rules.visibility.public_press`)."""
    return [_press_row(e) for e in visibility.public_press(events)]


def _press_row(e: Event) -> PressRow:
    return {
        "from": press_author(e),
        "to": e.data.get("to") or "ALL",
        "private": e.data.get("to") is not None,
        "text": str(e.data.get("text", "")),
    }


def turn_head(
    state: GameState, *, game_name: str, turn: int, deadline: dt.datetime | None, corrected: bool
) -> TurnHead:
    """The keys a report and a bulletin both start with: which game and turn,
    the next deadline, and whether the game is over or the turn was re-run."""
    return {
        "game": game_name,
        "turn": turn,
        "next_turn": state.turn,
        "deadline": deadline.isoformat(timespec="seconds") if deadline is not None else None,
        "deadline_text": format_deadline(deadline),
        "finished": state.finished,
        "corrected": corrected,
    }


def _system_row(
    adjacency: dict[int, tuple[int, ...]], s: System, known: set[int], reader: Empire
) -> SystemRow:
    # A black dwarf's limit is its owner's Life Support, a tech only the owner
    # knows: any owned system is shown with the reader's own tech (the same
    # thing for the reader's systems). Unowned, a black dwarf has no limit.
    shown_owner = reader if s.owner is not None else None
    # ``_value_`` is the plain attribute behind an enum's ``.value`` (a
    # descriptor, several times slower): a thousand-empire turn reads it
    # for some 70,000 rows.
    return {
        "code": s.code,
        "name": s.name,
        "type": s.type._value_,
        "star": s.star,
        "row": s.row,
        "col": s.col,
        "owner": s.owner,
        "pop": s.pop,
        "limit": population_limit(s, shown_owner),
        "industry": s.industry,
        "cruisers": s.cruisers,
        "fighters": s.fighters,
        "colony_ships": s.colony_ships,
        "stance": s.stance._value_,
        # Only links to systems the empire knows: a link to an unseen system
        # would reveal that it exists.
        "links": [n for n in adjacency.get(s.code, ()) if n in known],
    }


def attacked_systems(events: list[Event], empire: str) -> dict[int, Mapping[str, Any]]:
    """System code -> how it was right after ``empire``'s last attack on it this
    turn (rules.md §14, ruling V2), from the battles and standoffs it fought
    (the battle event's ``after``, as the engine recorded it)."""
    found: dict[int, Mapping[str, Any]] = {}
    for e in events:
        if (
            e.kind in (EventKind.BATTLE, EventKind.STANDOFF)
            and e.empire == empire
            and isinstance(e.data.get("after"), dict)
        ):
            found[int(e.data["system"])] = e.data["after"]
    return found


#: What a battle's ``after`` tells of the system, in the order it replaces the row's keys.
_AfterKey = Literal["owner", "pop", "industry", "cruisers", "fighters", "colony_ships", "stance"]
_SHOWN_AFTER_ATTACK: tuple[_AfterKey, ...] = (
    "owner",
    "pop",
    "industry",
    "cruisers",
    "fighters",
    "colony_ships",
    "stance",
)


def _after_attack_row(
    adjacency: dict[int, tuple[int, ...]],
    s: System,
    known: set[int],
    reader: Empire,
    after: Mapping[str, Any],
) -> SystemRow:
    row = _system_row(adjacency, s, known, reader)
    for key in _SHOWN_AFTER_ATTACK:
        if key in after:
            row[key] = after[key]
    row["limit"] = population_limit(s, reader if row["owner"] is not None else None)
    row["after_attack"] = True
    return row


#: How a move order ended, as the map draws it.
_ARROW_KINDS: dict[str, ArrowKind] = {
    "moved": "move",
    "captured": "capture",
    "thrown": "capture",
    "repelled": "attack",
    "held_off": "attack",
    "lost": "lost",
}
_MOVING = frozenset({"MOVE", "ASSAULT", "DEEP", "MOVEF", "MOVECOL", "COLONISE"})


def turn_arrows(events: list[Event], empire: str) -> list[Arrow]:
    """This turn's moves, attacks and captures the empire may know of, for the
    map: its own successful moving orders, and attacks on its systems."""
    arrows: list[Arrow] = []
    for e in events:
        if e.kind == EventKind.ORDER and e.empire == empire:
            order = cast(OrderData, e.data)
            if not (order["ok"] and order["action"] in _MOVING):
                continue
            moving: ArrowKind | None = "move" if order["action"] in ("MOVEF", "MOVECOL") else None
            kind = _ARROW_KINDS.get(str(order.get("outcome")), moving)
            src, dst = order.get("from", order.get("where")), order.get("to")
            if kind is not None and src is not None and dst is not None:
                arrows.append({"from": src, "to": dst, "kind": kind, "by": empire})
        elif e.kind in (EventKind.BATTLE, EventKind.STANDOFF):
            fight = cast(BattleData | StandoffData, e.data)
            if fight["defender"] == empire and fight["from"] is not None:
                hit: ArrowKind = "capture" if fight.get("captured") else "attack"
                arrows.append(
                    {"from": fight["from"], "to": fight["system"], "kind": hit, "by": fight["attacker"]}
                )
    return arrows


def _order_row(e: Event, empire_code: str) -> OrderRow:
    d = cast(OrderData, e.data)
    return {
        "line": d["line"],
        "text": d["text"],
        "ok": d["ok"],
        "reason": d["reason"],
        "cost": d["cost"] + d["treasury_cost"],
        "outcome": narrate(e, empire_code),
    }


def _line_order(order: OrderRow) -> tuple[bool, int]:
    return order["line"] is None, order["line"] or 0


def _latest(events: list[Event], kind: str, empire: str) -> Mapping[str, Any]:
    for e in reversed(events):
        if e.kind == kind and e.empire == empire:
            return e.data
    return {}


def position_context(
    state: GameState,
    empire_code: str,
    *,
    game_name: str,
    deadline: dt.datetime | None = None,
    view: TurnView | None = None,
) -> ReportContext:
    """The report of an empire's position with no turn run since: the turn-0
    report (REPORT 0, the welcome mail's report) or, for an empire added
    later, the position now. The one place these are made, so the welcome,
    REPORT 0 and the acknowledgement's purses (all read from ``state``) agree."""
    return report_context(
        state, [], empire_code, game_name=game_name, turn=state.turn - 1, deadline=deadline, view=view
    )


def report_context(
    state: GameState,
    events: list[Event],
    empire_code: str,
    *,
    game_name: str,
    turn: int,
    deadline: dt.datetime | None = None,
    corrected: bool = False,
    view: TurnView | None = None,
    on_leave_until: int | None = None,
    bulletin: BulletinPointer | None = None,
) -> ReportContext:
    """Everything one empire's report shows for ``turn`` (the turn just resolved).
    ``on_leave_until``: the last turn of the empire's leave, when it is on
    leave for the next one. ``bulletin``: in a game big enough for a turn
    bulletin, what :func:`turnproc.reports.bulletin.bulletin_pointer` returns;
    the roundup then keeps only the top, the empire and those it has met,
    the public press is left to the bulletin, and ``bulletin`` points to it.

    ``state`` is the state after the turn; ``events`` are that turn's events
    (any empire's: this function keeps only those the empire may read);
    ``deadline`` the next deadline in the game's time zone (None: by hand).
    """
    view = view or TurnView.build(state, events)
    empire = state.empires[empire_code]
    # The map itself, not state.neighbours: a big report reads it for every row.
    adjacency = state.adjacency()
    owned = view.owned.get(empire_code, [])
    owned_codes = {s.code for s in owned}
    visible = visible_from(state, owned_codes, empire.tech(Tech.SCANNER)) | owned_codes
    # A set operation rather than a test per code: the same systems.
    known = state.systems.keys() & (state.seen.get(empire_code, set()) | visible)
    # What the report tells, public press aside (only the press section reads it).
    mine = view.told.get(empire_code, [])

    supply = _latest(mine, EventKind.SUPPLY, empire_code)
    in_supply = {row["system"]: row.get("in_supply", True) for row in supply.get("systems") or []}
    supply_cost = {row["system"]: row.get("cost", 0) for row in supply.get("systems") or []}
    sticky = {int(c) for c in _latest(mine, EventKind.STICKY, empire_code).get("systems") or []}

    systems: list[OwnSystemRow] = []
    for s in owned:
        own: OwnSystemRow = {
            **_system_row(adjacency, s, known, empire),
            "income": system_income(state, s),
            "supply_cost": supply_cost.get(s.code, 0),
            "in_supply": in_supply.get(s.code, True),
            "blockaded": is_blockaded(state, s),
            "sticky": s.code in sticky,
            "stance_target": s.stance_target,
            "retreat_parts": s.retreat_parts,
            "base": s.code == empire.base,
            "home": s.code == empire.home,
        }
        systems.append(own)

    # Listed in the order of the player's lines, not the order they ran in
    # (stances and BASE/HOME run before actions; rules.md §4.1).
    orders = sorted(
        (_order_row(e, empire_code) for e in mine if e.kind == EventKind.ORDER and e.empire == empire_code),
        key=_line_order,
    )
    happenings: list[Happening] = [
        {"kind": e.kind, "text": narrate(e, empire_code), "data": e.data}
        for e in mine
        if e.kind not in _NOT_HAPPENINGS
    ]
    # In a bulletin game the public press is in the bulletin, not here.
    press = [
        _press_row(e)
        for e in (mine if bulletin is not None else view.events.get(empire_code, []))
        if e.kind == EventKind.MESSAGE
    ]
    income_now = _latest(mine, EventKind.INCOME, empire_code)
    # rules.md §13.1 (ruling E8): the balance line shows the figures the economy
    # step used, so it adds up; research after it may change what the systems
    # earn, which shows as next turn's income.
    next_income = income(state, empire_code, owned)
    economy_ran = bool(income_now) and bool(supply)
    attacked = attacked_systems(mine, empire_code)
    after_attack = {c: attacked[c] for c in attacked if c not in visible and c in state.systems}
    scouting = [
        _system_row(adjacency, state.systems[c], known, empire) for c in sorted(visible - owned_codes)
    ]
    scouting += [
        _after_attack_row(adjacency, state.systems[c], known, empire, after_attack[c])
        for c in sorted(after_attack)
    ]
    scouting.sort(key=lambda row: row["code"])
    ranks = view.roundup
    rank = ranks[view.position[empire_code]]["rank"]
    if bulletin is not None:
        met = _met(view, empire_code, visible, after_attack, state)
        ranks = _short_roundup(view, met | {empire_code}, bulletin["top"])
    # The ignore: strict mypy wants every optional key named when a literal
    # unpacks another TypedDict; they are set below, where they apply.
    context: ReportBody = {
        "schema": SCHEMA_ID,
        **turn_head(  # type: ignore[typeddict-item]
            state, game_name=game_name, turn=turn, deadline=deadline, corrected=corrected
        ),
        "on_leave_until": on_leave_until,
        "empire": {
            "code": empire.code,
            "name": empire.name,
            "balance": empire.balance,
            "treasury": empire.treasury,
            "vp": empire.vp,
            "rank": rank,
            "income": int(income_now.get("total", next_income)) if economy_ran else next_income,
            "next_income": next_income,
            "economy_ran": economy_ran,
            "income_by_system": income_now.get("systems") or [],
            "bp_income": income_now.get("bp_income", bp_income(empire)),
            "supply_cost": supply.get("total", 0),
            "supply_paid": supply.get("paid", 0),
            "supply_shortfall": supply.get("shortfall", 0),
            "base": empire.base,
            "home": empire.home,
            "lost_in_space": empire.lost_in_space,
            "active": empire.active,
            "techs": {t._value_: empire.tech(t) for t in state.techs},
        },
        "orders": orders,
        "happenings": happenings,
        "systems": systems,
        "scouting": scouting,
        "map": {
            "systems": [_map_row(state.systems[c], visible, after_attack) for c in sorted(known)],
            "links": sorted(
                [a, b]
                for a in known
                for b in adjacency.get(a, ())
                if a < b and b in known and (a in visible or b in visible)
            ),
            "arrows": [a for a in turn_arrows(mine, empire_code) if a["from"] in known and a["to"] in known],
        },
        "roundup": ranks,
        "press": press,
    }
    if bulletin is not None:
        context["bulletin"] = BulletinPointer(**bulletin)
    if state.v2:
        _add_v2(context, state, mine, empire_code)
    # After the rule-set-2 keys: the form's hints read the reserve (rules.md §19.2).
    # The key added in place: a copy would cost a thousand-empire turn a
    # thousand dicts, and the form must come last in the stored JSON.
    report = cast(ReportContext, context)
    report["order_form"] = order_form(context)
    return report


def _map_row(s: System, visible: set[int], after_attack: dict[int, Mapping[str, Any]]) -> MapSystem:
    seen_now = s.code in visible
    return {
        "code": s.code,
        "row": s.row,
        "col": s.col,
        "type": s.type._value_,
        "star": s.star,
        # Owner only where the empire can see it now; a remembered
        # position says nothing about who holds it today.
        "owner": s.owner if seen_now else after_attack.get(s.code, {}).get("owner"),
        "visible": seen_now,
    }


def _met(
    view: TurnView,
    empire_code: str,
    visible: set[int],
    after_attack: dict[int, Mapping[str, Any]],
    state: GameState,
) -> set[str]:
    """The empires ``empire_code`` has met this turn (rules.md §14, ruling V3):
    named in a private event it reads, or owning a system it sees."""
    met = set(view.named.get(empire_code, ()))
    systems = state.systems
    met.update(o for o in (systems[c].owner for c in visible if c in systems) if o is not None)
    met.update(o for o in (a.get("owner") for a in after_attack.values()) if isinstance(o, str))
    met.discard(empire_code)
    return met


def _short_roundup(view: TurnView, keep: set[str], top: int) -> list[RoundupRow]:
    """The roundup of a bulletin game's report: its first ``top`` rows and the
    rows of ``keep``, in the order of the standings."""
    below = sorted(i for i in (view.position.get(c) for c in keep) if i is not None and i >= top)
    return view.roundup[:top] + [view.roundup[i] for i in below]


def _add_v2(context: ReportBody, state: GameState, mine: list[Event], empire_code: str) -> None:
    """What a rule-set-2 report adds (rules.md §19.2, rules.md §19.5); a version-1 report
    stays as it always was, key for key."""
    empire = state.empires[empire_code]
    context["ruleset"] = state.settings.ruleset
    context["empire"]["reserve"] = empire.reserve
    view = _latest(mine, EventKind.PROBE_VIEW, empire_code)
    context["probes"] = {
        "probes": view.get("probes") or [],
        "systems": view.get("systems") or [],
        "lost": [
            e.data["system"] for e in mine if e.kind == EventKind.PROBE_LOST and e.empire == empire_code
        ],
    }
