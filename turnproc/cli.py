"""The ``turnproc`` command: thin wiring, one library call per command.

Library errors a GM can cause become one line on stderr and exit status 1;
nothing here holds game logic.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy.exc import DBAPIError, IntegrityError

from . import __version__
from .admin import audit, check_game, describe_rows, format_violation, result_lines, run_script
from .app import App, open_app
from .config import ConfigError, load_config
from .deadlines import format_deadline
from .demo import run_demo
from .errors import GMError, ServerUnavailable, one_line
from .games import GameSummary, add_empire, game_summary, new_game, parse_modules, pause_game, resume_game, set_schedule
from .intake import poll, submit_orders
from .logs import configure_logging
from .mail.outbox import OutboxError, flush_outbox
from .mail.transport import outbound
from .storage import migrate
from .storage.db import DatabaseError, make_engine, transaction
from .storage.migrate import MigrationDrift, SchemaOutdated
from .storage.queries import get_empire, get_game, list_games
from .turns import discard_turn, preview_turn, release_turn, report_for, rerun_turn, rollback, run_current_turn, set_hold
from .worker import WorkerSettings, run_once, run_worker

log = logging.getLogger("turnproc")

__all__ = ["main", "build_parser"]


class CLIError(Exception):
    """A failure to report in one line."""


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def _open(args: argparse.Namespace, *, migrate: bool = True) -> App:
    config = load_config(args.config)
    return open_app(config, migrate=migrate)


def _read_input(path: str) -> str:
    """A file the GM names (``-``: standard input), as text; a BOM is dropped."""
    try:
        return Path(path).read_text(encoding="utf-8-sig") if path != "-" else sys.stdin.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise CLIError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None


def _out(text: str = "") -> None:
    sys.stdout.write(text + ("\n" if not text.endswith("\n") else ""))


# -- db ---------------------------------------------------------------------------


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    engine = make_engine(config.database_url)
    migrate.upgrade(engine, args.revision)
    _out(f"database at {migrate.current_revision(engine)}")
    return 0


def cmd_db_check(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    engine = make_engine(config.database_url)
    current, head = migrate.current_revision(engine), migrate.head_revision()
    if current != head:
        raise CLIError(f"database is at {current or 'nothing'}, migrations are at {head}: run `turnproc db upgrade`")
    migrate.check(engine)
    _out(f"database at {head}; models and migrations agree")
    return 0


# -- games and empires ---------------------------------------------------------------


def cmd_game_new(args: argparse.Namespace) -> int:
    app = _open(args)
    modules = parse_modules(args.rules) if args.rules is not None else None
    with transaction(app.sessions) as session:
        game, passwords = new_game(
            session,
            args.name,
            players=args.players,
            seed=args.seed,
            scenario=Path(args.scenario) if args.scenario else None,
            modules=modules,
            systems_per_player=args.systems_per_player,
        )
        summary = game_summary(session, game, _now())
    name = summary.view.name
    _out(f"game {name}: {summary.systems} systems, {summary.free_homes} free homes, rules: {summary.view.modules or 'none'}")
    for code, password in sorted(passwords.items()):
        _out(f"  empire {code} password: {password}")
    if not passwords:
        _out(f"add players with: turnproc empire add {name} --code ABC --name NAME --email ADDRESS")
    return 0


def cmd_game_list(args: argparse.Namespace) -> int:
    app = _open(args)
    with app.sessions() as session:
        games = list_games(session)
        if not games:
            _out("no games yet: turnproc game new NAME")
        for g in games:
            count = len(g.empires)
            _out(f"{g.name:<20} turn {g.turn:<3} {g.status:<8} {count} empires  rules: {g.modules or 'none'}")
    return 0


def cmd_game_show(args: argparse.Namespace) -> int:
    app = _open(args)
    with app.sessions() as session:
        s = game_summary(session, get_game(session, args.game), _now())
    v = s.view
    _out(f"game {v.name}: turn {v.turn}, {v.status}, rules: {v.modules or 'none'}")
    _out(f"schedule: {v.schedule or 'none (run turns by hand)'} ({v.timezone})")
    _out(f"{s.systems} systems, {s.free_homes} free homes")
    for e in v.empires:
        flags = ("orders in" if e.orders_at is not None else "no orders") + ("" if e.active else ", inactive")
        _out(f"  {e.code} {e.name:<24} {e.email:<32} {e.vp:>4} VP  {flags}")
    if s.suppressed:
        _out("answers not sent (latest first):")
        for at, recipient, kind, reason in s.suppressed:
            _out(f"  {at:%Y-%m-%d %H:%M}Z {kind} to {recipient or '(no address)'}: {reason}")
    return 0


def cmd_empire_add(args: argparse.Namespace) -> int:
    app = _open(args)
    with transaction(app.sessions) as session:
        game = get_game(session, args.game)
        empire, password = add_empire(session, game, args.code, args.name, args.email)
        code, email = empire.code, empire.email
    _out(f"empire {code} added to {args.game} for {email}")
    _out(f"password: {password}")
    _out("(shown once; only a hash is stored - pass it to the player now)")
    return 0


# -- orders, turns, reports -------------------------------------------------------------


def cmd_orders_submit(args: argparse.Namespace) -> int:
    text = _read_input(args.file)
    app = _open(args)
    with transaction(app.sessions) as session:
        game = get_game(session, args.game)
        empire = get_empire(session, game, args.empire)
        parsed, replaced = submit_orders(session, game, empire, text, _now())
        turn = game.turn
    for p in parsed.problems:
        _out(f"line {p.line}: {p.severity.value} [{p.code}] {p.message}")
    verb = "replace the earlier ones" if replaced else "are on file"
    _out(f"{len(parsed.orders)} orders for {args.empire.upper()}, turn {turn}, {verb}")
    return 0


def cmd_turn_run(args: argparse.Namespace) -> int:
    app = _open(args)
    result = run_current_turn(app.sessions, args.game, app.config, _now())
    _out(f"game {result.game}: turn {result.turn} resolved ({result.events} events), {len(result.reports)} reports queued")
    if result.finished:
        _out("the game is over")
    if result.staged:
        _out(f"the game is on hold: the turn is staged; turnproc turn release {result.game} sends it, turn discard drops it")
    else:
        _out("send them with: turnproc send")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    app = _open(args)
    with app.sessions() as session:
        game = get_game(session, args.game)
        text, data = report_for(session, game, get_empire(session, game, args.empire), args.turn)
    _out(json.dumps(data, indent=2, sort_keys=True) if args.format == "json" else text)
    return 0


# -- GM tools: checked SQL, checks, turn control ------------------------------------------


def cmd_sql(args: argparse.Namespace) -> int:
    script = _read_input(args.file)
    app = _open(args)
    result = run_script(app.engine, args.game, script, now=_now(), dry_run=args.dry_run)
    for line in result_lines(result):
        _out(line)
    if not result.ok:
        raise CLIError(f"script {args.file} not applied to {args.game} ({result.outcome}); see above")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    app = _open(args)
    with app.sessions() as session:
        game = get_game(session, args.game)
        problems = check_game(session, game.id)
        rows = describe_rows(session, game.id, problems)
    if not problems:
        _out(f"game {args.game}: every invariant holds")
        return 0
    for v in problems:
        _out(format_violation(v))
    for row in rows:
        _out(f"  {row}")
    raise CLIError(f"game {args.game}: {len(problems)} problem(s)")


def cmd_audit(args: argparse.Namespace) -> int:
    app = _open(args)
    with app.sessions() as session:
        entries = audit.recent(session, args.game, args.limit)
        for e in entries:
            _out(f"#{e.id} {e.at:%Y-%m-%d %H:%M:%S}Z {e.os_user} {e.action} {e.game_name} {e.outcome} sha256 {e.sha256[:12]}")
            if args.verbose_entries:
                for line in (e.detail or "").splitlines():
                    _out(f"    {line}")
                for line in (e.script or "").splitlines():
                    _out(f"    | {line}")
    if not entries:
        _out("no audit entries")
    return 0


def cmd_turn_preview(args: argparse.Namespace) -> int:
    app = _open(args)
    preview = preview_turn(app.engine, args.game, app.config, _now(), empire=args.empire)
    for line in preview.summary():
        _out(line)
    if preview.report is not None:
        _out("")
        _out(preview.report)
    _out("(preview only: nothing was saved or sent)")
    return 0


def cmd_turn_hold(args: argparse.Namespace) -> int:
    app = _open(args)
    with transaction(app.sessions) as session:
        set_hold(session, get_game(session, args.game), not args.off, _now())
    _out(f"game {args.game}: " + ("turns are run as usual again" if args.off else
         f"each turn is staged for you; turnproc turn release {args.game} sends it"))
    return 0


def cmd_turn_release(args: argparse.Namespace) -> int:
    app = _open(args)
    with transaction(app.sessions) as session:
        released = release_turn(session, get_game(session, args.game), _now())
    _out(f"game {released.game}: turn {released.turn} released, {released.mails} mails ready")
    if args.no_send:
        _out("send them with: turnproc send")
        return 0
    return cmd_send(args)


def cmd_turn_discard(args: argparse.Namespace) -> int:
    app = _open(args)
    with transaction(app.sessions) as session:
        result = discard_turn(session, get_game(session, args.game), _now())
    _out(result.summary())
    return 0


def cmd_turn_rollback(args: argparse.Namespace) -> int:
    app = _open(args)
    with transaction(app.sessions) as session:
        result = rollback(session, get_game(session, args.game), args.to, _now())
    _out(result.summary())
    _out(f"fix orders if needed (turnproc orders submit), then: turnproc turn rerun {args.game} {args.to}")
    return 0


def cmd_turn_rerun(args: argparse.Namespace) -> int:
    app = _open(args)
    with transaction(app.sessions) as session:
        rolled, result = rerun_turn(session, get_game(session, args.game), args.turn, app.config, _now())
    if rolled is not None:
        _out(rolled.summary())
    _out(f"game {result.game}: turn {result.turn} re-run ({result.events} events), {len(result.reports)} corrected reports queued")
    if result.staged:
        _out(f"the game is on hold: turnproc turn release {result.game} sends them")
    else:
        _out("send them with: turnproc send")
    return 0


# -- mail --------------------------------------------------------------------------------


def cmd_poll(args: argparse.Namespace) -> int:
    app = _open(args)
    results = poll(app, _now())
    counts: dict[str, int] = {}
    for r in results:
        counts[r.outcome] = counts.get(r.outcome, 0) + 1
    _out(f"{len(results)} mails: " + (", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "none waiting"))
    return 0


def cmd_send(args: argparse.Namespace) -> int:
    app = _open(args)
    lease = dt.timedelta(seconds=app.config.outbox_lease)
    sent, failed = flush_outbox(app.sessions, outbound(app.config), _now(), lease=lease)
    _out(f"{sent} mails sent, {failed} failed (they will be retried)")
    return 0 if not failed else 1


def cmd_demo(args: argparse.Namespace) -> int:
    try:
        summary = run_demo(Path(args.dir), turns=args.turns, players=args.players, seed=args.seed)
    except (FileExistsError, ValueError) as exc:
        raise CLIError(str(exc)) from None
    _out(summary)
    return 0


# -- schedule and the worker ------------------------------------------------------------------


def _print_schedule(summary: GameSummary) -> None:
    s = summary.view
    _out(f"game {s.name}: {s.status}")
    _out(f"schedule: {s.schedule or 'none (run turns by hand)'} ({s.timezone})")
    if s.schedule or summary.next_deadline:
        _out(f"next deadline: {format_deadline(summary.next_deadline) or ('none while paused' if s.status == 'paused' else 'none')}")
    _out(f"early run: {'on, ' + str(s.early_run_delay) + ' minutes after the last orders' if s.early_run else 'off'}")
    _out(f"reminders: {str(s.reminder_hours) + ' hours before the deadline' if s.reminder_hours else 'off'}")
    _out(f"inactive after {s.inactive_after} missed turns; the missed-orders guard stops a turn when more than {s.nmr_limit}% send no orders")


def cmd_game_schedule(args: argparse.Namespace) -> int:
    app = _open(args)
    with transaction(app.sessions) as session:
        schedule = set_schedule(
            session,
            get_game(session, args.game),
            _now(),
            cron=args.cron,
            timezone=args.tz,
            early_run=None if args.early_run is None else args.early_run == "on",
            early_run_delay=args.early_run_delay,
            reminder_hours=args.reminder_hours,
            inactive_after=args.inactive_after,
            nmr_limit=args.nmr_limit,
        )
    _print_schedule(schedule)
    return 0


def cmd_game_pause(args: argparse.Namespace) -> int:
    app = _open(args)
    with transaction(app.sessions) as session:
        pause_game(session, get_game(session, args.game))
    _out(f"game {args.game} paused: no deadlines, early runs or reminders until `turnproc game resume {args.game}`")
    return 0


def cmd_game_resume(args: argparse.Namespace) -> int:
    app = _open(args)
    with transaction(app.sessions) as session:
        schedule = resume_game(session, get_game(session, args.game), _now())
    _print_schedule(schedule)
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    configure_logging(args.log_format, logging.DEBUG if args.verbose > 1 else logging.INFO)
    config = load_config(args.config)
    for name in ("tick", "poll", "flush", "max_backoff"):
        if getattr(args, name) <= 0:
            raise CLIError(f"--{name.replace('_', '-')} must be more than 0 seconds")
    if args.once:
        app = open_app(config)
        try:
            run_once(app)
        finally:
            app.close()
        return 0
    settings = WorkerSettings(tick=args.tick, poll=args.poll, flush=args.flush, idle=args.idle, max_backoff=args.max_backoff)
    return run_worker(config, settings)


# -- the parser ----------------------------------------------------------------------------

Handler = Callable[[argparse.Namespace], int]


def _add(sub: Any, name: str, handler: Handler, summary: str, example: str) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        name,
        help=summary,
        description=f"{summary}\n\nExample:\n  {example}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(handler=handler)
    return p


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="turnproc",
        description="Play-by-e-mail turn processor for Star Chase.\n\nExample:\n  turnproc demo",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--config", metavar="FILE", help="config file (default: $TURNPROC_CONFIG, else ./turnproc.toml, else built-in defaults)")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv for debug)")
    parser.add_argument("--version", action="version", version=f"turnproc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    db = _add(sub, "db", lambda a: 2, "Database schema commands.", "turnproc db upgrade")
    dbsub = db.add_subparsers(dest="db_command", metavar="SUBCOMMAND", required=True)
    p = _add(dbsub, "upgrade", cmd_db_upgrade, "Apply migrations to the database.", "turnproc db upgrade")
    p.add_argument("revision", nargs="?", default="head", help="target revision (default: head)")
    _add(dbsub, "check", cmd_db_check, "Fail when the models and the migrations disagree.", "turnproc db check")

    game = _add(sub, "game", lambda a: 2, "Create and inspect games.", "turnproc game list")
    gsub = game.add_subparsers(dest="game_command", metavar="SUBCOMMAND", required=True)
    p = _add(gsub, "new", cmd_game_new, "Create a game from a generated galaxy or a scenario file.",
             "turnproc game new spring26 --players 12 --rules zoc,engage")
    p.add_argument("name")
    p.add_argument("--players", type=int, default=4, help="homes to generate (default 4)")
    p.add_argument("--seed", help="the game's secret seed (default: random); same seed, same galaxy")
    p.add_argument("--scenario", metavar="FILE", help="a scenario TOML file declaring the whole start")
    p.add_argument("--rules", metavar="MODULES", help="rule modules: any of zoc,pinning,engage, or none (default: all)")
    p.add_argument("--systems-per-player", type=int, default=30, help="systems per player (default 30)")
    _add(gsub, "list", cmd_game_list, "List the games.", "turnproc game list")
    p = _add(gsub, "show", cmd_game_show, "Show a game: turn, schedule, empires and who has orders in.", "turnproc game show spring26")
    p.add_argument("game")
    p = _add(gsub, "schedule", cmd_game_schedule,
             "Show or set a game's deadlines, early run, reminders and missed-orders rules (the worker picks changes up).",
             'turnproc game schedule spring26 --cron "0 3 * * *" --tz Europe/London --early-run on')
    p.add_argument("game")
    p.add_argument("--cron", metavar="EXPR", help='deadline as standard cron "min hour day month weekday" (Sunday = 0), or off')
    p.add_argument("--tz", metavar="ZONE", help="IANA time zone of the cron expression, e.g. Europe/London (default UTC)")
    p.add_argument("--early-run", choices=("on", "off"), help="run as soon as every active empire has orders in, after a delay, unless one sent WAIT")
    p.add_argument("--early-run-delay", type=int, metavar="MINUTES", help="minutes after the last orders before an early run (default 30)")
    p.add_argument("--reminder-hours", type=int, metavar="HOURS", help="remind empires without orders this long before the deadline; 0: never (default 24)")
    p.add_argument("--inactive-after", type=int, metavar="TURNS", help="missed turns in a row that make an empire inactive (default 5)")
    p.add_argument("--nmr-limit", type=int, metavar="PERCENT", help="the missed-orders guard does not run the turn when more than this %% of active empires sent no orders (default 50)")
    p = _add(gsub, "pause", cmd_game_pause, "Pause a game: no deadlines, early runs or reminders; mail is still answered.",
             "turnproc game pause spring26")
    p.add_argument("game")
    p = _add(gsub, "resume", cmd_game_resume, "Resume a paused game; deadlines missed while paused are not run.",
             "turnproc game resume spring26")
    p.add_argument("game")

    emp = _add(sub, "empire", lambda a: 2, "Manage a game's empires.", "turnproc empire add spring26 --code RIG --name 'Rigel League' --email ann@example.org")
    esub = emp.add_subparsers(dest="empire_command", metavar="SUBCOMMAND", required=True)
    p = _add(esub, "add", cmd_empire_add, "Add a player's empire; prints its password once.",
             "turnproc empire add spring26 --code RIG --name 'Rigel League' --email ann@example.org")
    p.add_argument("game")
    p.add_argument("--code", required=True, help="three letters A-Z")
    p.add_argument("--name", required=True)
    p.add_argument("--email", required=True, help="the player's registered address; every reply goes there")

    orders = _add(sub, "orders", lambda a: 2, "Orders received by other means.", "turnproc orders submit spring26 RIG orders.txt")
    osub = orders.add_subparsers(dest="orders_command", metavar="SUBCOMMAND", required=True)
    p = _add(osub, "submit", cmd_orders_submit, "Store an empire's orders from a file (- for stdin), as if mailed.",
             "turnproc orders submit spring26 RIG orders.txt")
    p.add_argument("game")
    p.add_argument("empire")
    p.add_argument("file")

    turn = _add(sub, "turn", lambda a: 2, "Run turns.", "turnproc turn run spring26")
    tsub = turn.add_subparsers(dest="turn_command", metavar="SUBCOMMAND", required=True)
    p = _add(tsub, "run", cmd_turn_run, "Resolve the current turn and queue every report.", "turnproc turn run spring26")
    p.add_argument("game")
    p = _add(tsub, "preview", cmd_turn_preview, "Resolve the current turn without saving anything; print what would happen.",
             "turnproc turn preview spring26 --empire RIG")
    p.add_argument("game")
    p.add_argument("--empire", metavar="CODE", help="also print this empire's report as it would be sent")
    p = _add(tsub, "hold", cmd_turn_hold, "Stage each turn for the GM to release (or --off to run as usual).",
             "turnproc turn hold spring26")
    p.add_argument("game")
    p.add_argument("--off", action="store_true", help="stop holding; a turn already staged stays staged")
    p = _add(tsub, "release", cmd_turn_release, "Make the staged turn final and send its reports.",
             "turnproc turn release spring26")
    p.add_argument("game")
    p.add_argument("--no-send", action="store_true", help="only release; leave delivery to `turnproc send`")
    p = _add(tsub, "discard", cmd_turn_discard, "Drop the staged turn; the game collects that turn's orders again.",
             "turnproc turn discard spring26")
    p.add_argument("game")
    p = _add(tsub, "rollback", cmd_turn_rollback, "Go back to collecting orders for turn N; later turns are archived.",
             "turnproc turn rollback spring26 --to 4")
    p.add_argument("game")
    p.add_argument("--to", type=int, required=True, metavar="N", help="the turn to collect orders for again")
    p = _add(tsub, "rerun", cmd_turn_rerun, "Run turn N again with its seed and the orders on file; reports go out as corrected.",
             "turnproc turn rerun spring26 4")
    p.add_argument("game")
    p.add_argument("turn", type=int, metavar="N")

    p = _add(sub, "sql", cmd_sql, "Run a GM's SQL script on one game in one transaction; commit only if every check passes.",
             "turnproc sql spring26 deploy/admin/give_bp.sql --dry-run")
    p.add_argument("game")
    p.add_argument("file", help="the script (- for stdin)")
    p.add_argument("--dry-run", action="store_true", help="run and check, then roll back (still audited)")
    p = _add(sub, "check", cmd_check, "Check a game's invariants and rows; list every problem.", "turnproc check spring26")
    p.add_argument("game")
    p = _add(sub, "audit", cmd_audit, "List the latest GM actions (SQL scripts, rollbacks, releases).",
             "turnproc audit spring26 --full")
    p.add_argument("game", nargs="?", help="only this game")
    p.add_argument("--limit", type=int, default=20, help="entries to list (default 20)")
    p.add_argument("--full", dest="verbose_entries", action="store_true", help="also print each entry's detail and script")

    p = _add(sub, "report", cmd_report, "Print an empire's latest (or a given turn's) report.",
             "turnproc report spring26 RIG --format json")
    p.add_argument("game")
    p.add_argument("empire")
    p.add_argument("--turn", type=int, help="the turn the report describes (default: latest)")
    p.add_argument("--format", choices=("text", "json"), default="text")

    _add(sub, "poll", cmd_poll, "Fetch and handle waiting order mails once (IMAP or the local Maildir).", "turnproc poll")
    _add(sub, "send", cmd_send, "Deliver queued mails (SMTP or the local Maildir).", "turnproc send")

    p = _add(sub, "worker", cmd_worker,
             "Run the service: inbox polling, outbox sending, deadlines, early runs and reminders for every game, until SIGTERM.",
             "turnproc --config /etc/turnproc/turnproc.toml worker --tick 30 --poll 60")
    p.add_argument("--tick", type=float, default=30.0, metavar="SECONDS", help="how often deadlines are checked (default 30)")
    p.add_argument("--poll", type=float, default=60.0, metavar="SECONDS", help="how often the inbox is read (default 60)")
    p.add_argument("--flush", type=float, default=30.0, metavar="SECONDS", help="how often queued mail is retried (default 30)")
    p.add_argument("--idle", action="store_true", help="also hold an IMAP IDLE connection and read new mail at once")
    p.add_argument("--max-backoff", type=float, default=300.0, metavar="SECONDS",
                   help="longest pause between retries when a server or a game keeps failing (default 300)")
    p.add_argument("--log-format", choices=("auto", "journal", "text", "json"), default="auto",
                   help="stderr log lines: journal (no timestamps, syslog priorities), text, json; auto: journal under systemd")
    p.add_argument("--once", action="store_true", help="one poll, one pass over the games and one flush, then exit")

    p = _add(sub, "demo", cmd_demo, "Play a short demo game in a directory: SQLite and local Maildir, no servers.",
             "turnproc demo --turns 3")
    p.add_argument("--dir", default="turnproc-demo", help="where to put the demo game (default ./turnproc-demo)")
    p.add_argument("--turns", type=int, default=1, help="turns to play (default 1)")
    p.add_argument("--players", type=int, default=4, help="empires (default 4)")
    p.add_argument("--seed", default="demo", help="galaxy seed (default 'demo')")
    return parser


_ERRORS = (GMError, ConfigError, DatabaseError, SchemaOutdated, MigrationDrift, CLIError, ServerUnavailable, OutboxError)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        return int(args.handler(args))
    except _ERRORS as exc:
        sys.stderr.write(f"turnproc: error: {exc}\n")
        return 1
    except IntegrityError as exc:
        # The database's own constraints caught what no check above did: say
        # which rule, in one line, instead of a traceback.
        reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
        sys.stderr.write(f"turnproc: error: the database refused the change, nothing was written: {reason}\n")
        return 1
    except DBAPIError as exc:
        # A full disk, a lost connection, a lock held too long: one line; -vv
        # (debug) shows the whole exception.
        log.debug("database error", exc_info=True)
        sys.stderr.write(f"turnproc: error: database error, the command's changes were not saved: {one_line(exc.orig or exc)}\n")
        return 1
    except OSError as exc:
        log.debug("system error", exc_info=True)
        where = f": {exc.filename}" if exc.filename else ""
        sys.stderr.write(f"turnproc: error: {exc.strerror or one_line(exc)}{where}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("turnproc: interrupted\n")
        return 130
