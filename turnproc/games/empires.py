"""A game's empires as the GM runs them: list and show, change an address,
give a new password, (de)activate, hand an empire to a new player, import
many players at once, and the welcome mail each new player gets.

Each function is one unit of work in the caller's session; a GM's mistake is a
:class:`GMError` raised before anything is written. Passwords are generated
here, mailed in the welcome mail and returned to the caller once; only their
hashes are stored.

The mails, the intake, the galaxy generator and the converter are imported
inside the functions that use them:
``empire list`` and ``empire show`` read through this module, and would
otherwise load the mail clients and the report renderer (tests/test_cli_imports.py).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..accounts.passwords import generate_password, hash_password, hash_passwords
from ..admin import audit
from ..config import Config
from ..errors import GMError
from ..orders.orders import Order, ParsedOrders, format_order
from ..rules.state import GameState
from ..storage import models as m
from ..storage import plainread
from ..storage.queries import get_empire, orders_on_file, plain_reader, withdraw_orders
from .game import check_email, check_new_empire, taken_addresses

log = logging.getLogger(__name__)

__all__ = [
    "EmpireDetail",
    "empire_rows",
    "empire_detail",
    "set_email",
    "reset_password",
    "set_active",
    "replace_player",
    "parse_players_csv",
    "import_players",
    "enter_orders",
]


# -- looking -------------------------------------------------------------------------


def empire_rows(session: Session, game: m.Game) -> list[dict[str, Any]]:
    """Every empire of the game, by code, as ``empire list --json`` prints it."""
    return plainread.empire_rows(plain_reader(session), game.id)


@dataclass(frozen=True)
class EmpireDetail:
    game: str
    turn: int
    code: str
    name: str
    email: str
    active: bool
    vp: int
    balance: int
    treasury: int
    missed_turns: int
    systems: int
    orders: int | None
    """Orders on file for the current turn (None: none on file)."""
    wait: bool
    reports: list[int]
    """The turns the empire has a report of."""

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def empire_detail(session: Session, game: m.Game, code: str) -> EmpireDetail:
    e = get_empire(session, game, code)
    systems = session.scalar(select(func.count()).select_from(m.System).where(m.System.owner_id == e.id)) or 0
    on_file = orders_on_file(session, e.id, game.turn)
    reports = list(
        session.scalars(select(m.Report.turn).where(m.Report.empire_id == e.id).order_by(m.Report.turn))
    )
    return EmpireDetail(
        game=game.name,
        turn=game.turn,
        code=e.code,
        name=e.name,
        email=e.email,
        active=bool(e.active),
        vp=e.vp,
        balance=e.balance,
        treasury=e.treasury,
        missed_turns=e.missed_turns,
        systems=int(systems),
        orders=len(on_file.orders or []) if on_file is not None and on_file.orders else None,
        wait=bool(on_file.wait) if on_file is not None else False,
        reports=reports,
    )


# -- changing ------------------------------------------------------------------------


def _audit(session: Session, game: m.Game, action: str, command: str, detail: str, now: dt.datetime) -> None:
    """Every change to a player's empire goes into the audit log, as a SQL fix would."""
    audit.record(
        session,
        action=action,
        game_id=game.id,
        game_name=game.name,
        script=f"empire {command}",
        outcome="committed",
        detail=detail,
        now=now,
    )


def set_email(
    session: Session, config: Config, game: m.Game, code: str, email: str, now: dt.datetime
) -> tuple[str, str]:
    """Move an empire to a new address (every reply and report goes there from
    now on), and tell both addresses; (old, new)."""
    # Here, not at the top (see the module's docstring).
    from ..outgoing.empiremails import queue_address_set

    empire = get_empire(session, game, code)
    email = check_email(email)
    taken = taken_addresses(session, game)
    other = taken.get(email.lower())
    if other is not None and other != empire.code:
        raise GMError(f"{email} already plays {other} in game {game.name!r}")
    old, empire.email = empire.email, email
    session.flush()
    _audit(
        session, game, "set-email", f"set-email {game.name} {empire.code} {email}", f"{old} -> {email}", now
    )
    queue_address_set(
        session, config, now, game=game.name, game_id=game.id, empire=empire.code, old=old, new=email
    )
    log.info("game %s: %s moved from %s to %s", game.name, empire.code, old, email)
    return old, email


def reset_password(session: Session, config: Config, game: m.Game, code: str, now: dt.datetime) -> str:
    """A new password for the empire, mailed to its registered address; the
    old one stops working at the commit."""
    # Here, not at the top (see the module's docstring).
    from ..outgoing.welcome import Welcome, send_welcomes

    empire = get_empire(session, game, code)
    password = generate_password()
    empire.password_hash = hash_password(password)
    session.flush()
    _audit(
        session,
        game,
        "new-password",
        f"reset-password {game.name} {empire.code}",
        f"mailed to {empire.email}",
        now,
    )
    send_welcomes(session, config, game, [Welcome(empire, password, "password")], now)
    return password


def set_active(session: Session, game: m.Game, code: str, active: bool, now: dt.datetime) -> m.Empire:
    """Deactivate an empire (its systems stay; no orders are expected, the
    missed-orders guard and reminders leave it out) or make it active again
    (its count of missed turns starts afresh)."""
    empire = get_empire(session, game, code)
    if bool(empire.active) == active:
        raise GMError(f"{empire.code} is already {'active' if active else 'inactive'} in game {game.name!r}")
    empire.active = active
    if active:
        empire.missed_turns = 0
    session.flush()
    verb = "reactivate" if active else "deactivate"
    _audit(session, game, verb, f"{verb} {game.name} {empire.code}", "", now)
    return empire


def replace_player(
    session: Session,
    config: Config,
    game: m.Game,
    code: str,
    email: str,
    now: dt.datetime,
    *,
    name: str | None = None,
    force: bool = False,
) -> str:
    """Hand an empire to a new player: new address, new password, active
    again with no missed turns, the old player's orders for this turn
    withdrawn, reports and history kept; the welcome mail goes to the new
    address. An active empire still has its player: refused unless ``force``.
    The old address is told. Returns the new password."""
    # Here, not at the top (see the module's docstring).
    from ..outgoing.empiremails import queue_handed_over
    from ..outgoing.welcome import Welcome, send_welcomes  # (as above)

    empire = get_empire(session, game, code)
    if empire.active and not force:
        raise GMError(
            f"{empire.code} is still active in game {game.name!r} (its player may come back): "
            f"turnproc empire deactivate {game.name} {empire.code} first, or replace with --force"
        )
    email = check_email(email)
    other = taken_addresses(session, game).get(email.lower())
    if other is not None and other != empire.code:
        raise GMError(f"{email} already plays {other} in game {game.name!r}")
    if name is not None:
        if not name.strip() or len(name.strip()) > 64:
            raise GMError("--name: 1 to 64 characters")
        empire.name = name.strip()
    password = generate_password()
    old = empire.email
    empire.email, empire.password_hash = email, hash_password(password)
    empire.active, empire.missed_turns = True, 0
    withdrawn = withdraw_orders(session, empire.id, game.turn)
    session.flush()
    detail = f"{old} -> {email}" + ("; the old player's orders withdrawn" if withdrawn else "")
    _audit(session, game, "replace", f"replace {game.name} {empire.code} --email {email}", detail, now)
    send_welcomes(session, config, game, [Welcome(empire, password, "replace")], now)
    if old.lower() != email.lower():
        queue_handed_over(session, config, now, game=game.name, game_id=game.id, empire=empire.code, old=old)
    log.info("game %s: %s handed from %s to %s", game.name, empire.code, old, email)
    return password


def enter_orders(
    session: Session, config: Config, game: m.Game, empire: m.Empire, text: str, now: dt.datetime
) -> tuple[ParsedOrders, bool]:
    """Orders the GM received another way (``turnproc orders submit``), stored
    as if mailed; when they change the orders on file, the player is told
    what is on file now. (parsed, whether earlier orders were replaced)."""
    # Here, not at the top (see the module's docstring).
    from ..intake.onfile import submit_orders  # (as above)
    from ..outgoing.empiremails import queue_orders_entered  # (as above)

    before = orders_on_file(session, empire.id, game.turn)
    parsed, replaced = submit_orders(session, game, empire, text, now)
    on_file = orders_on_file(session, empire.id, game.turn)
    if on_file is not before:  # new orders on file, or a CLEAR withdrew them
        lines = [format_order(Order.from_dict(o)) for o in on_file.orders] if on_file is not None else []
        queue_orders_entered(
            session,
            config,
            now,
            game=game.name,
            game_id=game.id,
            empire=empire.code,
            recipient=empire.email,
            turn=game.turn,
            orders=lines,
        )
    return parsed, replaced


# -- import --------------------------------------------------------------------------


@dataclass(frozen=True)
class NewPlayer:
    line: int
    code: str
    name: str
    email: str


def parse_players_csv(text: str, game: m.Game, taken: dict[str, str]) -> list[NewPlayer]:
    """Rows ``code,name,email`` (a header line naming those columns first),
    every row checked against the game and the rows above it. Every bad row is
    named by its line in one :class:`GMError`; nothing is imported then."""
    reader = csv.reader(io.StringIO(text))
    header = [h.strip().lower() for h in next(reader, [])]
    if not {"code", "name", "email"} <= set(header):
        raise GMError("line 1: the header must name the columns code, name and email")
    col = {h: header.index(h) for h in ("code", "name", "email")}
    taken = dict(taken)
    players: list[NewPlayer] = []
    problems: list[str] = []
    for row in reader:
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        if len(row) < len(header):
            problems.append(f"line {line}: {len(row)} columns, the header has {len(header)}")
            continue
        try:
            code, name, email = check_new_empire(
                row[col["code"]], row[col["name"]], row[col["email"]], taken, game.name
            )
        except GMError as exc:
            problems.append(f"line {line}: {exc}")
            continue
        taken[email.lower()] = code
        players.append(NewPlayer(line, code, name, email))
    if problems:
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        raise GMError(
            f"{len(problems)} bad row(s), nothing imported:\n  " + "\n  ".join(problems[:20]) + more
        )
    if not players:
        raise GMError("no players in the file")
    return players


def import_players(
    session: Session,
    config: Config,
    game: m.Game,
    text: str,
    now: dt.datetime,
    progress: Callable[[str, int, int], None] | None = None,
) -> list[tuple[str, str, str]]:
    """Add every player of a CSV file (see :func:`parse_players_csv`) in the
    caller's one transaction and queue each a welcome mail. The galaxy is
    loaded and saved once and the passwords hashed on every CPU, so 500
    players take seconds, not 500 ``empire add`` runs. Returns (code, address,
    password) of each. ``progress(step, done, total)`` is told as it goes."""
    # Here, not at the top (see the module's docstring).
    from ..outgoing.welcome import Welcome, send_welcomes  # (as above)
    from ..rules.generate import GalaxyError, free_home_slots, place_empire  # (as above)
    from ..storage.convert import load_state, save_state  # (as above)

    players = parse_players_csv(text, game, taken_addresses(session, game))
    tell = progress or (lambda step, done, total: None)
    state: GameState = load_state(session, game)
    if len(free_home_slots(state)) < len(players):
        raise GMError(
            f"game {game.name!r} has {len(free_home_slots(state))} free homes for {len(players)} players"
        )
    for i, p in enumerate(players, 1):
        try:
            place_empire(state, p.code, p.name)
        except GalaxyError as exc:
            raise GMError(f"line {p.line}: {exc}") from None
        if i % 100 == 0 or i == len(players):
            tell("placed", i, len(players))
    passwords = [generate_password() for _ in players]
    hashes = hash_passwords(passwords)
    tell("hashed", len(players), len(players))
    rows = [
        m.Empire(game_id=game.id, code=p.code, name=p.name, email=p.email, password_hash=h)
        for p, h in zip(players, hashes, strict=True)
    ]
    session.add_all(rows)
    session.flush()
    save_state(session, game, state)
    tell("saved", len(players), len(players))
    _audit(
        session,
        game,
        "import",
        f"import {game.name}",
        f"{len(players)} players: " + ", ".join(p.code for p in players),
        now,
    )
    welcomes = [Welcome(row, pw) for row, pw in zip(rows, passwords, strict=True)]
    send_welcomes(session, config, game, welcomes, now, progress=tell)
    log.info("game %s: %d players imported", game.name, len(players))
    return [(p.code, p.email, pw) for p, pw in zip(players, passwords, strict=True)]
