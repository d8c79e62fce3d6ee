"""Cut a GM's SQL script into statements, and say which may not run — with the
database's own machinery, never a hand-written lexer.

* PostgreSQL: the script is parsed by PostgreSQL's own parser (libpg_query,
  through ``pglast``). Each statement is the text the parser found, so what
  runs is exactly what was checked. Only SELECT, INSERT, UPDATE and DELETE
  pass; writes only to :data:`GAME_TABLES`; function calls only to
  :data:`ALLOWED_FUNCTIONS` (no ``set_config``, ``setval``, ``pg_*``, ...).
* SQLite: ``sqlite3.complete_statement`` — SQLite's own tokenizer — says where
  a statement ends. The first word is only a friendly early refusal; what
  enforces is the authorizer :func:`.authorizer.sqlite_authorizer`, which
  SQLite consults while it compiles each statement.
"""

from __future__ import annotations

import difflib
import re
import sqlite3
from dataclasses import dataclass
from typing import Any

from ..storage import models as m

__all__ = [
    "ALLOWED_FUNCTIONS",
    "GAME_TABLES",
    "ONLY_DML",
    "ScriptSyntaxError",
    "Statement",
    "TRANSACTION_REASON",
    "attribute_refusals",
    "postgres_refusals",
    "split_statements",
]

#: Tables a GM script may write: every table of the schema but the audit log
#: (``alembic_version`` is not a model table either). Rows of other games are
#: guarded by the before/after comparison, not here.
GAME_TABLES = frozenset(name for name in m.Base.metadata.tables if name != "audit_log")

_ALLOWED_WORDS = ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "VALUES")
_TRANSACTION_WORDS = frozenset(
    {"BEGIN", "START", "COMMIT", "END", "ROLLBACK", "ABORT", "SAVEPOINT", "RELEASE", "PREPARE"}
)
TRANSACTION_REASON = (
    "turnproc runs the whole script in one transaction itself and commits only when every check passes"
)
ONLY_DML = "only SELECT, INSERT, UPDATE and DELETE are (schema and settings changes go through migrations)"

#: Functions a PostgreSQL script may call: reading and computing only.
ALLOWED_FUNCTIONS = frozenset(
    [
        "abs",
        "ceil",
        "ceiling",
        "floor",
        "round",
        "trunc",
        "mod",
        "power",
        "sqrt",
        "sign",
        "greatest",
        "least",
        "coalesce",
        "nullif",
        "random",
        "count",
        "sum",
        "min",
        "max",
        "avg",
        "bool_and",
        "bool_or",
        "every",
        "string_agg",
        "array_agg",
        "json_agg",
        "jsonb_agg",
        "lower",
        "upper",
        "initcap",
        "length",
        "char_length",
        "octet_length",
        "substr",
        "substring",
        "left",
        "right",
        "strpos",
        "position",
        "replace",
        "translate",
        "trim",
        "btrim",
        "ltrim",
        "rtrim",
        "lpad",
        "rpad",
        "concat",
        "concat_ws",
        "format",
        "split_part",
        "repeat",
        "reverse",
        "md5",
        "to_char",
        "to_number",
        "to_date",
        "to_timestamp",
        "now",
        "date_trunc",
        "date_part",
        "extract",
        "age",
        "make_interval",
        "make_date",
        "make_timestamp",
        "make_timestamptz",
        "timezone",
        "array_length",
        "cardinality",
        "unnest",
        "generate_series",
        "row_number",
        "rank",
        "dense_rank",
        "lag",
        "lead",
        "first_value",
        "last_value",
        "jsonb_build_object",
        "json_build_object",
        "jsonb_build_array",
        "json_build_array",
        "jsonb_set",
        "to_json",
        "to_jsonb",
        "jsonb_array_length",
        "json_array_length",
        "jsonb_extract_path_text",
        "json_extract_path_text",
        "like_escape",
        "similar_to_escape",
        "similar_escape",
        "overlaps",
        "overlay",
        "normalize",
    ]
)

_FUNCTION_REASONS = {
    "set_config": "it changes settings of the session",
    "setval": "sequence changes are not undone by a rollback",
    "nextval": "sequence changes are not undone by a rollback",
    "currval": "sequences are turnproc's to use",
    "lastval": "sequences are turnproc's to use",
}


class ScriptSyntaxError(ValueError):
    """The script cannot be cut into statements (a syntax error, an unclosed quote or comment)."""

    def __init__(self, message: str, line: int) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}")


@dataclass(frozen=True)
class Statement:
    number: int
    """1-based position in the script."""
    line: int
    """Line of the script the statement starts on (after any leading comments)."""
    text: str
    """The statement, without its closing ``;``."""
    node: Any = None
    """PostgreSQL: the parse tree ``pglast`` gave for it."""

    @property
    def keyword(self) -> str:
        """The statement's first word in capitals (``UPDATE``), skipping comments and ``(``."""
        match = re.search(r"[A-Za-z_]+", _strip_leading(self.text).lstrip("( \t\r\n"))
        return match.group(0).upper() if match else ""

    @property
    def first_line(self) -> str:
        """The statement's first line, shortened for messages."""
        first = self.text.strip().splitlines()[0].strip() if self.text.strip() else ""
        return first if len(first) <= 72 else first[:69] + "..."

    def where(self) -> str:
        """``statement 3 (line 12: "UPDATE empires ...")`` for messages."""
        return f'statement {self.number} (line {self.line}: "{self.first_line}")'


def _strip_leading(text: str) -> str:
    """``text`` without leading whitespace and comments."""
    while True:
        stripped = text.lstrip()
        if stripped.startswith("--"):
            end = stripped.find("\n")
            text = "" if end < 0 else stripped[end + 1 :]
        elif stripped.startswith("/*"):
            end = stripped.find("*/")
            text = "" if end < 0 else stripped[end + 2 :]
        else:
            return stripped


def _statement(script: str, number: int, start: int, end: int, node: Any = None) -> Statement:
    raw = script[start:end]
    body = _strip_leading(raw).rstrip()
    offset = start + raw.find(body) if body else start
    return Statement(number, script.count("\n", 0, offset) + 1, body, node)


def split_statements(script: str, *, dialect: str = "sqlite") -> list[Statement]:
    """The statements of ``script`` in order; empty ones (``;;``, comments only) dropped."""
    return _split_postgres(script) if dialect.startswith("postgres") else _split_sqlite(script)


def _split_sqlite(script: str) -> list[Statement]:
    out: list[Statement] = []
    start = 0
    for match in re.finditer(";", script):
        piece = script[start : match.end()]
        if sqlite3.complete_statement(piece):
            if _strip_leading(piece[:-1]).strip():
                out.append(_statement(script, len(out) + 1, start, match.start()))
            start = match.end()
    tail = script[start:]
    if _strip_leading(tail).strip():
        if not sqlite3.complete_statement(tail + ";"):
            line = _statement(script, 0, start, len(script)).line
            raise ScriptSyntaxError(
                "the statement starting here never ends: "
                "a quoted string, quoted name or /* comment is never closed",
                line,
            )
        out.append(_statement(script, len(out) + 1, start, len(script)))
    return out


def _split_postgres(script: str) -> list[Statement]:
    from pglast import parser  # the postgres extra

    try:
        raws = parser.parse_sql(script)
    except parser.ParseError as exc:
        message, index = (exc.args + (0,))[:2]
        line = script.count("\n", 0, max(int(index), 0)) + 1 if index else 1
        word = re.match(r'syntax error at or near "([A-Za-z_]+)"', str(message))
        guess = (
            difflib.get_close_matches(word.group(1).upper(), _ALLOWED_WORDS, n=1, cutoff=0.6) if word else []
        )
        hint = f"; did you mean {guess[0]}?" if word and guess and guess[0] != word.group(1).upper() else ""
        raise ScriptSyntaxError(f"{message}{hint}", line) from None
    out: list[Statement] = []
    for raw in raws:
        start = raw.stmt_location or 0
        end = start + raw.stmt_len if raw.stmt_len else len(script)
        out.append(_statement(script, len(out) + 1, start, end, raw.stmt))
    return out


# -- refusals --------------------------------------------------------------------------


def keyword_refusal(statement: Statement) -> str | None:
    """The early, friendly refusal by first word (both databases)."""
    word = statement.keyword
    if word in _ALLOWED_WORDS:
        return None
    if word in _TRANSACTION_WORDS:
        return f"{statement.where()}: {word} is not allowed; {TRANSACTION_REASON}"
    if re.fullmatch(r"[A-Z_]+", word) and len(word) > 1 and word not in _COMMANDS:
        guess = difflib.get_close_matches(word, _ALLOWED_WORDS, n=1, cutoff=0.6)
        hint = f"; did you mean {guess[0]}?" if guess else ""
        return f"{statement.where()}: syntax error: {word!r} does not begin an SQL statement{hint}"
    return f"{statement.where()}: {word or statement.first_line!r} is not allowed in a GM script; {ONLY_DML}"


_COMMANDS = frozenset(
    {
        "CREATE",
        "DROP",
        "ALTER",
        "TRUNCATE",
        "GRANT",
        "REVOKE",
        "PRAGMA",
        "VACUUM",
        "ATTACH",
        "DETACH",
        "REINDEX",
        "ANALYZE",
        "ANALYSE",
        "EXPLAIN",
        "COPY",
        "SET",
        "RESET",
        "SHOW",
        "LOCK",
        "CALL",
        "DO",
        "REPLACE",
        "MERGE",
        "COMMENT",
        "CLUSTER",
        "LISTEN",
        "NOTIFY",
        "UNLISTEN",
        "DISCARD",
        "LOAD",
        "SECURITY",
        "REFRESH",
        "IMPORT",
        "DECLARE",
        "FETCH",
        "MOVE",
        "CLOSE",
        "CHECKPOINT",
        "DEALLOCATE",
        "EXECUTE",
        "TABLE",
    }
)


def postgres_refusals(statement: Statement) -> list[str]:
    """Why PostgreSQL's parse tree of ``statement`` may not run (empty: it may)."""
    from pglast import ast  # the postgres extra: a SQLite install runs without it
    from pglast.visitors import Visitor  # the postgres extra

    early = keyword_refusal(statement)
    node = statement.node
    if not isinstance(node, (ast.SelectStmt, ast.InsertStmt, ast.UpdateStmt, ast.DeleteStmt)):
        return [
            early or f"{statement.where()}: {type(node).__name__} is not allowed in a GM script; {ONLY_DML}"
        ]
    where = statement.where()
    found: list[str] = []

    class Walk(Visitor):
        def visit_SelectStmt(self, ancestors: Any, n: Any) -> None:
            if n.intoClause is not None:
                found.append(f"{where}: SELECT INTO creates a table, which is not allowed; {ONLY_DML}")

        def _write(self, verb: str, relation: Any) -> None:
            schema, name = relation.schemaname, relation.relname
            if schema not in (None, "public") or name not in GAME_TABLES:
                table = f"{schema}.{name}" if schema else name
                why = (
                    "the audit log is only ever added to by turnproc"
                    if name == "audit_log"
                    else (
                        "the schema version belongs to migrations"
                        if name == "alembic_version"
                        else "a script may write only the game tables"
                    )
                )
                found.append(f"{where}: {verb} on {table} is not allowed; {why}")

        def visit_InsertStmt(self, ancestors: Any, n: Any) -> None:
            self._write("INSERT", n.relation)

        def visit_UpdateStmt(self, ancestors: Any, n: Any) -> None:
            self._write("UPDATE", n.relation)

        def visit_DeleteStmt(self, ancestors: Any, n: Any) -> None:
            self._write("DELETE", n.relation)

        def visit_MergeStmt(self, ancestors: Any, n: Any) -> None:
            found.append(f"{where}: MERGE is not allowed in a GM script; {ONLY_DML}")

        def visit_FuncCall(self, ancestors: Any, n: Any) -> None:
            parts = [p.sval for p in n.funcname]
            name = parts[-1].lower()
            schema_ok = len(parts) == 1 or parts[0].lower() == "pg_catalog"
            if name in ALLOWED_FUNCTIONS and schema_ok:
                return
            why = _FUNCTION_REASONS.get(
                name, "only functions that read and compute are (see docs/gm-schema.md)"
            )
            found.append(f"{where}: the function {'.'.join(parts)}() is not allowed in a GM script; {why}")

    Walk()(node)
    return found


def attribute_refusals(statement: Statement, functions: frozenset[str], columns: frozenset[str]) -> list[str]:
    """PostgreSQL reads ``e.f`` (and ``(e).f``) as the call ``f(e)`` when
    ``f`` is no column of ``e``: a function called that way is not a
    FuncCall in the parse tree. Refused when ``f`` is a name of
    ``functions`` (the database's functions off :data:`ALLOWED_FUNCTIONS`)
    and no column of ``columns`` (every column of the schema's tables and
    views): whatever the query meant, a column by that name cannot be."""
    from pglast import ast  # the postgres extra
    from pglast.visitors import Visitor  # the postgres extra

    where = statement.where()
    found: list[str] = []

    def check(names: list[str]) -> None:
        for name in names:
            low = name.lower()
            if low in functions and low not in columns:
                found.append(
                    f"{where}: {'.'.join(names)} calls the function {low}() by attribute notation,"
                    " which is not allowed in a GM script;"
                    " only functions that read and compute are (see docs/gm-schema.md)"
                )

    class Walk(Visitor):
        def visit_ColumnRef(self, ancestors: Any, n: Any) -> None:
            fields = [str(f.sval) for f in n.fields if isinstance(f, ast.String)]
            if len(fields) > 1:
                check(fields[1:])

        def visit_A_Indirection(self, ancestors: Any, n: Any) -> None:
            check([str(f.sval) for f in n.indirection if isinstance(f, ast.String)])

    Walk()(statement.node)
    return found
