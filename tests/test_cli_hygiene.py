"""The command line's manners (docs/gm-handbook.md, "Exit statuses" and "With
no config file"): exit statuses, a closed pipe, `db check` in our words, no
database created by a command that only reads, the defaults named on stderr,
help for every positional argument, and `turnproc sql` refusing a statement
that changed nothing."""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.admin.gmcli import make_gm
from tests.conftest import SmtpSink
from turnproc.cli import build_parser
from turnproc.cli.common import printable

ROOT = Path(__file__).resolve().parents[1]

READ_ONLY = [
    ("game", "list"),
    ("game", "show", "g"),
    ("empire", "list", "g"),
    ("empire", "show", "g", "RIG"),
    ("check", "g"),
    ("audit",),
    ("report", "g", "RIG"),
    ("turn", "preview", "g"),
    ("db", "check"),
]


@pytest.mark.parametrize("argv", READ_ONLY, ids=" ".join)
def test_a_command_that_only_reads_creates_no_database(
    run_cli, tmp_path: Path, argv: tuple[str, ...]
) -> None:
    status, out, err = run_cli(*argv)
    assert status == 1, (out, err)
    assert "no database at turnproc.db" in err and "Traceback" not in err
    assert not (tmp_path / "turnproc.db").exists()


def test_without_a_config_file_the_defaults_are_named_on_stderr(run_cli, migrated_default_db: Path) -> None:
    status, out, err = run_cli("game", "list")
    assert status == 0
    assert (
        "no config file" in err
        and "used the database sqlite:///turnproc.db" in err
        and "mail/in" in err
        and "mail/out" in err
    )
    assert "no config file" not in out
    # An error carries it in its one line.
    status, _, err = run_cli("game", "show", "nope")
    assert status == 1 and err.count("\n") == 1 and err.startswith("turnproc: error: no game named 'nope'")
    assert "[no config file" in err


def test_the_worker_says_it_when_it_starts(run_cli, migrated_default_db: Path) -> None:
    # The worker sets up the root logger for itself, on this test's captured
    # stderr: put it back, or a later test in this process logs to a closed file.
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        status, _, err = run_cli("worker", "--once", "--log-format", "text")
    finally:
        root.handlers[:], root.level = handlers, level
    assert status == 0 and "no config file" in err and "using the database sqlite:///turnproc.db" in err


def test_a_config_file_silences_the_notice(run_cli, tmp_path: Path, migrated_default_db: Path) -> None:
    (tmp_path / "turnproc.toml").write_text('database_url = "sqlite:///turnproc.db"\n', encoding="utf-8")
    status, _, err = run_cli("game", "list")
    assert status == 0 and err == ""


def test_usage_errors_exit_2(run_cli, migrated_default_db: Path) -> None:
    for argv in (
        ("empire", "show"),
        ("nosuch",),
        ("game", "list", "--no-such-option"),
        ("audit", "--limit", "many"),
    ):
        with pytest.raises(SystemExit) as raised:
            run_cli(*argv)
        assert raised.value.code == 2, argv


def test_audit_of_an_unknown_game_is_an_error(run_cli, migrated_default_db: Path) -> None:
    status, _, err = run_cli("audit", "nosuch")
    assert status == 1 and "no game named 'nosuch'" in err
    assert run_cli("game", "new", "g", "--players", "2", "--seed", "s")[0] == 0
    status, out, _ = run_cli("audit", "g")
    assert status == 0 and "no audit entries" in out
    status, out, _ = run_cli("audit", "--json")
    assert status == 0 and json.loads(out) == []


def test_db_check_says_whether_the_schema_is_current(
    run_cli, migrated_default_db: Path, tmp_path: Path
) -> None:
    status, out, _ = run_cli("db", "check")
    assert status == 0 and "the database schema is current" in out
    old = tmp_path / "old"
    old.mkdir()
    (old / "turnproc.toml").write_text('database_url = "sqlite:///old.db"\n', encoding="utf-8")
    os.chdir(old)
    assert run_cli("db", "upgrade", "0005")[0] == 0
    status, out, err = run_cli("db", "check")
    assert status == 1 and "the database schema is out of date" in err and "at revision 0005" in err
    assert "turnproc db upgrade" in err


def test_every_positional_argument_has_help() -> None:
    def walk(parser: argparse.ArgumentParser, path: str) -> list[str]:
        missing = []
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    missing += walk(sub, f"{path} {name}")
            elif not action.option_strings and not action.help:
                missing.append(f"{path}: {action.dest}")
        return missing

    assert walk(build_parser(), "turnproc") == []


@pytest.mark.slow  # a fresh interpreter
def test_a_closed_pipe_is_no_traceback(migrated_default_db: Path, tmp_path: Path) -> None:
    """`turnproc ... | head`: the reader goes away before we write."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("TURNPROC_CONFIG", None)
    env.pop("TURNPROC_DATABASE_URL", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "turnproc", "game", "list", "--json"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 141, err
    assert "Traceback" not in err and "BrokenPipeError" not in err and "Exception ignored" not in err


@pytest.fixture
def gm(tmp_path: Path, db_url: str, smtp_server: SmtpSink):  # type: ignore[no-untyped-def]
    gm = make_gm(tmp_path, db_url, smtp_server)
    gm.ok("game", "new", "g", "--players", "2", "--seed", "s")
    gm.ok("empire", "add", "g", "--code", "RIG", "--name", "Rigel", "--email", "ann@example.org")
    return gm


def test_sql_refuses_a_statement_that_changed_no_rows(  # type: ignore[no-untyped-def]
    gm, tmp_path: Path
) -> None:
    script = tmp_path / "typo.sql"
    script.write_text(
        "UPDATE empires SET vp = 7 WHERE code = 'RIG'"
        " AND game_id = (SELECT id FROM games WHERE name = 'g');\n"
        "UPDATE empires SET vp = 9 WHERE code = 'RGI'"
        " AND game_id = (SELECT id FROM games WHERE name = 'g');\n",
        encoding="utf-8",
    )
    result = gm("sql", "g", str(script))
    assert result.status == 1
    assert "statement 2 (line 2" in result.out and '...") changed no rows' in result.out
    assert "nothing was changed" in result.out and "--allow-no-change" in result.out
    assert json.loads(gm.ok("empire", "show", "g", "RIG", "--json"))["vp"] == 0
    assert json.loads(gm.ok("audit", "g", "--json"))[0]["outcome"] == "no-change"
    result = gm("sql", "g", str(script), "--allow-no-change")
    assert (
        result.status == 0
        and "turnproc: warning: statement 2 (line 2" in result.err
        and "changed no rows" in result.err
    )
    assert json.loads(gm.ok("empire", "show", "g", "RIG", "--json"))["vp"] == 7
    # An INSERT that adds nothing is a script's guard, not a typo: committed without a word.
    guard = tmp_path / "guard.sql"
    guard.write_text(
        "INSERT INTO forces (system_id, empire_id, cruisers, fighters, colony_ships) "
        "SELECT s.id, s.owner_id, 0, 0, 0 FROM systems s WHERE 1 = 0;\n"
        "UPDATE empires SET vp = 8 WHERE code = 'RIG'"
        " AND game_id = (SELECT id FROM games WHERE name = 'g');\n",
        encoding="utf-8",
    )
    result = gm("sql", "g", str(guard))
    assert result.status == 0 and "changed no rows" not in result.err + result.out


def test_json_outputs_parse(gm, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    games = json.loads(gm.ok("game", "list", "--json"))
    assert games == [
        {"name": "g", "turn": 1, "status": "active", "empires": 1, "rules": "engage,pinning,zoc"}
    ]
    shown = json.loads(gm.ok("game", "show", "g", "--json"))
    assert shown["turn_limit"] == 30 and shown["vp_target"] == 100 and shown["missing"] == ["RIG"]
    assert shown["staged_turn"] is None and shown["waiting"] == [] and shown["next_deadline"] is None
    schedule = json.loads(
        gm.ok("game", "schedule", "g", "--cron", "0 20 * * 5", "--tz", "Europe/Paris", "--json")
    )
    assert schedule["timezone"] == "Europe/Paris" and schedule["next_deadline"].endswith("20:00+01:00")
    assert schedule["next_deadline_utc"].endswith("19:00+00:00")
    check = json.loads(gm.ok("check", "g", "--json"))
    assert check == {"game": "g", "ok": True, "problems": [], "rows": []}
    preview = json.loads(gm.ok("turn", "preview", "g", "--empire", "RIG", "--json"))
    assert preview["game"] == "g" and preview["turn"] == 1 and preview["standings"][0]["empire"] == "RIG"
    assert preview["report"].startswith("STAR CHASE")
    assert isinstance(json.loads(gm.ok("audit", "--json")), list)


@given(
    st.text(alphabet=st.characters(codec="utf-8"), max_size=40)
    | st.text(alphabet=st.characters(max_codepoint=127))
)
def test_what_the_cli_prints_holds_no_control_or_format_character(text: str) -> None:
    """Every line a command prints goes through ``printable``: no control
    character but the line break and the tab, no format character (a
    terminal obeys the one, U+202E turns a line around), each written as
    ``\\uXXXX``; a text with none of them, ASCII or not, is printed as it is."""
    shown = printable(text)
    assert not [ch for ch in shown if unicodedata.category(ch) in ("Cc", "Cf") and ch not in "\n\t"]
    unsafe = [ch for ch in text if unicodedata.category(ch) in ("Cc", "Cf") and ch not in "\n\t"]
    if not unsafe:
        assert shown == text
    else:
        assert all(f"\\u{ord(ch):04x}" in shown for ch in unsafe)
