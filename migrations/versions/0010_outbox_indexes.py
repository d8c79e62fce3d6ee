"""indexes for a thousand-empire night: the reply caps (outbox by recipient,
kind and time), the reminders (outbox by game, kind and turn) and the hour's
wrong passwords (inbound mail by outcome and time)

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 03:00:00
"""

from __future__ import annotations

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_outbox_recipient_kind_created", "outbox", ["recipient", "kind", "created_at"])
    op.create_index("ix_outbox_game_kind_turn", "outbox", ["game_id", "kind", "turn"])
    op.create_index("ix_inbound_outcome_received", "inbound_messages", ["outcome", "received_at"])


def downgrade() -> None:
    op.drop_index("ix_inbound_outcome_received", table_name="inbound_messages")
    op.drop_index("ix_outbox_game_kind_turn", table_name="outbox")
    op.drop_index("ix_outbox_recipient_kind_created", table_name="outbox")
