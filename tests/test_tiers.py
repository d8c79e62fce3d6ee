"""The two tiers of the suite as the README names them: everything (what CI
runs) and the fast tier, ``-m "not slow"``, which still exercises every package
and starts a mail server only for a test that uses one."""

from __future__ import annotations

import ast
import functools
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"

# Two tests read every test module (_fast_test_modules, cached): on one worker
# they read them once.
pytestmark = pytest.mark.xdist_group("tiers")


def _readme() -> str:
    return " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())


def test_the_readme_names_both_tiers_and_ci_runs_everything() -> None:
    readme = _readme()
    assert 'bash tests/run.sh -m "not slow" # the fast tier' in readme
    assert "bash tests/run.sh # everything, as CI runs it (.ci/run)" in readme
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "exec bash tests/run.sh\n" in ci, "CI must run the whole suite, no marker"


def test_run_sh_keeps_compiled_modules_for_the_tests() -> None:
    """The README says so: pytest runs with bytecode written, whatever the
    environment says, so a second run reuses the workers' compiled modules."""
    assert "even where `PYTHONDONTWRITEBYTECODE` is set" in _readme()
    script = (TESTS / "run.sh").read_text(encoding="utf-8")
    assert 0 <= script.find("\nunset PYTHONDONTWRITEBYTECODE\n") < script.find("-m pytest")


def test_run_sh_puts_the_tests_files_in_memory_unless_tmpdir_is_set() -> None:
    """The README says so: with TMPDIR unset and /dev/shm there, the run's
    temporary files go to a folder made there for it, removed at the end."""
    assert "Unless `TMPDIR` is set, the tests' temporary files" in _readme()
    script = (TESTS / "run.sh").read_text(encoding="utf-8")
    start = script.find('if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ]')
    assert 0 <= start < script.find("-m pytest")
    block = script[start : script.find("\nfi\n", start)]
    assert "TMPDIR=$(mktemp -d /dev/shm/" in block and "export TMPDIR" in block
    assert "CLEANUP+=('rm -rf \"$TMPDIR\"')" in block and "trap cleanup EXIT" in script


def test_the_slow_marker_is_declared_strictly() -> None:
    pytest_options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"][
        "ini_options"
    ]
    assert "--strict-markers" in pytest_options["addopts"].split()
    assert any(marker.startswith("slow:") for marker in pytest_options["markers"])


def _marked_slow(decorators: list[ast.expr]) -> bool:
    return any("mark.slow" in ast.unparse(d) for d in decorators)


@functools.cache
def _fast_test_modules() -> dict[Path, ast.Module]:
    """Test modules with at least one test the fast tier runs."""
    fast = {}
    for path in TESTS.rglob("test_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module_slow = any(
            isinstance(node, ast.Assign)
            and any(getattr(t, "id", "") == "pytestmark" for t in node.targets)
            and "mark.slow" in ast.unparse(node.value)
            for node in tree.body
        )
        tests = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]
        if not module_slow and any(not _marked_slow(t.decorator_list) for t in tests):
            fast[path] = tree
    return fast


def test_some_tests_are_slow_and_most_are_not() -> None:
    modules = list(TESTS.rglob("test_*.py"))
    fast = _fast_test_modules()
    assert len(fast) < len(modules), "no test module is marked slow"
    assert len(fast) > len(modules) * 3 // 4


def test_the_fast_tier_exercises_every_package() -> None:
    """Each package of turnproc is imported by a test module the fast tier runs."""
    owners = {p.name for p in (ROOT / "turnproc").iterdir() if (p / "__init__.py").exists()}
    imported: set[str] = set()
    for tree in _fast_test_modules().values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("turnproc."):
                imported.add(node.module.split(".")[1])
            elif isinstance(node, ast.ImportFrom) and node.module == "turnproc":
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.Import):
                imported |= {a.name.split(".")[1] for a in node.names if a.name.startswith("turnproc.")}
    assert owners - imported == set()


def test_a_mail_server_starts_only_for_a_test_that_asks_for_it() -> None:
    """The server fixtures are not autouse: a test that names none starts none."""
    tree = ast.parse((TESTS / "conftest.py").read_text(encoding="utf-8"))
    fixtures = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    for name in ("dovecot_server", "imap", "smtp_server", "postgres_url"):
        decorators = " ".join(ast.unparse(d) for d in fixtures[name].decorator_list)
        assert "fixture" in decorators and "autouse" not in decorators, name


@pytest.mark.slow
def test_the_fast_tier_runs_postgresql_for_the_storage_layer_only() -> None:
    """Of the tests' PostgreSQL variants, the fast tier keeps the storage layer's."""
    files = [
        "tests/storage/test_schema_head.py",
        "tests/admin/test_gm_role.py",
        "tests/admin/test_admin_scripts.py",
    ]
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    listed = subprocess.run(
        [*command, "-m", "not slow and postgres", *files],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    chosen = [line for line in listed.stdout.splitlines() if "::" in line]
    assert chosen, listed.stdout + listed.stderr
    assert all(line.startswith("tests/storage/") and "postgres" in line for line in chosen), chosen


@pytest.mark.slow  # a pytest of its own on two workers
def test_a_group_of_tests_runs_on_one_worker(tmp_path: Path) -> None:
    """tests/run.sh runs ``--dist loadgroup``: the tests of one ``xdist_group``
    share a worker, so a module's shared fixture is built once. A pytest and
    pytest-xdist that disagree on how a test is named scatter a group silently."""
    (tmp_path / "test_grouped.py").write_text(
        "import os\n"
        "import pytest\n\n\n"
        '@pytest.mark.xdist_group("one")\n'
        '@pytest.mark.parametrize("i", range(6))\n'
        "def test_in_the_group(i, tmp_path_factory):\n"
        f"    path = {str(tmp_path)!r} + f'/{{i}}.worker'\n"
        "    open(path, 'w').write(os.environ['PYTEST_XDIST_WORKER'])\n\n\n"
        "@pytest.mark.parametrize('i', range(6))\n"
        "def test_outside(i):\n"
        "    pass\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "2"]
        + [
            "--dist",
            "loadgroup",
            "-c",
            os.devnull,
            "--rootdir",
            str(tmp_path),
            str(tmp_path / "test_grouped.py"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    workers = {path.read_text(encoding="utf-8") for path in tmp_path.glob("*.worker")}
    assert len(workers) == 1, f"the group ran on {sorted(workers)}"
