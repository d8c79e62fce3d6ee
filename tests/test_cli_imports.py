"""What the command line loads before it has anything to do: ``--version``,
``--help`` and ``COMMAND --help`` import the standard library and the
command-line modules only, never SQLAlchemy, Alembic, Jinja, Pillow, resvg,
the mail clients, the scheduler or the ORM models. Each case runs in a fresh
interpreter and reads ``sys.modules`` after the call: a list, not a time,
so a slow machine cannot fail it and a fast one cannot hide an import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The package's modules the parser may load: the command line itself and
#: the refusals every command may raise.
ALLOWED_TURNPROC = {"turnproc", "turnproc.errors"}

#: What the failures name when they happen: the heavy layers by top-level name.
HEAVY = ("sqlalchemy", "alembic", "jinja2", "PIL", "resvg_py", "imapclient", "apscheduler", "markdown", "psycopg")

PROBE = """
import json, sys
from turnproc.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout.flush()
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def _modules_after(*argv: str, cwd: Path = ROOT) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("TURNPROC_CONFIG", None)
    env.pop("TURNPROC_DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stderr.strip().splitlines()[-1]))


def _not_allowed(modules: list[str]) -> list[str]:
    stdlib = sys.stdlib_module_names
    return [
        name for name in modules
        if not (name.split(".")[0] in stdlib or name.startswith("_") or name in ALLOWED_TURNPROC or name.startswith("turnproc.cli"))
    ]  # fmt: skip


@pytest.mark.parametrize(
    "argv",
    [("--version",), ("--help",), ("game", "show", "--help"), ("report", "--help"), ("check-orders", "--help"),
     ("worker", "--help"), ("db", "upgrade", "--help"), ("site", "--help")],
    ids=" ".join,
)  # fmt: skip
def test_the_parser_loads_only_the_standard_library_and_the_command_line(argv: tuple[str, ...]) -> None:
    modules = _modules_after(*argv)
    assert "turnproc.cli" in modules  # the probe ran what it was meant to
    assert _not_allowed(modules) == [], f"turnproc {' '.join(argv)} imported more than it needs"


def test_the_check_fails_on_what_it_is_for(tmp_path: Path) -> None:
    """A command that runs loads its layer: the same probe sees SQLAlchemy
    once a command looks for its database, so the test above could fail."""
    modules = _modules_after("game", "list", cwd=tmp_path)  # "no database at turnproc.db"
    assert "sqlalchemy" in _not_allowed(modules)
