"""Scripts that try to get around the checks: transaction
control, schema and settings changes, side-effect functions, the audit log,
another game. Each is refused (or rolled back) with its reason in one line,
every table but the audit log is as before, and the audit log gained exactly
one row: the attempt's. Run on SQLite and PostgreSQL; a script that means
nothing to one database is skipped there, by name."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from sqlalchemy import func, inspect, select, text

from tests.factories import make_game
from turnproc.admin import ScriptResult, run_script
from turnproc.admin import script as script_module
from turnproc.storage import models as m
from turnproc.storage.db import transaction

from .conftest import NOW, Games, dump

SPRING = "(SELECT id FROM games WHERE name = 'spring26')"
AUTUMN = "(SELECT id FROM games WHERE name = 'autumn')"
FIX = f"UPDATE empires SET vp = vp + 1 WHERE code = 'RIG' AND game_id = {SPRING};\n"


def _backend(games: Games) -> str:
    return "postgres" if games.engine.dialect.name == "postgresql" else "sqlite"


def _audit_rows(games: Games) -> int:
    with games.sessions() as session:
        return session.scalar(select(func.count()).select_from(m.AuditEntry)) or 0


def _attempt(games: Games, script: str) -> ScriptResult:
    """Run a hostile script; prove it changed nothing but the audit log's one new row."""
    for _ in range(3):  # audit rows a script might try to wipe
        run_script(games.engine, "spring26", "SELECT 1;", now=NOW)
    before = dump(games.engine, skip=("audit_log",))
    views = sorted(inspect(games.engine).get_view_names())
    audited = _audit_rows(games)
    result = run_script(games.engine, "spring26", script, now=NOW)
    assert not result.ok and result.outcome in ("refused", "failed", "rejected"), result.outcome
    reason = (result.errors or [v.message for v in result.violations])[0]
    assert reason and "\n" not in reason
    assert dump(games.engine, skip=("audit_log",)) == before, "the database changed"
    assert sorted(inspect(games.engine).get_view_names()) == views, "a view changed"
    assert _audit_rows(games) == audited + 1
    with games.sessions() as session:
        entry = session.get_one(m.AuditEntry, result.audit_id)
        assert entry.script == script and entry.outcome == result.outcome
    # The connection the script used is back in the pool as it was.
    with games.engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            assert conn.scalar(text("SELECT current_user = session_user")) is True
            assert conn.scalar(text("SHOW standard_conforming_strings")) == "on"
    return result


# -- three scripts that once got through --------------------------------------------------


def test_hidden_commit_makes_nothing_stick(games: Games) -> None:
    """A COMMIT hidden from turnproc's view of the script (the
    server reads backslash escapes once standard_conforming_strings is off)
    made another game's treasury and a wiped audit log stick."""
    script = (
        "SELECT set_config('standard_conforming_strings', 'off', false);\n"
        f"UPDATE empires SET treasury = 1050 WHERE code = 'RIG' AND game_id = {AUTUMN};\n"
        "DELETE FROM audit_log WHERE id > (SELECT min(id) FROM audit_log);\n"
        "SELECT '\\'' ; COMMIT; --';\n"
        "SELECT 1/0;\n"
    )
    result = _attempt(games, script)
    if _backend(games) == "postgres":
        assert result.outcome == "refused"
        assert "set_config() is not allowed" in result.errors[0]


def test_ddl_in_a_string_literal_is_not_run(games: Games) -> None:
    """DDL inside a string literal, after set_config turned
    standard strings off, dropped the view gm_empires and was committed."""
    script = (
        "SELECT set_config('standard_conforming_strings', 'off', false);\n"
        "SELECT '\\'' ; DROP VIEW gm_empires; --';\n"
    )
    _attempt(games, script)
    assert "gm_empires" in inspect(games.engine).get_view_names()


def test_sequences_are_not_touched(games: Games) -> None:
    """``SELECT setval(...)`` was committed and the next
    ``game new`` failed on a duplicate id. (SQLite's counterpart is its
    sqlite_sequence table.)"""
    script = (
        "SELECT setval(pg_get_serial_sequence('games', 'id'), 1);\n"
        if _backend(games) == "postgres"
        else "UPDATE sqlite_sequence SET seq = 1 WHERE name = 'games';\n"
    )
    _attempt(games, FIX + script)
    with transaction(games.sessions) as session:
        make_game(session, "winter")  # game new works


# -- the catalogue --------------------------------------------------------------------------


@dataclass(frozen=True)
class Hostile:
    id: str
    script: str
    only: str | None = None
    """``postgres`` or ``sqlite``: the script means nothing to the other database."""


CATALOGUE = [
    # transaction control, every spelling
    Hostile("commit", FIX + "COMMIT;"),
    Hostile("commit-lowercase-after-comment", FIX + "/* done */ commit;"),
    Hostile("commit-after-line-comment", FIX + "-- now keep it\nCOMMIT;"),
    Hostile("commit-work", FIX + "COMMIT WORK;"),
    Hostile("end", FIX + "END;"),
    Hostile("end-transaction", FIX + "END TRANSACTION;"),
    Hostile("rollback", FIX + "ROLLBACK;"),
    Hostile("savepoint-release", "SAVEPOINT a;\n" + FIX + "RELEASE SAVEPOINT a;"),
    Hostile("release", FIX + "RELEASE a;"),
    Hostile("rollback-to-savepoint", FIX + "ROLLBACK TO SAVEPOINT a;"),
    Hostile("begin", "BEGIN;\n" + FIX),
    Hostile("begin-immediate", "BEGIN IMMEDIATE;\n" + FIX, only="sqlite"),
    Hostile("start-transaction", "START TRANSACTION;\n" + FIX, only="postgres"),
    Hostile("abort", FIX + "ABORT;", only="postgres"),
    Hostile("prepare-transaction", FIX + "PREPARE TRANSACTION 'gm';", only="postgres"),
    Hostile("commit-in-e-string", FIX + "SELECT E'\\\\'; COMMIT; --';"),
    Hostile("commit-after-dollar-quote", FIX + "SELECT $x$;$x$; COMMIT;", only="postgres"),
    Hostile("commit-in-do-block", "DO $$ BEGIN COMMIT; END $$;", only="postgres"),
    # settings
    Hostile("set-config", "SELECT set_config('standard_conforming_strings', 'off', false);", only="postgres"),
    Hostile(
        "set-config-role", "SELECT pg_catalog.set_config('role', 'postgres', true);\n" + FIX, only="postgres"
    ),
    Hostile("set-config-quoted", "SELECT \"set_config\"('search_path', 'pg_temp', true);", only="postgres"),
    Hostile("set", "SET session_replication_role = replica;\n" + FIX, only="postgres"),
    Hostile("set-local-role", "SET LOCAL ROLE postgres;\nDELETE FROM audit_log;", only="postgres"),
    Hostile("reset-role", "RESET ROLE;\nDELETE FROM audit_log;", only="postgres"),
    Hostile("reset-all", "RESET ALL;", only="postgres"),
    Hostile("pragma-foreign-keys", "PRAGMA foreign_keys = OFF;\n" + FIX, only="sqlite"),
    Hostile("pragma-writable-schema", "PRAGMA writable_schema = ON;", only="sqlite"),
    # other commands
    Hostile("do-block", "DO $$ BEGIN DELETE FROM audit_log; END $$;", only="postgres"),
    Hostile("copy-to-file", "COPY empires TO '/tmp/turnproc-empires.csv';", only="postgres"),
    Hostile("copy-from-program", "COPY links FROM PROGRAM 'true';", only="postgres"),
    Hostile("call", "CALL gm_fix();", only="postgres"),
    Hostile("lock", "LOCK TABLE empires IN ACCESS EXCLUSIVE MODE;\n" + FIX, only="postgres"),
    Hostile("vacuum", "VACUUM;"),
    Hostile("vacuum-into", "VACUUM INTO '/tmp/turnproc-copy.db';", only="sqlite"),
    Hostile("notify", "NOTIFY turnproc, 'x';", only="postgres"),
    Hostile("discard", "DISCARD ALL;", only="postgres"),
    Hostile(
        "merge",
        "MERGE INTO empires e USING games g ON g.id = e.game_id WHEN MATCHED THEN UPDATE SET vp = 0;",
        only="postgres",
    ),
    # schema
    Hostile("create-table", "CREATE TABLE loot (a int);"),
    Hostile("create-temp-table", "CREATE TEMP TABLE loot (a int);"),
    Hostile("select-into", "SELECT * INTO loot FROM empires;", only="postgres"),
    Hostile(
        "create-function", "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1';", only="postgres"
    ),
    Hostile(
        "create-trigger",
        "CREATE TRIGGER t AFTER UPDATE ON empires BEGIN DELETE FROM audit_log; END;",
        only="sqlite",
    ),
    Hostile("create-view", "CREATE VIEW v AS SELECT 1;"),
    Hostile("drop-view", "DROP VIEW gm_empires;"),
    Hostile("drop-table", "DROP TABLE audit_log;"),
    Hostile("alter-table", "ALTER TABLE empires ADD COLUMN loot int;"),
    Hostile("create-index", "CREATE INDEX ix_loot ON empires (vp);"),
    Hostile("truncate", "TRUNCATE audit_log;", only="postgres"),
    Hostile("grant", "GRANT ALL ON audit_log TO PUBLIC;", only="postgres"),
    Hostile("attach", "ATTACH DATABASE '/tmp/turnproc-loot.db' AS loot;", only="sqlite"),
    Hostile("detach", "DETACH DATABASE temp;", only="sqlite"),
    Hostile("reindex", "REINDEX;"),
    Hostile("analyze", "ANALYZE;"),
    # sequences and functions with side effects
    Hostile("setval", FIX + "SELECT setval('games_id_seq', 1);", only="postgres"),
    Hostile("nextval", FIX + "SELECT nextval('games_id_seq');", only="postgres"),
    Hostile(
        "nextval-in-update",
        f"UPDATE empires SET vp = nextval('games_id_seq') WHERE game_id = {SPRING};",
        only="postgres",
    ),
    Hostile(
        "pg-terminate-backend",
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid();",
        only="postgres",
    ),
    Hostile("pg-advisory-lock", "SELECT pg_advisory_lock(16);", only="postgres"),
    Hostile("pg-notify", "SELECT pg_notify('turnproc', 'x');", only="postgres"),
    Hostile("pg-read-file", "SELECT pg_read_file('/etc/passwd');", only="postgres"),
    Hostile("lo-import", "SELECT lo_import('/etc/passwd');", only="postgres"),
    Hostile("dblink", "SELECT dblink_exec('dbname=postgres', 'DELETE FROM audit_log');", only="postgres"),
    Hostile("load-extension", "SELECT load_extension('/tmp/evil');", only="sqlite"),
    Hostile("sqlite-master", "UPDATE sqlite_master SET sql = '' WHERE name = 'audit_log';", only="sqlite"),
    # the audit log and the schema version
    Hostile("delete-audit", FIX + "DELETE FROM audit_log;"),
    Hostile("delete-audit-qualified-pg", "DELETE FROM public.audit_log;", only="postgres"),
    Hostile("delete-audit-qualified-sqlite", "DELETE FROM main.audit_log;", only="sqlite"),
    Hostile("update-audit", "UPDATE audit_log SET outcome = 'committed';"),
    Hostile(
        "insert-audit",
        "INSERT INTO audit_log (at, os_user, action, game_name, script, sha256, outcome, detail)"
        " SELECT at, os_user, action, game_name, script, sha256, outcome, detail FROM audit_log;",
    ),
    Hostile(
        "cte-deletes-audit",
        "WITH d AS (DELETE FROM audit_log RETURNING id) SELECT count(*) FROM d;",
        only="postgres",
    ),
    Hostile("alembic-version", "UPDATE alembic_version SET version_num = '0001';"),
    Hostile("view-write", "UPDATE gm_empires SET balance = 0;"),
    # another game
    Hostile(
        "other-game-treasury",
        f"UPDATE empires SET treasury = 1050 WHERE code = 'RIG' AND game_id = {AUTUMN};",
    ),
    Hostile("other-game-forgot-where", "UPDATE empires SET balance = 0;"),
    Hostile("other-game-delete", f"DELETE FROM links WHERE game_id = {AUTUMN};"),
]


def _on(backend: str) -> list[pytest.MarkDecorator]:
    return [pytest.mark.postgres] if backend == "postgres" else []


# Each script runs on the databases it means something to: the pairs are made
# here, so nothing is collected only to be skipped.
PAIRS = [
    pytest.param(case, backend, id=f"{case.id}-{backend}", marks=_on(backend))
    for case in CATALOGUE
    for backend in ([case.only] if case.only else ["sqlite", "postgres"])
]


@pytest.mark.parametrize(("case", "db_url"), PAIRS, indirect=["db_url"])
def test_hostile_script_is_refused(games: Games, case: Hostile) -> None:
    _attempt(games, case.script)


def test_the_catalogue_is_large_and_names_unique() -> None:
    assert len(CATALOGUE) >= 40 and len({c.id for c in CATALOGUE}) == len(CATALOGUE)


# -- the role on its own ----------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
@pytest.mark.parametrize(
    "script",
    [
        "DELETE FROM audit_log;",
        "UPDATE alembic_version SET version_num = '0001';",
        "DROP VIEW gm_empires;",
        "CREATE TABLE loot (a int);",
        "TRUNCATE empires CASCADE;",
        "SELECT setval('games_id_seq', 1);",
        "SELECT pg_read_file('/etc/passwd');",
        "UPDATE gm_empires SET balance = 0;",
    ],
)
def test_the_role_refuses_what_the_parse_check_missed(
    games: Games, script: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the parse check switched off, PostgreSQL itself refuses: the
    script runs as turnproc_gm_script (SQLite's authorizer is tested above)."""
    assert _backend(games) == "postgres"
    monkeypatch.setattr(script_module, "postgres_refusals", lambda statement: [])
    result = _attempt(games, script)
    assert result.outcome == "failed"
    assert "was refused by the database" in result.errors[0]
