"""The game as one empire's JSON report shows it, rebuilt as a
:class:`~turnproc.rules.state.GameState`: what a player's own tools (the
offline order checker, ``turnproc check-orders``) check orders against.

This is the one place that reads a report back into rules objects. It holds
only what the report tells the empire (rules.md §14): its own systems with their
ships and links, the positions and types of every system it knows, the owners it
sees now, the empire codes of the roundup, and its own purses and techs. Other
empires' balances, techs and unseen systems are not there, and nothing the
order checks use needs them: the checks ask only what the empire owns, what it
knows, its own links, which systems are stars and which empires exist
(:mod:`turnproc.rules.checks`), and the costs ask only the empire's own
systems, purses and techs (:mod:`turnproc.rules.costs`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..rules.state import (
    Empire,
    GameSettings,
    GameState,
    Stance,
    System,
    SystemType,
    Tech,
    link_key,
    techs_of,
)

__all__ = ["ReportError", "PlayerView", "state_from_report"]


class ReportError(ValueError):
    """The JSON is not a turnproc report (or a damaged one); the message says what is wrong."""


@dataclass(frozen=True)
class PlayerView:
    """A report's game as its reader knows it."""

    game: str
    empire: str
    turn: int
    """The turn the report describes."""
    finished: bool
    deadline: str | None
    """The next deadline as the report words it, if it gives one."""
    state: GameState
    """``state.turn`` is the turn whose orders are due (the report's ``next_turn``)."""


def _get(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ReportError(
            f"{where}{key} is missing or not {'a number' if kind is int else 'a ' + kind.__name__}"
        )
    return value


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ReportError(f"{where}an entry is not an object")
    return value


def _system(row: Mapping[str, Any], where: str) -> System:
    code = _get(row, "code", int, where)
    try:
        kind = SystemType(str(row.get("type")))
    except ValueError:
        raise ReportError(f"{where}type of system {code} is {row.get('type')!r}, not a system type") from None
    star = row.get("star")
    return System(
        code=code,
        type=kind,
        row=_get(row, "row", int, where),
        col=_get(row, "col", int, where),
        star=star if isinstance(star, int) else None,
        owner=row.get("owner") if isinstance(row.get("owner"), str) else None,
        name=str(row.get("name") or ""),
    )


def _techs(raw: Any, ruleset: int) -> dict[Tech, int]:
    """The empire's levels of every tech its rule set has (13, or 16 in rule set 2)."""
    if not isinstance(raw, Mapping):
        raise ReportError("empire.techs is missing or not an object")
    techs = {}
    for tech in techs_of(ruleset):
        level = raw.get(tech.value)
        if not isinstance(level, int) or isinstance(level, bool):
            raise ReportError(f"empire.techs.{tech.value} is missing or not a number")
        techs[tech] = level
    return techs


def _deadline(data: Mapping[str, Any]) -> str | None:
    """The deadline in words: the human text beside an ISO 8601 deadline when
    the report gives one (as an object, or as a ``deadline_*`` field), else
    the ``deadline`` string itself."""
    raw = data.get("deadline")
    for key in ("deadline_text", "deadline_human", "deadline_local"):
        if isinstance(data.get(key), str):
            return str(data[key])
    if isinstance(raw, Mapping):
        for key in ("text", "human", "local"):
            if isinstance(raw.get(key), str):
                return str(raw[key])
    return raw if isinstance(raw, str) else None


#: How the ``schema`` field of a turnproc report starts: today's versioned URN,
#: and the address reports carried before schema 2 (still read back).
SCHEMA_PREFIXES = ("urn:turnproc:schema:report:", "https://turnproc.example/schemas/report-")


def _probes(empire: Empire, section: Any) -> None:
    """A rule-set-2 report's probes (rules.md §19.5): which is active, which
    wait where, oldest first as the report lists them."""
    if not isinstance(section, Mapping):
        return
    inactive: list[int] = []
    for row in _get(section, "probes", list, "probes."):
        row = _object(row, "probes.probes: ")
        system = _get(row, "system", int, "probes.probes: ")
        if row.get("state") == "active":
            empire.active_probe = system
        else:
            inactive.append(system)
    empire.inactive_probes = tuple(inactive)


def state_from_report(data: Any) -> PlayerView:
    """Rebuild the game one JSON report shows. Raises :class:`ReportError`
    (naming the field) when ``data`` is not a turnproc report."""
    if not isinstance(data, Mapping) or not str(data.get("schema", "")).startswith(SCHEMA_PREFIXES):
        raise ReportError('this is not a turnproc report (it has no "schema" field)')
    ruleset = data.get("ruleset", 1)
    if not isinstance(ruleset, int) or isinstance(ruleset, bool):
        raise ReportError(f"ruleset {ruleset!r} is not a rule-set version")
    game = _get(data, "game", str, "")
    head = _get(data, "empire", Mapping, "")
    code = _get(head, "code", str, "empire.")
    next_turn = _get(data, "next_turn", int, "")
    systems: dict[int, System] = {}
    links: set[tuple[int, int]] = set()
    the_map = _get(data, "map", Mapping, "")
    for row in _get(the_map, "systems", list, "map."):
        system = _system(_object(row, "map.systems: "), "map.systems: ")
        systems[system.code] = system
    for pair in _get(the_map, "links", list, "map."):
        if isinstance(pair, list) and len(pair) == 2 and all(isinstance(c, int) for c in pair):
            links.add(link_key(pair[0], pair[1]))
    # The systems the empire owns and sees now carry what stands in them,
    # and each its links to every system the empire knows.
    for section in ("systems", "scouting"):
        for row in _get(data, section, list, ""):
            row = _object(row, f"{section}: ")
            system = _system(row, f"{section}: ")
            if section == "systems":
                system.owner = code
            for attr in ("pop", "industry", "cruisers", "fighters", "colony_ships"):
                setattr(system, attr, _get(row, attr, int, f"{section} {system.code}: "))
            try:
                system.stance = Stance(row.get("stance", "DEFEND"))
            except ValueError:
                raise ReportError(
                    f"{section} {system.code}: stance {row.get('stance')!r} is not a stance"
                ) from None
            systems[system.code] = system
            links.update(
                link_key(system.code, n)
                for n in _get(row, "links", list, f"{section} {system.code}: ")
                if isinstance(n, int)
            )
    links = {pair for pair in links if pair[0] in systems and pair[1] in systems}
    empires = {}
    for row in sorted(
        _get(data, "roundup", list, ""), key=lambda r: str(r.get("code")) if isinstance(r, Mapping) else ""
    ):
        other = _get(_object(row, "roundup: "), "code", str, "roundup: ")
        empires[other] = Empire(code=other, name=str(row.get("name", "")), vp=int(row.get("vp") or 0))
    if code not in empires:
        raise ReportError(f"empire {code} is not in the report's roundup")
    empires[code] = Empire(
        code=code,
        name=str(head.get("name", "")),
        balance=_get(head, "balance", int, "empire."),
        treasury=_get(head, "treasury", int, "empire."),
        vp=int(head.get("vp") or 0),
        techs=_techs(head.get("techs"), ruleset),
        base=head.get("base") if isinstance(head.get("base"), int) else None,
        home=head.get("home") if isinstance(head.get("home"), int) else None,
        lost_in_space=int(head.get("lost_in_space") or 0),
        reserve=int(head.get("reserve") or 0),
    )
    _probes(empires[code], data.get("probes"))
    state = GameState(
        settings=GameSettings(ruleset=ruleset),
        turn=next_turn,
        systems=dict(sorted(systems.items())),
        links=frozenset(links),
        empires=empires,
        seen={code: set(systems)},
        finished=bool(data.get("finished")),
    )
    return PlayerView(game, code, _get(data, "turn", int, ""), state.finished, _deadline(data), state)
