"""player commands: vacations, quitting, address changes, sign-up by mail,
and the game's vacation limit

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 02:20:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


#: Columns with a CHECK constraint, added in plain ALTER TABLE (SQLite and
#: PostgreSQL both accept the constraint there): a batch rebuild of games on
#: SQLite would break the GM views that read it.
CHECKED = [
    "vacation_limit INTEGER DEFAULT 3 NOT NULL"
    " CONSTRAINT ck_games_vacation_limit_range CHECK (vacation_limit BETWEEN 0 AND 100)",
    "signup_limit INTEGER CONSTRAINT ck_games_signup_limit_positive CHECK (signup_limit >= 1)",
]


def upgrade() -> None:
    for column in CHECKED:
        op.execute(f"ALTER TABLE games ADD COLUMN {column}")
    op.add_column("games", sa.Column("signup_open", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.add_column("empires", sa.Column("vacation_until", sa.Integer(), nullable=True))
    op.add_column("empires", sa.Column("quit_at", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "address_changes",
        sa.Column("empire_id", sa.Integer(), nullable=False),
        sa.Column("new_email", sa.String(length=254), nullable=False),
        sa.Column("code_hash", sa.String(length=255), nullable=False),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["empire_id"],
            ["empires.id"],
            name=op.f("fk_address_changes_empire_id_empires"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("empire_id", name=op.f("pk_address_changes")),
    )
    op.create_table(
        "signup_requests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(length=3), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('pending', 'approved', 'refused')", name=op.f("ck_signup_requests_status_valid")
        ),
        sa.CheckConstraint(
            "length(code) = 3 AND upper(code) = code", name=op.f("ck_signup_requests_code_three_capitals")
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_signup_requests_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_signup_requests")),
    )
    op.create_index("ix_signup_requests_game_status", "signup_requests", ["game_id", "status"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_signup_requests_game_status", table_name="signup_requests")
    op.drop_table("signup_requests")
    op.drop_table("address_changes")
    # Plain ALTER (SQLite 3.35+ and PostgreSQL), for the views' sake as above.
    for table, column in (
        ("empires", "quit_at"),
        ("empires", "vacation_until"),
        ("games", "signup_open"),
        ("games", "signup_limit"),
        ("games", "vacation_limit"),
    ):
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
