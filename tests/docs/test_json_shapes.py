"""The ``--json`` shapes the GM's handbook documents (```` ```json shape=NAME ````
blocks under "Command reference") are what the commands print: the same keys,
at every level the command's output has an example of."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.docs.mdblocks import DOCS, blocks

HANDBOOK = DOCS / "gm-handbook.md"

COMMANDS = {
    "game-list": ("game", "list", "--json"),
    "game-show": ("game", "show", "g", "--json"),
    "game-schedule": ("game", "schedule", "g", "--json"),
    "empire-list": ("empire", "list", "g", "--json"),
    "empire-show": ("empire", "show", "g", "RIG", "--json"),
    "check": ("check", "g", "--json"),
    "audit": ("audit", "--json"),
    "turn-preview": ("turn", "preview", "g", "--json"),
}


def shapes() -> dict[str, Any]:
    return {
        b.attrs["shape"]: json.loads(b.text)
        for b in blocks(HANDBOOK)
        if b.kind == "json" and "shape" in b.attrs
    }


def differences(documented: Any, actual: Any, where: str = "") -> list[str]:
    if isinstance(documented, dict):
        if not isinstance(actual, dict):
            return [f"{where or 'top'}: documented an object, printed {type(actual).__name__}"]
        found = [f"{where}.{k}: documented, not printed" for k in sorted(set(documented) - set(actual))]
        found += [f"{where}.{k}: printed, not documented" for k in sorted(set(actual) - set(documented))]
        for key in set(documented) & set(actual):
            found += differences(documented[key], actual[key], f"{where}.{key}")
        return found
    if isinstance(documented, list):
        if not isinstance(actual, list):
            return [f"{where or 'top'}: documented an array, printed {type(actual).__name__}"]
        if documented and actual:
            return differences(documented[0], actual[0], f"{where}[0]")
    return []


def test_every_json_command_has_a_documented_shape() -> None:
    assert sorted(shapes()) == sorted(COMMANDS)


def test_the_documented_shapes_are_printed(run_cli, migrated_default_db: Path) -> None:
    for argv in (
        ("game", "new", "g", "--players", "2", "--seed", "s"),
        ("empire", "add", "g", "--code", "RIG", "--name", "Rigel", "--email", "ann@example.org"),
        ("game", "schedule", "g", "--cron", "0 20 * * 5", "--tz", "Europe/London"),
        ("turn", "run", "g", "--yes", "--force"),
    ):
        assert run_cli(*argv)[0] == 0, argv
    documented = shapes()
    problems = []
    for name, argv in COMMANDS.items():
        status, out, err = run_cli(*argv)
        assert status == 0, (argv, err)
        problems += [f"{name}: {d}" for d in differences(documented[name], json.loads(out))]
    assert not problems, "docs/gm-handbook.md JSON shapes:\n  " + "\n  ".join(problems)
