"""Every operational error the handbook names is one
line (``turnproc: error: ...``, exit 1) from the CLI, and one line per retry
in the worker's log, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import create_engine, select

from tests.conftest import IMAP_USER, SmtpSink
from tests.mail.test_outbox_claims import queue
from tests.servers import DovecotServer, free_port
from tests.service.test_worker_process import Worker, wait_for, write_config
from tests.test_scenario import MINIMAL
from turnproc.storage import models as m


def one_error_line(err: str) -> str:
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("turnproc: error: "), err
    return err


def test_wrong_imap_password(run_cli, sqlite_url: str, imap: DovecotServer, tmp_path: Path) -> None:
    config = write_config(tmp_path / "t.toml", sqlite_url, imap_port=imap.port, smtp_port=free_port())
    config.write_text(config.read_text().replace('password = "turns-secret"', 'password = "wrong"'))
    code, _, err = run_cli("--config", str(config), "poll")
    assert code == 1
    assert (
        f"IMAP login as '{IMAP_USER}' on 127.0.0.1:{imap.port} refused: [AUTHENTICATIONFAILED]"
        in one_error_line(err)
    )


def test_unreachable_imap_server(run_cli, sqlite_url: str, tmp_path: Path) -> None:
    port = free_port()
    config = write_config(tmp_path / "t.toml", sqlite_url, imap_port=port, smtp_port=free_port())
    code, _, err = run_cli("--config", str(config), "poll")
    assert code == 1
    assert f"IMAP server 127.0.0.1:{port} unavailable: ConnectionRefusedError" in one_error_line(err)


def test_unreachable_smtp_server_costs_no_attempt(run_cli, sqlite_url: str, tmp_path: Path) -> None:
    engine = create_engine(sqlite_url)
    queue(engine, 2)
    port = free_port()
    config = write_config(tmp_path / "t.toml", sqlite_url, imap_port=free_port(), smtp_port=port)
    code, _, err = run_cli("--config", str(config), "send")
    assert code == 1
    assert f"SMTP server 127.0.0.1:{port} unavailable: ConnectionRefusedError" in one_error_line(err)
    with engine.connect() as conn:
        assert set(conn.scalars(select(m.OutboxMail.attempts))) == {0}
        assert set(conn.scalars(select(m.OutboxMail.claimed_until))) == {None}
    engine.dispose()


def test_wrong_smtp_password(run_cli, sqlite_url: str, tmp_path: Path) -> None:
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult

    def refuse(*args: object) -> AuthResult:
        return AuthResult(success=False, handled=False)

    sink = SmtpSink()
    sink.controller = Controller(
        sink, hostname="127.0.0.1", port=sink.port, authenticator=refuse, auth_require_tls=False
    )
    sink.controller.start()
    try:
        engine = create_engine(sqlite_url)
        queue(engine, 1)
        config = write_config(tmp_path / "t.toml", sqlite_url, imap_port=free_port(), smtp_port=sink.port)
        config.write_text(config.read_text() + 'user = "turns"\npassword = "wrong"\n')
        code, _, err = run_cli("--config", str(config), "send")
    finally:
        sink.controller.stop()
    assert code == 1
    assert f"SMTP login as 'turns' on 127.0.0.1:{sink.port} refused: 535" in one_error_line(err)
    engine.dispose()


def test_a_huge_number_in_a_scenario(run_cli, migrated_default_db: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "huge.toml"
    scenario.write_text(MINIMAL.replace("pop = 2", "pop = 99999999999999999999"))
    code, _, err = run_cli("game", "new", "huge", "--scenario", str(scenario))
    assert code == 1
    line = one_error_line(err)
    assert "huge.toml:12: systems[0].pop: 99999999999999999999 is too large" in line


@pytest.mark.slow
def test_worker_logs_one_line_per_retry_while_imap_and_smtp_are_down(sqlite_url: str, tmp_path: Path) -> None:
    engine = create_engine(sqlite_url)
    queue(engine, 3)
    engine.dispose()
    worker = Worker(
        write_config(tmp_path / "t.toml", sqlite_url, imap_port=free_port(), smtp_port=free_port())
    )

    def retried_twice() -> bool:
        # Waits for what it checks, not a fixed time: on a loaded machine the
        # worker may take seconds just to start.
        lines = worker.log().splitlines()
        return sum("inbox:" in line for line in lines) >= 2 and sum("outbox:" in line for line in lines) >= 2

    wait_for("two retries of each", retried_twice, [worker], timeout=60)
    assert worker.stop() == 0
    log = worker.log()
    assert "Traceback" not in log
    inbox = [line for line in log.splitlines() if "inbox:" in line]
    outbox = [line for line in log.splitlines() if "outbox:" in line]
    assert len(inbox) >= 2 and len(outbox) >= 2, log
    assert all(
        "unavailable: ConnectionRefusedError" in line and "retrying in" in line for line in inbox + outbox
    ), log
