"""Run a GM's SQL script against one game: one transaction, checked, audited.

The script is cut into statements and checked by the database's own
machinery (:mod:`.statements`): PostgreSQL's parser refuses anything but
SELECT/INSERT/UPDATE/DELETE on the game tables before anything runs, and the
statements then run as the role :data:`turnproc.storage.gmrole.ROLE` (DML on
the game tables only); on SQLite the authorizer (:mod:`.authorizer`) denies the same while SQLite
compiles each statement. The statements run in order inside a single
transaction. Then the game is checked exactly as the engine would check it
(plus the row checks of :mod:`.checks`), and every row outside the game is
compared with how it was before. Only when nothing is wrong — and this is not
a dry run — is the transaction committed. Every attempt is audited afterwards
in a transaction of its own, on its own connection, so no script can remove
or change its entry.

On PostgreSQL the transaction is REPEATABLE READ, so the before/after
comparison of other games sees one snapshot (intake may be writing other
games' rows meanwhile) and a conflicting concurrent edit fails the commit
rather than being overwritten; SQLite's BEGIN IMMEDIATE already excludes
other writers.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine, select, text
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from ..rules.invariants import Violation
from ..storage import gmrole
from ..storage import models as m
from . import audit
from .authorizer import sqlite_authorizer
from .checks import Fingerprint, check_game, describe_rows, format_violation
from .statements import (
    ALLOWED_FUNCTIONS,
    ScriptSyntaxError,
    Statement,
    attribute_refusals,
    keyword_refusal,
    postgres_refusals,
    split_statements,
)

log = logging.getLogger(__name__)

__all__ = ["MAX_ROWS_SHOWN", "ScriptResult", "StatementResult", "result_lines", "run_script"]

#: Rows of a SELECT kept for the GM to read; the rest are counted, not shown.
MAX_ROWS_SHOWN = 100
#: SQLite virtual-machine steps between looks at the clock (about a millisecond's worth).
_SQLITE_STEPS = 10_000


class _Clock:
    """The time a script's statements may take together (``admin_sql_seconds``)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.expired = False

    def left_ms(self) -> int:
        """Milliseconds left, at least 1 (PostgreSQL's 0 would mean no limit)."""
        return max(1, int((self.end - time.monotonic()) * 1000))

    def sqlite_handler(self) -> int:
        """SQLite's progress handler: non-zero interrupts the statement."""
        self.expired = self.expired or time.monotonic() > self.end
        return int(self.expired)

    def message(self, statement: Statement) -> str:
        return (
            f"{statement.where()} was stopped: the script ran longer than its time limit of "
            f"{self.seconds:g} s"
            " (admin_sql_seconds in the config)"
        )


@dataclass
class StatementResult:
    statement: Statement
    rowcount: int
    """Rows changed (INSERT/UPDATE/DELETE) or returned (SELECT); -1 when unknown."""
    columns: list[str] = field(default_factory=list)
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    """Up to :data:`MAX_ROWS_SHOWN` rows of a statement that returns rows."""
    more: bool = False
    """True when the statement returned more rows than are kept."""


@dataclass
class ScriptResult:
    game: str
    outcome: str
    """``committed``, ``dry-run``, ``rejected`` (checks failed), ``no-change``
    (a statement changed no rows, and that was not allowed), ``failed`` (a
    statement failed) or ``refused`` (nothing was run)."""
    sha256: str
    statements: list[StatementResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    """Why the script was refused or failed: each says which statement and line."""
    violations: list[Violation] = field(default_factory=list)
    rows: list[str] = field(default_factory=list)
    """The rows the violations name, as the script left them."""
    audit_id: int | None = None

    @property
    def ok(self) -> bool:
        return self.outcome in ("committed", "dry-run")

    def unchanged(self) -> list[str]:
        """The UPDATE and DELETE statements that changed no rows (``where()`` of
        each): usually a typo in a WHERE clause. An INSERT that adds nothing is
        left out: ``INSERT ... WHERE NOT EXISTS`` is how a script stays safe to
        run twice (deploy/admin/add_ships.sql)."""
        return [
            r.statement.where()
            for r in self.statements
            if r.statement.keyword in ("UPDATE", "DELETE") and not r.columns and r.rowcount == 0
        ]

    def detail(self) -> str:
        """Everything that went wrong, for the audit log and the GM."""
        return "\n".join([*self.errors, *(format_violation(v) for v in self.violations), *self.rows])


def _database_message(exc: DBAPIError, statement: Statement) -> str:
    """The database's own words, one line, with the line of the script they point at."""
    orig: Any = exc.orig
    diag = getattr(orig, "diag", None)
    primary = getattr(diag, "message_primary", None) if diag is not None else None
    text = primary or (
        str(orig).strip().splitlines()[0] if orig is not None and str(orig).strip() else str(exc)
    )
    line = statement.line
    position = getattr(diag, "statement_position", None) if diag is not None else None
    if position:
        # PostgreSQL says which character; turn it into a line of the script.
        line += statement.text[: int(position) - 1].count("\n")
    constraint = getattr(diag, "constraint_name", None) if diag is not None else None
    if constraint and constraint not in text:
        text += f" (constraint {constraint})"
    kind = (
        "breaks a database constraint" if isinstance(exc, IntegrityError) else "was refused by the database"
    )
    where = statement.where() if line == statement.line else f"{statement.where()}, at line {line}"
    return f"{where} {kind}: {text}"


def _execute(conn: Connection, statement: Statement) -> StatementResult:
    # no_parameters: the text goes to the driver as written, so a '%' or ':x'
    # inside the GM's SQL is never taken for a bind parameter.
    result = conn.exec_driver_sql(statement.text, execution_options={"no_parameters": True})
    if result.returns_rows:
        columns = list(result.keys())
        fetched = [tuple(r) for r in result.fetchmany(MAX_ROWS_SHOWN + 1)]
        more = len(fetched) > MAX_ROWS_SHOWN
        count = len(fetched) if not more else len(fetched) + len(result.fetchall())
        return StatementResult(statement, count, columns, fetched[:MAX_ROWS_SHOWN], more)
    return StatementResult(statement, result.rowcount)


def run_script(
    engine: Engine,
    game_name: str,
    script: str,
    *,
    now: dt.datetime,
    dry_run: bool = False,
    user: str | None = None,
    allow_no_change: bool = True,
    seconds: float = 30.0,
) -> ScriptResult:
    """Run ``script`` for game ``game_name``; commit only when every check passes.

    Without ``allow_no_change`` an UPDATE or DELETE that changed no rows (its
    WHERE matched nothing: usually a typo) stops the commit, as outcome
    ``no-change``. The statements may run ``seconds`` together; one still
    running then is stopped, and the outcome is ``failed``.

    Never raises for a bad script: the outcome, the messages and the audit
    entry's id are on the result.
    """
    result = ScriptResult(game_name, "refused", audit.digest(script))
    game_id: int | None = None

    def finish_apart() -> ScriptResult:
        result.audit_id = audit.record_apart(
            engine,
            action="sql",
            game_id=game_id,
            game_name=game_name,
            script=script,
            outcome=result.outcome,
            detail=result.detail() or _summary(result),
            now=now,
            user=user,
        )
        return result

    postgres = engine.dialect.name == "postgresql"
    if "\x00" in script:
        line = script[: script.index("\x00")].count("\n") + 1
        result.errors.append(f"the script holds a NUL character (line {line}), which no SQL statement may")
        # PostgreSQL stores no NUL in text: the audit keeps the script with each shown as U+FFFD.
        script = script.replace("\x00", "\ufffd")
        result.sha256 = audit.digest(script)
        return finish_apart()
    try:
        statements = split_statements(script, dialect=engine.dialect.name)
    except ScriptSyntaxError as exc:
        result.errors.append(f"the script cannot be read: {exc}")
        return finish_apart()
    for statement in statements:
        if postgres:
            result.errors.extend(postgres_refusals(statement))
        elif reason := keyword_refusal(statement):
            result.errors.append(reason)
    if not statements:
        result.errors.append("the script holds no SQL statement")
    if result.errors:
        return finish_apart()

    with engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        trans = conn.begin()
        try:
            with Session(bind=conn) as session:
                # Lock the game row first: a turn run or an intake batch for this
                # game waits until the script is done, and the script for them.
                game_id = session.scalar(select(m.Game.id).where(m.Game.name == game_name).with_for_update())
                if game_id is None:
                    known = ", ".join(session.scalars(select(m.Game.name).order_by(m.Game.name))) or "none"
                    result.errors.append(f"no game named {game_name!r} (games: {known})")
                    trans.rollback()
                    return finish_apart()
                if postgres and (refusals := _attribute_refusals(conn, statements)):
                    result.errors += refusals
                    trans.rollback()
                    return finish_apart()
                before = Fingerprint.take(conn, game_id)
                _run_statements(conn, statements, result, _Clock(seconds))
                if result.outcome != "failed":
                    # The script changed rows behind the session's back.
                    session.expire_all()
                    result.violations = before.changes(Fingerprint.take(conn, game_id))
                    result.violations += check_game(session, game_id)
                    result.rows = describe_rows(session, game_id, result.violations)
                    unchanged = result.unchanged()
                    if result.violations:
                        result.outcome = "rejected"
                    elif unchanged and not allow_no_change:
                        result.outcome = "no-change"
                        result.errors += [f"{where} changed no rows" for where in unchanged]
                    elif dry_run:
                        result.outcome = "dry-run"
                    else:
                        result.outcome = "committed"
            if result.outcome == "committed":
                try:
                    trans.commit()
                except DBAPIError as exc:
                    # A concurrent change to the same rows (PostgreSQL serialization failure).
                    result.outcome = "failed"
                    reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
                    result.errors.append(
                        f"the commit failed, nothing was changed: {reason}; run the script again"
                    )
            else:
                trans.rollback()
        except BaseException:
            if trans.is_active:
                trans.rollback()
            raise
    finish_apart()
    if result.outcome == "committed":
        log.info("game %s: GM script %s committed (audit %s)", game_name, result.sha256[:12], result.audit_id)
    return result


def _attribute_refusals(conn: Connection, statements: list[Statement]) -> list[str]:
    """PostgreSQL: functions off the allow-list called by attribute notation
    (:func:`.statements.attribute_refusals`), against this database's own
    functions and columns."""
    functions = (
        frozenset(conn.exec_driver_sql("SELECT DISTINCT lower(proname) FROM pg_proc").scalars())
        - ALLOWED_FUNCTIONS
    )
    columns = frozenset(
        conn.exec_driver_sql(
            "SELECT DISTINCT lower(column_name) FROM information_schema.columns WHERE table_schema = 'public'"
        ).scalars()
    )
    return [
        reason for statement in statements for reason in attribute_refusals(statement, functions, columns)
    ]


#: PostgreSQL's SQLSTATE for a statement cancelled by statement_timeout.
_QUERY_CANCELED = "57014"


def _run_statements(
    conn: Connection, statements: list[Statement], result: ScriptResult, clock: _Clock
) -> None:
    """Run the statements as far as the first failure, fenced in by the database:
    PostgreSQL as the GM script role, SQLite under the authorizer; each
    stopped when the script's time is up (PostgreSQL's statement_timeout,
    set to the time left before each; SQLite's progress handler)."""
    if conn.dialect.name == "postgresql":
        # The parser read the script with standard strings: the server must too.
        conn.exec_driver_sql("SET LOCAL standard_conforming_strings = on")
        role = gmrole.role_usable(conn)
        if role:
            conn.exec_driver_sql(f"SET LOCAL ROLE {gmrole.ROLE}")
        else:
            log.warning("role %s is missing: the GM script runs with the parse check only", gmrole.ROLE)
        for statement in statements:
            try:
                conn.exec_driver_sql(f"SET LOCAL statement_timeout = {clock.left_ms()}")
                result.statements.append(_execute(conn, statement))
            except DBAPIError as exc:
                result.outcome = "failed"
                timed_out = getattr(exc.orig, "sqlstate", None) == _QUERY_CANCELED
                result.errors.append(
                    clock.message(statement) if timed_out else _database_message(exc, statement)
                )
                return
        conn.exec_driver_sql("SET LOCAL statement_timeout = 0")  # the checks after the script are turnproc's
        if role:
            conn.execute(text("RESET ROLE"))
        return
    raw: Any = conn.connection.dbapi_connection
    denied: list[str] = []
    raw.set_authorizer(sqlite_authorizer(denied))
    raw.set_progress_handler(clock.sqlite_handler, _SQLITE_STEPS)
    try:
        for statement in statements:
            try:
                result.statements.append(_execute(conn, statement))
            except DBAPIError as exc:
                result.outcome = "failed"
                if clock.expired:
                    result.errors.append(clock.message(statement))
                elif denied:
                    result.errors.append(f"{statement.where()} was refused: {denied[0]}")
                else:
                    result.errors.append(_database_message(exc, statement))
                return
    finally:
        raw.set_progress_handler(None, 0)
        raw.set_authorizer(None)


def _summary(result: ScriptResult) -> str:
    return "\n".join(f"{r.statement.where()}: {r.rowcount} row(s)" for r in result.statements)


def _cell(value: Any) -> str:
    text = "NULL" if value is None else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def result_lines(result: ScriptResult) -> list[str]:
    """The result as the GM reads it: each statement's effect and rows, then
    what was wrong, then the outcome."""
    lines: list[str] = []
    for r in result.statements:
        if r.columns:
            lines.append(f"{r.statement.where()}: {r.rowcount} row(s)")
            widths = [max([len(c), *(len(_cell(row[i])) for row in r.rows)]) for i, c in enumerate(r.columns)]
            lines.append("  " + "  ".join(c.ljust(w) for c, w in zip(r.columns, widths)))
            lines.extend("  " + "  ".join(_cell(v).ljust(w) for v, w in zip(row, widths)) for row in r.rows)
            if r.more:
                lines.append(f"  ... {r.rowcount - len(r.rows)} more row(s) not shown")
        else:
            lines.append(f"{r.statement.where()}: {r.rowcount} row(s) changed")
    lines.extend(result.errors)
    if result.violations:
        lines.append(f"{len(result.violations)} problem(s) found after the script ran:")
        lines.extend(f"  {format_violation(v)}" for v in result.violations)
    if result.rows:
        lines.append("rows involved, as the script left them:")
        lines.extend(f"  {row}" for row in result.rows)
    audit_note = f" (audit entry {result.audit_id})" if result.audit_id is not None else ""
    lines.append(
        {
            "committed": f"committed: game {result.game} passes every check{audit_note}",
            "dry-run": f"dry run: game {result.game} would pass every check; nothing was changed{audit_note}",
            "rejected": f"rolled back: the script breaks the game; nothing was changed{audit_note}",
            "failed": f"rolled back: a statement failed; nothing was changed{audit_note}",
            "no-change": "rolled back: a statement changed no rows (a WHERE that matches nothing?); "
            "nothing was changed;"
            f" give --allow-no-change if that is what you meant{audit_note}",
            "refused": f"refused: nothing was run{audit_note}",
        }[result.outcome]
    )
    return lines
