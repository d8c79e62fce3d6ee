"""Migration 0002 on both databases: the GM views work, downgrade removes them
and the new tables, upgrade brings them back, and models and migrations agree."""

from __future__ import annotations

import json

from alembic import command
from sqlalchemy import inspect, text

from turnproc.storage import migrate
from turnproc.storage.db import make_engine

from .conftest import Games

VIEWS = {"gm_empires", "gm_systems", "gm_orders", "gm_missed_turns", "gm_turns"}


def test_views_read_the_game(games: Games) -> None:
    with games.engine.connect() as conn:
        empires = conn.execute(
            text(
                "SELECT code, balance, systems, cruisers FROM gm_empires"
                " WHERE game = 'spring26' ORDER BY code"
            )
        ).all()
        assert [tuple(r) for r in empires] == [("RIG", 34, 3, 8), ("VEG", 34, 2, 5)]
        row = conn.execute(
            text(
                "SELECT owner, cruisers, fighters, links FROM gm_systems"
                " WHERE game = 'spring26' AND code = 101"
            )
        ).one()
        assert tuple(row) == ("RIG", 5, 2, 2)
        missed = conn.execute(
            text("SELECT code, orders_in FROM gm_missed_turns WHERE game = 'autumn' ORDER BY code")
        ).all()
        assert [tuple(r) for r in missed] == [("RIG", 0), ("VEG", 0)]
        assert conn.execute(text("SELECT COUNT(*) FROM gm_orders")).scalar() == 0
        assert conn.execute(text("SELECT COUNT(*) FROM gm_turns")).scalar() == 0


def test_downgrade_and_upgrade_again(empty_db_url: str) -> None:
    engine = make_engine(empty_db_url)
    try:
        migrate.upgrade(engine)
        assert set(inspect(engine).get_view_names()) >= VIEWS
        with engine.begin() as conn:
            command.downgrade(migrate._config(conn), "0001")
        inspector = inspect(engine)
        assert not VIEWS & set(inspector.get_view_names())
        assert not {"audit_log", "turn_archive"} & set(inspector.get_table_names())
        assert "held" not in {c["name"] for c in inspector.get_columns("outbox")}
        migrate.upgrade(engine)
        assert set(inspect(engine).get_view_names()) >= VIEWS
        migrate.check(engine)
    finally:
        engine.dispose()


def test_0003_and_0004_fix_order_sets_already_on_file(db_url: str) -> None:
    """Order sets stored before 0003 carry only their text lines; the upgrade
    gives them the parsed form the turn reads, numbered by their place; 0004
    redacts the password their text still holds."""
    engine = make_engine(db_url)
    try:
        migrate.upgrade(engine)
        with engine.begin() as conn:
            command.downgrade(migrate._config(conn), "0002")
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO games (id, name, seed, modules, turn, status, turn_limit, vp_target,"
                    " timezone, early_run, early_run_delay, reminder_hours, inactive_after, nmr_limit,"
                    " hold, created_at)"
                    " VALUES (901, 'old', 's', '', 1, 'active', 30, 100, 'UTC', false, 30, 24, 5, 50, false,"
                    " '2026-01-01 00:00:00')"
                )
            )
            conn.execute(
                text(
                    "INSERT INTO empires (id, game_id, code, name, email, password_hash, balance, treasury,"
                    " vp, lost_in_space, active, missed_turns, tech_weapons, tech_defence, tech_marines,"
                    " tech_jump, tech_expo, tech_fighter, tech_supply, tech_life_support, tech_bp_income,"
                    " tech_treasury, tech_cultural, tech_drive, tech_scanner)"
                    " VALUES (901, 901, 'RIG', 'R', 'a@example.org', 'x',"
                    " 0, 0, 0, 0, true, 0, 0, 0, 0, 1, 1, 2, 0, 5, 0, 0, 0, 1, 1)"
                )
            )
            conn.execute(
                text(
                    "INSERT INTO orders (game_id, empire_id, turn, raw_text, lines, problems, received_at,"
                    " active, wait) VALUES (901, 901, 1, 'EMPIRE RIG sesame',"
                    ' \'["TAX", "MOVE 101 102 ALL", "NAME 101 Home"]\','
                    " '[]', '2026-01-01 00:00:00', true, false)"
                )
            )
        migrate.upgrade(engine)
        with engine.connect() as conn:
            stored, raw_text = conn.execute(
                text("SELECT orders, raw_text FROM orders WHERE game_id = 901")
            ).one()
        if isinstance(stored, str):  # SQLite hands JSON back as text
            stored = json.loads(stored)
        assert [(o["line"], o["action"]) for o in stored] == [(1, "TAX"), (2, "MOVE"), (3, "NAME")]
        assert stored[1]["number"] == {"count": None, "all_but": 0}
        assert raw_text == "EMPIRE RIG ********"  # 0004 takes the password out
        migrate.check(engine)
    finally:
        engine.dispose()


def test_0011_downgrade_keeps_sent_report_mails_and_drops_unbuilt_ones(empty_db_url: str) -> None:
    """A report mail built when sent has no bytes in the table: going back
    below 0011 keeps the row of one already sent (its bytes emptied, as an
    old sent mail's are) and drops one not sent yet, which that schema could
    not build; upgrading again brings the columns back."""
    engine = make_engine(empty_db_url)
    try:
        migrate.upgrade(engine)
        with engine.begin() as conn:
            for i, sent in ((1, "'2026-01-02 00:00:00'"), (2, "NULL")):
                conn.execute(
                    text(
                        "INSERT INTO outbox (kind, recipient, subject, message_id, body, created_at,"
                        " attempts, last_error, held, sent_at)"
                        f" VALUES ('report', 'a@example.org', 's', '<m{i}@x>', NULL, '2026-01-01 00:00:00',"
                        " 0, '',"
                        f" false, {sent})"
                    )
                )
            command.downgrade(migrate._config(conn), "0010")
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT message_id, body FROM outbox")).all()
        assert [(mid, bytes(body)) for mid, body in rows] == [("<m1@x>", b"")]
        assert "bulletins" not in inspect(engine).get_table_names()
        migrate.upgrade(engine)
        migrate.check(engine)
    finally:
        engine.dispose()
