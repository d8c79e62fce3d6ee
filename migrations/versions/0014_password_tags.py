"""password tags and the wrong-password digests: empires.password_tag (a short
keyed tag checked before scrypt), empires.guessing_told_at and
games.guessing_told_at (the owner's and the GM's last digest of wrong-password
mails); the per-sender lockout is gone and needs no column

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02 05:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


#: (table, column, type) of the columns this revision adds, all NULL on rows on file.
_COLUMNS = (
    ("empires", "password_tag", sa.String(length=32)),
    ("empires", "guessing_told_at", sa.DateTime(timezone=True)),
    ("games", "guessing_told_at", sa.DateTime(timezone=True)),
)


def upgrade() -> None:
    # Empires on file get no tag here (their passwords are not known): each
    # gets one the first time its password is checked correct or set. Plain
    # ADD COLUMN (no batch copy of the table): the admin views name these tables.
    for table, column, kind in _COLUMNS:
        op.add_column(table, sa.Column(column, kind, nullable=True))


def downgrade() -> None:
    for table, column, _kind in reversed(_COLUMNS):
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
