"""The engine writes each event kind's data as turnproc.rules.eventdata says,
and a state as rules/serialize.py says; the report's phrasing reads only keys
the shapes have."""

import ast
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict, get_args, get_origin, get_type_hints

import pytest

from tests.rules.test_golden import CASES, SEED, load_scenario_file, parse_case_foreseen
from turnproc.orders.vocabulary import EventKind
from turnproc.reports import narrative
from turnproc.rules import eventdata
from turnproc.rules.events import Event
from turnproc.rules.serialize import SYSTEM_FIELDS, StateDict, SystemDict, state_to_dict, state_to_record
from turnproc.rules.turn import resolve, turn_rng


def _golden_events() -> Iterator[tuple[str, Event]]:
    for case in CASES:
        state = load_scenario_file(case / "scenario.toml").state
        orders, _, _ = parse_case_foreseen(case, state)
        _, events = resolve(state, orders, turn_rng(SEED, state.turn))
        for event in events:
            yield case.name, event


def _is_typeddict(hint: object) -> bool:
    return isinstance(hint, type) and issubclass(hint, dict) and hasattr(hint, "__required_keys__")


def _problems(value: object, hint: Any, where: str) -> list[str]:
    """Where ``value`` is not of type ``hint`` (the few kinds of type the shapes use)."""
    origin = get_origin(hint)
    if hint is Any:
        return []
    if origin in (typing.Union, types.UnionType):
        fits = [not _problems(value, option, where) for option in get_args(hint)]
        return [] if any(fits) else [f"{where}: {value!r} is not {hint}"]
    if origin is Literal:
        return [] if value in get_args(hint) else [f"{where}: {value!r} is not one of {get_args(hint)}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: {value!r} is not a list"]
        return [
            p for i, item in enumerate(value) for p in _problems(item, get_args(hint)[0], f"{where}[{i}]")
        ]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: {value!r} is not a dict"]
        return [p for k, v in value.items() for p in _problems(v, get_args(hint)[1], f"{where}.{k}")]
    if _is_typeddict(hint):
        return _shape_problems(value, hint, where)
    if hint is type(None):
        return [] if value is None else [f"{where}: {value!r} is not None"]
    if hint is int and isinstance(value, bool):
        return [f"{where}: {value!r} is a bool, not an int"]
    return [] if isinstance(value, hint) else [f"{where}: {value!r} is not {hint.__name__}"]


def _shape_problems(value: object, shape: Any, where: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{where}: {value!r} is not a dict"]
    hints = get_type_hints(shape)
    out = [f"{where}: unknown key {k!r}" for k in value if k not in hints]
    out += [f"{where}: no {k!r}" for k in shape.__required_keys__ if k not in value]
    out += [p for k, v in value.items() if k in hints for p in _problems(v, hints[k], f"{where}.{k}")]
    return out


def test_every_event_kind_has_a_shape() -> None:
    kinds = {v for k, v in vars(EventKind).items() if not k.startswith("_")}
    assert set(eventdata.SHAPES) == kinds


def test_every_golden_event_has_its_kinds_shape() -> None:
    problems: list[str] = []
    seen: set[str] = set()
    for case, event in _golden_events():
        seen.add(event.kind)
        problems += _shape_problems(event.data, eventdata.SHAPES[event.kind], f"{case}: {event.kind}")
    assert not problems, "\n".join(problems[:20])
    assert len(seen) > 25, "the golden turns tell most kinds"


class _Sample(TypedDict):
    n: int
    where: int | None
    who: NotRequired[list[str]]


@pytest.mark.parametrize(
    ("value", "wrong"),
    [
        ({"n": 1, "where": None, "who": ["RIG"]}, False),
        ({"n": 1, "where": 101}, False),
        ({"n": True, "where": None}, True),
        ({"where": None}, True),
        ({"n": 1, "where": None, "who": [1]}, True),
        ({"n": 1, "where": None, "from": 3}, True),
    ],
)
def test_the_shape_check_finds_a_wrong_key_or_value(value: dict[str, object], wrong: bool) -> None:
    assert bool(_shape_problems(value, _Sample, "sample")) is wrong


def _keys_read(function: ast.FunctionDef) -> tuple[str | None, set[str]]:
    """The shape a phrasing function casts ``e.data`` to, and the keys it reads of ``d``."""
    shape = None
    keys: set[str] = set()
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "cast"
            and isinstance(node.args[0], ast.Name)
        ):
            shape = node.args[0].id
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "d":
            if isinstance(node.slice, ast.Constant):
                keys.add(node.slice.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            target = node.func.value
            if isinstance(target, ast.Name) and target.id == "d" and isinstance(node.args[0], ast.Constant):
                keys.add(node.args[0].value)
        elif (
            isinstance(node, ast.Compare)
            and isinstance(node.comparators[0], ast.Name)
            and node.comparators[0].id == "d"
        ):
            if isinstance(node.left, ast.Constant):
                keys.add(node.left.value)
    return shape, keys


def test_the_phrasing_reads_only_keys_its_shape_has() -> None:
    """``.get`` with a key the shape lacks is no mypy error (the typing spec
    allows it): a renamed key would print "None". This holds them here."""
    tree = ast.parse(Path(narrative.__file__).read_text(encoding="utf-8"))
    checked = 0
    for function in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
        shape_name, keys = _keys_read(function)
        if shape_name is None:
            continue
        shape = getattr(eventdata, shape_name)
        assert keys <= set(get_type_hints(shape)), (
            f"{function.name} reads {sorted(keys - set(get_type_hints(shape)))}"
        )
        checked += 1
    assert checked >= 25


def test_a_state_as_json_has_the_serialize_shapes() -> None:
    """The state's JSON (golden and turn-record forms) is what rules/serialize.py's TypedDicts say."""
    assert tuple(get_type_hints(SystemDict)) == SYSTEM_FIELDS
    problems: list[str] = []
    for case in CASES:
        state = load_scenario_file(case / "scenario.toml").state
        for form in (state_to_dict, state_to_record):
            problems += _shape_problems(form(state), StateDict, f"{case.name}: {form.__name__}")
    assert not problems, "\n".join(problems[:20])
