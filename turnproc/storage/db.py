"""Engines and sessions, built in one place.

SQLite gets the pragmas a game server needs (foreign keys enforced, WAL so the
worker and a GM's CLI can share the file, a busy timeout instead of instant
"database is locked" errors).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from ..runtime import jsontext

log = logging.getLogger(__name__)

__all__ = [
    "DatabaseError",
    "make_engine",
    "make_sessionmaker",
    "transaction",
    "read_only",
    "read_only_connection",
    "is_sqlite",
]

#: The execution option that makes a connection's transactions read-only
#: (see :func:`read_only`); PostgreSQL's own is ``postgresql_readonly``.
READ_ONLY = "turnproc_read_only"


class DatabaseError(RuntimeError):
    """The database cannot be reached or used; the message says which and why."""


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def _sqlite_pragmas(dbapi_connection: Any, connection_record: Any) -> None:
    # Python's sqlite3 opens its own transactions lazily; let SQLAlchemy own
    # BEGIN so every write happens inside the transaction we asked for.
    dbapi_connection.isolation_level = None
    cur = dbapi_connection.cursor()
    cur.execute("PRAGMA foreign_keys = ON")
    cur.execute("PRAGMA busy_timeout = 30000")
    cur.execute("PRAGMA journal_mode = WAL")
    cur.close()


def _sqlite_begin(conn: Any) -> None:
    # IMMEDIATE takes the write lock at BEGIN, so two writers queue instead of
    # failing half-way with SQLITE_BUSY on lock upgrade. A connection asked
    # for AUTOCOMMIT reads the last committed state without waiting for one.
    options = conn.get_execution_options()
    if options.get("isolation_level") == "AUTOCOMMIT":
        return
    if options.get(READ_ONLY):
        # A reader's deferred BEGIN takes no write lock: under WAL it reads
        # the last commit while a writer writes, and no writer waits for it.
        # query_only makes a write attempted inside fail, as READ ONLY does
        # on PostgreSQL; the pool's checkin turns it off again.
        conn.exec_driver_sql("BEGIN")
        conn.exec_driver_sql("PRAGMA query_only = ON")
        conn.info[READ_ONLY] = True  # the pool record's: see _sqlite_checkin
        return
    conn.exec_driver_sql("BEGIN IMMEDIATE")


def _sqlite_checkin(dbapi_connection: Any, connection_record: Any) -> None:
    # A connection back in the pool after a read may write again. One closed
    # by an error has nothing to reset; one that cannot be reset is dropped,
    # not handed to a writer that would fail on it.
    if (
        dbapi_connection is None
        or connection_record is None
        or not connection_record.info.pop(READ_ONLY, False)
    ):
        return
    try:
        dbapi_connection.execute("PRAGMA query_only = OFF")
    except Exception:  # noqa: BLE001 - any failure here means the connection is unusable
        connection_record.invalidate()


def _private_sqlite_file(engine: Engine) -> None:
    """Create the SQLite file 0600 (its folder 0700) before SQLite does, whatever
    the umask: it holds game seeds and password hashes. SQLite gives the
    journal, WAL and shared-memory files the mode of the database file."""
    database = engine.url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    path = Path(database)
    if path.exists():
        return
    try:
        if not path.parent.exists():
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        os.chmod(path, 0o600)
    except FileExistsError:  # made by someone else meanwhile: theirs to keep
        pass
    except OSError as exc:
        raise DatabaseError(f"cannot create the database file {path}: {exc.strerror}") from None


def make_engine(url: str, *, check: bool = True, **kwargs: Any) -> Engine:
    """An engine for ``url``; with ``check``, connect once so a bad URL fails here
    with one clear line instead of somewhere deep in a command."""
    # JSON columns (states, reports, events) stored compact: at a thousand
    # empires the default separators' spaces are megabytes a turn.
    kwargs.setdefault("json_serializer", jsontext.dumps)
    kwargs.setdefault("json_deserializer", jsontext.loads)
    try:
        engine = create_engine(url, **kwargs)
    except (ArgumentError, ImportError, ValueError) as exc:
        raise DatabaseError(f"bad database URL {_safe(url)!r}: {exc}") from None
    if is_sqlite(engine):
        _private_sqlite_file(engine)
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin)
        event.listen(engine.pool, "checkin", _sqlite_checkin)
    if check:
        try:
            # Read-only: on SQLite a plain BEGIN IMMEDIATE here would wait
            # for any writer before every command could even start.
            with read_only_connection(engine) as conn:
                conn.execute(text("SELECT 1"))
        except DBAPIError as exc:
            engine.dispose()
            reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
            raise DatabaseError(f"cannot connect to {_safe(url)}: {reason}") from None
    return engine


def _safe(url: str) -> str:
    """The URL with any password masked, for messages and logs."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - an unparsable URL has no password to hide worth the risk
        return "<unparsable URL>"


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """One unit of work: commits when the block ends, rolls back on any error."""
    with factory() as session, session.begin():
        yield session


def _read_only_options(engine: Engine) -> dict[str, bool]:
    return {"postgresql_readonly": True} if engine.dialect.name == "postgresql" else {READ_ONLY: True}


@contextmanager
def read_only_connection(engine: Engine) -> Iterator[Connection]:
    """A connection whose transactions only read (see :func:`read_only`)."""
    with engine.connect() as conn:
        yield conn.execution_options(**_read_only_options(engine))


@contextmanager
def read_only(factory: sessionmaker[Session]) -> Iterator[Session]:
    """One unit of work that only reads, rolled back when the block ends. On
    SQLite a deferred BEGIN (no write lock: a command that reads never makes
    the worker or another command wait) with writes refused; on PostgreSQL a
    READ ONLY transaction. A write attempted inside fails."""
    with factory() as session:
        engine = session.get_bind()
        assert isinstance(engine, Engine), "a session bound to one engine"
        session.connection(execution_options=_read_only_options(engine))
        try:
            yield session
        finally:
            session.rollback()
