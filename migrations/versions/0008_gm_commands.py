"""GM commands: announcements a GM mails to every player, printed again in
the next report

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 02:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "announcements",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("subject", sa.String(length=200), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_announcements_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_announcements")),
    )
    op.create_index("ix_announcements_game_turn", "announcements", ["game_id", "turn"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_announcements_game_turn", table_name="announcements")
    op.drop_table("announcements")
