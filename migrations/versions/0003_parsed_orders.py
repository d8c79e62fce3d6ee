"""parsed orders: the orders on file kept as the engine reads them

``orders.orders`` holds each accepted order as ``Order.to_dict()``, numbered by
its place among the stored lines; the turn reads them without parsing text
again. Rows written before this revision are filled in from their canonical
``lines``, which the one parser reads back to the same orders.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 22:50:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from turnproc.orders.parser import parse_orders

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("orders", sa.Column("orders", sa.JSON(), nullable=False, server_default="[]"))
    table = sa.table(
        "orders", sa.column("id", sa.Integer), sa.column("lines", sa.JSON), sa.column("orders", sa.JSON)
    )
    conn = op.get_bind()
    for row_id, lines in conn.execute(sa.select(table.c.id, table.c.lines)).all():
        parsed = parse_orders("\n".join(lines or []))
        conn.execute(
            table.update().where(table.c.id == row_id).values(orders=[o.to_dict() for o in parsed.orders])
        )


def downgrade() -> None:
    # Plain ALTER (SQLite 3.35+ and PostgreSQL): a batch rebuild of the table
    # would break the GM views that read it.
    op.execute("ALTER TABLE orders DROP COLUMN orders")
