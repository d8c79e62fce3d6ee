"""A game state as plain JSON-safe data, for turn records and golden files.

The form is canonical (sorted keys, lists in code order), so two equal states
give byte-identical JSON. A turn record keeps the systems more compactly
(:func:`state_to_record`): the same values, one list per system under one
list of field names; :func:`state_from_dict` reads both forms.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypedDict, cast

from .state import Empire, GameSettings, GameState, Stance, System, SystemType, Tech

__all__ = [
    "state_to_dict",
    "state_to_record",
    "state_from_dict",
    "state_to_json",
    "SYSTEM_FIELDS",
    "SettingsDict",
    "SystemDict",
    "SystemRows",
    "EmpireDict",
    "StateDict",
]

#: A system's keys in :func:`state_to_dict`, and the order of the values in
#: each row of :func:`state_to_record`.
SYSTEM_FIELDS = (
    "code",
    "type",
    "row",
    "col",
    "star",
    "name",
    "owner",
    "pop",
    "industry",
    "cruisers",
    "fighters",
    "colony_ships",
    "stance",
    "stance_target",
    "retreat_parts",
    "ever_owned",
    "home_slot",
)


class SettingsDict(TypedDict):
    modules: list[str]
    turn_limit: int
    vp_target: int
    ruleset: int


class SystemDict(TypedDict):
    """A system, its keys :data:`SYSTEM_FIELDS`."""

    code: int
    type: str
    row: int
    col: int
    star: int | None
    name: str
    owner: str | None
    pop: int
    industry: int
    cruisers: int
    fighters: int
    colony_ships: int
    stance: str
    stance_target: int | None
    retreat_parts: int
    ever_owned: bool
    home_slot: bool


class SystemRows(TypedDict):
    """A turn record's systems: :data:`SYSTEM_FIELDS`, and a row of values per system."""

    fields: list[str]
    rows: list[list[Any]]


class EmpireDict(TypedDict):
    code: str
    name: str
    balance: int
    treasury: int
    vp: int
    techs: dict[str, int]
    base: int | None
    home: int | None
    lost_in_space: int
    active: bool
    missed_turns: int
    reserve: int
    active_probe: int | None
    inactive_probes: list[int]


class StateDict(TypedDict):
    turn: int
    finished: bool
    settings: SettingsDict
    systems: list[SystemDict] | SystemRows
    links: list[list[int]]
    empires: list[EmpireDict]
    seen: dict[str, list[int]]


def state_to_dict(state: GameState) -> StateDict:
    systems = state.systems
    return _with_systems(state, [_system(systems[code]) for code in sorted(systems)])


def state_to_record(state: GameState) -> StateDict:
    """What :func:`state_to_dict` says, as a turn record keeps it: ``systems``
    is ``{"fields": SYSTEM_FIELDS, "rows": [[values in that order], ...]}``.
    Every turn stores the whole state before it; in a 30,000-system game the
    keys repeated in every system were two thirds of its bytes, and most of
    the time spent writing it."""
    systems = state.systems
    rows = [_system_values(systems[code]) for code in sorted(systems)]
    return _with_systems(state, {"fields": list(SYSTEM_FIELDS), "rows": rows})


def _with_systems(state: GameState, systems: list[SystemDict] | SystemRows) -> StateDict:
    return {
        "turn": state.turn,
        "finished": state.finished,
        "settings": {
            "modules": sorted(state.settings.modules),
            "turn_limit": state.settings.turn_limit,
            "vp_target": state.settings.vp_target,
            "ruleset": state.settings.ruleset,
        },
        "systems": systems,
        "links": [list(link) for link in sorted(state.links)],
        "empires": [_empire(e, state.techs) for _, e in sorted(state.empires.items())],
        "seen": {code: sorted(codes) for code, codes in sorted(state.seen.items())},
    }


def _system(s: System) -> SystemDict:
    # SYSTEM_FIELDS are SystemDict's keys (tests/rules/test_event_data.py holds them so).
    return cast(SystemDict, dict(zip(SYSTEM_FIELDS, _system_values(s), strict=True)))


def _system_values(s: System) -> list[Any]:
    """The values of :data:`SYSTEM_FIELDS`, in that order (enums as their
    ``_value_``, the plain attribute behind the ``value`` descriptor)."""
    return [
        s.code,
        s.type._value_,
        s.row,
        s.col,
        s.star,
        s.name,
        s.owner,
        s.pop,
        s.industry,
        s.cruisers,
        s.fighters,
        s.colony_ships,
        s.stance._value_,
        s.stance_target,
        s.retreat_parts,
        s.ever_owned,
        s.home_slot,
    ]


def _empire(e: Empire, techs: tuple[Tech, ...]) -> EmpireDict:
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


def state_from_dict(d: Mapping[str, Any]) -> GameState:
    """The state :func:`state_to_dict` or :func:`state_to_record` gave ``d`` for (JSON read back)."""
    settings = d["settings"]
    systems = {}
    stored = d["systems"]
    if isinstance(stored, dict):  # a turn record's rows (state_to_record)
        fields = stored["fields"]
        stored = [dict(zip(fields, row, strict=True)) for row in stored["rows"]]
    for raw in stored:
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
