"""the outbox's unsent mails in claim order: a flush's claim walks them by id
and stops at its batch, instead of reading and sorting every unsent mail

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02 10:00:00
"""

from __future__ import annotations

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_outbox_pending", table_name="outbox")
    op.create_index("ix_outbox_unsent", "outbox", ["sent_at", "id"])


def downgrade() -> None:
    op.drop_index("ix_outbox_unsent", table_name="outbox")
    op.create_index("ix_outbox_pending", "outbox", ["sent_at", "next_attempt_at"])
