"""a game's turn marks (each turn's number, whether it is staged, when it
ran) found in an index that holds them: on SQLite a turn's row keeps them
after its saved state, and reading them read every turn's whole galaxy, a
cost that grew with every turn played

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02 20:45:00
"""

from __future__ import annotations

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_turns_game_marks", "turns", ["game_id", "number", "staged", "ran_at"])


def downgrade() -> None:
    op.drop_index("ix_turns_game_marks", table_name="turns")
