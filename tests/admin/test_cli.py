"""The GM tools from the command line, end to end on the embedded default
(SQLite in the working directory), following docs/gm-schema.md."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

ADMIN = Path(__file__).resolve().parents[2] / "deploy" / "admin"


@pytest.fixture
def run(migrated_default_db, run_cli):
    return run_cli


@pytest.fixture
def spring(run, tmp_path: Path) -> dict[str, int]:
    """A generated two-player game after one turn; RIG's BASE and HOME codes."""
    assert run("game", "new", "spring26", "--players", "2", "--seed", "cli-gm")[0] == 0
    run("empire", "add", "spring26", "--code", "RIG", "--name", "Rigel", "--email", "ann@example.org")
    run("empire", "add", "spring26", "--code", "VEG", "--name", "Vega", "--email", "bo@example.org")
    assert run("turn", "run", "spring26", "--yes", "--force")[0] == 0
    _, out, _ = run("report", "spring26", "RIG", "--format", "json")
    empire = json.loads(out)["empire"]
    return {"base": empire["base"], "home": empire["home"]}


def _sql(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body)
    return str(path)


def test_check_on_a_sound_game(run, spring) -> None:
    code, out, _ = run("check", "spring26")
    assert code == 0 and out == "game spring26: every invariant holds\n"


def test_check_lists_each_problem_with_its_rows(run, spring, tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'turnproc.db'}")
    with engine.begin() as conn:  # a hand edit that bypassed `turnproc sql`
        conn.execute(text("DELETE FROM links WHERE a = :c OR b = :c"), {"c": spring["base"]})
    engine.dispose()
    code, out, err = run("check", "spring26")
    assert code == 1 and "problem(s)" in err
    assert re.search(rf"^unreachable: systems not reachable by links: .*{spring['base']}", out, re.MULTILINE)
    assert f"system {spring['base']}: type" in out and "links 0" in out


def test_the_fleet_vanished_walkthrough(run, spring, tmp_path: Path) -> None:
    base = spring["base"]
    # 1. Where are RIG's ships?
    look = _sql(
        tmp_path,
        "look.sql",
        "SELECT code, owner, cruisers FROM gm_systems"
        " WHERE game = 'spring26' AND owner = 'RIG' ORDER BY code;",
    )
    code, out, _ = run("sql", "spring26", look, "--dry-run")
    assert code == 0 and "code  owner  cruisers" in out and "dry run" in out
    cruisers = int(re.search(rf"^  {base}\s+RIG\s+(\d+)", out, re.MULTILINE).group(1))
    # 2. The fix, dry run first, then for real.
    fix = _sql(tmp_path, "fix.sql", (ADMIN / "add_ships.sql").read_text().replace("101", str(base)))
    code, out, _ = run("sql", "spring26", fix, "--dry-run")
    assert code == 0 and "would pass every check" in out
    code, out, _ = run("sql", "spring26", fix)
    assert code == 0 and "committed: game spring26 passes every check (audit entry" in out
    assert re.search(rf"^  {base}\s+RIG\s+{cruisers + 4}\b", out, re.MULTILINE)
    # 3. The record.
    code, out, _ = run("audit", "spring26", "--full")
    assert code == 0
    first, second, _ = [line for line in out.splitlines() if line.startswith("#")]
    assert " sql spring26 committed sha256 " in first and " sql spring26 dry-run " in second
    assert "| UPDATE forces" in out
    code, out, _ = run("check", "spring26")
    assert code == 0


def test_sql_refuses_a_bad_script_with_exit_1(run, spring, tmp_path: Path) -> None:
    bad = _sql(tmp_path, "bad.sql", "SELECT 1;\nUPDATE empires SET balance = -3 WHERE code = 'RIG';\n")
    code, out, err = run("sql", "spring26", bad)
    assert code == 1 and "not applied" in err
    assert 'statement 2 (line 2: "UPDATE empires SET balance = -3' in out and "balance_not_negative" in out
    assert "rolled back: a statement failed; nothing was changed" in out


def test_sql_with_an_unreadable_file(run, spring) -> None:
    code, _, err = run("sql", "spring26", "missing.sql")
    assert code == 1 and "cannot read missing.sql" in err


def test_turn_tools_from_the_command_line(run, spring, tmp_path: Path) -> None:
    code, out, _ = run("turn", "preview", "spring26", "--empire", "RIG")
    assert (
        code == 0 and "turn 2 would produce" in out and "turn 2 report" in out and "nothing was saved" in out
    )
    assert run("turn", "hold", "spring26")[0] == 0
    code, out, _ = run("turn", "run", "spring26", "--yes", "--force")
    assert code == 0 and "staged" in out and "turnproc turn release spring26" in out
    code, _, err = run("turn", "run", "spring26", "--yes", "--force")
    assert code == 1 and "turn 2 of game spring26 is staged" in err
    code, out, _ = run("turn", "discard", "spring26")
    assert code == 0 and "back at turn 2" in out
    assert run("turn", "run", "spring26", "--yes", "--force")[0] == 0
    code, out, _ = run("turn", "release", "spring26")
    assert code == 0 and "turn 2 released, 2 mails ready" in out and "mails sent" in out
    code, out, _ = run("turn", "rollback", "spring26", "--to", "2")
    assert code == 0 and "archived turn(s) 2" in out and "turnproc turn rerun spring26 2" in out
    code, out, _ = run("turn", "rerun", "spring26", "2")
    assert code == 0 and "2 corrected reports" in out and "turn release" in out  # still on hold
    assert run("turn", "release", "spring26", "--no-send")[0] == 0
    code, out, _ = run("turn", "hold", "spring26", "--off")
    assert code == 0
    code, out, _ = run("audit", "spring26")
    actions = re.findall(r" (hold|release|rerun|rollback|discard|sql) spring26 ", out)
    assert actions == ["hold", "release", "rerun", "rollback", "release", "discard", "hold"]
