"""answers built when sent: an acknowledgement is queued as what it says
(outbox.data, JSON) and its bytes are built when it goes, as a report's are

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03 18:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.add_column(sa.Column("data", sa.Text(), nullable=True))


def downgrade() -> None:
    # An answer still to be built has no bytes this schema could send: it is
    # dropped; a sent one keeps its row, emptied as an old sent mail's bytes are.
    outbox = sa.table(
        "outbox",
        sa.column("body", sa.LargeBinary()),
        sa.column("data", sa.Text()),
        sa.column("sent_at", sa.DateTime(timezone=True)),
    )
    op.execute(
        outbox.delete().where(outbox.c.data.is_not(None), outbox.c.body.is_(None), outbox.c.sent_at.is_(None))
    )
    op.execute(outbox.update().where(outbox.c.data.is_not(None), outbox.c.body.is_(None)).values(body=b""))
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_column("data")
