"""gm script role: on PostgreSQL, the role GM scripts run as (DML on the game tables only)

``turnproc sql`` runs each script after ``SET LOCAL ROLE turnproc_gm_script``;
see turnproc/storage/gmrole.py. A database user without CREATEROLE gets a
warning and no role: scripts then run with the parse check only. Nothing on
SQLite, where the sqlite3 authorizer does the same job.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30 23:50:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from turnproc.storage.gmrole import ROLE, ensure_role

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

#: The game tables at this revision: every table but audit_log (and alembic_version).
TABLES = [
    "games",
    "empires",
    "systems",
    "links",
    "forces",
    "seen",
    "orders",
    "turns",
    "reports",
    "inbound_messages",
    "inbound_failures",
    "suppressed_replies",
    "outbox",
    "turn_archive",
]
VIEWS = ["gm_empires", "gm_systems", "gm_orders", "gm_missed_turns", "gm_turns"]


def upgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name != "postgresql":
        return
    ensure_role(conn, TABLES, VIEWS)


def downgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name != "postgresql":
        return
    # The role is the server's, shared by every turnproc database on it: only
    # this database's grants go.
    if conn.scalar(sa.text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": ROLE}) is not None:
        op.execute(f"REVOKE ALL ON {', '.join(TABLES + VIEWS)}, audit_log, alembic_version FROM {ROLE}")
        op.execute(f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {ROLE}")
