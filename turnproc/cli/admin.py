"""The GM's checked SQL, invariant checks and audit log: ``turnproc sql|check|audit``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import CLIError, add_command, now, open_from, out, out_json, read_input, whole


def cmd_sql(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..admin import result_lines, run_script

    script = read_input(args.file)
    app = open_from(args)
    result = run_script(
        app.engine,
        args.game,
        script,
        now=now(),
        dry_run=args.dry_run,
        allow_no_change=args.allow_no_change,
        seconds=app.config.admin_sql_seconds,
    )
    for line in result_lines(result):
        out(line)
    if result.ok:
        for where in result.unchanged():
            sys.stderr.write(f"turnproc: warning: {where} changed no rows\n")
    if not result.ok:
        raise CLIError(f"script {args.file} not applied to {args.game} ({result.outcome}); see above")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..admin import check_game, describe_rows, format_violation
    from ..storage.db import read_only  # (as above)
    from ..storage.queries import get_game  # (as above)

    app = open_from(args, read_only=True)
    with read_only(app.sessions) as session:
        game = get_game(session, args.game)
        problems = check_game(session, game.id)
        rows = describe_rows(session, game.id, problems)
    if args.json:
        out_json(
            {
                "game": args.game,
                "ok": not problems,
                "rows": rows,
                "problems": [
                    {
                        "code": v.code,
                        "message": v.message,
                        "systems": list(v.systems),
                        "empires": list(v.empires),
                    }
                    for v in problems
                ],
            }
        )
        return 0 if not problems else 1
    if not problems:
        out(f"game {args.game}: every invariant holds")
        return 0
    for v in problems:
        out(format_violation(v))
    for row in rows:
        out(f"  {row}")
    raise CLIError(f"game {args.game}: {len(problems)} problem(s)")


def cmd_audit(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..admin import audit
    from ..storage.db import read_only  # (as above)
    from ..storage.queries import get_game  # (as above)

    app = open_from(args, read_only=True)
    with read_only(app.sessions) as session:
        if args.game is not None and not audit.recent(session, args.game, 1):
            get_game(session, args.game)  # no entries and no such game: a typo, say so
        entries = audit.recent(session, args.game, args.limit)
        if args.json:
            out_json(
                [
                    {
                        "id": e.id,
                        "at": e.at,
                        "os_user": e.os_user,
                        "action": e.action,
                        "game": e.game_name,
                        "outcome": e.outcome,
                        "sha256": e.sha256,
                        "detail": e.detail,
                        "script": e.script,
                    }
                    for e in entries
                ]
            )
            return 0
        for e in entries:
            out(
                f"#{e.id} {e.at:%Y-%m-%d %H:%M:%S}Z {e.os_user} {e.action} {e.game_name} {e.outcome} "
                f"sha256 {e.sha256[:12]}"
            )
            if args.verbose_entries:
                for line in (e.detail or "").splitlines():
                    out(f"    {line}")
                for line in (e.script or "").splitlines():
                    out(f"    | {line}")
    if not entries:
        out("no audit entries")
    return 0


def register(sub: Any) -> None:
    p = add_command(
        sub,
        "sql",
        cmd_sql,
        "Run a GM's SQL script on one game in one transaction; commit only if every check passes.",
        "turnproc sql spring26 deploy/admin/give_bp.sql --dry-run",
    )
    p.add_argument("game", help="the game's name")
    p.add_argument("file", help="the script (- for stdin)")
    p.add_argument("--dry-run", action="store_true", help="run and check, then roll back (still audited)")
    p.add_argument(
        "--allow-no-change",
        action="store_true",
        help="commit even when an UPDATE or DELETE changed no rows (default: roll back and exit 1)",
    )
    p = add_command(
        sub,
        "check",
        cmd_check,
        "Check a game's invariants and rows; list every problem.",
        "turnproc check spring26",
    )
    p.add_argument("game", help="the game's name")
    p.add_argument("--json", action="store_true", help="one JSON object (see the handbook)")
    p = add_command(
        sub,
        "audit",
        cmd_audit,
        "List the latest GM actions (SQL scripts, rollbacks, releases).",
        "turnproc audit spring26 --full",
    )
    p.add_argument("game", nargs="?", help="only this game")
    p.add_argument("--limit", type=whole, default=20, help="entries to list (default 20)")
    p.add_argument(
        "--full",
        dest="verbose_entries",
        action="store_true",
        help="also print each entry's detail and script",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="one JSON array, newest first, details included (see the handbook)",
    )
