"""Database schema commands: ``turnproc db upgrade|check``."""

from __future__ import annotations

import argparse
from typing import Any

from ..config import load_config
from ..storage import migrate
from ..storage.db import make_engine
from .common import CLIError, add_command, out


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    engine = make_engine(config.database_url)
    migrate.upgrade(engine, args.revision)
    out(f"database at {migrate.current_revision(engine)}")
    return 0


def cmd_db_check(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    engine = make_engine(config.database_url)
    current, head = migrate.current_revision(engine), migrate.head_revision()
    if current != head:
        raise CLIError(f"database is at {current or 'nothing'}, migrations are at {head}: run `turnproc db upgrade`")
    migrate.check(engine)
    out(f"database at {head}; models and migrations agree")
    return 0


def register(sub: Any) -> None:
    db = add_command(sub, "db", lambda a: 2, "Database schema commands.", "turnproc db upgrade")
    dbsub = db.add_subparsers(dest="db_command", metavar="SUBCOMMAND", required=True)
    p = add_command(dbsub, "upgrade", cmd_db_upgrade, "Apply migrations to the database.", "turnproc db upgrade")
    p.add_argument("revision", nargs="?", default="head", help="target revision (default: head)")
    add_command(dbsub, "check", cmd_db_check, "Fail when the models and the migrations disagree.", "turnproc db check")
