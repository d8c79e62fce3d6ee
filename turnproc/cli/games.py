"""Creating games and showing or changing their state: ``turnproc game ...``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..deadlines import format_deadline
from ..games import (
    GameSummary,
    game_summary,
    new_game,
    parse_modules,
    pause_game,
    resume_game,
    set_schedule,
)
from ..storage.db import transaction
from ..storage.queries import get_game, list_games
from .common import add_command, now, open_from, out
from .players import player_lines, register_game


def cmd_game_new(args: argparse.Namespace) -> int:
    app = open_from(args)
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
        summary = game_summary(session, game, now())
    name = summary.view.name
    out(f"game {name}: {summary.systems} systems, {summary.free_homes} free homes, rules: {summary.view.modules or 'none'}")
    for code, password in sorted(passwords.items()):
        out(f"  empire {code} password: {password}")
    if not passwords:
        out(f"add players with: turnproc empire add {name} --code ABC --name NAME --email ADDRESS")
    return 0


def cmd_game_list(args: argparse.Namespace) -> int:
    app = open_from(args)
    with app.sessions() as session:
        games = list_games(session)
        if not games:
            out("no games yet: turnproc game new NAME")
        for g in games:
            count = len(g.empires)
            out(f"{g.name:<20} turn {g.turn:<3} {g.status:<8} {count} empires  rules: {g.modules or 'none'}")
    return 0


def cmd_game_show(args: argparse.Namespace) -> int:
    app = open_from(args)
    with app.sessions() as session:
        game = get_game(session, args.game)
        s = game_summary(session, game, now())
        players = player_lines(session, game)
    v = s.view
    out(f"game {v.name}: turn {v.turn}, {v.status}, rules: {v.modules or 'none'}")
    out(f"schedule: {v.schedule or 'none (run turns by hand)'} ({v.timezone})")
    out(f"{s.systems} systems, {s.free_homes} free homes")
    for e in v.empires:
        flags = ("orders in" if e.orders_at is not None else "no orders") + ("" if e.active else ", inactive")
        out(f"  {e.code} {e.name:<24} {e.email:<32} {e.vp:>4} VP  {flags}")
    for line in players:
        out(line)
    if s.suppressed:
        out("answers not sent (latest first):")
        for at, recipient, kind, reason in s.suppressed:
            out(f"  {at:%Y-%m-%d %H:%M}Z {kind} to {recipient or '(no address)'}: {reason}")
    return 0


def _print_schedule(summary: GameSummary) -> None:
    s = summary.view
    out(f"game {s.name}: {s.status}")
    out(f"schedule: {s.schedule or 'none (run turns by hand)'} ({s.timezone})")
    if s.schedule or summary.next_deadline:
        out(f"next deadline: {format_deadline(summary.next_deadline) or ('none while paused' if s.status == 'paused' else 'none')}")
    out(f"early run: {'on, ' + str(s.early_run_delay) + ' minutes after the last orders' if s.early_run else 'off'}")
    out(f"reminders: {str(s.reminder_hours) + ' hours before the deadline' if s.reminder_hours else 'off'}")
    out(f"inactive after {s.inactive_after} missed turns; the missed-orders guard stops a turn when more than {s.nmr_limit}% send no orders")


def cmd_game_schedule(args: argparse.Namespace) -> int:
    app = open_from(args)
    with transaction(app.sessions) as session:
        schedule = set_schedule(
            session,
            get_game(session, args.game),
            now(),
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
    app = open_from(args)
    with transaction(app.sessions) as session:
        pause_game(session, get_game(session, args.game))
    out(f"game {args.game} paused: no deadlines, early runs or reminders until `turnproc game resume {args.game}`")
    return 0


def cmd_game_resume(args: argparse.Namespace) -> int:
    app = open_from(args)
    with transaction(app.sessions) as session:
        schedule = resume_game(session, get_game(session, args.game), now())
    _print_schedule(schedule)
    return 0


def register(sub: Any) -> None:
    game = add_command(sub, "game", lambda a: 2, "Create and inspect games.", "turnproc game list")
    gsub = game.add_subparsers(dest="game_command", metavar="SUBCOMMAND", required=True)
    p = add_command(gsub, "new", cmd_game_new, "Create a game from a generated galaxy or a scenario file.",
             "turnproc game new spring26 --players 12 --rules zoc,engage")
    p.add_argument("name")
    p.add_argument("--players", type=int, default=4, help="homes to generate (default 4)")
    p.add_argument("--seed", help="the game's secret seed (default: random); same seed, same galaxy")
    p.add_argument("--scenario", metavar="FILE", help="a scenario TOML file declaring the whole start")
    p.add_argument("--rules", metavar="MODULES", help="rule modules: any of zoc,pinning,engage, or none (default: all)")
    p.add_argument("--systems-per-player", type=int, default=30, help="systems per player (default 30)")
    add_command(gsub, "list", cmd_game_list, "List the games.", "turnproc game list")
    p = add_command(gsub, "show", cmd_game_show, "Show a game: turn, schedule, empires and who has orders in.", "turnproc game show spring26")
    p.add_argument("game")
    p = add_command(gsub, "schedule", cmd_game_schedule,
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
    p = add_command(gsub, "pause", cmd_game_pause, "Pause a game: no deadlines, early runs or reminders; mail is still answered.",
             "turnproc game pause spring26")
    p.add_argument("game")
    register_game(gsub)
    p = add_command(gsub, "resume", cmd_game_resume, "Resume a paused game; deadlines missed while paused are not run.",
             "turnproc game resume spring26")
    p.add_argument("game")
