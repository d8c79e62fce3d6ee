"""The reads of the GM's prompt over the DB-API alone (turnproc/storage/plainread.py;
docs/gm-handbook.md, "Command reference"):
the database they open as SQLAlchemy would, read-only and holding no lock,
or none at all; values read as the ORM's column types read them; and the
commands printing, byte for byte, what they print through the ORM."""

from __future__ import annotations

import contextlib
import datetime as dt
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, func, select
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from tests.conftest import database_copy
from tests.variedgames import GAMES, gm, outputs, write_config
from turnproc.rules.state import Empire, GameSettings, GameState, Stance, System, SystemType, Tech
from turnproc.storage import models as m
from turnproc.storage import plainread
from turnproc.storage.convert import load_state
from turnproc.storage.db import DatabaseError, make_engine, make_sessionmaker, read_only
from turnproc.storage.mailkinds import MailKind
from turnproc.storage.readmodel import (
    EmpireView,
    GameSummary,
    GameView,
    PlayerSummary,
    current_deadline,
    view_of,
)
from turnproc.storage.stateread import read_state, settings_from

ROOT = Path(__file__).resolve().parents[2]
NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.UTC)


def _fill(url: str) -> None:
    # In a process of its own: the commands leave their connections open, and
    # no one may stay connected to a PostgreSQL template.
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(
            [sys.executable, "-m", "tests.variedgames", url, folder],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr


@pytest.fixture
def db_template() -> tuple[str, Any]:
    """Every database here holds the games of tests/variedgames.py."""
    return "varied", _fill


# -- which databases it opens, and how ------------------------------------------------

SQLITE_URLS = [
    "sqlite:///turnproc.db",
    "sqlite:////srv/turnproc/games.db",
    "sqlite+pysqlite:///data/t.db",
    "sqlite:///a folder/with spaces.db",
]

POSTGRES_URLS = [
    "postgresql+psycopg://turnproc@db.example.org/turnproc",
    "postgresql+psycopg://u:p%40ss@127.0.0.1:5433/t_1",
    "postgresql+psycopg://u@/db?host=/var/run/postgresql",
    "postgresql+psycopg:///db",
    "postgresql+psycopg://gm@DB.Example.org/turnproc?sslmode=require&application_name=x",
]

#: Forms left to SQLAlchemy: memory, URIs, options, escapes, other drivers.
OTHER_URLS = [
    "sqlite://",
    "sqlite:///:memory:",
    "sqlite:///file:x.db?mode=ro&uri=true",
    "sqlite:///x.db?timeout=5",
    "sqlite:///a%20b.db",
    "postgresql://u@h/db",
    "postgresql+psycopg2://u@h/db",
    "postgresql+psycopg://u@h1,h2/db",
    "mysql+pymysql://u@h/db",
]


@pytest.mark.parametrize("url", SQLITE_URLS)
def test_a_sqlite_url_names_the_file_sqlalchemy_opens(url: str) -> None:
    assert plainread._sqlite_path(url) == Path(str(make_url(url).database))


@pytest.mark.parametrize("url", POSTGRES_URLS)
def test_a_postgresql_url_gives_psycopg_what_sqlalchemy_gives_it(url: str) -> None:
    _, expected = create_engine(url).dialect.create_connect_args(make_url(url))
    expected.pop("context", None)  # SQLAlchemy's own adapters
    assert plainread._postgres_args(url) == expected


@pytest.mark.parametrize("url", OTHER_URLS)
def test_any_other_url_is_left_to_sqlalchemy(url: str) -> None:
    assert plainread._sqlite_path(url) is None and plainread._postgres_args(url) is None
    with plainread.opened(url) as reader:
        assert reader is None


def test_no_file_no_schema_or_another_revision_is_left_to_the_orm(tmp_path: Path, sqlite_url: str) -> None:
    """The ORM's path then refuses in the words it always has (tests/test_cli.py)."""
    with plainread.opened(f"sqlite:///{tmp_path / 'none.db'}") as reader:
        assert reader is None
    assert not (tmp_path / "none.db").exists()  # a read creates nothing
    sqlite3.connect(tmp_path / "empty.db").close()
    with plainread.opened(f"sqlite:///{tmp_path / 'empty.db'}") as reader:
        assert reader is None
    with plainread.opened(sqlite_url) as reader:
        assert reader is not None
    with contextlib.closing(sqlite3.connect(str(make_url(sqlite_url).database))) as conn, conn:
        conn.execute("UPDATE alembic_version SET version_num = '0001'")
    with plainread.opened(sqlite_url) as reader:
        assert reader is None


def _write(reader: plainread.Reader) -> str:
    cursor = reader.connection.cursor()
    try:
        cursor.execute("UPDATE games SET turn = turn + 1")
    except Exception as exc:  # noqa: BLE001 - sqlite3's or psycopg's
        return type(exc).__name__
    finally:
        cursor.close()
    return "written"


@pytest.mark.slow  # every varied game is written first
def test_a_write_through_the_reader_fails(db_url: str) -> None:
    with plainread.opened(db_url) as reader:
        assert reader is not None
        if reader.postgres:
            assert reader.rows("SELECT current_setting('transaction_read_only')") == [("on",)]
        assert _write(reader) in ("OperationalError", "ReadOnlySqlTransaction")


@contextlib.contextmanager
def _writer(path: str) -> Iterator[sqlite3.Connection]:
    """A writer that will not wait a moment for any lock: busy timeout 0."""
    conn = sqlite3.connect(path, isolation_level=None, timeout=0)
    try:
        yield conn
    finally:
        conn.close()


@pytest.fixture
def sqlite_games(request: pytest.FixtureRequest) -> Iterator[str]:
    """A SQLite copy of the games."""
    with database_copy(request, "sqlite", "varied", _fill) as url:
        yield url


@pytest.mark.slow  # every varied game is written first
def test_a_read_holds_no_lock_and_waits_for_none(sqlite_games: str) -> None:
    """SQLite: mid-read (its snapshot open), a writer that waits for nothing
    writes and commits; and a read opened while a writer holds the write lock
    answers at once, from the last commit. A read that took a lock fails here."""
    sqlite_url = sqlite_games
    path = str(make_url(sqlite_url).database)
    with plainread.opened(sqlite_url) as reader:
        assert reader is not None
        before = reader.rows("SELECT sum(turn) FROM games")
        assert before[0][0]
        with _writer(path) as writer:
            writer.execute("BEGIN IMMEDIATE")
            writer.execute("UPDATE games SET turn = turn + 1")
            writer.execute("COMMIT")
        assert reader.rows("SELECT sum(turn) FROM games") == before  # its own snapshot still
    with _writer(path) as writer:
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("UPDATE games SET turn = turn + 1")
        started = time.monotonic()
        with plainread.opened(sqlite_url) as reader:
            assert reader is not None
            assert reader.rows("SELECT sum(turn) FROM games") != before
        assert time.monotonic() - started < 5
        writer.execute("COMMIT")


# -- the same objects the ORM's columns make -------------------------------------------


def _orm_view(session: Session, game: m.Game) -> GameView:
    """The game's view read through the models alone, as turnproc read it before plainread."""
    last_run = session.scalar(select(func.max(m.TurnRecord.ran_at)).where(m.TurnRecord.game_id == game.id))
    staged = session.scalar(
        select(func.max(m.TurnRecord.number)).where(
            m.TurnRecord.game_id == game.id, m.TurnRecord.staged.is_(True)
        )
    )
    orders: dict[int, tuple[dt.datetime, bool]] = {}
    for s in session.scalars(
        select(m.OrderSet)
        .where(m.OrderSet.game_id == game.id, m.OrderSet.turn == game.turn, m.OrderSet.active.is_(True))
        .order_by(m.OrderSet.id)
    ):
        if s.orders:
            orders[s.empire_id] = (s.received_at, s.wait)
        else:
            orders.pop(s.empire_id, None)
    reminded = set(
        session.scalars(
            select(m.OutboxMail.recipient).where(
                m.OutboxMail.game_id == game.id,
                m.OutboxMail.kind == MailKind.REMINDER,
                m.OutboxMail.turn == game.turn,
            )
        )
    )
    empires = tuple(
        EmpireView(
            id=e.id,
            code=e.code,
            name=e.name,
            email=e.email,
            active=e.active,
            vp=e.vp,
            orders_at=orders[e.id][0] if e.id in orders else None,
            wait=orders[e.id][1] if e.id in orders else False,
            reminded=e.email in reminded,
            on_leave=e.vacation_until is not None and e.vacation_until >= game.turn,
            quitting=e.quit_at is not None,
        )
        for e in session.scalars(select(m.Empire).where(m.Empire.game_id == game.id).order_by(m.Empire.code))
    )
    return view_of(game, opened_at=last_run, staged_turn=staged, empires=empires)


def _orm_summary(session: Session, game: m.Game) -> tuple[GameSummary, PlayerSummary]:
    view = _orm_view(session, game)
    systems = session.scalar(select(func.count()).select_from(m.System).where(m.System.game_id == game.id))
    free = session.scalar(
        select(func.count())
        .select_from(m.System)
        .where(m.System.game_id == game.id, m.System.home_slot.is_(True), m.System.owner_id.is_(None))
    )
    suppressed = session.scalars(
        select(m.SuppressedReply)
        .where(m.SuppressedReply.game_id == game.id)
        .order_by(m.SuppressedReply.at.desc(), m.SuppressedReply.id.desc())
        .limit(5)
    )
    coming = current_deadline(view, NOW) if view.status == "active" else None
    held = tuple((r.at, r.recipient, r.kind, r.reason) for r in suppressed)
    summary = GameSummary(view, systems or 0, free or 0, coming, held, game.turn_limit, game.vp_target)
    pending = session.scalars(
        select(m.SignupRequest)
        .where(
            m.SignupRequest.game_id == game.id,
            m.SignupRequest.status == "pending",
            m.SignupRequest.confirmed_at.is_not(None),
        )
        .order_by(m.SignupRequest.id)
    )
    players = PlayerSummary(
        signup_open=game.signup_open,
        signup_limit=game.signup_limit,
        pending=tuple((r.code, r.name, r.email) for r in pending),
        vacation_limit=game.vacation_limit,
        on_leave=tuple(
            (e.code, e.vacation_until)
            for e in game.empires
            if e.vacation_until is not None and e.vacation_until >= game.turn
        ),
        quitting=tuple(e.code for e in game.empires if e.quit_at is not None),
    )
    return summary, players


def _each_game_both_ways(
    db_url: str,
) -> Iterator[tuple[Session, m.Game, plainread.Reader, plainread.GameRow]]:
    """Each game of tests/variedgames.py, as the ORM reads it in a read-only
    session and as plainread reads it over its own read-only connection."""
    engine = make_engine(db_url)
    try:
        with read_only(make_sessionmaker(engine)) as session, plainread.opened(db_url) as reader:
            assert reader is not None
            for name in GAMES:
                game = session.scalar(select(m.Game).where(m.Game.name == name))
                assert game is not None
                yield session, game, reader, plainread.get_game(reader, name)
    finally:
        engine.dispose()


@pytest.mark.slow  # every varied game is written first
def test_the_reads_make_what_the_models_make(db_url: str) -> None:
    """Every game of tests/variedgames.py, on SQLite and PostgreSQL: the same
    objects, down to each timestamp's zone (compared by repr), and the same
    stored reports."""
    for session, game, reader, row in _each_game_both_ways(db_url):
        summary, players = _orm_summary(session, game)
        assert repr(plainread.game_summary(reader, row, NOW)) == repr(summary)
        assert repr(plainread.player_summary(reader, row)) == repr(players)
        for e in game.empires:
            latest = session.scalar(
                select(m.Report.data)
                .where(m.Report.empire_id == e.id)
                .order_by(m.Report.turn.desc())
                .limit(1)
            )
            assert plainread.stored_report(reader, row, e.code.lower(), None) == latest


@pytest.mark.slow  # every varied game is written first
def test_the_commands_print_what_they_print_through_the_orm(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``game show``, ``empire list`` and ``report`` (text and JSON) over every
    game: read over the DB-API alone, and then with plainread declining
    (the ORM's session's connection), byte for byte the same."""
    config = write_config(tmp_path, db_url)
    plain = outputs(config)

    @contextlib.contextmanager
    def declined(url: str) -> Iterator[None]:
        yield None

    monkeypatch.setattr(plainread, "opened", declined)
    assert outputs(config) == plain
    assert all(v.startswith("0\n") for v in plain.values()), plain


def test_a_server_it_cannot_reach_is_refused_once_in_make_engines_words(tmp_path: Path) -> None:
    """Not handed to the ORM's path, which would try (and, for a server that
    drops the packets, wait) again; the same words all the same."""
    url = "postgresql+psycopg://nobody@127.0.0.1:1/none"
    with pytest.raises(DatabaseError) as plain, plainread.opened(url):
        pass
    with pytest.raises(DatabaseError) as orm:
        make_engine(url)
    assert str(plain.value) == str(orm.value)
    config = write_config(tmp_path, url)
    shown, listed = gm(config, "game", "show", "g"), gm(config, "game", "list")
    assert shown[0] == listed[0] == 1 and shown[2] == listed[2]


def _orm_state(session: Session, game: m.Game) -> GameState:
    """The oracle of the state's reader: the game built from the ORM's own
    objects, each value as the models' column types give it."""
    forces = {
        f.system_id: f
        for f in session.scalars(select(m.Force).join(m.System).where(m.System.game_id == game.id))
    }
    empires = {
        e.code: Empire(
            code=e.code,
            name=e.name,
            balance=e.balance,
            treasury=e.treasury,
            vp=e.vp,
            techs={Tech(t): getattr(e, col) for t, col in m.TECH_COLUMNS.items()},
            base=e.base,
            home=e.home,
            lost_in_space=e.lost_in_space,
            reserve=e.reserve,
            active_probe=e.active_probe,
            inactive_probes=tuple(e.inactive_probes),
            active=e.active,
            missed_turns=e.missed_turns,
        )
        for e in sorted(game.empires, key=lambda e: e.code)
    }
    systems = {}
    for s in session.scalars(select(m.System).where(m.System.game_id == game.id)):
        force = forces.get(s.id)
        systems[s.code] = System(
            code=s.code,
            type=SystemType(s.type),
            row=s.row,
            col=s.col,
            star=s.star,
            name=s.name,
            owner=s.owner.code if s.owner is not None else None,
            pop=s.pop,
            industry=s.industry,
            cruisers=force.cruisers if force else 0,
            fighters=force.fighters if force else 0,
            colony_ships=force.colony_ships if force else 0,
            stance=Stance(s.stance),
            stance_target=s.stance_target,
            retreat_parts=s.retreat_parts,
            ever_owned=s.ever_owned,
            home_slot=s.home_slot,
        )
    seen: dict[str, set[int]] = {code: set() for code in empires}
    for code, system in session.execute(
        select(m.Empire.code, m.System.code)
        .join(m.Seen, m.Seen.empire_id == m.Empire.id)
        .join(m.System, m.System.id == m.Seen.system_id)
        .where(m.Empire.game_id == game.id)
    ):
        seen[code].add(system)
    return GameState(
        turn=game.turn,
        systems=systems,
        links=frozenset(
            (a, b) for a, b in session.execute(select(m.Link.a, m.Link.b).where(m.Link.game_id == game.id))
        ),
        empires=empires,
        settings=GameSettings(
            modules=frozenset(x for x in (game.modules or "").split(",") if x),
            turn_limit=game.turn_limit,
            vp_target=game.vp_target,
            ruleset=game.ruleset,
        ),
        seen=seen,
        finished=game.status == "finished",
    )


@pytest.mark.slow  # every varied game is written first
def test_the_state_read_without_sqlalchemy_is_the_one_the_models_make(db_url: str) -> None:
    """Every game of tests/variedgames.py, on SQLite and PostgreSQL: the state
    ``report`` reads before turn 1 over plainread's read-only connection, and
    the one every other command loads over the session's, are the state the
    ORM's objects make, down to each value's type (compared by repr: a
    boolean read as 1 would differ)."""
    for session, game, reader, row in _each_game_both_ways(db_url):
        expected = repr(_orm_state(session, game))
        settings = settings_from(row.modules, row.turn_limit, row.vp_target, row.ruleset)
        plain = read_state(
            reader, row.id, turn=row.turn, settings=settings, finished=row.status == "finished"
        )
        assert repr(plain) == expected, game.name
        assert repr(load_state(session, game)) == expected, game.name
