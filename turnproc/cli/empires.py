"""A game's empires, and orders received by other means: ``turnproc empire ...``, ``turnproc orders ...``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import add_command, now, open_from, out, out_json, read_input, reading
from .players import register_empire

_SEND = "send it with: turnproc send (the worker sends it on its own)"


def _password_line(args: argparse.Namespace, password: str) -> None:
    """The password on stdout only when the GM asked for it: terminals keep
    scrollback, and shell logs outlive the game."""
    if args.print_password:
        out(f"password: {password}")
        out("(shown once; only a hash is stored)")


def cmd_empire_add(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.game import add_empire
    from ..outgoing.welcome import Welcome, send_welcomes  # (as above)
    from ..storage.db import transaction  # (as above)
    from ..storage.queries import get_game  # (as above)

    app = open_from(args)
    with transaction(app.sessions) as session:
        game = get_game(session, args.game)
        empire, password = add_empire(session, game, args.code, args.name, args.email)
        send_welcomes(session, app.config, game, [Welcome(empire, password)], now())
        code, email = empire.code, empire.email
    out(f"empire {code} added to {args.game} for {email}; welcome mail with the password queued")
    _password_line(args, password)
    out(_SEND)
    return 0


def cmd_empire_list(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..storage import plainread

    with reading(args) as reader:
        rows = plainread.empire_rows(reader, plainread.get_game(reader, args.game))
    if args.json:
        out_json(rows)
        return 0
    if not rows:
        out(
            f"no empires in {args.game} yet: turnproc empire add {args.game} --code ABC --name NAME "
            "--email ADDRESS"
        )
    for r in rows:
        flags = ("orders in" + (", WAIT" if r["wait"] else "") if r["orders_in"] else "no orders") + (
            "" if r["active"] else ", inactive"
        )
        out(f"{r['code']} {r['name']:<24} {r['email']:<32} {r['vp']:>4} VP  {flags}")
    return 0


def cmd_empire_show(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.empires import empire_detail
    from ..storage.db import read_only  # (as above)
    from ..storage.queries import get_game  # (as above)

    app = open_from(args, read_only=True)
    with read_only(app.sessions) as session:
        d = empire_detail(session, get_game(session, args.game), args.empire)
    if args.json:
        out_json(d.as_dict())
        return 0
    out(f"empire {d.code} of game {d.game}: {d.name}, {'active' if d.active else 'inactive'}")
    out(f"address: {d.email}")
    out(
        f"{d.vp} VP, {d.systems} systems, balance {d.balance} BP, treasury {d.treasury} BP, "
        f"{d.missed_turns} missed turns in a row"
    )
    on_file = (
        f"{d.orders} orders on file" + (" with WAIT" if d.wait else "")
        if d.orders is not None
        else "no orders on file"
    )
    out(f"turn {d.turn}: {on_file}")
    out("reports of turns: " + (", ".join(map(str, d.reports)) if d.reports else "none yet"))
    return 0


def cmd_empire_set_email(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.empires import set_email
    from ..storage.db import transaction  # (as above)
    from ..storage.queries import get_game  # (as above)

    app = open_from(args)
    with transaction(app.sessions) as session:
        old, new = set_email(
            session, app.config, get_game(session, args.game), args.empire, args.address, now()
        )
    out(f"{args.empire.upper()} of {args.game}: address {old} -> {new}")
    return 0


def cmd_empire_reset_password(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.empires import reset_password
    from ..storage.db import transaction  # (as above)
    from ..storage.queries import get_empire, get_game  # (as above)

    app = open_from(args)
    with transaction(app.sessions) as session:
        game = get_game(session, args.game)
        password = reset_password(session, app.config, game, args.empire, now())
        email = get_empire(session, game, args.empire).email
    out(f"{args.empire.upper()} of {args.game}: new password mailed to {email}; the old one no longer works")
    _password_line(args, password)
    out(_SEND)
    return 0


def _set_active(args: argparse.Namespace, active: bool) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.empires import set_active
    from ..storage.db import transaction  # (as above)
    from ..storage.queries import get_game  # (as above)

    app = open_from(args)
    with transaction(app.sessions) as session:
        empire = set_active(session, get_game(session, args.game), args.empire, active, now())
        code = empire.code
    out(f"{code} of {args.game} is now {'active' if active else 'inactive'}")
    return 0


def cmd_empire_deactivate(args: argparse.Namespace) -> int:
    return _set_active(args, False)


def cmd_empire_reactivate(args: argparse.Namespace) -> int:
    return _set_active(args, True)


def cmd_empire_replace(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.empires import replace_player
    from ..storage.db import transaction  # (as above)
    from ..storage.queries import get_game  # (as above)

    app = open_from(args)
    with transaction(app.sessions) as session:
        password = replace_player(
            session,
            app.config,
            get_game(session, args.game),
            args.empire,
            args.email,
            now(),
            name=args.name,
            force=args.force,
        )
    out(
        f"{args.empire.upper()} of {args.game} handed to {args.email}; welcome mail with the new password "
        "queued"
    )
    _password_line(args, password)
    out(_SEND)
    return 0


def _progress(step: str, done: int, total: int) -> None:
    # stderr: stdout stays the result (one line per player with --print-password).
    sys.stderr.write(f"{step} {done}/{total}\n")
    sys.stderr.flush()


def cmd_empire_import(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.empires import import_players
    from ..storage.db import transaction  # (as above)
    from ..storage.queries import get_game  # (as above)

    text = read_input(args.file)
    app = open_from(args)
    with transaction(app.sessions) as session:
        added = import_players(
            session, app.config, get_game(session, args.game), text, now(), progress=_progress
        )
    out(f"{len(added)} players imported into {args.game}; a welcome mail with the password queued for each")
    if args.print_password:
        for code, email, password in added:
            out(f"{code} {email} {password}")
    out(_SEND)
    return 0


def cmd_orders_submit(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.empires import enter_orders
    from ..storage.db import transaction  # (as above)
    from ..storage.queries import get_empire, get_game  # (as above)

    text = read_input(args.file)
    app = open_from(args)
    with transaction(app.sessions) as session:
        game = get_game(session, args.game)
        empire = get_empire(session, game, args.empire)
        parsed, replaced = enter_orders(session, app.config, game, empire, text, now())
        turn = game.turn
    for p in parsed.problems:
        out(f"line {p.line}: {p.severity.value} [{p.code}] {p.message}")
    verb = "replace the earlier ones" if replaced else "are on file"
    out(f"{len(parsed.orders)} orders for {args.empire.upper()}, turn {turn}, {verb}")
    return 0


def _game_and_empire(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", help="the game's name")
    p.add_argument("empire", help="the empire's three-letter code")


def _print_password(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--print-password",
        action="store_true",
        help="also print the password (it is mailed to the player anyway)",
    )


def register(sub: Any) -> None:
    emp = add_command(
        sub,
        "empire",
        lambda a: 2,
        "Manage a game's empires.",
        "turnproc empire add spring26 --code RIG --name 'Rigel League' --email ann@example.org",
    )
    esub = emp.add_subparsers(dest="empire_command", metavar="SUBCOMMAND", required=True)
    p = add_command(
        esub,
        "add",
        cmd_empire_add,
        "Add a player's empire and queue the welcome mail with its password.",
        "turnproc empire add spring26 --code RIG --name 'Rigel League' --email ann@example.org",
    )
    p.add_argument("game", help="the game's name")
    p.add_argument("--code", required=True, help="three letters A-Z")
    p.add_argument("--name", required=True, help="the empire's name, up to 64 characters")
    p.add_argument("--email", required=True, help="the player's registered address; every reply goes there")
    _print_password(p)

    p = add_command(
        esub,
        "list",
        cmd_empire_list,
        "List a game's empires: address, VP, orders in, active.",
        "turnproc empire list spring26 --json",
    )
    p.add_argument("game", help="the game's name")
    p.add_argument("--json", action="store_true", help="one JSON array (see the handbook)")
    p = add_command(
        esub,
        "show",
        cmd_empire_show,
        "Show one empire: address, holdings, orders on file, reports.",
        "turnproc empire show spring26 RIG",
    )
    _game_and_empire(p)
    p.add_argument("--json", action="store_true", help="one JSON object (see the handbook)")
    p = add_command(
        esub,
        "set-email",
        cmd_empire_set_email,
        "Move an empire to a new address; replies and reports go there.",
        "turnproc empire set-email spring26 RIG ann@new.example.org",
    )
    _game_and_empire(p)
    p.add_argument("address", help="the new registered address")
    p = add_command(
        esub,
        "reset-password",
        cmd_empire_reset_password,
        "Give an empire a new password and mail it to the player.",
        "turnproc empire reset-password spring26 RIG",
    )
    _game_and_empire(p)
    _print_password(p)
    p = add_command(
        esub,
        "deactivate",
        cmd_empire_deactivate,
        "Mark an empire inactive: no orders expected, no reminders.",
        "turnproc empire deactivate spring26 RIG",
    )
    _game_and_empire(p)
    p = add_command(
        esub,
        "reactivate",
        cmd_empire_reactivate,
        "Make an inactive empire active again.",
        "turnproc empire reactivate spring26 RIG",
    )
    _game_and_empire(p)
    p = add_command(
        esub,
        "replace",
        cmd_empire_replace,
        "Hand an empire to a new player: new address and password, history kept, welcome mail.",
        "turnproc empire replace spring26 RIG --email cy@example.org",
    )
    _game_and_empire(p)
    p.add_argument("--email", required=True, help="the new player's address")
    p.add_argument("--name", help="a new name for the empire (default: keep it)")
    p.add_argument("--force", action="store_true", help="replace even an active empire's player")
    _print_password(p)
    p = add_command(
        esub,
        "import",
        cmd_empire_import,
        "Add many players from a CSV file (code,name,email) in one transaction and welcome each.",
        "turnproc empire import spring26 players.csv",
    )
    p.add_argument("game", help="the game's name")
    p.add_argument("file", help="CSV with a header line naming code, name, email (- for stdin)")
    p.add_argument(
        "--print-password", action="store_true", help="also print each player's code, address and password"
    )
    register_empire(esub)

    orders = add_command(
        sub,
        "orders",
        lambda a: 2,
        "Orders received by other means.",
        "turnproc orders submit spring26 RIG orders.txt",
    )
    osub = orders.add_subparsers(dest="orders_command", metavar="SUBCOMMAND", required=True)
    p = add_command(
        osub,
        "submit",
        cmd_orders_submit,
        "Store an empire's orders from a file (- for stdin), as if mailed.",
        "turnproc orders submit spring26 RIG orders.txt",
    )
    _game_and_empire(p)
    p.add_argument("file", help="the orders, one per line (- for stdin)")
