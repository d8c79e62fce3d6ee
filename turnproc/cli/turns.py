"""Running turns, the GM's turn control, and reports: ``turnproc turn ...``, ``turnproc report``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any

from .common import add_command, config_from, now, open_from, out, out_json, whole
from .service import cmd_send


def cmd_turn_run(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..errors import GMError
    from ..turns.byhand import plan_turn, refused, run_by_hand  # (as above)

    app = open_from(args)
    plan = plan_turn(app.sessions, args.game, app.config, now())
    for line in plan.lines():
        out(line)
    if plan.refusal is not None and not (args.force and plan.refusal.forcible):
        raise GMError(refused(plan.refusal, plan.game))
    if not args.yes:
        # A cron job or a script has no terminal: it must say --yes, so no
        # turn ever runs because a command was typed or scheduled twice.
        if not sys.stdin.isatty():
            raise GMError(
                f"no terminal to confirm on: turnproc turn run {plan.game} --yes runs turn {plan.turn} "
                "unasked"
            )
        answer = input(f"run turn {plan.turn} of {plan.game} now? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            out("nothing was run")
            return 1
    result = run_by_hand(app.sessions, args.game, app.config, now(), turn=plan.turn, force=args.force)
    out(
        f"game {result.game}: turn {result.turn} resolved ({result.events} events), {len(result.reports)} "
        "reports queued"
    )
    if result.finished:
        out("the game is over")
    if result.staged:
        out(
            f"the game is on hold: the turn is staged; turnproc turn release {result.game} sends it, turn "
            "discard drops it"
        )
    else:
        out("send them with: turnproc send")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..storage import plainread

    config = config_from(args)
    with plainread.opened(config.database_url) as reader:
        # Read without SQLAlchemy: a stored report, or before turn 1 (none
        # stored) the start-of-game position built from the state.
        if reader is not None:
            game = plainread.get_game(reader, args.game)
            stored = plainread.stored_report(reader, game, args.empire, args.turn)
            if stored is not None:
                _print_report(args, stored, None)
                return 0
            from ..runtime.collector import gc_paused  # (as above)
            from ..turns.position import position_reports  # (as above)

            # A whole galaxy of objects made at once: the collector held off
            # saves a tenth of the command's time.
            with gc_paused():
                built = position_reports(reader, game, [args.empire.upper()], start=args.turn == 0)
                _, text, context = next(built)
            _print_report(args, context, text)
            return 0
    # A database plainread does not read (another URL form, an older schema):
    # the ORM's path, which reads it or says why it cannot.
    from ..storage.db import read_only  # (as above)
    from ..storage.queries import get_empire, get_game  # (as above)
    from ..turns.run import report_for  # (as above)

    app = open_from(args, read_only=True)
    with read_only(app.sessions) as session:
        game_row = get_game(session, args.game)
        text, data = report_for(session, game_row, get_empire(session, game_row, args.empire), args.turn)
    _print_report(args, data, text)
    return 0


def _print_report(args: argparse.Namespace, data: Mapping[str, Any], text: str | None) -> None:
    if args.format == "json":
        out(json.dumps(data, indent=2, sort_keys=True))
        return
    if text is None:
        # Here, not at the top: rendering loads Jinja.
        from ..reports.render import render_report_text

        text = render_report_text(data)
    out(text)


def cmd_turn_preview(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..turns.run import preview_turn

    app = open_from(args, read_only=True)
    preview = preview_turn(app.engine, args.game, app.config, now(), empire=args.empire)
    if args.json:
        out_json(preview.as_dict())
        return 0
    for line in preview.summary():
        out(line)
    if preview.report is not None:
        out("")
        out(preview.report)
    out("(preview only: nothing was saved or sent)")
    return 0


def cmd_turn_hold(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..storage.db import transaction
    from ..storage.queries import get_game  # (as above)
    from ..turns.control import set_hold  # (as above)

    app = open_from(args)
    with transaction(app.sessions) as session:
        set_hold(session, get_game(session, args.game), not args.off, now())
    out(
        f"game {args.game}: "
        + (
            "turns are run as usual again"
            if args.off
            else f"each turn is staged for you; turnproc turn release {args.game} sends it"
        )
    )
    return 0


def cmd_turn_release(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..storage.db import transaction
    from ..storage.queries import get_game  # (as above)
    from ..turns.control import release_turn  # (as above)

    app = open_from(args)
    with transaction(app.sessions) as session:
        released = release_turn(session, get_game(session, args.game), now())
    out(f"game {released.game}: turn {released.turn} released, {released.mails} mails ready")
    if args.no_send:
        out("send them with: turnproc send")
        return 0
    return cmd_send(args)


def cmd_turn_discard(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..storage.db import transaction
    from ..storage.queries import get_game  # (as above)
    from ..turns.control import discard_turn  # (as above)

    app = open_from(args)
    with transaction(app.sessions) as session:
        result = discard_turn(session, get_game(session, args.game), now())
    out(result.summary())
    return 0


def cmd_turn_rollback(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..storage.db import transaction
    from ..storage.queries import get_game  # (as above)
    from ..turns.control import rollback  # (as above)

    app = open_from(args)
    with transaction(app.sessions) as session:
        result = rollback(
            session, get_game(session, args.game), args.to, now(), app.config, reason=args.reason
        )
    out(result.summary())
    out(f"fix orders if needed (turnproc orders submit), then: turnproc turn rerun {args.game} {args.to}")
    return 0


def cmd_turn_rerun(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..storage.db import transaction
    from ..storage.queries import get_game  # (as above)
    from ..turns.control import rerun_turn  # (as above)

    app = open_from(args)
    with transaction(app.sessions) as session:
        rolled, result = rerun_turn(
            session, get_game(session, args.game), args.turn, app.config, now(), reason=args.reason
        )
    if rolled is not None:
        out(rolled.summary())
    out(
        f"game {result.game}: turn {result.turn} re-run ({result.events} events), {len(result.reports)} "
        "corrected reports queued"
    )
    if result.staged:
        out(f"the game is on hold: turnproc turn release {result.game} sends them")
    else:
        out("send them with: turnproc send")
    return 0


def register(sub: Any) -> None:
    turn = add_command(sub, "turn", lambda a: 2, "Run turns.", "turnproc turn run spring26")
    tsub = turn.add_subparsers(dest="turn_command", metavar="SUBCOMMAND", required=True)
    p = add_command(
        tsub,
        "run",
        cmd_turn_run,
        "Show the orders in and missing, ask, then resolve the current turn and queue every report.",
        "turnproc turn run spring26 --yes",
    )
    p.add_argument("game", help="the game's name")
    p.add_argument(
        "--yes",
        action="store_true",
        help="run without asking (scripts, cron); without a terminal it is required",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="run despite the missed-orders guard or a turn that ran less than min_turn_interval minutes ago",
    )
    p = add_command(
        tsub,
        "preview",
        cmd_turn_preview,
        "Resolve the current turn without saving anything; print what would happen.",
        "turnproc turn preview spring26 --empire RIG",
    )
    p.add_argument("game", help="the game's name")
    p.add_argument("--empire", metavar="CODE", help="also print this empire's report as it would be sent")
    p.add_argument("--json", action="store_true", help="one JSON object (see the handbook)")
    p = add_command(
        tsub,
        "hold",
        cmd_turn_hold,
        "Stage each turn for the GM to release (or --off to run as usual).",
        "turnproc turn hold spring26",
    )
    p.add_argument("game", help="the game's name")
    p.add_argument("--off", action="store_true", help="stop holding; a turn already staged stays staged")
    p = add_command(
        tsub,
        "release",
        cmd_turn_release,
        "Make the staged turn final and send its reports.",
        "turnproc turn release spring26",
    )
    p.add_argument("game", help="the game's name")
    p.add_argument("--no-send", action="store_true", help="only release; leave delivery to `turnproc send`")
    p = add_command(
        tsub,
        "discard",
        cmd_turn_discard,
        "Drop the staged turn; the game collects that turn's orders again.",
        "turnproc turn discard spring26",
    )
    p.add_argument("game", help="the game's name")
    p = add_command(
        tsub,
        "rollback",
        cmd_turn_rollback,
        "Go back to collecting orders for turn N; later turns are archived.",
        "turnproc turn rollback spring26 --to 4",
    )
    p.add_argument("game", help="the game's name")
    p.add_argument(
        "--to", type=whole, required=True, metavar="N", help="the turn to collect orders for again"
    )
    p.add_argument("--reason", help="why, in a sentence: told to every active player with the rollback")
    p = add_command(
        tsub,
        "rerun",
        cmd_turn_rerun,
        "Run turn N again with its seed and the orders on file; reports go out as corrected.",
        "turnproc turn rerun spring26 4",
    )
    p.add_argument("game", help="the game's name")
    p.add_argument("turn", type=whole, metavar="N", help="the turn to run again")
    p.add_argument("--reason", help="why, in a sentence: printed in every corrected report")

    p = add_command(
        sub,
        "report",
        cmd_report,
        "Print an empire's latest (or a given turn's) report.",
        "turnproc report spring26 RIG --format json",
    )
    p.add_argument("game", help="the game's name")
    p.add_argument("empire", help="the empire's three-letter code")
    p.add_argument("--turn", type=whole, help="the turn the report describes (default: latest)")
    p.add_argument("--format", choices=("text", "json"), default="text")
