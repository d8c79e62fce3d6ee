"""rule-set versions: every game records the rule set it was created with
(games from before version 2 are marked 1), and the empire columns rule set 2
needs: the three new techs, the fleet reserve and the probes

Plain ALTER TABLE (SQLite 3.35+ and PostgreSQL both take a column constraint in
ADD COLUMN and drop such a column again): a batch rebuild of ``games`` or
``empires`` would break the GM views that read them (migration 0002).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 02:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

#: (table, column, default, CHECK) of the integer columns this revision adds.
_COLUMNS = (
    ("games", "ruleset", 1, "ruleset IN (1, 2)", "ck_games_ruleset_known"),
    ("empires", "tech_probe", 1, "tech_probe >= 0", "ck_empires_tech_probe_not_negative"),
    ("empires", "tech_hyperspace", 0, "tech_hyperspace >= 0", "ck_empires_tech_hyperspace_not_negative"),
    ("empires", "tech_recovery", 0, "tech_recovery >= 0", "ck_empires_tech_recovery_not_negative"),
    ("empires", "reserve", 0, "reserve >= 0", "ck_empires_reserve_not_negative"),
)


def upgrade() -> None:
    # The server default 1 marks every existing game as rule set 1; new games
    # get their version from the application (default 2).
    for table, column, default, check, name in _COLUMNS:
        op.execute(
            f"ALTER TABLE {table} ADD COLUMN {column} INTEGER NOT NULL DEFAULT {default} "
            f"CONSTRAINT {name} CHECK ({check})"
        )
    op.add_column("empires", sa.Column("active_probe", sa.Integer(), nullable=True))
    op.add_column("empires", sa.Column("inactive_probes", sa.JSON(), nullable=False, server_default="[]"))


def downgrade() -> None:
    op.execute("ALTER TABLE empires DROP COLUMN inactive_probes")
    op.execute("ALTER TABLE empires DROP COLUMN active_probe")
    for table, column, _default, _check, name in reversed(_COLUMNS):
        if op.get_bind().dialect.name == "postgresql":
            op.execute(f"ALTER TABLE {table} DROP CONSTRAINT {name}")
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
