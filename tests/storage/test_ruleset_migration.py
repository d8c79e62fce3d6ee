"""Migration 0009 on both databases: games created before rule set 2 are marked
rule set 1 (rules.md §19), their empires get the new columns at their start
values, a new game is rule set 2, and downgrade and upgrade again both work."""

from __future__ import annotations

import json

import pytest
from alembic import command
from sqlalchemy import Connection, inspect, text

from turnproc.storage import migrate
from turnproc.storage.db import make_engine

NEW_EMPIRE_COLUMNS = {
    "tech_probe",
    "tech_hyperspace",
    "tech_recovery",
    "reserve",
    "active_probe",
    "inactive_probes",
}


def _old_game(conn: Connection) -> None:
    conn.execute(
        text(
            "INSERT INTO games (id, name, seed, modules, turn, status, turn_limit, vp_target, timezone,"
            " early_run, early_run_delay, reminder_hours, inactive_after, nmr_limit, hold, created_at)"
            " VALUES (901, 'old', 's', '', 1, 'active', 30, 100, 'UTC', false, 30, 24, 5, 50, false,"
            " '2026-01-01 00:00:00')"
        )
    )
    conn.execute(
        text(
            "INSERT INTO empires (id, game_id, code, name, email, password_hash, balance, treasury, vp,"
            " lost_in_space, active, missed_turns, tech_weapons, tech_defence, tech_marines, tech_jump,"
            " tech_expo, tech_fighter, tech_supply, tech_life_support, tech_bp_income, tech_treasury,"
            " tech_cultural, tech_drive, tech_scanner) VALUES (901, 901, 'RIG', 'R', 'a@example.org', 'x',"
            " 0, 0, 0, 0, true, 0, 0, 0, 0, 1, 1, 2, 0, 5, 0, 0, 0, 1, 1)"
        )
    )


@pytest.mark.slow
def test_r19_migration_0009_marks_existing_games_rule_set_1(empty_db_url: str) -> None:
    engine = make_engine(empty_db_url)
    try:
        migrate.upgrade(engine)
        with engine.begin() as conn:
            command.downgrade(migrate._config(conn), "0009-1")
        inspector = inspect(engine)
        assert "ruleset" not in {c["name"] for c in inspector.get_columns("games")}
        assert not NEW_EMPIRE_COLUMNS & {c["name"] for c in inspector.get_columns("empires")}
        with engine.begin() as conn:
            _old_game(conn)
        migrate.upgrade(engine)
        migrate.check(engine)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT ruleset FROM games WHERE id = 901")).scalar() == 1
            row = conn.execute(
                text(
                    "SELECT tech_probe, tech_hyperspace, tech_recovery, reserve, active_probe,"
                    " inactive_probes FROM empires WHERE id = 901"
                )
            ).one()
        probes = json.loads(row[5]) if isinstance(row[5], str) else row[5]
        assert tuple(row[:5]) == (1, 0, 0, 0, None) and probes == []
        with engine.begin() as conn:  # the database refuses an unknown rule set
            try:
                with conn.begin_nested():
                    conn.execute(text("UPDATE games SET ruleset = 3 WHERE id = 901"))
                raise AssertionError("ruleset 3 was accepted")
            except Exception as exc:  # noqa: BLE001 - either driver's IntegrityError
                assert "ruleset" in str(exc).lower() or "check" in str(exc).lower()
        with engine.begin() as conn:
            command.downgrade(migrate._config(conn), "0009-1")
        migrate.upgrade(engine)
        migrate.check(engine)
    finally:
        engine.dispose()
