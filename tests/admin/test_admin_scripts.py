"""Each example script in deploy/admin/ runs unchanged on the test game, is
committed, audited, and does what its header says — on SQLite and PostgreSQL."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from turnproc.admin import run_script
from turnproc.storage import models as m
from turnproc.storage.convert import load_state

from .conftest import NOW, Games, dump

ADMIN = Path(__file__).resolve().parents[2] / "deploy" / "admin"
SCRIPTS = sorted(p.name for p in ADMIN.glob("*.sql"))


def _run(games: Games, name: str):
    script = (ADMIN / name).read_text(encoding="utf-8")
    result = run_script(games.engine, "spring26", script, now=NOW)
    assert result.outcome == "committed", result.detail()
    return result


def _state(games: Games):
    with games.sessions() as session:
        return load_state(session, session.get_one(m.Game, games.spring))


def test_every_script_has_a_header_saying_what_and_which_values() -> None:
    assert len(SCRIPTS) >= 4
    for name in SCRIPTS:
        head = (ADMIN / name).read_text(encoding="utf-8").split("\n\n")[0]
        assert head.startswith(f"-- {name} - "), name
        text = (ADMIN / name).read_text(encoding="utf-8")
        assert "-- What it does:" in text and "-- Change:" in text and "-- Run:" in text, name


def test_the_scripts_are_tested() -> None:
    tested = {name for name in re.findall(r'"(\w+\.sql)"', Path(__file__).read_text())}
    assert set(SCRIPTS) <= tested


def test_give_bp(games: Games) -> None:
    before = _state(games).empires["RIG"].balance
    result = _run(games, "give_bp.sql")
    assert _state(games).empires["RIG"].balance == before + 50
    assert result.statements[-1].rows == [("RIG", "Rigel League", before + 50, 50)]
    with games.sessions() as session:
        entry = session.get_one(m.AuditEntry, result.audit_id)
        assert (entry.action, entry.outcome, entry.game_name) == ("sql", "committed", "spring26")
        assert entry.script == (ADMIN / "give_bp.sql").read_text(encoding="utf-8")
        assert entry.sha256 == result.sha256 and entry.os_user


def test_move_fleet(games: Games) -> None:
    _run(games, "move_fleet.sql")
    state = _state(games)
    assert (state.systems[101].cruisers, state.systems[103].cruisers) == (2, 6)


def test_move_fleet_to_a_system_the_empire_does_not_own_is_refused(games: Games) -> None:
    before = dump(games.engine, skip=("audit_log",))
    script = (ADMIN / "move_fleet.sql").read_text().replace("103", "104")
    result = run_script(games.engine, "spring26", script, now=NOW)
    assert result.outcome == "rejected"
    assert {v.code for v in result.violations} >= {"ships_not_owners"}
    assert dump(games.engine, skip=("audit_log",)) == before


def test_move_fleet_with_too_few_ships_is_refused(games: Games) -> None:
    script = (ADMIN / "move_fleet.sql").read_text().replace("- 3", "- 30").replace("+ 3", "+ 30")
    result = run_script(games.engine, "spring26", script, now=NOW)
    assert result.outcome == "failed"
    assert "statement 2 (line" in result.errors[0] and "cruisers_not_negative" in result.errors[0]


def test_hand_system(games: Games) -> None:
    _run(games, "hand_system.sql")
    state = _state(games)
    assert state.systems[103].owner == "VEG" and state.systems[103].cruisers == 3
    assert state.empires["RIG"].base == 101  # 103 was not RIG's BASE: untouched


def test_hand_system_that_was_a_base_clears_it(games: Games) -> None:
    script = (ADMIN / "hand_system.sql").read_text().replace("103", "101")
    result = run_script(games.engine, "spring26", script, now=NOW)
    assert result.outcome == "committed", result.detail()
    state = _state(games)
    assert state.systems[101].owner == "VEG" and state.empires["RIG"].base is None


def test_a_bad_address_is_refused_by_the_checks(games: Games) -> None:
    """(Addresses are changed with `turnproc empire set-email`; a script that
    writes one is still checked.)"""
    script = (
        "UPDATE empires SET email = 'ann at home' WHERE code = 'RIG'"
        " AND game_id = (SELECT id FROM games WHERE name = 'spring26');"
    )
    result = run_script(games.engine, "spring26", script, now=NOW)
    assert result.outcome == "rejected" and [v.code for v in result.violations] == ["email_invalid"]


def test_add_ships(games: Games) -> None:
    _run(games, "add_ships.sql")
    assert _state(games).systems[101].cruisers == 9


@pytest.mark.parametrize("name", SCRIPTS)
def test_dry_run_changes_nothing_but_is_audited(games: Games, name: str) -> None:
    before = dump(games.engine, skip=("audit_log",))
    result = run_script(games.engine, "spring26", (ADMIN / name).read_text(), now=NOW, dry_run=True)
    assert result.outcome == "dry-run", result.detail()
    assert dump(games.engine, skip=("audit_log",)) == before
    with games.sessions() as session:
        assert session.get_one(m.AuditEntry, result.audit_id).outcome == "dry-run"
