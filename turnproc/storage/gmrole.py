"""The PostgreSQL role GM scripts run as: DML on the game tables, nothing else.

``turnproc sql`` parses every script with PostgreSQL's parser and refuses
anything but SELECT/INSERT/UPDATE/DELETE on the game tables; on top of that it
runs the script after ``SET LOCAL ROLE turnproc_gm_script``, so the database
itself refuses what the parse check might miss. The role is cluster-wide (one
for every turnproc database on a server), holds no login, and has rights only
where a migration granted them.

Creating it needs CREATEROLE. Without that right the migration logs a warning
and goes on: scripts then run with the parse check alone (see
docs/gm-schema.md), until a database administrator creates the role and grants
it what docs/gm-schema.md lists.
"""

from __future__ import annotations

import logging

from sqlalchemy import Connection, text
from sqlalchemy.exc import DBAPIError

log = logging.getLogger(__name__)

__all__ = ["ROLE", "ensure_role", "grant_statements", "role_usable"]

ROLE = "turnproc_gm_script"


def grant_statements(tables: list[str], views: list[str]) -> list[str]:
    """The GRANTs that give :data:`ROLE` what a GM script needs in this database."""
    out = [f"GRANT SELECT, INSERT, UPDATE, DELETE ON {', '.join(tables)} TO {ROLE}"]
    if views:
        out.append(f"GRANT SELECT ON {', '.join(views)} TO {ROLE}")
    out.append(f"GRANT SELECT ON audit_log, alembic_version TO {ROLE}")
    return out


def ensure_role(conn: Connection, tables: list[str], views: list[str]) -> bool:
    """Create :data:`ROLE` if it is missing and grant it DML on ``tables``;
    False (with a warning logged) when this database user may not."""
    exists = conn.scalar(text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": ROLE}) is not None
    if not exists:
        may = conn.scalar(text("SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user"))
        if not may:
            log.warning(
                "cannot create role %s (the database user lacks CREATEROLE): GM scripts will run "
                "with the parse check only; see docs/gm-schema.md",
                ROLE,
            )
            return False
        # Another database on the server may be creating it at the same moment.
        conn.execute(
            text(
                f"DO $$ BEGIN CREATE ROLE {ROLE} NOLOGIN; "
                "EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$"
            )
        )
    for statement in grant_statements(tables, views):
        conn.execute(text(statement))
    # Sequences: an INSERT takes the next id; nextval()/setval() are refused by the parse check
    # and setval() by the missing UPDATE right.
    for (sequence,) in conn.execute(
        text(
            "SELECT quote_ident(s.relname) FROM pg_class s JOIN pg_depend d ON d.objid = s.oid"
            " JOIN pg_class t ON t.oid = d.refobjid WHERE s.relkind = 'S' AND t.relname = ANY(:t)"
        ),
        {"t": tables},
    ):
        conn.execute(text(f"GRANT USAGE ON SEQUENCE {sequence} TO {ROLE}"))
    if not conn.scalar(text("SELECT pg_has_role(current_user, :r, 'MEMBER')"), {"r": ROLE}):
        try:
            with conn.begin_nested():
                conn.execute(text(f"GRANT {ROLE} TO current_user"))
        except DBAPIError:
            # The role was made by someone else, who did not make us a member.
            log.warning(
                "cannot make the database user a member of role %s: GM scripts will run "
                "with the parse check only; see docs/gm-schema.md",
                ROLE,
            )
            return False
    return True


def role_usable(conn: Connection) -> bool:
    """Can this connection ``SET ROLE`` to :data:`ROLE`?"""
    return bool(
        conn.scalar(
            text(
                "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :r) "
                "AND pg_has_role(current_user, :r, 'MEMBER')"
            ),
            {"r": ROLE},
        )
    )
