"""join confirmed: a JOIN becomes a request for the GM only once the code
mailed to its address comes back (signup_requests.code_hash, confirmed_at)

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02 05:10:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("signup_requests", schema=None) as batch_op:
        batch_op.add_column(sa.Column("code_hash", sa.String(length=255), nullable=True))
        batch_op.add_column(sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True))
    # A request made before this revision was answered from its address
    # already: it stays one the GM decides on.
    requests = sa.table(
        "signup_requests",
        sa.column("confirmed_at", sa.DateTime(timezone=True)),
        sa.column("requested_at", sa.DateTime(timezone=True)),
    )
    op.execute(requests.update().values(confirmed_at=requests.c.requested_at))


def downgrade() -> None:
    # Requests never confirmed were nobody's: they go with the columns.
    requests = sa.table("signup_requests", sa.column("confirmed_at", sa.DateTime(timezone=True)))
    op.execute(requests.delete().where(requests.c.confirmed_at.is_(None)))
    with op.batch_alter_table("signup_requests", schema=None) as batch_op:
        batch_op.drop_column("confirmed_at")
        batch_op.drop_column("code_hash")
