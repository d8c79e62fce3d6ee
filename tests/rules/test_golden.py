"""Golden turns: a scenario and a turn of orders in, the turn's events and the
state changes out, compared with a checked-in text file.

Each case is a folder in ``tests/rules/golden/``:

``scenario.toml``
    The state before the turn (``docs/scenarios.md``).
``orders.txt``
    Each empire's orders under a ``[CODE]`` header line, written as a player
    would and read by the one parser (``parse_orders``, with the state), so a
    golden turn also pins down what the parser makes of them. ``#`` lines are
    comments. A parser error fails the test: every line must reach the engine;
    but a line the checks refuse because the report shows it must fail
    (rules.md §17.1) reaches it all the same, and the engine must fail it for
    the reason the checks gave.
``expected.txt``
    What :func:`render_case` writes: parser warnings, one line per event
    (kind, actor, then the data as sorted ``key=value`` pairs, nested dicts
    flattened with dots), and the state changes against the scenario (one
    line per changed system, empire or seen map; ``old -> new``).

The turn's dice come from ``turn_rng("golden", turn)``. After a deliberate
rules change, regenerate with ``pytest tests/rules/test_golden.py
--update-golden`` and read the diff against docs/rules.md before committing it: a
golden file that enshrines a bug is worse than none.
"""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from turnproc.orders.orders import Order, Severity
from turnproc.orders.parser import parse_orders
from turnproc.orders.problems import FORESEEN
from turnproc.rules.events import Event
from turnproc.rules.serialize import state_to_dict
from turnproc.rules.state import GameState
from turnproc.rules.turn import resolve, turn_rng
from turnproc.scenario import load_scenario_file

GOLDEN = Path(__file__).parent / "golden"
SEED = "golden"
CASES = sorted(p for p in GOLDEN.iterdir() if (p / "scenario.toml").exists())

_SECTION = re.compile(r"^\[([A-Z]{3})\]\s*$")
_BARE = re.compile(r"^[A-Za-z0-9_.:+/-]+$")


# -- reading a case ---------------------------------------------------------------------------


def read_orders(text: str, source: str) -> dict[str, str]:
    """``[CODE]`` sections → each empire's order text (lines before the first
    header may only be blank or comments)."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for n, line in enumerate(text.splitlines(), 1):
        m = _SECTION.match(line)
        if m:
            if m.group(1) in sections:
                raise ValueError(f"{source}:{n}: a second [{m.group(1)}] section")
            current = sections[m.group(1)] = []
        elif current is not None:
            current.append(line)
        elif line.strip() and not line.lstrip().startswith("#"):
            raise ValueError(f"{source}:{n}: an order before the first [CODE] header")
    return {code: "\n".join(lines) for code, lines in sections.items()}


def parse_case(case: Path, state: GameState) -> tuple[dict[str, list[Order]], list[str]]:
    """The orders of every empire, and one line per parser warning."""
    orders, warnings, _ = parse_case_foreseen(case, state)
    return orders, warnings


def parse_case_foreseen(
    case: Path, state: GameState
) -> tuple[dict[str, list[Order]], list[str], dict[tuple[str, int], str]]:
    """:func:`parse_case`, and the lines the checks refuse because the report
    shows they must fail (rules.md §17.1), by (empire, line): their problem
    codes. Those lines still reach the engine, which must fail each of them
    for that very reason (:func:`render_case` asserts it)."""
    texts = read_orders((case / "orders.txt").read_text(encoding="utf-8"), str(case / "orders.txt"))
    orders: dict[str, list[Order]] = {}
    warnings: list[str] = []
    errors: list[str] = []
    foreseen: dict[tuple[str, int], str] = {}
    for code, text in sorted(texts.items()):
        parsed = parse_orders(text, state, code)
        orders[code] = parsed.orders
        refused = {p.line: p.code for p in parsed.problems if p.code in FORESEEN}
        for p in parsed.problems:
            if p.line in refused:
                continue
            line = f"{code} line {p.line}: [{p.code}] {p.message}"
            (errors if p.severity is Severity.ERROR else warnings).append(line)
        if refused:
            kept = {o.line for o in parsed.orders} | set(refused)
            orders[code] = [o for o in parse_orders(text).orders if o.line in kept]
            foreseen.update({(code, line): problem for line, problem in refused.items()})
    if errors:
        raise AssertionError(f"{case.name}/orders.txt has parser errors:\n" + "\n".join(errors))
    return orders, warnings, foreseen


# -- writing the expected text ----------------------------------------------------------------


def fmt_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        plain = _BARE.match(value) and value not in ("null", "true", "false")
        if plain and not re.fullmatch(r"-?\d+", value):
            return value
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(fmt_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + " ".join(fmt_pairs(value)) + "}"
    raise TypeError(f"no golden form for {type(value).__name__}")


def fmt_pairs(data: dict[str, Any], prefix: str = "") -> list[str]:
    """Sorted ``key=value`` pairs; nested dicts become dotted keys."""
    out: list[str] = []
    for key in sorted(data):
        value = data[key]
        if isinstance(value, dict) and value:
            out += fmt_pairs(value, f"{prefix}{key}.")
        else:
            out.append(f"{prefix}{key}={fmt_value(value)}")
    return out


def event_line(event: Event) -> str:
    return " ".join([event.kind, event.empire or "-", *fmt_pairs(event.data)])


def _changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    out = []
    for key in new:  # the serializer's field order reads better than sorted
        if key in ("code", "techs"):
            continue
        if old.get(key) != new[key]:
            out.append(f"{key} {fmt_value(old.get(key))} -> {fmt_value(new[key])}")
    for tech, level in new.get("techs", {}).items():
        before = old.get("techs", {}).get(tech)
        if before != level:
            out.append(f"{tech} {fmt_value(before)} -> {level}")
    return out


def state_changes(before: GameState, after: GameState) -> list[str]:
    """One line per changed game field, system, empire and seen map."""
    old, new = state_to_dict(before), state_to_dict(after)
    lines = []
    for key in ("turn", "finished", "settings", "links"):
        if old[key] != new[key]:
            lines.append(f"game {key} {fmt_value(old[key])} -> {fmt_value(new[key])}")
    for kind in ("empires", "systems"):
        olds = {row["code"]: row for row in old[kind]}
        for row in new[kind]:
            changed = _changes(olds.get(row["code"], {}), row)
            if changed:
                lines.append(f"{kind[:-1]} {row['code']}: " + ", ".join(changed))
    for code, codes in new["seen"].items():
        was = set(old["seen"].get(code, []))
        now = set(codes)
        if was != now:
            diff = [f"+{c}" for c in sorted(now - was)] + [f"-{c}" for c in sorted(was - now)]
            lines.append(f"seen {code}: " + " ".join(diff))
    return lines


def render_case(case: Path) -> str:
    scenario = load_scenario_file(case / "scenario.toml")
    state = scenario.state
    orders, warnings, foreseen = parse_case_foreseen(case, state)
    new, events = resolve(state, orders, turn_rng(SEED, state.turn))
    failed = {(e.empire, e.data["line"]): e.data["reason"] for e in events if e.kind == "order"}
    for (code, line), problem in foreseen.items():
        assert failed.get((code, line)) == problem, (
            f"{case.name}: {code} line {line} refused as {problem}, the turn says {failed.get((code, line))}"
        )
    out = [
        f"# Golden turn {case.name!r}: scenario.toml + orders.txt, dice turn_rng({SEED!r}, {state.turn}).",
        "# Written by tests/rules/test_golden.py --update-golden; check every change against docs/rules.md.",
        "",
        "== parser warnings",
        *warnings,
        "",
        "== events (kind, actor, data)",
        *(event_line(e) for e in events),
        "",
        "== state changes",
        *state_changes(state, new),
    ]
    return "\n".join(out) + "\n"


# -- the tests --------------------------------------------------------------------------------


def test_there_are_golden_cases() -> None:
    assert {c.name for c in CASES} >= {"plain", "zoc", "pinning", "engage"}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_turn(case: Path, update_golden: bool) -> None:
    actual = render_case(case)
    path = case / "expected.txt"
    if update_golden:
        path.write_text(actual, encoding="utf-8")
        return
    assert path.exists(), f"{path} is missing: run pytest --update-golden and read it"
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        diff = difflib.unified_diff(
            expected.splitlines(), actual.splitlines(), "expected.txt", "actual", lineterm=""
        )
        pytest.fail(f"golden turn {case.name} differs:\n" + "\n".join(diff), pytrace=False)


def test_orders_sections() -> None:
    text = "# intro\n[ABC]\nTAX\n\n[XYZ]\nTAX\nSTASH 1\n"
    assert read_orders(text, "t") == {"ABC": "TAX\n", "XYZ": "TAX\nSTASH 1"}
    with pytest.raises(ValueError, match="before the first"):
        read_orders("TAX\n[ABC]\n", "t")


def test_value_format() -> None:
    data = {"b": [1, "x y"], "a": {"z": None, "y": True}, "c": [{"k": "101"}]}
    assert fmt_pairs(data) == ["a.y=true", "a.z=null", 'b=[1, "x y"]', 'c=[{k="101"}]']
