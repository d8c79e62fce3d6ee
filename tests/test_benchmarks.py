"""benchmarks/ stands on its own (nothing from tests/, no private name of
turnproc, no sys.path insertion), and the night benchmark's baseline check
fails on a phase slower than the baseline allows."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import baseline

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = sorted((ROOT / "benchmarks").glob("*.py"))


def _imports(path: Path) -> list[tuple[str, str]]:
    """(module, name) of each name ``path`` imports; name "" for a plain import."""
    found: list[tuple[str, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [(node.module, alias.name) for alias in node.names]
    return found


@pytest.mark.parametrize("path", BENCHMARKS, ids=lambda p: p.name)
def test_a_benchmark_imports_nothing_from_the_tests_nor_turnprocs_private_names(path: Path) -> None:
    for module, name in _imports(path):
        assert module.split(".")[0] != "tests", f"{path.name} imports {module}"
        if module.split(".")[0] in ("turnproc", "benchmarks"):
            private = [
                part for part in [*module.split("."), name] if part.startswith("_") and part != "__future__"
            ]
            assert not private, f"{path.name} imports a private name: {module} {name}"
    assert "sys.path" not in path.read_text(encoding="utf-8"), f"{path.name} changes sys.path"


def test_the_benchmarks_import() -> None:
    """A module moved in turnproc breaks no benchmark unnoticed (they run outside
    the suite): all of them imported in one fresh interpreter, the fast tier's
    check; the traceback names the one that fails."""
    done = _import_fresh(", ".join(f"benchmarks.{path.stem}" for path in BENCHMARKS))
    assert done.returncode == 0, done.stderr


# An interpreter each, so that no benchmark imports only because another was
# imported before it; slow, as the fast tier has the one-interpreter check above.
@pytest.mark.slow
@pytest.mark.parametrize("path", BENCHMARKS, ids=lambda p: p.name)
def test_a_benchmark_imports(path: Path) -> None:
    """A module moved in turnproc breaks no benchmark unnoticed (they run outside the suite)."""
    done = _import_fresh(f"benchmarks.{path.stem}")
    assert done.returncode == 0, done.stderr


def _import_fresh(names: str) -> subprocess.CompletedProcess[str]:
    """``import names`` in a fresh interpreter, from the repository's root."""
    return subprocess.run(
        [sys.executable, "-c", f"import {names}"], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_the_tests_servers_are_the_benchmarks_servers() -> None:
    """One copy of each server's starter: tests/servers.py takes them from benchmarks/servers.py."""
    from benchmarks import servers
    from tests import servers as test_servers

    for name in ("DovecotServer", "PostgresServer", "free_port", "wait_for_port"):
        assert getattr(test_servers, name) is getattr(servers, name)


def test_every_benchmark_says_how_to_run_it_from_the_repository_root() -> None:
    for path in BENCHMARKS:
        text = path.read_text(encoding="utf-8")
        if '__name__ == "__main__"' in text:
            docstring = ast.get_docstring(ast.parse(text)) or ""
            assert f"python -m benchmarks.{path.stem}" in docstring, path.name


# -- the baseline -----------------------------------------------------------------------------


def _row(backend: str, n: int, *nights: tuple[float, float, float]) -> dict[str, object]:
    return {
        "backend": backend,
        "n": n,
        "nights": [{"night": i, "poll": p, "turn": t, "send": s} for i, (p, t, s) in enumerate(nights)],
    }


def test_ratios_are_each_phase_over_the_calibration_for_the_first_and_last_night() -> None:
    rows = [_row("sqlite", 1000, (2.0, 4.0, 6.0), (9.0, 9.0, 9.0), (3.0, 5.0, 7.0))]
    figures = baseline.ratios(rows, calibration=0.5)
    assert figures == {
        "sqlite N=1000 turn 1 poll": 4.0,
        "sqlite N=1000 turn 1 turn": 8.0,
        "sqlite N=1000 turn 1 send": 12.0,
        "sqlite N=1000 turn 1 night": 24.0,
        "sqlite N=1000 turn 3 poll": 6.0,
        "sqlite N=1000 turn 3 turn": 10.0,
        "sqlite N=1000 turn 3 send": 14.0,
        "sqlite N=1000 turn 3 night": 30.0,
    }


def test_the_check_fails_only_on_a_phase_worse_than_the_tolerance() -> None:
    stored = {"sqlite N=1000 turn 1 turn": 10.0, "sqlite N=1000 turn 1 send": 10.0}
    lines, ok = baseline.compare(
        stored, {"sqlite N=1000 turn 1 turn": 12.9, "sqlite N=1000 turn 1 send": 5.0}, 0.3
    )
    assert ok, lines
    lines, ok = baseline.compare(
        stored, {"sqlite N=1000 turn 1 turn": 13.1, "sqlite N=1000 turn 1 send": 5.0}, 0.3
    )
    assert not ok
    assert any(
        "turn 1 turn" in line and "slower than the baseline by more than 30%" in line for line in lines
    )


def test_the_check_fails_when_the_run_shares_no_phase_with_the_baseline() -> None:
    lines, ok = baseline.compare({"sqlite N=1000 turn 6 turn": 10.0}, {"postgres N=12 turn 1 turn": 1.0}, 0.3)
    assert not ok
    assert "not in the baseline, not compared: postgres N=12 turn 1 turn" in lines


def test_the_stored_baseline_is_a_run_the_check_can_repeat() -> None:
    stored = baseline.load()
    run = stored["run"]
    sizes = [int(n) for n in run["sizes"].split(",")]
    rows = [
        _row(b, n, *[(1.0, 1.0, 1.0)] * (run["history"] + 1))
        for b in run["backends"].split(",")
        for n in sizes
    ]
    assert set(stored["ratios"]) == set(baseline.ratios(rows, 1.0))
    assert all(value > 0 for value in stored["ratios"].values())


@pytest.mark.slow
def test_night_check_exits_non_zero_on_a_slower_phase(tmp_path: Path, dovecot_server: object) -> None:
    """The whole path: save a baseline from a small night, make the stored
    ratios ten times better than that night's, and --check fails."""
    path = tmp_path / "baseline.json"
    command = [sys.executable, "-m", "benchmarks.night", "--baseline", str(path)]
    small = ["--sizes", "12", "--backends", "sqlite", "--history", "0"]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    saved = subprocess.run(
        [*command, *small, "--save-baseline"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert saved.returncode == 0, saved.stderr[-3000:]
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert stored["run"] == {"sizes": "12", "backends": "sqlite", "history": 0}
    assert set(stored["ratios"]) == {f"sqlite N=12 turn 1 {phase}" for phase in baseline.PHASES}
    stored["ratios"] = {key: value / 10 for key, value in stored["ratios"].items()}
    path.write_text(json.dumps(stored), encoding="utf-8")
    checked = subprocess.run(
        [*command, "--check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert checked.returncode == 1, checked.stdout + checked.stderr[-3000:]
    assert "slower than the baseline by more than 30%" in checked.stdout
