"""Every kind of bad script is refused with a message that says what and where,
and the database is left exactly as it was (the audit log gains its entry)."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from turnproc.admin import run_script
from turnproc.storage import models as m

from .conftest import NOW, Games, dump

GAME = "(SELECT id FROM games WHERE name = 'spring26')"
RIG = "(SELECT empire_id FROM gm_empires WHERE game = 'spring26' AND code = 'RIG')"


def _refused(games: Games, script: str, outcome: str):
    before = dump(games.engine, skip=("audit_log",))
    with games.sessions() as session:
        entries = session.scalar(select(func.count()).select_from(m.AuditEntry))
    result = run_script(games.engine, "spring26", script, now=NOW)
    assert result.outcome == outcome, result.detail()
    assert not result.ok
    assert dump(games.engine, skip=("audit_log",)) == before, "the database changed"
    with games.sessions() as session:
        assert session.scalar(select(func.count()).select_from(m.AuditEntry)) == entries + 1
        entry = session.get_one(m.AuditEntry, result.audit_id)
        assert entry.outcome == outcome and entry.script == script and entry.detail == result.detail()
    return result


# -- syntax ------------------------------------------------------------------------------


def test_syntax_error_names_statement_and_line(games: Games) -> None:
    script = (
        f"UPDATE empires SET balance = 1 WHERE game_id = {GAME};\n\n"
        "-- the typo:\nUPDATE empires SET balance = WHERE code = 'RIG';\n"
    )
    if _postgres(games):  # PostgreSQL's parser reads the whole script before anything runs
        result = _refused(games, script, "refused")
        assert result.errors == ['the script cannot be read: line 4: syntax error at or near "WHERE"']
        return
    result = _refused(games, script, "failed")
    (error,) = result.errors
    assert error.startswith('statement 2 (line 4: "UPDATE empires SET balance = WHERE code')
    assert "syntax error" in error


def _postgres(games: Games) -> bool:
    return games.engine.dialect.name == "postgresql"


def test_misspelt_statement_is_refused_before_anything_runs(games: Games) -> None:
    result = _refused(games, "SELECT 1;\n  UPDAT empires SET vp = 3;", "refused")
    expected = (
        'the script cannot be read: line 2: syntax error at or near "UPDAT"; did you mean UPDATE?'
        if _postgres(games)
        else 'statement 2 (line 2: "UPDAT empires SET vp = 3"): syntax error: '
        "'UPDAT' does not begin an SQL statement; did you mean UPDATE?"
    )
    assert result.errors == [expected]
    assert result.statements == []


def test_unclosed_quote_names_its_line(games: Games) -> None:
    result = _refused(games, "SELECT 1;\nUPDATE empires SET name = 'Rigel\n WHERE code = 'RIG';\n", "refused")
    expected = (
        'line 3: syntax error at or near "RIG"'
        if _postgres(games)
        else "line 2: the statement starting here never ends:"
        " a quoted string, quoted name or /* comment is never closed"
    )
    assert result.errors == [f"the script cannot be read: {expected}"]


@pytest.mark.parametrize(
    "statement",
    [
        "COMMIT",
        "BEGIN",
        "ROLLBACK",
        "DROP TABLE forces",
        "PRAGMA foreign_keys = OFF",
        "CREATE TABLE x (a int)",
    ],
)
def test_transaction_control_and_schema_changes_are_refused(games: Games, statement: str) -> None:
    result = _refused(games, f"UPDATE empires SET vp = 3;\n{statement};", "refused")
    if _postgres(games) and statement.startswith("PRAGMA"):  # not SQL to PostgreSQL at all
        assert result.errors == ['the script cannot be read: line 2: syntax error at or near "PRAGMA"']
        return
    assert result.errors[0].startswith("statement 2 (line 2: ") and "is not allowed" in result.errors[0]


def test_empty_script_is_refused(games: Games) -> None:
    assert _refused(games, "-- nothing here\n;\n", "refused").errors == ["the script holds no SQL statement"]


def test_unknown_game_is_refused(games: Games) -> None:
    result = run_script(games.engine, "winter", "SELECT 1;", now=NOW)
    assert (
        result.outcome == "refused" and "no game named 'winter' (games: autumn, spring26)" in result.errors[0]
    )


# -- database constraints --------------------------------------------------------------------


@pytest.mark.parametrize(
    "statement, constraint",
    [
        (f"UPDATE empires SET balance = -5 WHERE code = 'RIG' AND game_id = {GAME}", "balance_not_negative"),
        (f"UPDATE systems SET type = 'XX' WHERE code = 104 AND game_id = {GAME}", "type_valid"),
        (
            f"UPDATE systems SET owner_id = NULL WHERE code = 102 AND game_id = {GAME}",
            "unowned_has_no_population",
        ),
        (
            f"UPDATE empires SET email = 'bo@example.org' WHERE code = 'RIG' AND game_id = {GAME}",
            "uq_empires_game_id_email|empires.game_id, empires.email",
        ),
    ],
)
def test_constraint_violation_names_the_constraint(games: Games, statement: str, constraint: str) -> None:
    result = _refused(games, f"SELECT 1;\n{statement};\n", "failed")
    assert result.errors[0].startswith("statement 2 (line 2: ")
    assert "breaks a database constraint" in result.errors[0] and re.search(constraint, result.errors[0])


def test_rows_pointing_at_a_missing_game_are_refused(games: Games) -> None:
    script = (
        "INSERT INTO empires (game_id, code, name, email, password_hash, balance, treasury, vp,"
        " lost_in_space, active, missed_turns, tech_weapons, tech_defence, tech_marines, tech_jump,"
        " tech_expo, tech_fighter, tech_supply, tech_life_support, tech_bp_income, tech_treasury,"
        " tech_cultural, tech_drive, tech_scanner)"
        " VALUES (9999, 'ORP', 'Orphans', 'o@example.org', 'x', 0, 0, 0, 0, TRUE, 0, 0, 0, 0,"
        " 1, 1, 2, 0, 5, 0, 0, 0, 1, 1);"
    )
    result = _refused(games, script, "failed")
    assert "breaks a database constraint" in result.errors[0] and "FOREIGN KEY" in result.errors[0].upper()


# -- invariants ---------------------------------------------------------------------------


def test_ships_in_an_unlinked_system(games: Games) -> None:
    # 103 holds RIG cruisers; cut it off from the map.
    script = f"DELETE FROM links WHERE game_id = {GAME} AND (a = 103 OR b = 103);"
    result = _refused(games, script, "rejected")
    (v,) = [v for v in result.violations if v.code == "unreachable"]
    assert 103 in v.systems
    assert any(
        row.startswith("system 103: type RD, owner RIG") and "RIG 3/0/0" in row and "links 0" in row
        for row in result.rows
    )


def test_new_system_with_ships_and_no_link(games: Games) -> None:
    script = (
        'INSERT INTO systems (game_id, code, type, "row", col, name, pop, industry, stance, retreat_parts,'
        " ever_owned, home_slot, owner_id)"
        f" VALUES ({GAME}, 105, 'YD', 5, 5, '', 0, 0, 'DEFEND', 1, TRUE, FALSE, {RIG});\n"
        f"INSERT INTO forces (system_id, empire_id, cruisers, fighters, colony_ships)"
        " VALUES ((SELECT system_id FROM gm_systems WHERE game = 'spring26' AND code = 105),"
        f" {RIG}, 4, 0, 0);\n"
    )
    result = _refused(games, script, "rejected")
    assert [v.code for v in result.violations] == ["unreachable"] and result.violations[0].systems == (105,)


def test_ships_under_an_empire_that_does_not_own_the_system(games: Games) -> None:
    script = (
        "UPDATE forces SET empire_id = (SELECT empire_id FROM gm_empires WHERE game = 'spring26'"
        " AND code = 'VEG')\n"
        "WHERE system_id = (SELECT system_id FROM gm_systems WHERE game = 'spring26' AND code = 103);"
    )
    result = _refused(games, script, "rejected")
    (v,) = result.violations
    assert v.code == "ships_not_owners" and v.systems == (103,) and v.empires == ("VEG", "RIG")
    assert "owned by RIG" in v.message


def test_orphan_empire(games: Games) -> None:
    script = (
        "INSERT INTO empires (game_id, code, name, email, password_hash, balance, treasury, vp,"
        " lost_in_space, active, missed_turns, tech_weapons, tech_defence, tech_marines, tech_jump,"
        " tech_expo, tech_fighter, tech_supply, tech_life_support, tech_bp_income, tech_treasury,"
        " tech_cultural, tech_drive, tech_scanner)"
        f" VALUES ({GAME}, 'ORP', 'Orphans', 'o@example.org', 'x', 0, 0, 0, 0, TRUE, 0, 0, 0, 0,"
        " 1, 1, 2, 0, 5, 0, 0, 0, 1, 1);"
    )
    result = _refused(games, script, "rejected")
    assert [(v.code, v.empires) for v in result.violations] == [("empire_unplaced", ("ORP",))]
    assert any(row.startswith("empire ORP (Orphans, game spring26)") for row in result.rows)


def test_base_in_a_system_the_empire_lost(games: Games) -> None:
    script = f"UPDATE empires SET base = 201 WHERE code = 'RIG' AND game_id = {GAME};"
    result = _refused(games, script, "rejected")
    assert [(v.code, v.systems, v.empires) for v in result.violations] == [
        ("base_not_owned", (201,), ("RIG",))
    ]


def test_several_problems_are_all_named(games: Games) -> None:
    script = (
        f"UPDATE systems SET industry = 500 WHERE code = 102 AND game_id = {GAME};\n"
        f"UPDATE empires SET home = 104 WHERE code = 'VEG' AND game_id = {GAME};\n"
    )
    result = _refused(games, script, "rejected")
    assert {v.code for v in result.violations} == {"industry_over_limit", "home_not_owned"}


# -- other games ----------------------------------------------------------------------------


def test_script_touching_another_game_is_refused(games: Games) -> None:
    script = "UPDATE empires SET balance = balance + 100 WHERE code = 'RIG';"  # forgot the game
    result = _refused(games, script, "rejected")
    (v,) = result.violations
    assert v.code == "other_game_changed"
    assert "table empires" in v.message and "game 'autumn'" in v.message and "1 changed" in v.message


def test_script_moving_a_row_into_this_game_is_refused(games: Games) -> None:
    script = (
        "UPDATE orders SET game_id = 1 WHERE 1 = 0;\n"
        f"INSERT INTO links (game_id, a, b) SELECT {GAME}, 101, 104 WHERE 1 = 0;\n"
        f"UPDATE inbound_messages SET game_id = {GAME};\n"
        "INSERT INTO inbound_messages (sha256, sender, subject, outcome, detail, received_at)"
        " VALUES ('x', 'a@b', 's', 'ignored', '', '2026-01-01 00:00:00+00');\n"
    )
    result = _refused(games, script, "rejected")
    assert [v.code for v in result.violations] == ["other_game_changed"]
    assert "table inbound_messages: 1 added" in result.violations[0].message


def test_deleting_the_game_is_refused(games: Games) -> None:
    run_script(games.engine, "spring26", "SELECT 1;", now=NOW)  # an audit entry naming the game
    if not _postgres(games):
        # SQLite's authorizer sees the foreign key's SET NULL on the audit log.
        result = _refused(games, "DELETE FROM games WHERE name = 'spring26';", "failed")
        assert result.errors == [
            "statement 1 (line 1: \"DELETE FROM games WHERE name = 'spring26'\") was refused: "
            "UPDATE on audit_log is not allowed; the audit log is only ever added to by turnproc"
        ]
        return
    result = _refused(games, "DELETE FROM games WHERE name = 'spring26';", "rejected")
    codes = [v.code for v in result.violations]
    assert "game_missing" in codes
    # The audit entry's link to the game would have been cut by the cascade.
    assert any("audit log may not be edited" in v.message for v in result.violations)


def test_audit_log_cannot_be_edited_by_a_script(games: Games) -> None:
    run_script(games.engine, "spring26", "SELECT 1;", now=NOW)
    result = _refused(games, "DELETE FROM audit_log;", "refused" if _postgres(games) else "failed")
    (error,) = result.errors
    assert error.startswith('statement 1 (line 1: "DELETE FROM audit_log")')
    assert error.endswith(
        "DELETE on audit_log is not allowed; the audit log is only ever added to by turnproc"
    )


def test_percent_and_colon_in_literals_are_not_parameters(games: Games) -> None:
    script = (
        f"UPDATE empires SET name = 'R%s :name 100%' WHERE code = 'RIG' AND game_id = {GAME};\n"
        "SELECT name FROM empires WHERE name LIKE 'R\\%%' ESCAPE '\\';"
    )
    result = run_script(games.engine, "spring26", script, now=NOW)
    assert result.outcome == "committed", result.detail()
    assert result.statements[1].rows == [("R%s :name 100%",)]


@pytest.mark.parametrize(
    "assignment, code",
    [
        ("modules = 'zoc,warp'", "game_modules"),
        ("timezone = 'Mars/Olympus'", "game_timezone"),
        ("schedule = '0 25 * * *'", "game_schedule"),
    ],
)
def test_game_settings_the_worker_trusts(games: Games, assignment: str, code: str) -> None:
    result = _refused(games, f"UPDATE games SET {assignment} WHERE name = 'spring26';", "rejected")
    assert [v.code for v in result.violations] == [code]


def test_a_value_that_cannot_be_read_back(games: Games) -> None:
    # SQLite stores the text and only reading it back fails; PostgreSQL refuses the UPDATE.
    script = "UPDATE games SET deadline_override = 'next friday' WHERE name = 'spring26';"
    before = dump(games.engine, skip=("audit_log",))
    result = run_script(games.engine, "spring26", script, now=NOW)
    assert result.outcome in ("rejected", "failed") and dump(games.engine, skip=("audit_log",)) == before
    assert "next friday" in result.detail()
