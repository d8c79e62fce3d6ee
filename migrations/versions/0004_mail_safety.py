"""mail safety: the Date of each order mail, failed mails set aside, answers
not sent, and no password left in stored order text

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 23:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from turnproc.orders.redact import redact_passwords

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("orders", sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "inbound_failures",
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("first_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("set_aside_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("sha256", name=op.f("pk_inbound_failures")),
    )
    op.create_table(
        "suppressed_replies",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("recipient", sa.String(length=254), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("reason", sa.String(length=200), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_suppressed_replies_game_id_games"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_suppressed_replies")),
    )
    op.create_index(op.f("ix_suppressed_replies_game_id"), "suppressed_replies", ["game_id"], unique=False)
    # Order text stored before this revision still holds the header's password.
    table = sa.table("orders", sa.column("id", sa.Integer), sa.column("raw_text", sa.Text))
    conn = op.get_bind()
    for row_id, raw in conn.execute(sa.select(table.c.id, table.c.raw_text)).all():
        clean = redact_passwords(raw or "")
        if clean != raw:
            conn.execute(table.update().where(table.c.id == row_id).values(raw_text=clean))


def downgrade() -> None:
    op.drop_index(op.f("ix_suppressed_replies_game_id"), table_name="suppressed_replies")
    op.drop_table("suppressed_replies")
    op.drop_table("inbound_failures")
    op.execute("ALTER TABLE orders DROP COLUMN sent_at")
