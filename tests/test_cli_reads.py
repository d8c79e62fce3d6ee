"""Reads never write (docs/gm-handbook.md, "Command reference"): the commands
that only read open read-only transactions, so on SQLite they take no write
lock and neither wait for a writer nor make one wait, and on PostgreSQL a
write inside one fails.

On SQLite every ordinary transaction begins IMMEDIATE, and a command waits
up to the 30 s busy timeout for the write lock; each process here must end
well within that (``WITHIN``), so a read that took the lock fails the test
by its timeout instead of passing slowly."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from mailbox import Maildir
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event, text
from sqlalchemy.exc import DBAPIError

from turnproc.cli import main
from turnproc.storage import plainread
from turnproc.storage.db import READ_ONLY, make_engine, make_sessionmaker, read_only
from turnproc.turns.position import position_reports

# The module's tests share a fixture made once per module (two_games_made):
# on one worker it is made once.
pytestmark = pytest.mark.xdist_group("cli-reads")

ROOT = Path(__file__).resolve().parents[1]

#: Seconds each command may take here: far below the busy timeout a read
#: holding (or waiting for) SQLite's write lock would make it wait.
WITHIN = 20


def _gm(config: Path, *argv: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = main(["--config", str(config), *argv])
    assert status == 0, (argv, out.getvalue())
    return out.getvalue()


def _password(out: str) -> str:
    match = re.search(r"password: (\S+)", out)
    assert match, out
    return match.group(1)


def _cli(config: Path, *argv: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "turnproc", "--config", str(config), *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _finished(proc: subprocess.Popen[str]) -> str:
    out, err = proc.communicate(timeout=WITHIN)
    assert proc.returncode == 0, f"{proc.args}: status {proc.returncode}\n{err}"
    return out


def _order_mail(address: str, password: str, game: str, note: str) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"] = address, "turns@turnproc.example"
    msg["Subject"], msg["Date"] = f"Orders {game}", format_datetime(dt.datetime.now(dt.timezone.utc))
    msg["Message-ID"] = make_msgid(domain="example.org")
    msg.set_content(f"GAME {game}\nEMPIRE RIG {password}\nTURN 1\nTAX\nMESSAGE ALL {note}\nEND\n")
    return bytes(msg)


def _write_config(folder: Path) -> Path:
    config = folder / "turnproc.toml"
    config.write_text(
        f'database_url = "sqlite:///{folder / "turnproc.db"}"\nmaildir_in = "{folder / "in"}"\n'
        f'maildir_out = "{folder / "out"}"\n'
        'from_address = "turns@turnproc.example"\n',
        encoding="utf-8",
    )
    return config


@pytest.fixture(scope="module")
def two_games_made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The folder of :func:`two_games`, made once per module by the command
    line (a second or two), and RIG of early's password."""
    folder = tmp_path_factory.mktemp("two-games")
    config = _write_config(folder)
    password = ""
    for game in ("early", "late"):
        _gm(config, "game", "new", game, "--players", "2", "--seed", game)
        out = _gm(
            config,
            "empire",
            "add",
            game,
            "--code",
            "RIG",
            "--name",
            "Rigel",
            "--email",
            "ann@example.org",
            "--print-password",
        )
        password = _password(out) if game == "early" else password
        _gm(config, "empire", "add", game, "--code", "VEG", "--name", "Vega", "--email", "bo@example.org")
    _gm(config, "turn", "run", "late", "--yes", "--force")
    return folder, password


@pytest.fixture
def two_games(two_games_made: tuple[Path, str], tmp_path: Path) -> tuple[Path, Path, str]:
    """One SQLite file holding ``early`` (before turn 1: its reports are built
    when asked) and ``late`` (turn 1 run: its reports are stored); the
    config, the database and RIG of early's password. A copy of the module's
    folder (the database, its password key, the mail), so a test may write."""
    made, password = two_games_made
    shutil.copytree(made, tmp_path, dirs_exist_ok=True)
    return _write_config(tmp_path), tmp_path / "turnproc.db", password


@contextlib.contextmanager
def _write_lock(db: Path) -> Iterator[None]:
    """SQLite's write lock held as a writer (a poll, a turn) holds it mid-write."""
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("UPDATE games SET turn = turn WHERE name = 'late'")
        yield
        conn.execute("ROLLBACK")
    finally:
        conn.close()


def _inbox(tmp_path: Path, password: str, n: int, note: str) -> None:
    box = Maildir(tmp_path / "in", create=True)
    for i in range(n):
        box.add(_order_mail("ann@example.org", password, "early", f"{note} {i}"))


@pytest.mark.slow
def test_reports_before_and_after_turn_1_run_while_a_writer_holds_the_lock(
    two_games: tuple[Path, Path, str],
) -> None:
    config, db, _ = two_games
    with _write_lock(db):
        early = _cli(config, "report", "early", "RIG")
        late = _cli(config, "report", "late", "RIG")
        assert "turn 1 report" in _finished(late)
        assert "RIG" in _finished(early)
        for argv in (("game", "show", "early"), ("empire", "list", "late"), ("check", "late"), ("audit",)):
            _finished(_cli(config, *argv))


@pytest.mark.slow  # two games of processes
def test_a_poll_writes_while_a_read_is_open(two_games: tuple[Path, Path, str], tmp_path: Path) -> None:
    config, db, password = two_games
    _inbox(tmp_path, password, 3, "held")
    engine = make_engine(f"sqlite:///{db}")
    try:
        with read_only(make_sessionmaker(engine)) as session:
            # The read holds its snapshot, as a report does while it builds.
            before = session.scalar(text("SELECT count(*) FROM outbox"))
            assert "3 mails: 3 accepted" in _finished(_cli(config, "poll"))
            assert session.scalar(text("SELECT count(*) FROM outbox")) == before  # still its own snapshot
    finally:
        engine.dispose()


@pytest.mark.slow
def test_two_reports_and_a_poll_side_by_side(two_games: tuple[Path, Path, str], tmp_path: Path) -> None:
    config, _, password = two_games
    _inbox(tmp_path, password, 20, "side by side")
    procs = [
        _cli(config, "poll"),
        _cli(config, "report", "early", "RIG"),
        _cli(config, "report", "late", "RIG", "--format", "json"),
    ]
    outs = [_finished(p) for p in procs]
    assert "20 mails: 20 accepted" in outs[0]
    assert '"turn": 1' in outs[2]


def test_a_write_inside_a_read_only_transaction_fails(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        with pytest.raises(DBAPIError), read_only(make_sessionmaker(engine)) as session:
            session.execute(text("UPDATE games SET turn = turn + 1"))
        # The connection goes back to the pool able to write again.
        with engine.begin() as conn:
            conn.execute(text("UPDATE games SET turn = turn + 1"))
    finally:
        engine.dispose()


READS = [
    ("game", "list"),
    ("game", "show", "early"),
    ("empire", "list", "early"),
    ("empire", "show", "late", "RIG"),
    ("report", "early", "RIG"),
    ("report", "late", "RIG"),
    ("check", "late"),
    ("audit",),
]

#: The reads that run over the DB-API alone (turnproc/storage/plainread.py):
#: no SQLAlchemy transaction at all, and one read-only connection of their own.
#: ``report`` before turn 1 reads the state so too, and builds the report from it.
PLAIN = {
    ("game", "show", "early"),
    ("empire", "list", "early"),
    ("report", "early", "RIG"),
    ("report", "late", "RIG"),
}


def _write_refused(reader: Any) -> str:
    """What a write through the plain reader's own connection comes to."""
    cursor = reader.connection.cursor()
    try:
        cursor.execute("UPDATE games SET turn = turn")
    except Exception as exc:  # noqa: BLE001 - sqlite3's or psycopg's, whichever backend
        return f"refused: {type(exc).__name__}"
    finally:
        cursor.close()
    return "written"


@pytest.fixture
def plain_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each connection plainread opened, as a write tried through it once the
    command is done with it fared: "refused: ..." for every one, or the test fails."""

    seen: list[str] = []
    original = plainread.opened

    @contextlib.contextmanager
    def checked(url: str) -> Iterator[Any]:
        with original(url) as reader:
            yield reader
            if reader is not None:
                seen.append(_write_refused(reader))

    monkeypatch.setattr(plainread, "opened", checked)
    return seen


@pytest.mark.slow  # two games of processes
def test_the_read_commands_run_only_read_only_transactions(
    two_games: tuple[Path, Path, str], tmp_path: Path, plain_reads: list[str]
) -> None:
    """Every transaction a read command begins is read-only (SQLite here; the
    PostgreSQL twin below checks the server's own flag)."""
    config, _, _ = two_games
    begun: list[bool] = []

    def on_begin(conn: Any) -> None:
        begun.append(bool(conn.get_execution_options().get(READ_ONLY)))

    event.listen(Engine, "begin", on_begin)
    try:
        for argv in READS:
            begun.clear()
            plain_reads.clear()
            _gm(config, *argv)
            if argv in PLAIN:
                assert begun == [] and plain_reads == ["refused: OperationalError"], (
                    argv,
                    begun,
                    plain_reads,
                )
            else:
                assert begun and all(begun), (argv, begun)
                assert all(r.startswith("refused") for r in plain_reads), (argv, plain_reads)
        _gm(config, "site", "late", str(tmp_path / "site"))
        assert begun and all(begun)
    finally:
        event.remove(Engine, "begin", on_begin)


@pytest.mark.postgres
def test_on_postgresql_the_read_commands_run_read_only(
    postgres_url: str, tmp_path: Path, plain_reads: list[str]
) -> None:
    """Each statement of a read command runs in a transaction the server
    itself holds READ ONLY: a write attempted there would fail."""
    from tests.conftest import _drop_pg_database, _fresh_pg_database

    url, name = _fresh_pg_database(postgres_url)
    try:
        config = tmp_path / "turnproc.toml"
        config.write_text(
            f'database_url = "{url}"\nmaildir_in = "{tmp_path / "in"}"\nmaildir_out = "{tmp_path / "out"}"\n',
            encoding="utf-8",
        )
        _gm(config, "db", "upgrade")
        for game in ("early", "late"):
            _gm(config, "game", "new", game, "--players", "2", "--seed", game)
            _gm(
                config,
                "empire",
                "add",
                game,
                "--code",
                "RIG",
                "--name",
                "Rigel",
                "--email",
                "ann@example.org",
            )
        _gm(config, "turn", "run", "late", "--yes", "--force")
        seen: list[str] = []

        def after(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
            if statement.lstrip().upper().startswith("SELECT") and "transaction_read_only" not in statement:
                # A cursor of its own: the statement's rows are still to be fetched.
                probe = conn.connection.cursor()
                probe.execute("SELECT current_setting('transaction_read_only')")
                seen.append(probe.fetchone()[0])
                probe.close()

        event.listen(Engine, "after_cursor_execute", after)
        try:
            for argv in READS:
                seen.clear()
                plain_reads.clear()
                _gm(config, *argv)
                if argv in PLAIN:
                    assert seen == [] and plain_reads == ["refused: ReadOnlySqlTransaction"], (
                        argv,
                        plain_reads,
                    )
                else:
                    assert seen and set(seen) == {"on"}, (argv, seen)
        finally:
            event.remove(Engine, "after_cursor_execute", after)
    finally:
        _drop_pg_database(postgres_url, name)


@pytest.mark.slow  # two games of processes
def test_every_turn_0_report_at_once_reads_only_and_matches_report(two_games: tuple[Path, Path, str]) -> None:
    """All of a game's turn-0 reports in one read-only transaction (the state
    and the shared parts built once) are what ``turnproc report`` prints for
    each, and the database file is left as it was."""
    config, db, _ = two_games
    printed = {code: _gm(config, "report", "early", code) for code in ("RIG", "VEG")}
    before = db.read_bytes()
    with plainread.opened(f"sqlite:///{db}") as reader:
        assert reader is not None
        game = plainread.get_game(reader, "early")
        built = {code: text for code, text, _ in position_reports(reader, game, sorted(printed))}
    assert built == printed  # the report ends with a newline, so `report` adds none
    assert db.read_bytes() == before


def test_turn_0_is_the_start_of_the_game_before_turn_1_and_after(two_games: tuple[Path, Path, str]) -> None:
    """``report --turn 0`` (gm-handbook, ``turnproc report``): the start of the
    game, before turn 1 from the state, after it from turn 1's record (as a
    player's REPORT 0), over the DB-API alone and through the ORM alike;
    never today's position under turn 0's name."""
    config, db, _ = two_games
    assert _gm(config, "report", "early", "RIG", "--turn", "0").startswith(
        "STAR CHASE - game early - turn 0 report"
    )
    orm = config.with_name("orm.toml")
    orm.write_text(
        config.read_text(encoding="utf-8").replace(f'"sqlite:///{db}"', f'"sqlite:///{db}?timeout=5"'),
        encoding="utf-8",
    )
    for argv in (("--turn", "0"), ("--turn", "0", "--format", "json")):
        plain = _gm(config, "report", "late", "RIG", *argv)
        assert _gm(orm, "report", "late", "RIG", *argv) == plain
    assert plain and json.loads(plain)["turn"] == 0
    latest = _gm(config, "report", "late", "RIG")
    assert latest.startswith("STAR CHASE - game late - turn 1 report")
    assert _gm(config, "report", "late", "RIG", "--turn", "0").startswith(
        "STAR CHASE - game late - turn 0 report"
    )
