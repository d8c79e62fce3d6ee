"""The reads of the GM's prompt over the DB-API alone: ``game show``,
``empire list`` and a stored ``report``, with no SQLAlchemy, Alembic or models.

Importing SQLAlchemy and the models costs a cold process most of a second, more
than these commands may take (``benchmarks/cli.py``). So :func:`opened` parses
the two database URLs the config is written with and opens the database
read-only itself: SQLite through ``sqlite3`` (a ``mode=ro`` URI: the process
cannot take the write lock at all), PostgreSQL through psycopg with the session
read-only. It checks the schema is the one this code reads (:data:`SCHEMA_HEAD`,
held to Alembic's head by tests/storage/test_schema_head.py) and gives None for
anything else: a URL it does not know, no file, no schema, another revision.
The caller then takes the ORM's path, which refuses each of those in the
words it always has; a PostgreSQL server it cannot reach it refuses itself,
in the same words.

The functions below are the one implementation of what they read: the ORM's
callers (``queries``, ``games``, ``turns``) hand them their session's own
DB-API connection (:func:`turnproc.storage.queries.plain_reader`). Each value
is read as the ORM's column types read it (``base.UTCDateTime``, ``Boolean``,
``JSON``), so the objects are the same whichever process built them.
"""

from __future__ import annotations

import datetime as dt
import logging
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from ..errors import GMError
from ..runtime import jsontext
from .mailkinds import MailKind
from .readmodel import EmpireView, GameSummary, GameView, PlayerSummary, current_deadline, view_of

log = logging.getLogger(__name__)

__all__ = [
    "SCHEMA_HEAD",
    "Reader",
    "GameRow",
    "opened",
    "get_game",
    "game_view",
    "turn_marks",
    "empire_views",
    "game_summary",
    "player_summary",
    "empire_rows",
    "stored_report",
    "game_by_id",
]

#: The schema revision these reads are written for: Alembic's head, which a
#: test holds it to, so a new migration that forgets to move it fails there.
SCHEMA_HEAD = "0018"

#: SQLite's busy timeout in milliseconds, as ``db.make_engine`` sets it: a
#: read-only reader waits only while another process recovers the WAL.
BUSY_MS = 30000


class Reader:
    """A DB-API connection inside one read-only transaction, with the backend's
    parameter style and its column values read as the ORM reads them."""

    def __init__(self, connection: Any, *, postgres: bool) -> None:
        self.connection = connection
        self.postgres = postgres
        #: SQLAlchemy's rendering of ``column.is_(True)`` on this backend.
        self.true = "true" if postgres else "1"

    def rows(self, sql: str, *params: object) -> list[tuple[Any, ...]]:
        # The statements are written with "?"; psycopg takes "%s".
        cursor = self.connection.cursor()
        try:
            cursor.execute(sql.replace("?", "%s") if self.postgres else sql, params)
            return list(cursor.fetchall())
        finally:
            cursor.close()

    def when(self, value: Any) -> dt.datetime | None:
        """A timestamp column as ``UTCDateTime`` gives it: aware UTC. SQLite
        holds text, which SQLAlchemy reads with ``fromisoformat``."""
        if value is None:
            return None
        if isinstance(value, str):
            value = dt.datetime.fromisoformat(value)
        if not isinstance(value, dt.datetime):
            raise TypeError(f"not a timestamp: {value!r}")
        return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)

    def json(self, value: Any) -> Any:
        """A JSON column: text on SQLite, parsed by the driver on PostgreSQL."""
        return jsontext.loads(value) if isinstance(value, str | bytes) else value


# -- opening -------------------------------------------------------------------------


def _sqlite_path(url: str) -> Path | None:
    """The file of a ``sqlite:///PATH`` URL as SQLAlchemy opens it, or None for
    any other form (memory, ``file:`` URIs, options, escapes)."""
    for prefix in ("sqlite:///", "sqlite+pysqlite:///"):
        if url.startswith(prefix):
            database = url[len(prefix) :]
            break
    else:
        return None
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    if any(ch in database for ch in "?#%"):
        return None
    return Path(database)


def _postgres_args(url: str) -> dict[str, Any] | None:
    """psycopg's connection arguments for a ``postgresql+psycopg://`` URL, as
    SQLAlchemy passes them, or None for any other form."""
    if not url.startswith("postgresql+psycopg://"):
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.fragment or "," in parts.netloc or "[" in parts.netloc:
        return None
    args: dict[str, Any] = {}
    if parts.username:
        args["user"] = unquote(parts.username)
    if parts.password is not None:
        args["password"] = unquote(parts.password)
    host = parts.netloc.rpartition("@")[2]  # as written: .hostname lowercases it
    host = host.rsplit(":", 1)[0] if port is not None else host
    if host:
        args["host"] = unquote(host)
    if port is not None:
        args["port"] = port
    if parts.path.strip("/"):
        args["dbname"] = unquote(parts.path.lstrip("/"))
    query = parse_qsl(parts.query, keep_blank_values=True)
    if len({k for k, _ in query}) != len(query):
        return None  # a repeated key: SQLAlchemy makes a list of it
    args.update(query)
    return args


def _current(reader: Reader) -> bool:
    revisions = reader.rows("SELECT version_num FROM alembic_version")
    return [r[0] for r in revisions] == [SCHEMA_HEAD]


@contextmanager
def _sqlite(path: Path) -> Iterator[Reader | None]:
    if not path.is_file():
        yield None
        return
    uri = f"file:{quote(str(path.absolute()))}?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        log.debug("read-only open of %s failed: %s", path, exc)
        yield None
        return
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        # Deferred: a snapshot of the last commit, no lock that makes a writer wait.
        conn.execute("BEGIN")
        reader = Reader(conn, postgres=False)
        try:
            usable = _current(reader)
        except sqlite3.Error:  # no version table: not a turnproc database yet
            usable = False
        yield reader if usable else None
    finally:
        conn.close()  # closing ends the transaction; there is nothing to keep


@contextmanager
def _postgres(url: str, args: dict[str, Any]) -> Iterator[Reader | None]:
    try:
        import psycopg  # here, not at the top: only a PostgreSQL host has it
    except ImportError:
        yield None
        return
    try:
        conn = psycopg.connect(**args)
    except psycopg.Error as exc:
        # Refused here in make_engine's words: handing over to it would make
        # a GM wait out an unreachable server's timeout twice.
        from .db import DatabaseError, _safe  # here: only this refusal loads SQLAlchemy

        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DatabaseError(f"cannot connect to {_safe(url)}: {reason}") from None
    try:
        conn.read_only = True
        reader = Reader(conn, postgres=True)
        try:
            usable = _current(reader)
        except psycopg.Error:
            usable = False
        yield reader if usable else None
    finally:
        try:
            conn.rollback()
        finally:
            conn.close()


@contextmanager
def opened(url: str) -> Iterator[Reader | None]:
    """A read-only reader of the database at ``url`` whose schema is at
    :data:`SCHEMA_HEAD`; None when this module cannot, or should not, read it
    (the caller then opens it the ORM's way, which says why)."""
    path = _sqlite_path(url)
    if path is not None:
        with _sqlite(path) as reader:
            yield reader
        return
    args = _postgres_args(url)
    if args is not None:
        with _postgres(url, args) as reader:
            yield reader
        return
    yield None


# -- reading -------------------------------------------------------------------------


@dataclass(frozen=True)
class GameRow:
    """The columns of a game's row that the reads here use."""

    id: int
    name: str
    turn: int
    status: str
    modules: str | None
    ruleset: int
    schedule: str | None
    timezone: str
    last_deadline_at: dt.datetime | None
    deadline_override: dt.datetime | None
    early_run: bool
    early_run_delay: int
    reminder_hours: int
    inactive_after: int
    nmr_limit: int
    hold: bool
    created_at: dt.datetime
    turn_limit: int
    vp_target: int
    signup_open: bool
    signup_limit: int | None
    vacation_limit: int


_GAME_COLUMNS = (
    "id, name, turn, status, modules, ruleset, schedule, timezone, last_deadline_at, deadline_override, "
    "early_run, early_run_delay, reminder_hours, inactive_after, nmr_limit, hold, created_at, turn_limit, "
    "vp_target, signup_open, signup_limit, vacation_limit"
)


def _game_row(reader: Reader, where: str, value: object) -> GameRow | None:
    found = reader.rows(f"SELECT {_GAME_COLUMNS} FROM games WHERE {where}", value)
    if not found:
        return None
    r = found[0]
    created = reader.when(r[16])
    assert created is not None  # NOT NULL
    return GameRow(
        id=r[0],
        name=r[1],
        turn=r[2],
        status=r[3],
        modules=r[4],
        ruleset=r[5],
        schedule=r[6],
        timezone=r[7],
        last_deadline_at=reader.when(r[8]),
        deadline_override=reader.when(r[9]),
        early_run=bool(r[10]),
        early_run_delay=r[11],
        reminder_hours=r[12],
        inactive_after=r[13],
        nmr_limit=r[14],
        hold=bool(r[15]),
        created_at=created,
        turn_limit=r[17],
        vp_target=r[18],
        signup_open=bool(r[19]),
        signup_limit=r[20],
        vacation_limit=r[21],
    )


def get_game(reader: Reader, name: str) -> GameRow:
    """The game named ``name`` (exactly), or the GM's refusal naming the games there are."""
    game = _game_row(reader, "name = ?", name)
    if game is None:
        known = [r[0] for r in reader.rows("SELECT name FROM games ORDER BY name")]
        hint = (
            f" (games: {', '.join(known)})" if known else " (there are no games yet: turnproc game new NAME)"
        )
        raise GMError(f"no game named {name!r}{hint}")
    return game


def _empire_id(reader: Reader, game: GameRow, code: str) -> int:
    found = reader.rows("SELECT id FROM empires WHERE game_id = ? AND code = ?", game.id, code.upper())
    if not found:
        raise GMError(f"game {game.name!r} has no empire {code.upper()!r}")
    return int(found[0][0])


_EMPIRE_COLUMNS = "id, code, name, email, active, vp, vacation_until, quit_at"


def empire_views(reader: Reader, game_id: int, turn: int) -> tuple[EmpireView, ...]:
    """Every empire of the game, by code, with its orders for ``turn``."""
    orders: dict[int, tuple[Any, bool]] = {}
    for empire_id, received_at, wait, parsed in reader.rows(
        "SELECT empire_id, received_at, wait, orders FROM orders "
        f"WHERE game_id = ? AND turn = ? AND active IS {reader.true} ORDER BY id",
        game_id,
        turn,
    ):
        # The newest submission counts; "orders in" means at least one order
        # (sets stored empty before migration 0004 do not count).
        if reader.json(parsed):
            orders[empire_id] = (received_at, bool(wait))
        else:
            orders.pop(empire_id, None)
    reminded = {
        r[0]
        for r in reader.rows(
            "SELECT recipient FROM outbox WHERE game_id = ? AND kind = ? AND turn = ?",
            game_id,
            MailKind.REMINDER.value,
            turn,
        )
    }
    return tuple(
        EmpireView(
            id=eid,
            code=code,
            name=name,
            email=email,
            active=bool(active),
            vp=vp,
            orders_at=reader.when(orders[eid][0]) if eid in orders else None,
            wait=orders[eid][1] if eid in orders else False,
            reminded=email in reminded,
            on_leave=leave is not None and leave >= turn,
            quitting=quit_at is not None,
        )
        for eid, code, name, email, active, vp, leave, quit_at in reader.rows(
            f"SELECT {_EMPIRE_COLUMNS} FROM empires WHERE game_id = ? ORDER BY code", game_id
        )
    )


def turn_marks(reader: Reader, game_id: int) -> tuple[dt.datetime | None, int | None]:
    """When the game's last turn on record ran, and its staged turn's number."""
    last_run, staged = reader.rows(
        "SELECT max(ran_at), max(CASE WHEN staged IS "
        f"{reader.true} THEN number END) FROM turns WHERE game_id = ?",
        game_id,
    )[0]
    return reader.when(last_run), staged


def game_view(reader: Reader, game: GameRow) -> GameView:
    """The game's view with its empires, as ``queries.load_game_view`` gives it."""
    last_run, staged = turn_marks(reader, game.id)
    return view_of(
        game, opened_at=last_run, staged_turn=staged, empires=empire_views(reader, game.id, game.turn)
    )


def game_by_id(reader: Reader, game_id: int) -> GameRow:
    game = _game_row(reader, "id = ?", game_id)
    if game is None:
        raise LookupError(f"no game of id {game_id}")
    return game


def game_summary(reader: Reader, game: GameRow | int, now: dt.datetime) -> GameSummary:
    """What ``game show`` prints of the game (a row, or its id)."""
    row = game_by_id(reader, game) if isinstance(game, int) else game
    view = game_view(reader, row)
    systems, free = reader.rows(
        "SELECT count(*), count(CASE WHEN home_slot IS "
        f"{reader.true} AND owner_id IS NULL THEN 1 END) FROM systems WHERE game_id = ?",
        row.id,
    )[0]
    held_back = tuple(
        (reader.when(at), recipient, kind, reason)
        for at, recipient, kind, reason in reader.rows(
            "SELECT at, recipient, kind, reason FROM suppressed_replies WHERE game_id = ? "
            "ORDER BY at DESC, id DESC LIMIT 5",
            row.id,
        )
    )
    coming = current_deadline(view, now) if view.status == "active" else None
    return GameSummary(
        view,
        int(systems),
        int(free),
        coming,
        held_back,  # type: ignore[arg-type]  # "at" is NOT NULL
        row.turn_limit,
        row.vp_target,
    )


def player_summary(reader: Reader, game: GameRow | int) -> PlayerSummary:
    """What ``game show`` says about sign-up, vacations and QUIT."""
    row = game_by_id(reader, game) if isinstance(game, int) else game
    empires = reader.rows(
        "SELECT code, vacation_until, quit_at FROM empires WHERE game_id = ? ORDER BY code", row.id
    )
    pending = reader.rows(
        "SELECT code, name, email FROM signup_requests WHERE game_id = ? AND status = 'pending' "
        "AND confirmed_at IS NOT NULL ORDER BY id",
        row.id,
    )
    return PlayerSummary(
        signup_open=row.signup_open,
        signup_limit=row.signup_limit,
        pending=tuple((code, name, email) for code, name, email in pending),
        vacation_limit=row.vacation_limit,
        on_leave=tuple(
            (code, until) for code, until, _ in empires if until is not None and until >= row.turn
        ),
        quitting=tuple(code for code, _, quit_at in empires if quit_at is not None),
    )


def empire_rows(reader: Reader, game: GameRow | int) -> list[dict[str, Any]]:
    """Every empire of the game, by code, as ``empire list --json`` prints it."""
    row = game_by_id(reader, game) if isinstance(game, int) else game
    return [e.as_row() for e in empire_views(reader, row.id, row.turn)]


def stored_report(
    reader: Reader, game: GameRow | int, code: str, turn: int | None
) -> Mapping[str, Any] | None:
    """An empire's stored report data: of ``turn``, else the latest. None
    when there is none and ``turn`` is None or 0 (no turn's report is turn
    0's): the caller builds the position (:mod:`turnproc.turns.position`)."""
    row = game_by_id(reader, game) if isinstance(game, int) else game
    empire_id = _empire_id(reader, row, code)
    sql = "SELECT data FROM reports WHERE empire_id = ?"
    params: list[object] = [empire_id]
    if turn is not None:
        sql += " AND turn = ?"
        params.append(turn)
    found = reader.rows(sql + " ORDER BY turn DESC LIMIT 1", *params)
    if found:
        data = reader.json(found[0][0])
        assert isinstance(data, Mapping), "a report's data is a JSON object"
        return data
    if turn not in (None, 0):
        raise GMError(f"{code.upper()} has no report for turn {turn} of {row.name}")
    return None
