"""Migration 0002 on both databases: the GM views work, downgrade removes them
and the new tables, upgrade brings them back, and models and migrations agree."""

from __future__ import annotations

from alembic import command
from sqlalchemy import inspect, text

from turnproc.storage import migrate
from turnproc.storage.db import make_engine

from .conftest import Games

VIEWS = {"gm_empires", "gm_systems", "gm_orders", "gm_missed_turns", "gm_turns"}


def test_views_read_the_game(games: Games) -> None:
    with games.engine.connect() as conn:
        empires = conn.execute(
            text("SELECT code, balance, systems, cruisers FROM gm_empires WHERE game = 'spring26' ORDER BY code")
        ).all()
        assert [tuple(r) for r in empires] == [("RIG", 34, 3, 8), ("VEG", 34, 2, 5)]
        row = conn.execute(
            text("SELECT owner, cruisers, fighters, links FROM gm_systems WHERE game = 'spring26' AND code = 101")
        ).one()
        assert tuple(row) == ("RIG", 5, 2, 2)
        missed = conn.execute(text("SELECT code, orders_in FROM gm_missed_turns WHERE game = 'autumn' ORDER BY code")).all()
        assert [tuple(r) for r in missed] == [("RIG", 0), ("VEG", 0)]
        assert conn.execute(text("SELECT COUNT(*) FROM gm_orders")).scalar() == 0
        assert conn.execute(text("SELECT COUNT(*) FROM gm_turns")).scalar() == 0


def test_downgrade_and_upgrade_again(empty_db_url: str) -> None:
    engine = make_engine(empty_db_url)
    try:
        migrate.upgrade(engine)
        assert VIEWS <= set(inspect(engine).get_view_names())
        with engine.begin() as conn:
            command.downgrade(migrate._config(conn), "0001")  # noqa: SLF001 - no public downgrade on purpose
        inspector = inspect(engine)
        assert not VIEWS & set(inspector.get_view_names())
        assert not {"audit_log", "turn_archive"} & set(inspector.get_table_names())
        assert "held" not in {c["name"] for c in inspector.get_columns("outbox")}
        migrate.upgrade(engine)
        assert VIEWS <= set(inspect(engine).get_view_names())
        migrate.check(engine)
    finally:
        engine.dispose()
