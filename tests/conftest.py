"""Shared fixtures: fresh databases on SQLite and on a real PostgreSQL."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tests.servers import DovecotServer, PostgresServer, unavailable

# In CI a failing property test must say how to run the same example again:
# print_blob prints a @reproduce_failure line (the example database does not
# survive the CI machine). Examples stay random so CI keeps exploring.
settings.register_profile("ci", print_blob=True, derandomize=False)
if os.environ.get("CI"):
    settings.load_profile("ci")


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


def _fresh_pg_database(server_url: str) -> tuple[str, str]:
    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return make_url(server_url).set(database=name).render_as_string(hide_password=False), name


def _drop_pg_database(server_url: str, name: str) -> None:
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database, once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'game.db'}"
        return
    server = request.getfixturevalue("postgres_url")
    url, name = _fresh_pg_database(server)
    try:
        yield url
    finally:
        _drop_pg_database(server, name)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'game.db'}"


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
        self.fail_next = 0
        self.port = free_port()
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)

    async def handle_DATA(self, server: object, session: object, envelope: "object") -> str:
        if self.fail_next:
            self.fail_next -= 1
            return "451 4.3.0 try again later"
        self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content))  # type: ignore[attr-defined]
        return "250 OK"


@pytest.fixture
def smtp_server() -> Iterator[SmtpSink]:
    sink = SmtpSink()
    sink.controller.start()
    yield sink
    sink.controller.stop()


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
