"""Reading scenario TOML: every check, and the state it builds (see the
package docstring for the error format)."""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterable
from os import PathLike
from pathlib import Path
from typing import Any

from ..rules.economy import income
from ..rules.galaxy import MAX_LINKS, link_allowed, unreachable_systems
from ..rules.generate import START_TREASURY, code_range, scanner_range
from ..rules.state import (
    MODULES,
    RULESETS,
    TECH_START,
    Empire,
    GameSettings,
    GameState,
    Stance,
    System,
    SystemType,
    Tech,
    link_key,
)
from .locate import KeyPath, Locator, format_path
from .model import MAX_NAME, SYSTEM_COUNTS, Scenario, ScenarioError

__all__ = ["load_scenario", "load_scenario_file"]

_EMPIRE_CODE = re.compile(r"[A-Z]{3}")
#: The largest whole number a scenario may hold: a 32-bit database INTEGER.
MAX_INT = 2**31 - 1


def load_scenario_file(path: str | PathLike[str]) -> Scenario:
    """Read and check a scenario file; errors name the file as given."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise ScenarioError(f"{source}: cannot read the file: {exc.strerror}") from exc
    return load_scenario(text, source)


def load_scenario(text: str, source: str = "<scenario>") -> Scenario:
    """Parse and check scenario TOML text; ``source`` names it in error messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{source}: TOML syntax error: {exc}") from None
    return _Reader(text, source).scenario(data)


_TOP_KEYS = ("game", "map", "empires", "systems")
_GAME_KEYS = ("turn", "modules", "turn_limit", "vp_target", "finished", "ruleset")
_MAP_KEYS = ("links",)
_EMPIRE_KEYS = (
    "code",
    "name",
    "email",
    "balance",
    "treasury",
    "vp",
    "techs",
    "base",
    "home",
    "lost_in_space",
    "active",
    "missed_turns",
    "seen",
    "reserve",
    "active_probe",
    "inactive_probes",
)
_SYSTEM_KEYS = (
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


class _Reader:
    """Checks one parsed file and builds the state, failing at the first problem."""

    def __init__(self, text: str, source: str) -> None:
        self.source = source
        self.locator = Locator(text)

    # -- error helpers --

    def fail(self, path: KeyPath, message: str, hint: str | None = None) -> ScenarioError:
        where = self.source
        line = self.locator.line_of(path, hint)
        if line is not None:
            where += f":{line}"
        return ScenarioError(f"{where}: {format_path(path)}: {message}")

    def table(self, value: object, path: KeyPath, keys: Iterable[str] | None) -> dict[str, Any]:
        """``value`` as a table whose keys are all in ``keys`` (None: any key)."""
        if not isinstance(value, dict):
            raise self.fail(path, f"should be a table, not {_kind(value)}")
        if keys is None:
            return value
        allowed = list(keys)
        for key in value:
            if key in allowed:
                continue
            close = difflib.get_close_matches(key, allowed, n=1)
            if key == "links" and path != ("map",):
                # TOML puts a key after [[systems]] into that system: a common slip.
                tip = "; links go in the [map] table: [map] then links = [[100, 101], ...]"
            elif close:
                tip = f"; did you mean {close[0]!r}?"
            else:
                tip = f" (allowed: {', '.join(allowed)})"
            raise self.fail(path + (key,), f"unknown key{tip}")
        return value

    def required(self, tbl: dict[str, Any], key: str, path: KeyPath) -> Any:
        if key not in tbl:
            raise self.fail(path, f"missing key {key!r}")
        return tbl[key]

    def int_(self, value: object, path: KeyPath, minimum: int | None = None) -> int:
        # bool is an int in Python but never a number in a scenario.
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"should be a whole number, not {_kind(value)}")
        if minimum is not None and value < minimum:
            raise self.fail(path, f"{value} is below the minimum {minimum}")
        # TOML allows any size; the database's columns and the rules' arithmetic
        # do not (a huge number used to end in an OverflowError traceback).
        if not -MAX_INT <= value <= MAX_INT:
            raise self.fail(path, f"{value} is too large (at most {MAX_INT} either way)")
        return value

    def str_(self, value: object, path: KeyPath) -> str:
        if not isinstance(value, str):
            raise self.fail(path, f"should be a string, not {_kind(value)}")
        return value

    def bool_(self, value: object, path: KeyPath) -> bool:
        if not isinstance(value, bool):
            raise self.fail(path, f"should be true or false, not {_kind(value)}")
        return value

    def list_(self, value: object, path: KeyPath) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(path, f"should be an array, not {_kind(value)}")
        return value

    def code_(self, value: object, path: KeyPath, systems: dict[int, System]) -> int:
        code = self.int_(value, path)
        if code not in systems:
            raise self.fail(path, f"{code} is not a system of this scenario")
        return code

    # -- sections --

    def scenario(self, data: dict[str, Any]) -> Scenario:
        self.table(data, (), _TOP_KEYS)
        turn, settings, finished = self.game(data.get("game", {}))
        raw_empires = self.list_(data.get("empires", []), ("empires",))
        raw_systems = self.list_(data.get("systems", []), ("systems",))
        if not raw_systems:
            raise self.fail(("systems",), "a scenario needs at least one [[systems]] entry")

        empires: dict[str, Empire] = {}
        emails: dict[str, str] = {}
        entries: list[dict[str, Any]] = []
        for i, raw in enumerate(raw_empires):
            path: KeyPath = ("empires", i)
            tbl = self.table(raw, path, _EMPIRE_KEYS)
            empire = self.empire(tbl, path)
            if empire.code in empires:
                raise self.fail(path + ("code",), f"empire {empire.code} is declared twice")
            empires[empire.code] = empire
            if "email" in tbl:
                emails[empire.code] = self.email(tbl["email"], path + ("email",))
            entries.append(tbl)

        systems = self.systems(raw_systems, empires)
        state = GameState(
            turn=turn,
            systems=systems,
            links=self.links(data.get("map", {}), systems),
            empires=empires,
            settings=settings,
            finished=finished,
        )
        for i, (tbl, empire) in enumerate(zip(entries, empires.values(), strict=True)):
            self.empire_places(tbl, ("empires", i), empire, state)
        return Scenario(state=state, emails=emails)

    def game(self, raw: object) -> tuple[int, GameSettings, bool]:
        path: KeyPath = ("game",)
        tbl = self.table(raw, path, _GAME_KEYS)
        default = GameSettings()
        turn = self.int_(tbl.get("turn", 1), path + ("turn",), 1)
        modules: set[str] = set()
        raw_modules = self.list_(tbl.get("modules", sorted(default.modules)), path + ("modules",))
        for j, m in enumerate(raw_modules):
            name = self.str_(m, path + ("modules", j)).lower()
            if name not in MODULES:
                raise self.fail(
                    path + ("modules", j),
                    f"{m!r} is not a rule module ({', '.join(sorted(MODULES))})",
                )
            modules.add(name)
        settings = GameSettings(
            modules=frozenset(modules),
            turn_limit=self.int_(tbl.get("turn_limit", default.turn_limit), path + ("turn_limit",), 1),
            vp_target=self.int_(tbl.get("vp_target", default.vp_target), path + ("vp_target",), 1),
            # A file without ``ruleset`` is rule set 1: files from before version 2.
            ruleset=self._ruleset(tbl.get("ruleset", default.ruleset), path + ("ruleset",)),
        )
        finished = self.bool_(tbl.get("finished", False), path + ("finished",))
        return turn, settings, finished

    def _ruleset(self, value: object, path: KeyPath) -> int:
        version = self.int_(value, path, 1)
        if version not in RULESETS:
            raise self.fail(path, f"{version} is not a rule set ({', '.join(map(str, RULESETS))})")
        return version

    def email(self, value: object, path: KeyPath) -> str:
        email = self.str_(value, path).strip()
        if not re.fullmatch(r"[^@\s]+@[^@\s]+", email):
            raise self.fail(path, f"{email!r} is not an e-mail address")
        return email

    def empire(self, tbl: dict[str, Any], path: KeyPath) -> Empire:
        code = self.str_(self.required(tbl, "code", path), path + ("code",))
        if not _EMPIRE_CODE.fullmatch(code):
            raise self.fail(path + ("code",), f"{code!r} is not 3 capital letters A–Z")
        name = self.str_(self.required(tbl, "name", path), path + ("name",))
        if not name.strip():
            raise self.fail(path + ("name",), "the empire needs a name")
        techs = dict(TECH_START)
        tech_path = path + ("techs",)
        given: dict[Tech, str] = {}
        for key, level in self.table(tbl.get("techs", {}), tech_path, None).items():
            try:
                tech = Tech.from_name(key)
            except ValueError:
                names = [t.value.lower() for t in Tech]
                close = difflib.get_close_matches(key.lower(), names, n=1)
                tip = f"; did you mean {close[0]!r}?" if close else f" ({', '.join(names)})"
                raise self.fail(tech_path + (key,), f"not a tech{tip}") from None
            if tech in given:
                raise self.fail(
                    tech_path + (key,), f"{tech.value.lower()} is already given as {given[tech]!r}"
                )
            given[tech] = key
            techs[tech] = self.int_(level, tech_path + (key,), 0)
        return Empire(
            code=code,
            name=name,
            balance=0,  # set in empire_places once the systems are known
            treasury=self.int_(tbl.get("treasury", START_TREASURY), path + ("treasury",), 0),
            vp=self.int_(tbl.get("vp", 0), path + ("vp",)),
            techs=techs,
            lost_in_space=self.int_(tbl.get("lost_in_space", 0), path + ("lost_in_space",), 0),
            reserve=self.int_(tbl.get("reserve", 0), path + ("reserve",), 0),
            active=self.bool_(tbl.get("active", True), path + ("active",)),
            missed_turns=self.int_(tbl.get("missed_turns", 0), path + ("missed_turns",), 0),
        )

    def empire_places(self, tbl: dict[str, Any], path: KeyPath, empire: Empire, state: GameState) -> None:
        """The empire's keys that refer to systems, read once the map is built."""
        for key in ("base", "home"):
            if key in tbl:
                code = self.code_(tbl[key], path + (key,), state.systems)
                if state.systems[code].owner != empire.code:
                    raise self.fail(path + (key,), f"system {code} is not owned by {empire.code}")
                setattr(empire, key, code)
        if "active_probe" in tbl:
            empire.active_probe = self.code_(tbl["active_probe"], path + ("active_probe",), state.systems)
        if "inactive_probes" in tbl:
            probes_path = path + ("inactive_probes",)
            raw_probes = self.list_(tbl["inactive_probes"], probes_path)
            empire.inactive_probes = tuple(
                self.code_(c, probes_path + (j,), state.systems) for j, c in enumerate(raw_probes)
            )
        if "balance" in tbl:
            empire.balance = self.int_(tbl["balance"], path + ("balance",), 0)
        else:
            empire.balance = income(state, empire.code)
        if "seen" in tbl:
            seen_path = path + ("seen",)
            raw = self.list_(tbl["seen"], seen_path)
            state.seen[empire.code] = {
                self.code_(c, seen_path + (j,), state.systems) for j, c in enumerate(raw)
            }
        else:
            state.seen[empire.code] = scanner_range(state, empire.code)

    def systems(self, raw_systems: list[Any], empires: dict[str, Empire]) -> dict[int, System]:
        systems: dict[int, System] = {}
        index: dict[int, int] = {}  # code → position in the file, for messages
        tables: list[dict[str, Any]] = []
        for i, raw in enumerate(raw_systems):
            path: KeyPath = ("systems", i)
            tbl = self.table(raw, path, _SYSTEM_KEYS)
            tables.append(tbl)
            code = self.int_(self.required(tbl, "code", path), path + ("code",))
            if code in systems:
                raise self.fail(
                    path + ("code",), f"system {code} is already declared as systems[{index[code]}]"
                )
            type_text = self.str_(self.required(tbl, "type", path), path + ("type",))
            try:
                stype = SystemType(type_text.upper())
            except ValueError:
                raise self.fail(
                    path + ("type",),
                    f"{type_text!r} is not a system type ({', '.join(t.value for t in SystemType)})",
                ) from None
            stance_text = self.str_(tbl.get("stance", "DEFEND"), path + ("stance",))
            try:
                stance = Stance(stance_text.upper())
            except ValueError:
                raise self.fail(
                    path + ("stance",),
                    f"{stance_text!r} is not a stance ({', '.join(s.value for s in Stance)})",
                ) from None
            owner: str | None = None
            if "owner" in tbl:
                owner = self.str_(tbl["owner"], path + ("owner",))
                if owner not in empires:
                    known = ", ".join(sorted(empires)) or "none"
                    raise self.fail(
                        path + ("owner",), f"{owner!r} is not a declared empire (empires: {known})"
                    )
            name = self.str_(tbl.get("name", ""), path + ("name",))
            if len(name) > MAX_NAME:
                raise self.fail(
                    path + ("name",),
                    f"names are at most {MAX_NAME} characters, this has {len(name)}",
                )
            system = System(
                code=code,
                type=stype,
                row=0,
                col=0,
                name=name,
                owner=owner,
                stance=stance,
                retreat_parts=self.int_(tbl.get("retreat_parts", 1), path + ("retreat_parts",), 1),
                ever_owned=self.bool_(tbl.get("ever_owned", owner is not None), path + ("ever_owned",)),
                home_slot=self.bool_(tbl.get("home_slot", False), path + ("home_slot",)),
            )
            if system.retreat_parts > 3:
                raise self.fail(path + ("retreat_parts",), f"{system.retreat_parts} is above the maximum 3")
            for key in SYSTEM_COUNTS:
                setattr(system, key, self.int_(tbl.get(key, 0), path + (key,), 0))
            ships = [k for k in ("cruisers", "fighters", "colony_ships") if getattr(system, k)]
            if owner is None and ships:
                raise self.fail(
                    path + (ships[0],),
                    f"system {code} has ships but no owner (ships stand only in their empire's systems)",
                )
            if owner is None and system.pop:
                # rules.md §2.5: unowned systems start empty; the database
                # refuses an unowned system with population, so say it here.
                raise self.fail(
                    path + ("pop",),
                    f"system {code} has population but no owner (unowned systems are empty; "
                    "give it an owner)",
                )
            if system.home_slot and not stype.is_star:
                raise self.fail(path + ("home_slot",), f"only a star can be a home slot, not a {stype}")
            systems[code] = system
            index[code] = i

        # Second pass: code widths and the stars' squares; third: what refers
        # to other systems (a planet may come before its star in the file).
        allowed = code_range(len(systems))
        squares: dict[tuple[int, int], int] = {}
        for i, tbl in enumerate(tables):
            path = ("systems", i)
            system = systems[tbl["code"]]
            if system.code not in allowed:
                raise self.fail(
                    path + ("code",),
                    f"a scenario of {len(systems)} systems uses codes "
                    f"{allowed.start}–{allowed.stop - 1}, not {system.code}",
                )
            if system.is_star:
                if "star" in tbl:
                    raise self.fail(
                        path + ("star",), f"a {system.type} is a star and belongs to no other star"
                    )
                system.row = self.int_(self.required(tbl, "row", path), path + ("row",))
                system.col = self.int_(self.required(tbl, "col", path), path + ("col",))
                square = (system.row, system.col)
                if square in squares:
                    other = squares[square]
                    raise self.fail(
                        path + ("row",),
                        f"star {system.code} is on square {square}, already taken by star "
                        f"{other} (systems[{index[other]}])",
                    )
                squares[square] = system.code
        for i, tbl in enumerate(tables):
            path = ("systems", i)
            system = systems[tbl["code"]]
            if not system.is_star:
                star = self.code_(self.required(tbl, "star", path), path + ("star",), systems)
                host = systems[star]
                if not host.is_star:
                    raise self.fail(path + ("star",), f"{star} is a {host.type}, not a star")
                system.star = star
                system.row, system.col = host.row, host.col
                for key in ("row", "col"):
                    if key in tbl and self.int_(tbl[key], path + (key,)) != getattr(host, key):
                        raise self.fail(
                            path + (key,),
                            f"a {system.type} takes its star's square; star {star} has {key} "
                            f"{getattr(host, key)}",
                        )
            if "stance_target" in tbl:
                system.stance_target = self.code_(tbl["stance_target"], path + ("stance_target",), systems)
        return systems

    def links(self, raw: object, systems: dict[int, System]) -> frozenset[tuple[int, int]]:
        path: KeyPath = ("map",)
        tbl = self.table(raw, path, _MAP_KEYS)
        lpath = path + ("links",)
        links: dict[tuple[int, int], int] = {}
        for j, pair in enumerate(self.list_(tbl.get("links", []), lpath)):
            here = lpath + (j,)
            hint = None
            if isinstance(pair, list) and len(pair) == 2:
                hint = r"\[\s*{}\s*,\s*{}\s*\]".format(*(re.escape(str(x)) for x in pair))
            if not isinstance(pair, list) or len(pair) != 2:
                raise self.fail(here, f"a link is a pair of system codes like [100, 101], not {pair!r}", hint)
            a = self._link_end(pair[0], here, systems, hint)
            b = self._link_end(pair[1], here, systems, hint)
            if not link_allowed(systems[a], systems[b]):
                raise self.fail(here, _why_not_linked(systems[a], systems[b]), hint)
            key = link_key(a, b)
            if key in links:
                raise self.fail(here, f"link {a}–{b} is already given as map.links[{links[key]}]", hint)
            links[key] = j
        counts: dict[int, int] = {}
        for a, b in links:
            counts[a] = counts.get(a, 0) + 1
            counts[b] = counts.get(b, 0) + 1
        for code, n in sorted(counts.items()):
            if n > MAX_LINKS:
                raise self.fail(
                    lpath,
                    f"star {code} has {n} links; at most {MAX_LINKS}, counting its planets and belts",
                )
        state = GameState(turn=1, systems=systems, links=frozenset(links), empires={})
        lost = unreachable_systems(state)
        if lost:
            shown = ", ".join(str(c) for c in lost[:10]) + (" …" if len(lost) > 10 else "")
            raise self.fail(lpath, f"not every system is reachable by links from {min(systems)}: {shown}")
        return state.links

    def _link_end(self, value: object, path: KeyPath, systems: dict[int, System], hint: str | None) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"a link joins two system codes, not {_kind(value)}", hint)
        if value not in systems:
            raise self.fail(path, f"{value} is not a system of this scenario", hint)
        return value


def _why_not_linked(a: System, b: System) -> str:
    if a.code == b.code:
        return f"a link cannot join {a.code} to itself"
    if not a.is_star and not b.is_star:
        return f"{a.type} {a.code} and {b.type} {b.code} cannot be linked: never planet to planet"
    sat, star = (a, b) if not a.is_star else (b, a)
    return (
        f"{sat.type} {sat.code} belongs to star {sat.star} and can only be linked to it, not to {star.code}"
    )


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"the number {value}"
    if isinstance(value, float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__
