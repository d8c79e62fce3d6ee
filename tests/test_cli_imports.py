"""What the command line loads before it has anything to do: ``--version``,
``--help`` and ``COMMAND --help`` import the standard library and the
command-line modules only, never SQLAlchemy, Alembic, Jinja, Pillow, resvg,
the mail clients, the scheduler or the ORM models. Each case runs in a fresh
interpreter and reads ``sys.modules`` after the call: a list, not a time,
so a slow machine cannot fail it and a fast one cannot hide an import.

The commands that read a game (``game show``, ``empire list``, ``report``)
load the read-model, but not the mail machinery, the map pictures or the
scheduler the writing commands use; on SQLite ``game show``, ``empire list``
and a stored ``report`` (after turn 1) read over the DB-API alone
(turnproc/storage/plainread.py) and load no SQLAlchemy, Alembic or models
either. ``report`` before turn 1 builds the report from the state, through
the ORM."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# The fixtures: a game before turn 1 and one after, made once per module.
from tests.test_cli_reads import two_games, two_games_made  # noqa: F401

# The module's tests share a fixture made once per module (two_games_made):
# on one worker it is made once.
# Slow: each test starts fresh interpreters and checks what they imported.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("cli-imports")]

ROOT = Path(__file__).resolve().parents[1]

#: The package's modules the parser may load: the command line itself and
#: the refusals every command may raise.
ALLOWED_TURNPROC = {"turnproc", "turnproc.errors"}

#: What the failures name when they happen: the heavy layers by top-level name.
HEAVY = (
    "sqlalchemy",
    "alembic",
    "jinja2",
    "PIL",
    "resvg_py",
    "imapclient",
    "apscheduler",
    "markdown",
    "psycopg",
)

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
        [sys.executable, "-c", PROBE, *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stderr.strip().splitlines()[-1]))


def _not_allowed(modules: list[str]) -> list[str]:
    stdlib = sys.stdlib_module_names
    return [
        name
        for name in modules
        if not (
            name.split(".")[0] in stdlib
            or name.startswith("_")
            or name in ALLOWED_TURNPROC
            or name.startswith("turnproc.cli")
        )
    ]


@pytest.mark.parametrize(
    "argv",
    [
        ("--version",),
        ("--help",),
        ("game", "show", "--help"),
        ("report", "--help"),
        ("check-orders", "--help"),
        ("worker", "--help"),
        ("db", "upgrade", "--help"),
        ("site", "--help"),
    ],
    ids=" ".join,
)
def test_the_parser_loads_only_the_standard_library_and_the_command_line(argv: tuple[str, ...]) -> None:
    modules = _modules_after(*argv)
    assert "turnproc.cli" in modules  # the probe ran what it was meant to
    assert _not_allowed(modules) == [], f"turnproc {' '.join(argv)} imported more than it needs"


def test_the_check_fails_on_what_it_is_for(tmp_path: Path) -> None:
    """A command that runs loads its layer: the same probe sees SQLAlchemy
    once a command looks for its database, so the test above could fail."""
    modules = _modules_after("game", "list", cwd=tmp_path)  # "no database at turnproc.db"
    assert "sqlalchemy" in _not_allowed(modules)


# -- the read commands: each loads its own layer and nothing of the others ----------------

#: What no read command may load, by name or name prefix: the mail clients and
#: servers, the mails the host sends and the intake, the map pictures, the
#: scheduler, the password-strength and address checkers, Alembic. Jinja too,
#: except for ``report``, which renders the report's text with it.
NOT_FOR_READS = (
    "PIL",
    "resvg_py",
    "apscheduler",
    "imapclient",
    "aiosmtpd",
    "zxcvbn",
    "email_validator",
    "alembic",
    "markdown",
    "turnproc.mail",
    "turnproc.outgoing",
    "turnproc.turns.reports",
    "turnproc.games.notices",
    "turnproc.intake",
    "turnproc.service",
    "turnproc.reports.mapimage",
    "turnproc.reports.pixelmap",
    "turnproc.games.publish",
)


#: Nor, for ``game show`` and ``empire list``, which read rows and no state:
#: the rules engine, the galaxy generator, the scenario reader, the converter.
NOT_FOR_LISTS = (
    "jinja2",
    "turnproc.rules.resolution",
    "turnproc.rules.generate",
    "turnproc.scenario",
    "turnproc.storage.convert",
)


def test_every_banned_module_exists() -> None:
    """A module moved or renamed would leave its ban checking nothing."""
    import importlib.util

    for name in (*NOT_FOR_READS, *NOT_FOR_LISTS):
        assert importlib.util.find_spec(name) is not None, f"{name} is not a module (moved?)"


def _forbidden(modules: list[str], *, report: bool = False) -> list[str]:
    banned = NOT_FOR_READS if report else (*NOT_FOR_READS, *NOT_FOR_LISTS)
    return [name for name in modules if any(name == b or name.startswith(b + ".") for b in banned)]


@pytest.mark.parametrize(
    "argv",
    [
        ("game", "show", "early"),
        ("game", "show", "late"),
        ("empire", "list", "early"),
        ("empire", "list", "late"),
        ("report", "early", "RIG"),
        ("report", "late", "RIG"),
    ],
    ids=" ".join,
)
def test_a_read_command_loads_only_its_layer(
    two_games: tuple[Path, Path, str], argv: tuple[str, ...]
) -> None:
    """``game show``, ``empire list`` and ``report`` (before turn 1, when the
    report is built on the fly, and after, when it is stored) on a game with
    no schedule."""
    config, _, _ = two_games
    modules = _modules_after("--config", str(config), *argv)
    assert "turnproc.storage.plainread" in modules  # the command read the game
    assert _forbidden(modules, report=argv[0] == "report") == [], (
        f"turnproc {' '.join(argv)} loaded more than it reads with"
    )


#: What the reads over the DB-API alone never load, by name or name prefix.
NOT_FOR_PLAIN_READS = ("sqlalchemy", "alembic", "turnproc.storage.models", "turnproc.storage.queries")


@pytest.mark.parametrize(
    "argv",
    [
        ("game", "show", "early"),
        ("game", "show", "late", "--json"),
        ("empire", "list", "early"),
        ("empire", "list", "late", "--json"),
        ("report", "late", "RIG"),
        ("report", "late", "VEG", "--format", "json"),
        ("report", "late", "RIG", "--turn", "1"),
        ("report", "early", "RIG"),
        ("report", "early", "VEG", "--format", "json"),
    ],
    ids=" ".join,
)
def test_the_prompts_reads_load_no_sqlalchemy(
    two_games: tuple[Path, Path, str], argv: tuple[str, ...]
) -> None:
    """``game show``, ``empire list`` and ``report`` (stored, or before turn 1
    built from the state) on SQLite: no SQLAlchemy, Alembic or models, which
    would cost the GM most of a second (docs/gm-handbook.md, "Command
    reference", says so)."""
    config, _, _ = two_games
    modules = _modules_after("--config", str(config), *argv)
    assert "turnproc.storage.plainread" in modules  # the command read the game
    loaded = [n for n in modules if any(n == b or n.startswith(b + ".") for b in NOT_FOR_PLAIN_READS)]
    assert loaded == [], f"turnproc {' '.join(argv)} loaded the ORM's layer"


def test_the_plain_read_check_fails_on_what_it_is_for(two_games: tuple[Path, Path, str]) -> None:
    """A ``database_url`` with options is left to SQLAlchemy (plainread reads
    only the plain forms): ``report`` then builds the report through the ORM,
    and the same probe sees SQLAlchemy and the models, so the test above could fail."""
    config, db, _ = two_games
    text = config.read_text(encoding="utf-8").replace(f'"sqlite:///{db}"', f'"sqlite:///{db}?timeout=5"')
    assert "?timeout=5" in text
    config.write_text(text, encoding="utf-8")
    modules = _modules_after("--config", str(config), "report", "early", "RIG")
    assert {"sqlalchemy", "turnproc.storage.models"} <= set(modules)


def test_the_read_check_fails_on_what_it_is_for(two_games: tuple[Path, Path, str]) -> None:
    """A command that mails loads what the reads may not: pausing a game mails
    every player the news, so the list above names what it loads."""
    config, _, _ = two_games
    modules = _modules_after("--config", str(config), "game", "pause", "early")
    assert {"turnproc.outgoing.templated", "turnproc.games.notices", "jinja2"} <= set(_forbidden(modules))
