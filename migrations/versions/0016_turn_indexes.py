"""what is read by turn, found by turn: a game's orders of one turn, its
reports from a turn on and its staged turn, where the game's index alone read
every turn's rows

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02 08:00:00
"""

from __future__ import annotations

from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_orders_game_turn", "orders", ["game_id", "turn"])
    op.create_index("ix_reports_game_turn", "reports", ["game_id", "turn"])
    op.create_index("ix_turns_game_staged", "turns", ["game_id", "staged"])


def downgrade() -> None:
    op.drop_index("ix_turns_game_staged", table_name="turns")
    op.drop_index("ix_reports_game_turn", table_name="reports")
    op.drop_index("ix_orders_game_turn", table_name="orders")
