"""Database schema commands: ``turnproc db upgrade|check``."""

from __future__ import annotations

import argparse
from typing import Any

from .common import CLIError, add_command, config_from, out, refuse_missing, safe_url


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..storage import migrate
    from ..storage.db import make_engine  # (as above)

    config = config_from(args)
    engine = make_engine(config.database_url)
    migrate.upgrade(engine, args.revision)
    out(f"database at {migrate.current_revision(engine)}")
    return 0


def cmd_db_check(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..storage import migrate
    from ..storage.db import make_engine  # (as above)

    config = config_from(args)
    refuse_missing(config.database_url, schema=False)
    engine = make_engine(config.database_url)
    where = safe_url(config.database_url)
    current, head = migrate.current_revision(engine), migrate.head_revision()
    if current is None:
        raise CLIError(f"the database {where} has no turnproc schema: run `turnproc db upgrade` to create it")
    if current != head:
        raise CLIError(
            f"the database schema is out of date: {where} is at revision {current}, this turnproc needs "
            f"{head}; back the database up, then run `turnproc db upgrade`"
        )
    migrate.check(engine)
    out(f"the database schema is current (revision {head}): {where} matches this turnproc")
    return 0


def register(sub: Any) -> None:
    db = add_command(sub, "db", lambda a: 2, "Database schema commands.", "turnproc db upgrade")
    dbsub = db.add_subparsers(dest="db_command", metavar="SUBCOMMAND", required=True)
    p = add_command(
        dbsub, "upgrade", cmd_db_upgrade, "Apply migrations to the database.", "turnproc db upgrade"
    )
    p.add_argument("revision", nargs="?", default="head", help="target revision (default: head)")
    add_command(
        dbsub,
        "check",
        cmd_db_check,
        "Say whether the database's schema is current; fail when it is not.",
        "turnproc db check",
    )
