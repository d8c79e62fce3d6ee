"""outbox claims: a flush claims each mail with a lease before delivering it,
so any number of workers deliver each mail once

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("claimed_by", sa.String(length=200), nullable=True))
        batch.add_column(sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("claimed_until")
        batch.drop_column("claimed_by")
