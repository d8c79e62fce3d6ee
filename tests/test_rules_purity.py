"""turnproc/rules/ and turnproc/orders/ are pure: standard library only, and
none of the stdlib's I/O, clock or global-random entry points."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "turnproc"
FILES = sorted(PACKAGE.glob("rules/*.py")) + sorted(PACKAGE.glob("orders/*.py"))
# Standard-library modules that would let the rules reach the outside world.
FORBIDDEN = {
    "os",
    "socket",
    "sqlite3",
    "smtplib",
    "imaplib",
    "subprocess",
    "time",
    "datetime",
    "email",
    "urllib",
    "http",
    "logging",
}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def test_there_are_rule_modules() -> None:
    assert len(FILES) >= 5


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_rules_import_only_the_standard_library(path: Path) -> None:
    for lineno, name in _imports(path):
        top = name.split(".")[0]
        assert top in sys.stdlib_module_names or top == "__future__", f"{path.name}:{lineno} imports {name}"
        assert top not in FORBIDDEN, (
            f"{path.name}:{lineno} imports {name}: the rules do no I/O and read no clock"
        )


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_rules_use_no_global_random_state(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            base = node.func.value
            if isinstance(base, ast.Name) and base.id == "random" and node.func.attr != "Random":
                pytest.fail(
                    f"{path.name}:{node.lineno} calls random.{node.func.attr}: pass the turn's rng instead"
                )
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            pytest.fail(f"{path.name}:{node.lineno} calls print()")
