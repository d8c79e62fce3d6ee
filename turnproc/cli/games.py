"""Creating games and showing or changing their state: ``turnproc game ...``."""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from ..errors import GMError
from .common import add_command, now, number, open_from, out, out_json, read_input, reading, whole
from .players import register_game, summary_lines

if TYPE_CHECKING:
    # For the annotations only.
    from ..storage.readmodel import GameSummary


def cmd_game_new(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.game import game_summary, new_game, parse_modules
    from ..outgoing.welcome import Welcome, send_welcomes  # (as above)
    from ..storage.db import transaction  # (as above)

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
            ruleset=args.ruleset,
        )
        # A scenario's empires with an address get the welcome mail, as from
        # `empire add`; only those without one (a placeholder .invalid address)
        # have their password printed, unless the GM asks for every one.
        empires = {e.code: e for e in game.empires}
        mailed = {code for code in passwords if not empires[code].email.endswith(".invalid")}
        send_welcomes(
            session, app.config, game, [Welcome(empires[c], passwords[c]) for c in sorted(mailed)], now()
        )
        summary = game_summary(session, game, now())
    name = summary.view.name
    out(
        f"game {name}: {summary.systems} systems, {summary.free_homes} free homes, "
        f"rules: {summary.view.modules or 'none'}, rule set {summary.view.ruleset}"
    )
    for code, password in sorted(passwords.items()):
        if code in mailed and not args.print_password:
            out(f"  empire {code}: welcome mail with its password queued for {empires[code].email}")
        else:
            out(
                f"  empire {code} password: {password}"
                + ("" if code in mailed else " (no address: pass it on yourself)")
            )
    if mailed:
        out("send them with: turnproc send (the worker sends them on its own)")
    if not passwords:
        out(f"add players with: turnproc empire add {name} --code ABC --name NAME --email ADDRESS")
    return 0


def cmd_game_list(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..storage.db import read_only
    from ..storage.queries import list_games  # (as above)

    app = open_from(args, read_only=True)
    with read_only(app.sessions) as session:
        games = list_games(session)
        if args.json:
            out_json(
                [
                    {
                        "name": g.name,
                        "turn": g.turn,
                        "status": g.status,
                        "empires": len(g.empires),
                        "rules": g.modules,
                    }
                    for g in games
                ]
            )
            return 0
        if not games:
            out("no games yet: turnproc game new NAME")
        for g in games:
            count = len(g.empires)
            out(f"{g.name:<20} turn {g.turn:<3} {g.status:<8} {count} empires  rules: {g.modules or 'none'}")
    return 0


def cmd_game_show(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..storage import plainread

    with reading(args) as reader:
        game = plainread.get_game(reader, args.game)
        s = plainread.game_summary(reader, game, now())
        players = summary_lines(plainread.player_summary(reader, game))
    if args.json:
        out_json(s.as_dict())
        return 0
    # One helper per part of the game's state, in the order printed.
    for part in (_show_state, _show_deadline, _show_turn, _show_empires, _show_suppressed):
        for line in part(s):
            out(line)
    for line in players:  # sign-up and leave
        out(line)
    return 0


def _show_state(s: GameSummary) -> list[str]:
    v = s.view
    return [
        f"game {v.name}: turn {v.turn} of at most {s.turn_limit}, {v.status}, rules: "
        f"{v.modules or 'none'}, rule set {v.ruleset}",
        f"victory: {s.vp_target} VP, or the most VP after turn {s.turn_limit}",
        f"{s.systems} systems, {s.free_homes} free homes",
    ]


def _show_deadline(s: GameSummary) -> list[str]:
    # Loaded when the command runs, not for --help (see .common).
    from ..timing.deadlines import format_deadline

    v = s.view
    lines = [f"schedule: {v.schedule or 'none (run turns by hand)'} ({v.timezone})"]
    if s.next_deadline is not None:
        utc = s.next_deadline.astimezone(dt.timezone.utc)
        by_gm = " (set by the GM for this turn)" if v.deadline_override is not None else ""
        lines.append(f"next deadline: {format_deadline(s.next_deadline)} = {utc:%Y-%m-%d %H:%M} UTC{by_gm}")
    elif v.status == "paused":
        lines.append("next deadline: none while paused")
    return lines


def _show_turn(s: GameSummary) -> list[str]:
    v = s.view
    lines = []
    if v.staged_turn is not None:
        lines.append(
            f"turn {v.staged_turn} is staged, waiting for you: turnproc turn release {v.name} (or turn "
            "discard)"
        )
    if v.hold:
        lines.append("on hold: each turn is staged for you to release")
    waiting = [e.code for e in v.empires if e.wait and e.orders_at is not None]
    if waiting:
        lines.append(f"WAIT sent by: {', '.join(waiting)} (no early run)")
    if v.empires:
        missing = v.missing
        lines.append(
            f"orders in: {len(v.active_empires) - len(missing)} of {len(v.active_empires)} active empires"
            + (f"; missing: {', '.join(missing)}" if missing else "")
        )
    return lines


def _show_empires(s: GameSummary) -> list[str]:
    lines = []
    for e in s.view.empires:
        flags = ("orders in" + (", WAIT" if e.wait else "") if e.orders_at is not None else "no orders") + (
            "" if e.active else ", inactive"
        )
        lines.append(f"  {e.code} {e.name:<24} {e.email:<32} {e.vp:>4} VP  {flags}")
    return lines


def _show_suppressed(s: GameSummary) -> list[str]:
    if not s.suppressed:
        return []
    return ["answers not sent (latest first):"] + [
        f"  {at:%Y-%m-%d %H:%M}Z {kind} to {recipient or '(no address)'}: {reason}"
        for at, recipient, kind, reason in s.suppressed
    ]


def _print_schedule(summary: GameSummary) -> None:
    # Loaded when the command runs, not for --help (see .common).
    from ..timing.deadlines import format_deadline

    s = summary.view
    out(f"game {s.name}: {s.status}")
    out(f"schedule: {s.schedule or 'none (run turns by hand)'} ({s.timezone})")
    if s.schedule or summary.next_deadline:
        none = "none while paused" if s.status == "paused" else "none"
        out(f"next deadline: {format_deadline(summary.next_deadline) or none}")
    minutes = f"{s.early_run_delay} minute{'' if s.early_run_delay == 1 else 's'}"
    out(f"early run: {'on, ' + minutes + ' after the last orders' if s.early_run else 'off'}")
    out(f"reminders: {str(s.reminder_hours) + ' hours before the deadline' if s.reminder_hours else 'off'}")
    out(
        f"inactive after {s.inactive_after} missed turns; the missed-orders guard stops a turn when more "
        f"than {s.nmr_limit}% send no orders"
    )


def cmd_game_schedule(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.game import set_schedule
    from ..storage.db import transaction  # (as above)
    from ..storage.queries import get_game  # (as above)

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
            config=app.config,
        )
    if args.json:
        out_json(_schedule_dict(schedule))
        return 0
    _print_schedule(schedule)
    return 0


def _schedule_dict(summary: GameSummary) -> dict[str, Any]:
    full = summary.as_dict()
    keys = (
        "name",
        "status",
        "schedule",
        "timezone",
        "next_deadline",
        "next_deadline_utc",
        "deadline_set_by_gm",
        "early_run",
        "early_run_delay",
        "reminder_hours",
        "inactive_after",
        "nmr_limit",
    )
    return {k: full[k] for k in keys}


def cmd_game_pause(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.game import pause_game
    from ..storage.db import transaction  # (as above)
    from ..storage.queries import get_game  # (as above)

    app = open_from(args)
    with transaction(app.sessions) as session:
        pause_game(session, get_game(session, args.game), now(), app.config)
    out(
        f"game {args.game} paused: no deadlines, early runs or reminders until `turnproc game resume "
        f"{args.game}`"
    )
    return 0


def cmd_game_resume(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.game import resume_game
    from ..storage.db import transaction  # (as above)
    from ..storage.queries import get_game  # (as above)

    app = open_from(args)
    with transaction(app.sessions) as session:
        schedule = resume_game(session, get_game(session, args.game), now(), app.config)
    _print_schedule(schedule)
    return 0


def cmd_game_extend(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.game import game_summary
    from ..games.notices import extend_deadline  # (as above)
    from ..storage.db import transaction  # (as above)
    from ..storage.queries import get_game  # (as above)

    app = open_from(args)
    with transaction(app.sessions) as session:
        game = get_game(session, args.game)
        to = _local_time(args.to, game.timezone) if args.to is not None else None
        extend_deadline(session, app.config, game, now(), hours=args.hours, to=to)
        schedule = game_summary(session, game, now())
    _print_schedule(schedule)
    out("every active player is mailed the new deadline; send it with: turnproc send")
    return 0


def _local_time(text: str, zone: str) -> dt.datetime:
    try:
        naive = dt.datetime.strptime(text.strip(), "%Y-%m-%d %H:%M")
    except ValueError:
        raise GMError(f"--to {text!r}: write it as YYYY-MM-DD HH:MM, in the game's time zone") from None
    return naive.replace(tzinfo=ZoneInfo(zone))


def cmd_announce(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.notices import announce
    from ..storage.db import transaction  # (as above)
    from ..storage.queries import get_game  # (as above)

    text = read_input(args.file)
    app = open_from(args)
    with transaction(app.sessions) as session:
        game = get_game(session, args.game)
        mailed = announce(session, app.config, game, now(), subject=args.subject, text=text)
        turn = game.turn
    out(
        f"announcement queued for {mailed} active players of {args.game}; the turn {turn} report prints it "
        "too"
    )
    out("send it with: turnproc send (the worker sends it on its own)")
    return 0


def register(sub: Any) -> None:
    game = add_command(sub, "game", lambda a: 2, "Create and inspect games.", "turnproc game list")
    gsub = game.add_subparsers(dest="game_command", metavar="SUBCOMMAND", required=True)
    p = add_command(
        gsub,
        "new",
        cmd_game_new,
        "Create a game from a generated galaxy or a scenario file.",
        "turnproc game new spring26 --players 12 --rules zoc,engage",
    )
    p.add_argument("name", help="the new game's name: letters, digits, '-', '_' or '.'")
    p.add_argument("--players", type=whole, default=4, help="homes to generate (default 4)")
    p.add_argument("--seed", help="the game's secret seed (default: random); same seed, same galaxy")
    p.add_argument("--scenario", metavar="FILE", help="a scenario TOML file declaring the whole start")
    p.add_argument(
        "--rules", metavar="MODULES", help="rule modules: any of zoc,pinning,engage, or none (default: all)"
    )
    p.add_argument("--systems-per-player", type=whole, default=30, help="systems per player (default 30)")
    p.add_argument(
        "--print-password",
        action="store_true",
        help="also print the passwords of a scenario's empires that are mailed their welcome",
    )
    p.add_argument(
        "--ruleset",
        type=whole,
        choices=(1, 2),
        help="rule-set version (default: the scenario's, else 2); see docs/rules.md section 19",
    )
    p = add_command(gsub, "list", cmd_game_list, "List the games.", "turnproc game list")
    p.add_argument("--json", action="store_true", help="one JSON array (see the handbook)")
    p = add_command(
        gsub,
        "show",
        cmd_game_show,
        "Show a game's whole state: turn, deadline, hold, empires, who has orders in and who sent WAIT.",
        "turnproc game show spring26",
    )
    p.add_argument("game", help="the game's name")
    p.add_argument("--json", action="store_true", help="one JSON object (see the handbook)")
    p = add_command(
        gsub,
        "schedule",
        cmd_game_schedule,
        "Show or set a game's deadlines, early run, reminders and missed-orders rules (the worker picks "
        "changes up).",
        'turnproc game schedule spring26 --cron "0 3 * * *" --tz Europe/London --early-run on',
    )
    p.add_argument("game", help="the game's name")
    p.add_argument(
        "--json", action="store_true", help="print the schedule as one JSON object (see the handbook)"
    )
    p.add_argument(
        "--cron",
        metavar="EXPR",
        help='deadline as standard cron "min hour day month weekday" (Sunday = 0), or off',
    )
    p.add_argument(
        "--tz", metavar="ZONE", help="IANA time zone of the cron expression, e.g. Europe/London (default UTC)"
    )
    p.add_argument(
        "--early-run",
        choices=("on", "off"),
        help="run as soon as every active empire has orders in, after a delay, unless one sent WAIT",
    )
    p.add_argument(
        "--early-run-delay",
        type=whole,
        metavar="MINUTES",
        help="minutes after the last orders before an early run (default 30)",
    )
    p.add_argument(
        "--reminder-hours",
        type=whole,
        metavar="HOURS",
        help="remind empires without orders this long before the deadline; 0: never (default 24)",
    )
    p.add_argument(
        "--inactive-after",
        type=whole,
        metavar="TURNS",
        help="missed turns in a row that make an empire inactive (default 5)",
    )
    p.add_argument(
        "--nmr-limit",
        type=whole,
        metavar="PERCENT",
        help=(
            "the missed-orders guard does not run the turn when more than this %% of active empires sent "
            "no orders (default 50)"
        ),
    )
    p = add_command(
        gsub,
        "pause",
        cmd_game_pause,
        "Pause a game: no deadlines, early runs or reminders; mail is still answered.",
        "turnproc game pause spring26",
    )
    p.add_argument("game", help="the game's name")
    register_game(gsub)
    p = add_command(
        gsub,
        "resume",
        cmd_game_resume,
        "Resume a paused game; deadlines missed while paused are not run.",
        "turnproc game resume spring26",
    )
    p.add_argument("game", help="the game's name")
    p = add_command(
        gsub,
        "extend",
        cmd_game_extend,
        "Set this turn's deadline by hand and mail it to every active player.",
        "turnproc game extend spring26 --hours 24",
    )
    p.add_argument("game", help="the game's name")
    when = p.add_mutually_exclusive_group(required=True)
    when.add_argument("--hours", type=number, help="move the deadline now in force this many hours later")
    when.add_argument("--to", metavar="'YYYY-MM-DD HH:MM'", help="the new deadline, in the game's time zone")

    p = add_command(
        sub,
        "announce",
        cmd_announce,
        "Mail a GM's message to every active player now; the next report prints it too.",
        'turnproc announce spring26 --subject "Turn 5 runs a day late" message.txt',
    )
    p.add_argument("game", help="the game's name")
    p.add_argument("--subject", required=True, help="the mail's subject, up to 200 characters")
    p.add_argument("file", help="the message as plain text (- for stdin)")
