"""Cutting a script into statements with the databases' own tokenizers: ';'
ends a statement only outside quotes and comments (SQLite: complete_statement;
PostgreSQL: its parser, through pglast)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from turnproc.admin.statements import ScriptSyntaxError, keyword_refusal, postgres_refusals, split_statements


def texts(script: str, dialect: str = "sqlite") -> list[str]:
    return [s.text for s in split_statements(script, dialect=dialect)]


def test_semicolons_inside_strings_comments_and_names_do_not_split() -> None:
    script = """-- a comment; with a semicolon
UPDATE empires SET name = 'a;b''c;' WHERE code = 'RIG'; /* block; comment */
SELECT "odd;name" FROM x -- trailing; comment
;
"""
    assert texts(script) == [
        "UPDATE empires SET name = 'a;b''c;' WHERE code = 'RIG'",
        'SELECT "odd;name" FROM x -- trailing; comment',
    ]


def test_each_statement_knows_its_number_and_first_line() -> None:
    script = "\n\n-- head\nSELECT 1;\n\n  UPDATE t\n  SET a = ';\n';\n;;DELETE FROM t"
    stmts = split_statements(script)
    assert [(s.number, s.line, s.keyword) for s in stmts] == [
        (1, 4, "SELECT"),
        (2, 6, "UPDATE"),
        (3, 9, "DELETE"),
    ]
    assert stmts[1].where() == 'statement 2 (line 6: "UPDATE t")'


def test_postgres_dollar_quotes_and_nested_comments() -> None:
    script = (
        "SELECT $$a;b$$, $x$c;$$d$x$; /* outer /* inner; */ still; */ SELECT E'it\\'s;';SELECT a$b FROM t"
    )
    assert texts(script, "postgresql") == [
        "SELECT $$a;b$$, $x$c;$$d$x$",
        "SELECT E'it\\'s;'",
        "SELECT a$b FROM t",
    ]


def test_sqlite_comments_do_not_nest() -> None:
    assert texts("/* a /* b */ SELECT 1; SELECT 2") == ["SELECT 1", "SELECT 2"]


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
@pytest.mark.parametrize(
    "script, line",
    [("SELECT 1;\nSELECT 'open", 2), ('SELECT "open', 1), ("SELECT 1;\n\nSELECT /* never closed", 3)],
)
def test_unclosed_quotes_and_comments(script: str, line: int, dialect: str) -> None:
    with pytest.raises(ScriptSyntaxError) as info:
        split_statements(script, dialect=dialect)
    assert info.value.line == line


@pytest.mark.parametrize(
    "statement, allowed",
    [
        ("select 1", True),
        ("(SELECT 1) UNION (SELECT 2)", True),
        ("WITH x AS (SELECT 1) UPDATE t SET a = 1", True),
        ("insert into t values (1)", True),
        ("COMMIT", False),
        ("end", False),
        ("savepoint a", False),
        ("ALTER TABLE t ADD c int", False),
        ("vacuum", False),
        ("attach 'x' as y", False),
    ],
)
def test_only_data_statements_are_allowed_sqlite(statement: str, allowed: bool) -> None:
    (stmt,) = split_statements(statement)
    assert (keyword_refusal(stmt) is None) is allowed


@pytest.mark.parametrize(
    "statement, allowed",
    [
        ("select 1", True),
        ("(SELECT 1) UNION (SELECT 2)", True),
        ("WITH x AS (SELECT 1) UPDATE empires SET vp = 1", True),
        ("insert into orders values (1)", True),
        ("SELECT lower(name), count(*) FROM gm_empires GROUP BY 1", True),
        ("COMMIT", False),
        ("end", False),
        ("savepoint a", False),
        ("ALTER TABLE t ADD c int", False),
        ("vacuum", False),
        ("SELECT * INTO t2 FROM empires", False),
        ("WITH d AS (DELETE FROM audit_log RETURNING 1) SELECT * FROM d", False),
        ("SELECT pg_catalog.set_config('a.b', 'c', true)", False),
        ("UPDATE empires SET vp = (SELECT nextval('empires_id_seq'))", False),
    ],
)
def test_only_data_statements_are_allowed_postgres(statement: str, allowed: bool) -> None:
    (stmt,) = split_statements(statement, dialect="postgresql")
    assert (not postgres_refusals(stmt)) is allowed


_plain = st.text(alphabet="abc XYZ019=,()\n", min_size=1, max_size=12)
_quoted = st.text(alphabet="ab;'-*/\n ", max_size=8).map(lambda t: "'" + t.replace("'", "''") + "'")
_comment = st.text(alphabet="ab;' \"", max_size=8).map(lambda t: f"/*{t}*/")
_line_comment = st.text(alphabet="ab;'/* \"", max_size=8).map(lambda t: f"--{t}\n")
_piece = st.one_of(_plain, _quoted, _comment, _line_comment)


@given(st.lists(st.lists(_piece, min_size=1, max_size=5).map("".join), min_size=1, max_size=6))
def test_split_finds_exactly_the_statements_joined(statements: list[str]) -> None:
    """Statements with quotes and comments holding ';', joined by ';', split back
    into the same statements (bar surrounding blanks and leading comments)."""
    script = ";\n".join(statements)
    got = split_statements(script)
    expected = [s for s in statements if _significant(s)]
    assert len(got) == len(expected)
    for stmt, original in zip(got, expected):
        assert original.rstrip().endswith(stmt.text)


def _significant(statement: str) -> bool:
    """Whether anything but blanks and comments is in ``statement``."""
    i, n = 0, len(statement)
    while i < n:
        if statement[i].isspace():
            i += 1
        elif statement.startswith("--", i):
            j = statement.find("\n", i)
            i = n if j < 0 else j
        elif statement.startswith("/*", i):
            i = statement.find("*/", i + 2) + 2
        else:
            return True
    return False


def test_postgres_statements_are_cut_by_characters_not_bytes() -> None:
    script = "UPDATE empires SET name = 'Ålfheim — ü' WHERE code = 'ALF';\nSELECT 'ß';  SELECT 2"
    got = split_statements(script, dialect="postgresql")
    assert [(s.line, s.text) for s in got] == [
        (1, "UPDATE empires SET name = 'Ålfheim — ü' WHERE code = 'ALF'"),
        (2, "SELECT 'ß'"),
        (2, "SELECT 2"),
    ]
