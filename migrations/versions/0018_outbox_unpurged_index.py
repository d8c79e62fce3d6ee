"""the old sent mails that still hold their bytes found in an index of them
alone: the purge after every flush read every mail ever sent, a cost that
grew with every night of the game

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02 21:20:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

# As turnproc/storage/mailtables.py's UNPURGED renders it.
UNPURGED = sa.text("length(body) > 0 OR data IS NOT NULL")


def upgrade() -> None:
    op.create_index(
        "ix_outbox_unpurged", "outbox", ["sent_at"], sqlite_where=UNPURGED, postgresql_where=UNPURGED
    )


def downgrade() -> None:
    op.drop_index("ix_outbox_unpurged", table_name="outbox")
