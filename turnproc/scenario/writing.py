"""Writing scenario TOML: a small emitter that lays the file out the way a
person would write it (``[[systems]]`` blocks, several links to a line), so a
dumped game is also a readable starting point for a new one."""

from __future__ import annotations

from collections.abc import Iterable

from ..rules.state import System, SystemType
from .model import SYSTEM_COUNTS, Scenario

__all__ = ["dump_scenario"]


def dump_scenario(scenario: Scenario) -> str:
    """The scenario as TOML that :func:`load_scenario` reads back to an equal state.

    System keys equal to their defaults are left out; empire keys are all written.
    """
    state = scenario.state
    out: list[str] = [
        "# Star Chase scenario for turnproc; the format is described in docs/scenarios.md.",
        "",
        "[game]",
        f"turn = {state.turn}",
        f"modules = {_array(sorted(state.settings.modules))}",
        f"turn_limit = {state.settings.turn_limit}",
        f"vp_target = {state.settings.vp_target}",
        f"finished = {_value(state.finished)}",
        f"ruleset = {state.settings.ruleset}",
    ]
    for ecode, empire in sorted(state.empires.items()):
        out += ["", "[[empires]]", f"code = {_value(ecode)}", f"name = {_value(empire.name)}"]
        if ecode in scenario.emails:
            out.append(f"email = {_value(scenario.emails[ecode])}")
        for key in (
            "balance",
            "treasury",
            "vp",
            "base",
            "home",
            "lost_in_space",
            "active",
            "missed_turns",
            "reserve",
            "active_probe",
        ):
            value = getattr(empire, key)
            if value is not None:
                out.append(f"{key} = {_value(value)}")
        if empire.inactive_probes:
            out.append(f"inactive_probes = {_array(list(empire.inactive_probes))}")
        out += _wrapped("seen", sorted(state.seen.get(ecode, ())), 12)
        out += ["", "[empires.techs]"]
        out += [f"{tech.value.lower()} = {empire.tech(tech)}" for tech in state.techs]
    defaults = System(code=0, type=SystemType.YD, row=0, col=0)
    for code, s in sorted(state.systems.items()):
        out += ["", "[[systems]]", f"code = {code}", f"type = {_value(s.type.value)}"]
        host = state.systems.get(s.star) if s.star is not None else None
        if s.star is not None:
            out.append(f"star = {s.star}")
        if host is None or (host.row, host.col) != (s.row, s.col):
            out += [f"row = {s.row}", f"col = {s.col}"]
        for key in (
            "name",
            "owner",
            *SYSTEM_COUNTS,
            "stance",
            "stance_target",
            "retreat_parts",
            "home_slot",
        ):
            value = getattr(s, key)
            if value != getattr(defaults, key):
                out.append(f"{key} = {_value(value)}")
        # ever_owned defaults to "has an owner" when read back.
        if s.ever_owned != (s.owner is not None):
            out.append(f"ever_owned = {_value(s.ever_owned)}")
    out += ["", "[map]"]
    pairs = [f"[{a}, {b}]" for a, b in sorted(state.links)]
    out.append("links = [")
    for k in range(0, len(pairs), 8):
        out.append("  " + ", ".join(pairs[k : k + 8]) + ",")
    out.append("]")
    return "\n".join(out) + "\n"


def _wrapped(key: str, values: list[int], per_line: int) -> list[str]:
    if len(values) <= per_line:
        return [f"{key} = {_array(values)}"]
    lines = [f"{key} = ["]
    for k in range(0, len(values), per_line):
        lines.append("  " + ", ".join(str(v) for v in values[k : k + per_line]) + ",")
    lines.append("]")
    return lines


def _array(values: Iterable[object]) -> str:
    return "[" + ", ".join(_value(v) for v in values) + "]"


_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _escape_char(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    if ord(ch) < 0x20 or ord(ch) == 0x7F:
        return f"\\u{ord(ch):04x}"
    return ch


def _value(value: object) -> str:
    """One TOML value: basic string (escaped), integer or boolean."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + "".join(_escape_char(ch) for ch in value) + '"'
    raise TypeError(f"no TOML form for {type(value).__name__}")
