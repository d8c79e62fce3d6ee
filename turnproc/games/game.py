"""What a game master does to a game: create it, add players, look at it,
set its schedule, pause and resume it.

Each function is one unit of work inside a session the caller opened; errors a
GM can make are :class:`GMError` with a one-line message, raised before
anything is written.

The galaxy generator, the scenario reader, the converter and the notices are
imported by the functions that create, add or mail: ``game show`` reads the
summary here, and would otherwise load the whole rules engine and the mail
layer it never uses (tests/test_cli_imports.py).
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import secrets
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..accounts.passwords import generate_password, hash_password
from ..config import Config
from ..errors import GMError
from ..rules.state import LATEST_RULESET, MODULES, RULESETS, GameSettings
from ..storage import models as m
from ..storage import plainread
from ..storage.queries import (
    move_deadline,
    plain_reader,
)
from ..storage.readmodel import GameSummary
from ..timing import deadlines

if TYPE_CHECKING:
    # For the annotations only (see the module's docstring).
    from ..scenario import Scenario

log = logging.getLogger(__name__)

__all__ = [
    "GameSummary",
    "parse_modules",
    "new_game",
    "add_empire",
    "check_email",
    "check_new_empire",
    "taken_addresses",
    "game_summary",
    "set_schedule",
    "pause_game",
    "resume_game",
    "set_game",
]

_GAME_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def parse_modules(text: str | None) -> frozenset[str]:
    """``"zoc,pinning"`` → the module set; ``"none"`` or ``""`` → plain Star Chase."""
    if text is None:
        return MODULES
    names = {x.strip().lower() for x in text.split(",") if x.strip()}
    if names <= {"none"}:
        return frozenset()
    unknown = names - MODULES
    if unknown:
        raise GMError(
            f"unknown rule module {', '.join(sorted(unknown))} (known: {', '.join(sorted(MODULES))}, or none)"
        )
    return frozenset(names)


def new_game(
    session: Session,
    name: str,
    *,
    players: int = 4,
    seed: str | None = None,
    scenario: Path | None = None,
    modules: frozenset[str] | None = None,
    systems_per_player: int = 30,
    ruleset: int | None = None,
) -> tuple[m.Game, dict[str, str]]:
    """Create a game from a generated galaxy or a scenario file.

    ``ruleset`` is the rule-set version (rules.md §19): by default the
    scenario's own (``ruleset`` in the file, 1 when it has none), else the
    latest.

    Returns the game and, for a scenario that declares empires with e-mail
    addresses, the generated password of each (shown to the GM once).
    """
    # Here, not at the top (see the module's docstring).
    from ..rules.generate import GalaxyError, generate_galaxy
    from ..scenario import ScenarioError, load_scenario_file  # (as above)
    from ..storage.convert import new_game_row, save_state  # (as above)

    if not _GAME_NAME.match(name):
        raise GMError(f"game name {name!r}: use letters, digits, '-', '_' or '.', up to 64 characters")
    if session.scalar(select(m.Game.id).where(m.Game.name == name)) is not None:
        raise GMError(f"a game named {name!r} already exists")
    if ruleset is not None and ruleset not in RULESETS:
        raise GMError(f"--ruleset {ruleset}: known rule sets are {', '.join(map(str, RULESETS))}")
    seed = seed or secrets.token_hex(16)
    if scenario is not None:
        try:
            loaded = load_scenario_file(scenario)
        except ScenarioError as exc:
            raise GMError(str(exc)) from None
        except OSError as exc:
            raise GMError(f"cannot read scenario {scenario}: {exc.strerror}") from None
        if modules is not None:
            loaded.state.settings = replace(loaded.state.settings, modules=modules)
        if ruleset is not None:
            loaded.state.settings = replace(loaded.state.settings, ruleset=ruleset)
        state = loaded.state
    else:
        if not 1 <= players <= 2000:
            raise GMError(f"--players {players}: a game has 1 to 2000 players")
        if systems_per_player < 3:
            raise GMError("--systems-per-player must be at least 3")
        settings = GameSettings(
            modules=MODULES if modules is None else modules,
            ruleset=LATEST_RULESET if ruleset is None else ruleset,
        )
        try:
            state = generate_galaxy(seed, players, systems_per_player, settings)
        except GalaxyError as exc:
            raise GMError(f"--systems-per-player {systems_per_player}: {exc}") from None
        loaded = None

    game = new_game_row(name, seed, state)
    session.add(game)
    session.flush()
    passwords: dict[str, str] = {}
    if loaded is not None:
        passwords = _scenario_empires(session, game, loaded)
    save_state(session, game, state)
    log.info("created game %s (%d systems, %d empires)", name, len(state.systems), len(state.empires))
    return game, passwords


def _scenario_empires(session: Session, game: m.Game, scenario: Scenario) -> dict[str, str]:
    passwords: dict[str, str] = {}
    for code, empire in sorted(scenario.state.empires.items()):
        password = generate_password()
        email = scenario.emails.get(code) or f"{code.lower()}@{game.name.lower()}.invalid"
        session.add(
            m.Empire(
                game_id=game.id,
                code=code,
                name=empire.name,
                email=email,
                password_hash=hash_password(password),
            )
        )
        passwords[code] = password
    session.flush()
    return passwords


def check_email(email: str) -> str:
    """An address as stored (email-validator's normal form, the syntax only),
    or :class:`GMError` when it is not one address mail could go to."""
    # Here, not at the top (see the module's docstring): the mail layer's address parser.
    from ..mail.identity import valid_address

    valid = valid_address(email.strip())
    if valid is None:
        raise GMError(f"e-mail address {email.strip()!r} does not look like name@domain")
    return valid


def check_new_empire(
    code: str, name: str, email: str, taken: dict[str, str], game_name: str
) -> tuple[str, str, str]:
    """(code, name, address) of a new empire as stored, checked against
    ``taken`` (address in lower case → code of every empire of the game)."""
    code = code.strip().upper()
    if not re.fullmatch(r"[A-Z]{3}", code):
        raise GMError(f"empire code {code!r}: three letters A-Z")
    name = name.strip()
    if not name:
        raise GMError("empire name is empty")
    if len(name) > 64:
        raise GMError(f"empire name {name[:20]!r}...: at most 64 characters")
    email = check_email(email)
    if code in taken.values():
        raise GMError(f"game {game_name!r} already has an empire {code}")
    if email.lower() in taken:
        raise GMError(f"{email} already plays {taken[email.lower()]} in game {game_name!r}")
    return code, name, email


def taken_addresses(session: Session, game: m.Game) -> dict[str, str]:
    """Address in lower case → empire code, for every empire of the game."""
    rows = session.execute(select(m.Empire.code, m.Empire.email).where(m.Empire.game_id == game.id)).all()
    return {email.lower(): code for code, email in rows}


def add_empire(session: Session, game: m.Game, code: str, name: str, email: str) -> tuple[m.Empire, str]:
    """Add a player: claim a free home, apply the start holdings, and return the
    new empire with its generated password (stored only as a hash). The
    welcome mail is :func:`turnproc.outgoing.welcome.send_welcomes`."""
    # Here, not at the top (see the module's docstring).
    from ..rules.generate import GalaxyError, place_empire
    from ..storage.convert import load_state, save_state  # (as above)

    code, name, email = check_new_empire(code, name, email, taken_addresses(session, game), game.name)
    state = load_state(session, game)
    if state.turn != 1 or game.status != "active":
        log.warning("adding %s to game %s at turn %d", code, game.name, state.turn)
    try:
        place_empire(state, code, name)
    except GalaxyError as exc:
        raise GMError(f"game {game.name!r}: {exc}") from None
    password = generate_password()
    empire = m.Empire(
        game_id=game.id, code=code, name=name, email=email, password_hash=hash_password(password)
    )
    session.add(empire)
    session.flush()
    save_state(session, game, state)
    return empire, password


def game_summary(session: Session, game: m.Game, now: dt.datetime) -> GameSummary:
    """What ``game show`` prints, read as the GM's prompt reads it
    (``storage.plainread``), in this session's transaction."""
    return plainread.game_summary(plain_reader(session), game.id, now)


# -- schedule, pause, resume (read by the worker on its next pass) ---------------------------

_NO_SCHEDULE = ("", "off", "none")


def set_schedule(
    session: Session,
    game: m.Game,
    now: dt.datetime,
    *,
    cron: str | None = None,
    timezone: str | None = None,
    early_run: bool | None = None,
    early_run_delay: int | None = None,
    reminder_hours: int | None = None,
    inactive_after: int | None = None,
    nmr_limit: int | None = None,
    config: Config | None = None,
) -> GameSummary:
    """Change what is given, after checking all of it. A new cron expression
    or time zone counts deadlines from ``now``: none before the change runs.
    With ``config``, a changed deadline is mailed to every active player."""
    new_cron = (
        game.schedule
        if cron is None
        else (None if cron.strip().lower() in _NO_SCHEDULE else " ".join(cron.split()))
    )
    new_zone = game.timezone if timezone is None else timezone.strip()
    try:
        ZoneInfo(new_zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise GMError(f"unknown time zone {new_zone!r} (use an IANA name like Europe/London)") from None
    if new_cron is not None:
        try:
            deadlines.cron_trigger(new_cron, new_zone)
        except deadlines.DeadlineError as exc:
            raise GMError(str(exc)) from None
    for option, value, low, high in (
        ("--early-run-delay", early_run_delay, 0, 7 * 24 * 60),
        ("--reminder-hours", reminder_hours, 0, 24 * 31),
        ("--inactive-after", inactive_after, 1, 1000),
        ("--nmr-limit", nmr_limit, 0, 100),
    ):
        if value is not None and not low <= value <= high:
            raise GMError(f"{option} {value}: must be from {low} to {high}")
    if (new_cron, new_zone) != (game.schedule, game.timezone):
        game.schedule, game.timezone = new_cron, new_zone
        move_deadline(game, count_from=now)
        log.info(
            "game %s: schedule %r in %s from %s",
            game.name,
            new_cron,
            new_zone,
            now.isoformat(timespec="seconds"),
        )
        if config is not None and game.status == "active":
            _tell_players(session, config, game, now, "schedule", "The GM has changed the game's schedule.")
    if early_run is not None:
        game.early_run = early_run
    if early_run_delay is not None:
        game.early_run_delay = early_run_delay
    if reminder_hours is not None:
        game.reminder_hours = reminder_hours
    if inactive_after is not None:
        game.inactive_after = inactive_after
    if nmr_limit is not None:
        game.nmr_limit = nmr_limit
    session.flush()
    return game_summary(session, game, now)


def _tell_players(
    session: Session, config: Config, game: m.Game, now: dt.datetime, change: str, because: str
) -> None:
    """Mail every active player the deadline now in force, and why it changed."""
    # Here, not at the top (see the module's docstring).
    from .notices import change_key, notify_deadline

    notify_deadline(session, config, game, now, change=change_key(change, now), because=because)


def pause_game(
    session: Session, game: m.Game, now: dt.datetime | None = None, config: Config | None = None
) -> None:
    """No deadlines, early runs or reminders until resumed; mail is still read
    and answered. With ``config`` (and ``now``), every active player is told."""
    if game.status == "finished":
        raise GMError(f"game {game.name} is over")
    if game.status == "paused":
        raise GMError(f"game {game.name} is already paused")
    game.status = "paused"
    session.flush()
    if config is not None and now is not None:
        _tell_players(
            session,
            config,
            game,
            now,
            "pause",
            "The GM has paused the game: no turn runs until it is resumed.",
        )


def resume_game(
    session: Session, game: m.Game, now: dt.datetime, config: Config | None = None
) -> GameSummary:
    """Deadlines that passed during the pause are not caught up: the next one
    after ``now`` is the turn's deadline. With ``config``, every active player
    is told."""
    if game.status != "paused":
        raise GMError(f"game {game.name} is not paused (it is {game.status})")
    game.status = "active"
    move_deadline(game, count_from=now)
    session.flush()
    if config is not None:
        _tell_players(session, config, game, now, "resume", "The GM has resumed the game.")
    return game_summary(session, game, now)


def set_game(
    session: Session,
    game: m.Game,
    *,
    name: str | None = None,
    turn_limit: int | None = None,
    vp_target: int | None = None,
    vacation_limit: int | None = None,
) -> m.Game:
    """Change what is given, after checking all of it. A new name is how
    players write GAME from now on; the turn limit may not be below the
    turn being played."""
    if name is not None and name != game.name:
        if not _GAME_NAME.match(name):
            raise GMError(f"game name {name!r}: use letters, digits, '-', '_' or '.', up to 64 characters")
        if session.scalar(select(m.Game.id).where(m.Game.name == name)) is not None:
            raise GMError(f"a game named {name!r} already exists")
    if turn_limit is not None and not game.turn <= turn_limit <= 10000:
        raise GMError(f"--turn-limit {turn_limit}: must be from the current turn ({game.turn}) to 10000")
    if vp_target is not None and not 1 <= vp_target <= 1_000_000:
        raise GMError(f"--vp-target {vp_target}: must be from 1 to 1000000")
    if vacation_limit is not None and not 0 <= vacation_limit <= 100:
        raise GMError(f"--vacation-limit {vacation_limit}: must be from 0 (no vacations) to 100")
    if name is not None and name != game.name:
        log.info("game %s renamed to %s", game.name, name)
        game.name = name
    if turn_limit is not None:
        game.turn_limit = turn_limit
    if vp_target is not None:
        game.vp_target = vp_target
    if vacation_limit is not None:
        game.vacation_limit = vacation_limit
    session.flush()
    return game
