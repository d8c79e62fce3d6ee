"""The authorizer SQLite consults while it compiles each statement of a GM's
script: what enforces, for SQLite, the refusals :mod:`.statements` gives
early by first word. A statement may read anything, call only
:data:`SQLITE_FUNCTIONS`, and write only :data:`.statements.GAME_TABLES` of
the main database.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from .statements import GAME_TABLES, ONLY_DML, TRANSACTION_REASON

__all__ = ["SQLITE_FUNCTIONS", "sqlite_authorizer"]

_SQLITE_READS = {
    sqlite3.SQLITE_SELECT,
    sqlite3.SQLITE_READ,
    sqlite3.SQLITE_FUNCTION,
    sqlite3.SQLITE_RECURSIVE,
}
_SQLITE_WRITES = {
    sqlite3.SQLITE_INSERT: "INSERT",
    sqlite3.SQLITE_UPDATE: "UPDATE",
    sqlite3.SQLITE_DELETE: "DELETE",
}
_SQLITE_NAMES = {
    getattr(sqlite3, f"SQLITE_{name}"): name.replace("_", " ")
    for name in [
        "CREATE_INDEX",
        "CREATE_TABLE",
        "CREATE_TEMP_INDEX",
        "CREATE_TEMP_TABLE",
        "CREATE_TEMP_TRIGGER",
        "CREATE_TEMP_VIEW",
        "CREATE_TRIGGER",
        "CREATE_VIEW",
        "DROP_INDEX",
        "DROP_TABLE",
        "DROP_TEMP_INDEX",
        "DROP_TEMP_TABLE",
        "DROP_TEMP_TRIGGER",
        "DROP_TEMP_VIEW",
        "DROP_TRIGGER",
        "DROP_VIEW",
        "PRAGMA",
        "ATTACH",
        "DETACH",
        "ALTER_TABLE",
        "REINDEX",
        "ANALYZE",
        "CREATE_VTABLE",
        "DROP_VTABLE",
    ]
}


#: Functions a SQLite script may call: SQLite's own that read and compute
#: (core, date, aggregate, window, JSON and math functions). Not
#: ``fts3_tokenizer`` (it gives away a memory address, and with one given
#: back runs code there), ``load_extension``, or the ``sqlite_*`` ones.
SQLITE_FUNCTIONS = frozenset(
    [
        "abs",
        "changes",
        "char",
        "coalesce",
        "concat",
        "concat_ws",
        "format",
        "glob",
        "hex",
        "ifnull",
        "iif",
        "instr",
        "last_insert_rowid",
        "length",
        "like",
        "likelihood",
        "likely",
        "lower",
        "ltrim",
        "max",
        "min",
        "nullif",
        "octet_length",
        "printf",
        "quote",
        "random",
        "randomblob",
        "replace",
        "round",
        "rtrim",
        "sign",
        "soundex",
        "substr",
        "substring",
        "total_changes",
        "trim",
        "typeof",
        "unhex",
        "unicode",
        "unlikely",
        "upper",
        "zeroblob",
        "date",
        "time",
        "datetime",
        "julianday",
        "unixepoch",
        "strftime",
        "timediff",
        "avg",
        "count",
        "group_concat",
        "string_agg",
        "sum",
        "total",
        "row_number",
        "rank",
        "dense_rank",
        "percent_rank",
        "cume_dist",
        "ntile",
        "lag",
        "lead",
        "first_value",
        "last_value",
        "nth_value",
        "json",
        "json_array",
        "json_array_length",
        "json_error_position",
        "json_extract",
        "json_insert",
        "json_object",
        "json_patch",
        "json_pretty",
        "json_remove",
        "json_replace",
        "json_set",
        "json_type",
        "json_valid",
        "json_quote",
        "json_group_array",
        "json_group_object",
        "json_each",
        "json_tree",
        "jsonb",
        "jsonb_array",
        "jsonb_extract",
        "jsonb_insert",
        "jsonb_object",
        "jsonb_patch",
        "jsonb_remove",
        "jsonb_replace",
        "jsonb_set",
        "jsonb_group_array",
        "jsonb_group_object",
        "acos",
        "acosh",
        "asin",
        "asinh",
        "atan",
        "atan2",
        "atanh",
        "ceil",
        "ceiling",
        "cos",
        "cosh",
        "degrees",
        "exp",
        "floor",
        "ln",
        "log",
        "log10",
        "log2",
        "mod",
        "pi",
        "pow",
        "power",
        "radians",
        "sin",
        "sinh",
        "sqrt",
        "tan",
        "tanh",
        "trunc",
    ]
)

_SQLITE_FUNCTION_REASONS = {
    "fts3_tokenizer": "it gives away a memory address of the process, and runs code at one given back",
    "load_extension": "it loads code into the database",
}


def sqlite_authorizer(
    denied: list[str],
) -> Callable[[int, str | None, str | None, str | None, str | None], int]:
    """An authorizer for ``sqlite3.Connection.set_authorizer`` that lets a
    statement read anything and write only :data:`GAME_TABLES` of the main
    database; everything else (transactions, savepoints, schema changes,
    PRAGMA, ATTACH, triggers) is denied, and why is appended to ``denied``."""

    def authorize(
        action: int, arg1: str | None, arg2: str | None, database: str | None, source: str | None
    ) -> int:
        if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() not in SQLITE_FUNCTIONS:
            name = (arg2 or "").lower()
            why = _SQLITE_FUNCTION_REASONS.get(
                name, "only functions that read and compute are (see docs/gm-schema.md)"
            )
            denied.append(f"the function {name}() is not allowed in a GM script; {why}")
            return sqlite3.SQLITE_DENY
        if action in _SQLITE_READS:
            return sqlite3.SQLITE_OK
        if action in _SQLITE_WRITES and database == "main" and arg1 in GAME_TABLES:
            return sqlite3.SQLITE_OK
        if action in _SQLITE_WRITES:
            why = (
                "the audit log is only ever added to by turnproc"
                if arg1 == "audit_log"
                else ("a script may write only the game tables of the main database")
            )
            denied.append(f"{_SQLITE_WRITES[action]} on {arg1} is not allowed; {why}")
        elif action in (sqlite3.SQLITE_TRANSACTION, sqlite3.SQLITE_SAVEPOINT):
            denied.append(
                f"{(arg1 or '').upper() or 'a transaction statement'} is not allowed; {TRANSACTION_REASON}"
            )
        else:
            what = _SQLITE_NAMES.get(action, f"action {action}")
            detail = " ".join(x for x in (arg1, arg2) if x)
            denied.append(f"{what}{f' {detail}' if detail else ''} is not allowed in a GM script; {ONLY_DML}")
        return sqlite3.SQLITE_DENY

    return authorize
