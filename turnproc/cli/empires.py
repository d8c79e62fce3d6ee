"""A game's empires, and orders received by other means: ``turnproc empire ...``, ``turnproc orders ...``."""

from __future__ import annotations

import argparse
from typing import Any

from ..games import (
    add_empire,
)
from ..intake import submit_orders
from ..storage.db import transaction
from ..storage.queries import get_empire, get_game
from .common import add_command, now, open_from, out, read_input
from .players import register_empire


def cmd_empire_add(args: argparse.Namespace) -> int:
    app = open_from(args)
    with transaction(app.sessions) as session:
        game = get_game(session, args.game)
        empire, password = add_empire(session, game, args.code, args.name, args.email)
        code, email = empire.code, empire.email
    out(f"empire {code} added to {args.game} for {email}")
    out(f"password: {password}")
    out("(shown once; only a hash is stored - pass it to the player now)")
    return 0


def cmd_orders_submit(args: argparse.Namespace) -> int:
    text = read_input(args.file)
    app = open_from(args)
    with transaction(app.sessions) as session:
        game = get_game(session, args.game)
        empire = get_empire(session, game, args.empire)
        parsed, replaced = submit_orders(session, game, empire, text, now())
        turn = game.turn
    for p in parsed.problems:
        out(f"line {p.line}: {p.severity.value} [{p.code}] {p.message}")
    verb = "replace the earlier ones" if replaced else "are on file"
    out(f"{len(parsed.orders)} orders for {args.empire.upper()}, turn {turn}, {verb}")
    return 0


def register(sub: Any) -> None:
    emp = add_command(sub, "empire", lambda a: 2, "Manage a game's empires.", "turnproc empire add spring26 --code RIG --name 'Rigel League' --email ann@example.org")
    esub = emp.add_subparsers(dest="empire_command", metavar="SUBCOMMAND", required=True)
    p = add_command(esub, "add", cmd_empire_add, "Add a player's empire; prints its password once.",
             "turnproc empire add spring26 --code RIG --name 'Rigel League' --email ann@example.org")
    p.add_argument("game")
    p.add_argument("--code", required=True, help="three letters A-Z")
    p.add_argument("--name", required=True)
    p.add_argument("--email", required=True, help="the player's registered address; every reply goes there")
    register_empire(esub)

    orders = add_command(sub, "orders", lambda a: 2, "Orders received by other means.", "turnproc orders submit spring26 RIG orders.txt")
    osub = orders.add_subparsers(dest="orders_command", metavar="SUBCOMMAND", required=True)
    p = add_command(osub, "submit", cmd_orders_submit, "Store an empire's orders from a file (- for stdin), as if mailed.",
             "turnproc orders submit spring26 RIG orders.txt")
    p.add_argument("game")
    p.add_argument("empire")
    p.add_argument("file")
