"""The GM's side of the players' mail commands: ``game signup``, ``game set``,
``empire approve`` and ``empire refuse``, and the lines ``game show`` prints
about sign-up, leave and quitting. The ``game`` and ``empire`` groups call
:func:`register_game` and :func:`register_empire` to add them."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from .common import add_command, now, open_from, out, whole

if TYPE_CHECKING:
    # For the annotations only.
    from ..storage.readmodel import PlayerSummary

__all__ = ["summary_lines", "register_empire", "register_game"]


def summary_lines(s: PlayerSummary) -> list[str]:
    """What ``game show`` says about sign-up, vacations and QUIT."""
    limit = f", at most {s.signup_limit} empires" if s.signup_limit else ""
    lines = [f"sign-up: {'open' if s.signup_open else 'closed'}{limit}; {len(s.pending)} request(s) waiting"]
    lines += [f"  waiting: {code} {name} <{email}>" for code, name, email in s.pending]
    leave = ", ".join(f"{code} until turn {until}" for code, until in s.on_leave) or "none"
    lines.append(f"vacations (at most {s.vacation_limit} turns): {leave}")
    if s.quitting:
        lines.append(f"leaving when this turn runs (QUIT): {', '.join(s.quitting)}")
    return lines


def cmd_game_signup(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.signup import set_signup
    from ..storage.db import transaction  # (as above)
    from ..storage.queries import get_game  # (as above)

    app = open_from(args)
    with transaction(app.sessions) as session:
        game = get_game(session, args.game)
        summary = set_signup(session, game, open_=args.open, limit=args.limit)
        name = game.name
    out(f"game {name}")
    for line in summary_lines(summary):
        out(line)
    return 0


def cmd_game_set(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.game import set_game
    from ..storage.db import transaction  # (as above)
    from ..storage.queries import get_game  # (as above)

    app = open_from(args)
    with transaction(app.sessions) as session:
        game = set_game(
            session,
            get_game(session, args.game),
            name=args.name,
            turn_limit=args.turn_limit,
            vp_target=args.vp_target,
            vacation_limit=args.vacation_limit,
        )
        shown = (
            f"game {game.name}: turn limit {game.turn_limit}, VP target {game.vp_target}, vacations of "
            f"at most {game.vacation_limit} turns"
        )
    out(shown)
    return 0


def cmd_empire_approve(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.signup import approve_signup
    from ..storage.db import transaction  # (as above)
    from ..storage.queries import get_game  # (as above)

    app = open_from(args)
    with transaction(app.sessions) as session:
        game = get_game(session, args.game)
        empire, _ = approve_signup(session, app.config, game, args.code, now())
        code, name, email = empire.code, empire.name, empire.email
    out(
        f"empire {code} ({name}) added to {args.game} for {email}; the password is mailed to them "
        "(turnproc send)"
    )
    return 0


def cmd_empire_refuse(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.signup import refuse_signup
    from ..storage.db import transaction  # (as above)
    from ..storage.queries import get_game  # (as above)

    app = open_from(args)
    with transaction(app.sessions) as session:
        request = refuse_signup(
            session, app.config, get_game(session, args.game), args.code, now(), args.reason or ""
        )
        code, email = request.code, request.email
    out(f"sign-up request {code} from {email} refused; they are told by mail (turnproc send)")
    return 0


def register_game(gsub: Any) -> None:
    p = add_command(
        gsub,
        "signup",
        cmd_game_signup,
        "Open or close sign-up by mail (JOIN) and show the requests waiting.",
        "turnproc game signup spring26 --open --limit 12",
    )
    p.add_argument("game", help="the game's name")
    group = p.add_mutually_exclusive_group()
    group.add_argument(
        "--open", dest="open", action="store_const", const=True, help="take JOIN requests by mail"
    )
    group.add_argument("--close", dest="open", action="store_const", const=False, help="refuse JOIN requests")
    p.add_argument(
        "--limit",
        type=whole,
        metavar="N",
        help="at most N empires in the game, requests waiting included; 0: no limit",
    )
    p = add_command(
        gsub,
        "set",
        cmd_game_set,
        "Change a game's name, turn limit, VP target or vacation limit.",
        "turnproc game set spring26 --turn-limit 40 --vp-target 120 --vacation-limit 2",
    )
    p.add_argument("game", help="the game's name")
    p.add_argument("--name", help="a new name for the game (players write it on their GAME line)")
    p.add_argument(
        "--turn-limit",
        type=whole,
        metavar="N",
        help="the game ends after turn N (not below the current turn)",
    )
    p.add_argument(
        "--vp-target", type=whole, metavar="N", help="the game ends when an empire has N victory points"
    )
    p.add_argument(
        "--vacation-limit",
        type=whole,
        metavar="N",
        help="the longest VACATION a player may take, in turns; 0: none (default 3)",
    )


def register_empire(esub: Any) -> None:
    p = add_command(
        esub,
        "approve",
        cmd_empire_approve,
        "Approve a sign-up request: add the empire and mail the player its password.",
        "turnproc empire approve spring26 RIG",
    )
    p.add_argument("game", help="the game's name")
    p.add_argument("code", help="the requested empire code")
    p = add_command(
        esub,
        "refuse",
        cmd_empire_refuse,
        "Refuse a sign-up request; the applicant is told by mail.",
        'turnproc empire refuse spring26 RIG --reason "the game is for the club only"',
    )
    p.add_argument("game", help="the game's name")
    p.add_argument("code", help="the requested empire code")
    p.add_argument("--reason", help="told to the applicant")
