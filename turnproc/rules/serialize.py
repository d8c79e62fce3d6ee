"""A game state as plain JSON-safe data, for turn records and golden files.

The form is canonical (sorted keys, lists in code order), so two equal states
give byte-identical JSON.
"""

from __future__ import annotations

import json
from typing import Any

from .state import Empire, GameSettings, GameState, Stance, System, SystemType, Tech

__all__ = ["state_to_dict", "state_from_dict", "state_to_json"]


def state_to_dict(state: GameState) -> dict[str, Any]:
    # Every turn record holds one: for a 30,000-system game, sorting the codes
    # rather than (code, system) pairs and reading enums' ``_value_`` (the
    # plain attribute behind the ``value`` descriptor) save a third of it.
    systems = state.systems
    return {
        "turn": state.turn,
        "finished": state.finished,
        "settings": {
            "modules": sorted(state.settings.modules),
            "turn_limit": state.settings.turn_limit,
            "vp_target": state.settings.vp_target,
            "ruleset": state.settings.ruleset,
        },
        "systems": [_system(systems[code]) for code in sorted(systems)],
        "links": [list(l) for l in sorted(state.links)],
        "empires": [_empire(e, state.techs) for _, e in sorted(state.empires.items())],
        "seen": {code: sorted(codes) for code, codes in sorted(state.seen.items())},
    }


def _system(s: System) -> dict[str, Any]:
    return {
        "code": s.code,
        "type": s.type._value_,
        "row": s.row,
        "col": s.col,
        "star": s.star,
        "name": s.name,
        "owner": s.owner,
        "pop": s.pop,
        "industry": s.industry,
        "cruisers": s.cruisers,
        "fighters": s.fighters,
        "colony_ships": s.colony_ships,
        "stance": s.stance._value_,
        "stance_target": s.stance_target,
        "retreat_parts": s.retreat_parts,
        "ever_owned": s.ever_owned,
        "home_slot": s.home_slot,
    }


def _empire(e: Empire, techs: tuple[Tech, ...]) -> dict[str, Any]:
    return {
        "code": e.code,
        "name": e.name,
        "balance": e.balance,
        "treasury": e.treasury,
        "vp": e.vp,
        "techs": {t.value: e.tech(t) for t in techs},
        "base": e.base,
        "home": e.home,
        "lost_in_space": e.lost_in_space,
        "active": e.active,
        "missed_turns": e.missed_turns,
        "reserve": e.reserve,
        "active_probe": e.active_probe,
        "inactive_probes": list(e.inactive_probes),
    }


def state_from_dict(d: dict[str, Any]) -> GameState:
    settings = d["settings"]
    systems = {}
    for raw in d["systems"]:
        s = System(**{**raw, "type": SystemType(raw["type"]), "stance": Stance(raw["stance"])})
        systems[s.code] = s
    empires = {}
    for raw in d["empires"]:
        techs = {Tech(k): v for k, v in raw["techs"].items()}
        e = Empire(**{**raw, "techs": techs, "inactive_probes": tuple(raw.get("inactive_probes", ()))})
        empires[e.code] = e
    return GameState(
        turn=d["turn"],
        systems=systems,
        links=frozenset((a, b) for a, b in d["links"]),
        empires=empires,
        settings=GameSettings(
            modules=frozenset(settings["modules"]),
            turn_limit=settings["turn_limit"],
            vp_target=settings["vp_target"],
            ruleset=settings.get("ruleset", 1),
        ),
        seen={code: set(codes) for code, codes in d["seen"].items()},
        finished=d["finished"],
    )


def state_to_json(state: GameState) -> str:
    return json.dumps(state_to_dict(state), sort_keys=True, separators=(",", ":"))
