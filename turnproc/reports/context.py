"""Report contexts: pure functions from (state, events, empire) to a dict that
the templates render and the JSON report serialises.

Only what the empire may see (RULES.md §9) goes into a context; templates never
reach into the state themselves, so fog of war is enforced here, in one place.
"""

from __future__ import annotations

from typing import Any

from ..rules.economy import income, is_blockaded, system_income
from ..rules.events import Event
from ..rules.galaxy import population_limit
from ..rules.state import GameState, System, Tech
from ..rules.visibility import visible_systems
from .narrative import describe

__all__ = ["report_context", "roundup", "order_form"]


def roundup(state: GameState) -> list[dict[str, Any]]:
    """Every empire's code, name, VP and rank (public, §9). Ties share a rank."""
    ordered = sorted(state.empires.values(), key=lambda e: (-e.vp, e.code))
    rows: list[dict[str, Any]] = []
    rank = 0
    last_vp: int | None = None
    for i, e in enumerate(ordered, start=1):
        if e.vp != last_vp:
            rank, last_vp = i, e.vp
        rows.append({"code": e.code, "name": e.name, "vp": e.vp, "rank": rank, "active": e.active})
    return rows


def _system_row(state: GameState, s: System, own: bool, known: set[int]) -> dict[str, Any]:
    owner = state.empires.get(s.owner) if s.owner else None
    row: dict[str, Any] = {
        "code": s.code,
        "name": s.name,
        "type": s.type.value,
        "star": s.star,
        "row": s.row,
        "col": s.col,
        "owner": s.owner,
        "pop": s.pop,
        "limit": population_limit(s, owner),
        "industry": s.industry,
        "cruisers": s.cruisers,
        "fighters": s.fighters,
        "colony_ships": s.colony_ships,
        "stance": s.stance.value,
        # Only links to systems the empire knows: a link to an unseen system
        # would reveal that it exists.
        "links": [n for n in state.neighbours(s.code) if n in known],
    }
    if own:
        row["stance_target"] = s.stance_target
        row["income"] = system_income(state, s)
        row["blockaded"] = is_blockaded(state, s)
    return row


def order_form(game: str, empire: str, turn: int) -> str:
    return f"GAME {game}\nEMPIRE {empire} <password>\nTURN {turn}\n\nEND\n"


def _visible_to(event: Event, empire: str) -> bool:
    if event.empire == empire:
        return True
    involved = event.data.get("empires")
    if isinstance(involved, list) and empire in involved:
        return True
    if event.kind == "message":
        return event.data.get("to") in (None, "ALL", empire)
    return event.kind in ("game_over",)


def report_context(
    state: GameState,
    events: list[Event],
    empire_code: str,
    *,
    game_name: str,
    turn: int,
    deadline: str | None = None,
) -> dict[str, Any]:
    """Everything one empire's report shows for ``turn`` (the turn just resolved).

    ``state`` is the state after the turn; ``events`` are that turn's events.
    """
    empire = state.empires[empire_code]
    owned = state.owned_by(empire_code)
    owned_codes = {s.code for s in owned}
    visible = visible_systems(state, empire_code)
    mine = [e for e in events if _visible_to(e, empire_code)]
    orders = [
        {
            "line": e.data.get("line"),
            "text": e.data.get("text", ""),
            "ok": bool(e.data.get("ok")),
            "reason": e.data.get("reason"),
            "cost": e.data.get("cost", 0),
            "outcome": describe(e, empire_code),
        }
        for e in mine
        if e.kind == "order" and e.empire == empire_code
    ]
    happenings = [describe(e, empire_code) for e in mine if e.kind not in ("order", "message")]
    press = [
        {
            "from": e.empire,
            "to": e.data.get("to") or "ALL",
            "private": (e.data.get("to") or "ALL") != "ALL",
            "text": e.data.get("text", ""),
        }
        for e in mine
        if e.kind == "message"
    ]
    known_set = {c for c in state.seen.get(empire_code, set()) | owned_codes | visible if c in state.systems}
    known = sorted(known_set)
    return {
        "game": game_name,
        "turn": turn,
        "next_turn": state.turn,
        "deadline": deadline,
        "finished": state.finished,
        "empire": {
            "code": empire.code,
            "name": empire.name,
            "balance": empire.balance,
            "treasury": empire.treasury,
            "vp": empire.vp,
            "income": income(state, empire_code),
            "base": empire.base,
            "home": empire.home,
            "lost_in_space": empire.lost_in_space,
            "techs": {t.value: empire.tech(t) for t in Tech},
        },
        "orders": orders,
        "happenings": [h for h in happenings if h],
        "systems": [_system_row(state, s, own=True, known=known_set) for s in owned],
        "scouting": [
            _system_row(state, state.systems[c], own=False, known=known_set)
            for c in sorted(visible - owned_codes)
        ],
        "map": [
            {"code": c, "row": state.systems[c].row, "col": state.systems[c].col, "type": state.systems[c].type.value}
            for c in known
        ],
        "roundup": roundup(state),
        "press": press,
        "order_form": order_form(game_name, empire_code, state.turn),
    }
