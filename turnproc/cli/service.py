"""Mail and the long-running service: ``turnproc poll|send|worker|demo``."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

from .common import CLIError, add_command, config_from, defaults_notice, now, number, open_from, out, whole


def cmd_poll(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..intake import poll

    app = open_from(args)
    results = poll(app, now())
    counts: dict[str, int] = {}
    for r in results:
        counts[r.outcome] = counts.get(r.outcome, 0) + 1
    out(
        f"{len(results)} mails: "
        + (", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "none waiting")
    )
    return 0


def cmd_send(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..outgoing.reportmail import send_outbox

    app = open_from(args)
    sent, failed = send_outbox(app.sessions, app.config, now())
    out(f"{sent} mails sent, {failed} failed (they will be retried)")
    return 0 if not failed else 1


def cmd_demo(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..service.demo import run_demo

    try:
        summary = run_demo(Path(args.dir), turns=args.turns, players=args.players, seed=args.seed)
    except (FileExistsError, ValueError) as exc:
        raise CLIError(str(exc)) from None
    out(summary)
    return 0


def cmd_worker(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..app import open_app
    from ..runtime.logs import configure_logging  # (as above)
    from ..service.process import WorkerSettings, run_once, run_worker  # (as above)

    configure_logging(args.log_format, logging.DEBUG if args.verbose > 1 else logging.INFO)
    config = config_from(args)
    if notice := defaults_notice(args):
        # Now, not when the command ends: a worker runs for weeks.
        logging.getLogger("turnproc").warning("%s", notice.replace("used the", "using the"))
        args.defaults_notice = None
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
    settings = WorkerSettings(
        tick=args.tick, poll=args.poll, flush=args.flush, idle=args.idle, max_backoff=args.max_backoff
    )
    return run_worker(config, settings)


def register(sub: Any) -> None:
    add_command(
        sub,
        "poll",
        cmd_poll,
        "Fetch and handle waiting order mails once (IMAP or the local Maildir).",
        "turnproc poll",
    )
    add_command(sub, "send", cmd_send, "Deliver queued mails (SMTP or the local Maildir).", "turnproc send")

    p = add_command(
        sub,
        "worker",
        cmd_worker,
        "Run the service: inbox polling, outbox sending, deadlines, early runs and reminders for every "
        "game, until SIGTERM.",
        "turnproc --config /etc/turnproc/turnproc.toml worker --tick 30 --poll 60",
    )
    p.add_argument(
        "--tick",
        type=number,
        default=30.0,
        metavar="SECONDS",
        help="how often deadlines are checked (default 30)",
    )
    p.add_argument(
        "--poll",
        type=number,
        default=60.0,
        metavar="SECONDS",
        help="how often the inbox is read (default 60)",
    )
    p.add_argument(
        "--flush",
        type=number,
        default=30.0,
        metavar="SECONDS",
        help="how often queued mail is retried (default 30)",
    )
    p.add_argument(
        "--idle", action="store_true", help="also hold an IMAP IDLE connection and read new mail at once"
    )
    p.add_argument(
        "--max-backoff",
        type=number,
        default=300.0,
        metavar="SECONDS",
        help="longest pause between retries when a server or a game keeps failing (default 300)",
    )
    p.add_argument(
        "--log-format",
        choices=("auto", "journal", "text", "json"),
        default="auto",
        help=(
            "stderr log lines: journal (no timestamps, syslog priorities), text, json; auto: journal "
            "under systemd"
        ),
    )
    p.add_argument(
        "--once", action="store_true", help="one poll, one pass over the games and one flush, then exit"
    )

    p = add_command(
        sub,
        "demo",
        cmd_demo,
        "Play a short demo game in a directory: SQLite and local Maildir, no servers.",
        "turnproc demo --turns 3",
    )
    p.add_argument(
        "--dir", default="turnproc-demo", help="where to put the demo game (default ./turnproc-demo)"
    )
    p.add_argument("--turns", type=whole, default=1, help="turns to play (default 1)")
    p.add_argument("--players", type=whole, default=4, help="empires (default 4)")
    p.add_argument("--seed", default="demo", help="galaxy seed (default 'demo')")
