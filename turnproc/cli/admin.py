"""The GM's checked SQL, invariant checks and audit log: ``turnproc sql|check|audit``."""

from __future__ import annotations

import argparse
from typing import Any

from ..admin import (
    audit,
    check_game,
    describe_rows,
    format_violation,
    result_lines,
    run_script,
)
from ..storage.queries import get_game
from .common import CLIError, add_command, now, open_from, out, read_input


def cmd_sql(args: argparse.Namespace) -> int:
    script = read_input(args.file)
    app = open_from(args)
    result = run_script(app.engine, args.game, script, now=now(), dry_run=args.dry_run)
    for line in result_lines(result):
        out(line)
    if not result.ok:
        raise CLIError(f"script {args.file} not applied to {args.game} ({result.outcome}); see above")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    app = open_from(args)
    with app.sessions() as session:
        game = get_game(session, args.game)
        problems = check_game(session, game.id)
        rows = describe_rows(session, game.id, problems)
    if not problems:
        out(f"game {args.game}: every invariant holds")
        return 0
    for v in problems:
        out(format_violation(v))
    for row in rows:
        out(f"  {row}")
    raise CLIError(f"game {args.game}: {len(problems)} problem(s)")


def cmd_audit(args: argparse.Namespace) -> int:
    app = open_from(args)
    with app.sessions() as session:
        entries = audit.recent(session, args.game, args.limit)
        for e in entries:
            out(f"#{e.id} {e.at:%Y-%m-%d %H:%M:%S}Z {e.os_user} {e.action} {e.game_name} {e.outcome} sha256 {e.sha256[:12]}")
            if args.verbose_entries:
                for line in (e.detail or "").splitlines():
                    out(f"    {line}")
                for line in (e.script or "").splitlines():
                    out(f"    | {line}")
    if not entries:
        out("no audit entries")
    return 0


def register(sub: Any) -> None:
    p = add_command(sub, "sql", cmd_sql, "Run a GM's SQL script on one game in one transaction; commit only if every check passes.",
             "turnproc sql spring26 deploy/admin/give_bp.sql --dry-run")
    p.add_argument("game")
    p.add_argument("file", help="the script (- for stdin)")
    p.add_argument("--dry-run", action="store_true", help="run and check, then roll back (still audited)")
    p = add_command(sub, "check", cmd_check, "Check a game's invariants and rows; list every problem.", "turnproc check spring26")
    p.add_argument("game")
    p = add_command(sub, "audit", cmd_audit, "List the latest GM actions (SQL scripts, rollbacks, releases).",
             "turnproc audit spring26 --full")
    p.add_argument("game", nargs="?", help="only this game")
    p.add_argument("--limit", type=int, default=20, help="entries to list (default 20)")
    p.add_argument("--full", dest="verbose_entries", action="store_true", help="also print each entry's detail and script")
