"""Shared fixtures: databases on SQLite and on a real PostgreSQL, each test's
own and migrated once per session; the mail servers; the command line."""

from __future__ import annotations

import gc
import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import settings
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tests.factories import migrate_database
from tests.servers import DovecotServer, PostgresServer, unavailable

# In CI a failing property test must say how to run the same example again:
# print_blob prints a @reproduce_failure line (the example database does not
# survive the CI machine). Examples stay random so CI keeps exploring.
settings.register_profile("ci", print_blob=True, derandomize=False)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(scope="session", autouse=True)
def password_key_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Where a host on a database server keeps its password key when the config
    names none (systemd's $STATE_DIRECTORY, turnproc/accounts/passwordkey.py): a
    folder of the test session's, not the working tree. Processes the tests
    start inherit it."""
    folder = tmp_path_factory.mktemp("state")
    before = os.environ.get("STATE_DIRECTORY")
    os.environ["STATE_DIRECTORY"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("STATE_DIRECTORY", None)
    else:
        os.environ["STATE_DIRECTORY"] = before


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """URL of the server's maintenance database: $TURNPROC_TEST_PG_URL (set by
    .ci/run), else a private cluster this fixture starts and stops."""
    given = os.environ.get("TURNPROC_TEST_PG_URL")
    if given:
        yield given
        return
    server = PostgresServer()
    try:
        server.start()
    except Exception as exc:  # noqa: BLE001 - any reason means "no PostgreSQL here"
        server.stop()
        unavailable(f"cannot start a private PostgreSQL: {exc}")
    try:
        yield server.url
    finally:
        server.stop()


def _admin_sql(server_url: str, *statements: str) -> None:
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            for statement in statements:
                conn.execute(text(statement))
    finally:
        admin.dispose()


def _fresh_pg_database(server_url: str, template: str | None = None) -> tuple[str, str]:
    name = f"t_{uuid.uuid4().hex[:12]}"
    _admin_sql(server_url, f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    return make_url(server_url).set(database=name).render_as_string(hide_password=False), name


def _drop_pg_database(server_url: str, name: str) -> None:
    _admin_sql(server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# The schema is migrated once per test session, into a template: a SQLite file
# that each test copies, and a PostgreSQL database each test's database is
# created from (CREATE DATABASE ... TEMPLATE). A copy is a real file or
# database, so tests that start the worker or the CLI as a process can use it
# too. A test module can have its own template too, filled once (its games).

Fill = Callable[[str], None]


class SqliteTemplates:
    """SQLite files made once per session and copied for each test, by key:
    ``"migrated"`` is the schema at head; other keys are that plus what their
    ``fill(url)`` wrote. A template is never opened after it is made."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._made: dict[str, Path] = {}

    def get(self, key: str = "migrated", fill: Fill | None = None) -> Path:
        if key not in self._made:
            path = self.folder / f"{key}.db"
            if key == "migrated":
                migrate_database(f"sqlite:///{path}")
            else:
                shutil.copyfile(self.get(), path)
                _fill(fill, f"sqlite:///{path}")
            self._made[key] = path
        return self._made[key]


class PostgresTemplates:
    """The same as databases on the PostgreSQL server, copied with CREATE
    DATABASE ... TEMPLATE (no one stays connected to a template)."""

    def __init__(self, server: str) -> None:
        self.server = server
        self._made: dict[str, str] = {}

    def get(self, key: str = "migrated", fill: Fill | None = None) -> str:
        if key not in self._made:
            url, name = _fresh_pg_database(self.server, None if key == "migrated" else self.get())
            try:
                if key == "migrated":
                    migrate_database(url)
                else:
                    _fill(fill, url)
            except BaseException:
                _drop_pg_database(self.server, name)
                raise
            self._made[key] = name
        return self._made[key]

    def close(self) -> None:
        for name in self._made.values():
            _drop_pg_database(self.server, name)


def _fill(fill: Fill | None, url: str) -> None:
    if fill is None:
        raise ValueError("a template other than 'migrated' needs a fill function")
    fill(url)


@pytest.fixture(scope="session")
def sqlite_templates(tmp_path_factory: pytest.TempPathFactory) -> SqliteTemplates:
    return SqliteTemplates(tmp_path_factory.mktemp("templates"))


@pytest.fixture(scope="session")
def postgres_templates(postgres_url: str) -> Iterator[PostgresTemplates]:
    made = PostgresTemplates(postgres_url)
    yield made
    made.close()


@contextmanager
def database_copy(
    request: pytest.FixtureRequest, backend: str, key: str = "migrated", fill: Fill | None = None
) -> Iterator[str]:
    """The URL of a fresh copy of template ``key`` on ``backend``, for this test:
    ``tmp_path/game.db`` on SQLite, a database dropped afterwards on PostgreSQL."""
    if backend == "sqlite":
        path = request.getfixturevalue("tmp_path") / "game.db"
        shutil.copyfile(request.getfixturevalue("sqlite_templates").get(key, fill), path)
        yield f"sqlite:///{path}"
        return
    template = request.getfixturevalue("postgres_templates").get(key, fill)
    server = request.getfixturevalue("postgres_url")
    url, name = _fresh_pg_database(server, template)
    try:
        yield url
    finally:
        _drop_pg_database(server, name)


BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture
def db_template() -> tuple[str, Fill | None]:
    """Which template ``db_url`` copies: a conftest or test module that wants
    its games in every test's database overrides this with its own key and
    fill function, so the games are built once per session, not per test."""
    return "migrated", None


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, db_template: tuple[str, Fill | None]) -> Iterator[str]:
    """A database of this test's own, migrated to head (and filled as
    ``db_template`` says), once on SQLite (``tmp_path/game.db``) and once on
    PostgreSQL."""
    key, fill = db_template
    with database_copy(request, request.param, key, fill) as url:
        yield url


@pytest.fixture(params=BACKENDS)
def empty_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database (no schema), once on SQLite and once on PostgreSQL: for
    the tests of the migrations themselves."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.db'}"
        return
    server = request.getfixturevalue("postgres_url")
    url, name = _fresh_pg_database(server)
    try:
        yield url
    finally:
        _drop_pg_database(server, name)


@pytest.fixture
def sqlite_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A SQLite file of this test's own (``tmp_path/game.db``), migrated to head."""
    with database_copy(request, "sqlite") as url:
        yield url


# -- mail servers -------------------------------------------------------------------

IMAP_USER, IMAP_PASSWORD = "turns", "turns-secret"


@pytest.fixture(scope="session")
def dovecot_server() -> Iterator[DovecotServer]:
    server = DovecotServer({IMAP_USER: IMAP_PASSWORD})
    try:
        server.start()
    except Exception as exc:  # noqa: BLE001 - any reason means "no Dovecot here"
        server.stop()
        unavailable(f"cannot start Dovecot: {exc}")
    yield server
    server.stop()


@pytest.fixture
def imap(dovecot_server: DovecotServer) -> Iterator[DovecotServer]:
    """The private Dovecot with an empty mailbox for this test."""
    dovecot_server.wipe(IMAP_USER)
    yield dovecot_server
    dovecot_server.wipe(IMAP_USER)


class SmtpSink:
    """A real SMTP server (aiosmtpd) on loopback that keeps what it receives."""

    def __init__(self) -> None:
        from aiosmtpd.controller import Controller

        from tests.servers import free_port

        self.messages: list[tuple[str, list[str], bytes]] = []
        #: One entry per accepted mail: which SMTP connection brought it.
        self.connections: list[int] = []
        self.fail_next = 0
        self.port = free_port()
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        if self.fail_next:
            self.fail_next -= 1
            return "451 4.3.0 try again later"
        content = envelope.original_content  # type: ignore[attr-defined]
        self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), content))
        self.connections.append(id(session))
        return "250 OK"


@pytest.fixture
def smtp_server() -> Iterator[SmtpSink]:
    sink = SmtpSink()
    sink.controller.start()
    yield sink
    sink.controller.stop()


# -- the fast tier ------------------------------------------------------------------


def pytest_collection_finish(session: pytest.Session) -> None:
    """What is loaded by now (the modules, the collected tests) lives for the
    whole run: moved out of the collector's sight, so that each full
    collection in a test, and the five at the end, walk only what the tests
    made (two seconds a worker at the end alone)."""
    gc.freeze()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test's PostgreSQL variant is marked slow but the storage layer's:
    the fast tier (``-m "not slow"``) keeps those as its PostgreSQL smoke, and
    a database copied from a template on the server costs each test a second
    or so, most of the fast tier's time. The full suite (CI) runs them all."""
    for item in items:
        if item.get_closest_marker("postgres") and item.path.parent.name != "storage":
            item.add_marker(pytest.mark.slow)


# -- golden files -------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden files (tests/rules/golden/*/expected.txt) instead of comparing",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    """True when pytest runs with --update-golden: golden tests write, not compare."""
    return bool(request.config.getoption("--update-golden"))


# -- the command line ---------------------------------------------------------------


@pytest.fixture
def migrated_default_db(sqlite_templates: SqliteTemplates, tmp_path: Path) -> Path:
    """``tmp_path/turnproc.db``, the embedded default's database, already at
    head: for CLI tests about something else than the first run (which
    tests/test_cli.py and tests/test_demo.py cover from an empty folder)."""
    path = tmp_path / "turnproc.db"
    shutil.copyfile(sqlite_templates.get(), path)
    return path


@pytest.fixture
def run_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """Run ``turnproc ARGS`` in-process in an empty directory (the embedded
    default); returns (exit status, stdout, stderr)."""
    from turnproc.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TURNPROC_CONFIG", raising=False)
    monkeypatch.delenv("TURNPROC_DATABASE_URL", raising=False)

    def _run(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return _run
