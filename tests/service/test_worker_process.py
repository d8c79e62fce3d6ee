"""``turnproc worker`` as a real process against real servers: a private
Dovecot, aiosmtpd, SQLite and PostgreSQL.

Time is not faked here. A deadline "passes" the way it does after an outage:
the test moves ``last_deadline_at`` back a year, and the worker's next pass
finds a deadline due (a yearly schedule, so no other one can interfere).
"""

from __future__ import annotations

import datetime as dt
import email
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from imapclient import IMAPClient
from sqlalchemy import Engine, create_engine, func, select, update

from tests.conftest import IMAP_PASSWORD, IMAP_USER, SmtpSink
from tests.factories import EMAILS, make_game, order_mail
from tests.servers import DovecotServer, wait_for_port
from tests.service.conftest import GM, ORDERS
from turnproc.app import open_app
from turnproc.config import Config
from turnproc.intake import submit_orders
from turnproc.storage import models as m
from turnproc.storage.db import transaction

UTC = dt.timezone.utc
YEARLY = "0 3 1 1 *"
HOST = "Star Chase host <turns@turnproc.example>"
FAST = ["--tick", "0.2", "--poll", "0.2", "--flush", "0.2", "--max-backoff", "1", "--log-format", "text"]


class Worker:
    """One ``python -m turnproc worker`` process; its stderr goes to a file."""

    def __init__(self, config: Path, *args: str) -> None:
        self.log_path = config.with_name(f"worker-{uuid.uuid4().hex[:6]}.log")
        self._log = self.log_path.open("wb")
        env = {k: v for k, v in os.environ.items() if not k.startswith("TURNPROC_")}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "turnproc", "--config", str(config), "worker", *FAST, *args],
            stdout=subprocess.DEVNULL,
            stderr=self._log,
            env=env,
        )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float = 20) -> int:
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"the worker ignored SIGTERM for {timeout}s:\n{self.log()}") from None
        finally:
            self._log.close()
        return code


def settle(workers: list[Worker], quiet: float = 1.0, timeout: float = 30) -> None:
    """Wait until no worker has logged anything for ``quiet`` seconds."""
    end = time.monotonic() + timeout
    logs, since = [w.log() for w in workers], time.monotonic()
    while time.monotonic() < end:
        time.sleep(0.1)
        now = [w.log() for w in workers]
        if now != logs:
            logs, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
    raise AssertionError(
        f"the workers kept logging for {timeout}s:\n" + "\n".join(log[-4000:] for log in logs)
    )


def wait_for(what: str, check: Callable[[], bool], workers: list[Worker], timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return
        dead = [w for w in workers if not w.alive()]
        if dead:
            raise AssertionError(f"the worker died while waiting for {what}:\n{dead[0].log()}")
        time.sleep(0.1)
    logs = "\n".join(w.log()[-4000:] for w in workers)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}; worker log:\n{logs}")


def write_config(
    path: Path, db_url: str, *, imap_port: int | None = None, smtp_port: int | None = None
) -> Path:
    lines = [f'database_url = "{db_url}"', f'from_address = "{HOST}"', f'gm_address = "{GM}"']
    if imap_port is None:
        lines += ['transport = "maildir"', 'maildir_in = "in"', 'maildir_out = "out"']
    else:
        lines += [
            'transport = "imap"',
            "[imap]",
            'host = "127.0.0.1"',
            f"port = {imap_port}",
            'security = "plain"',
            f'user = "{IMAP_USER}"',
            f'password = "{IMAP_PASSWORD}"',
            "timeout = 5",
            "[smtp]",
            'host = "127.0.0.1"',
            f"port = {smtp_port}",
            'security = "plain"',
            "timeout = 5",
        ]
    path.write_text("\n".join(lines) + "\n")
    return path


def setup_game(db_url: str, tmp_path: Path) -> None:
    app = open_app(Config(database_url=db_url))
    with transaction(app.sessions) as session:
        make_game(session, schedule=YEARLY, timezone="Europe/London", last_deadline_at=dt.datetime.now(UTC))
    app.close()


def pass_the_deadline(engine: Engine) -> None:
    """As if the worker had been away over the yearly deadline."""
    with engine.begin() as conn:
        conn.execute(update(m.Game).values(last_deadline_at=dt.datetime.now(UTC) - dt.timedelta(days=400)))


def count(engine: Engine, model: type, *where: object) -> int:
    with engine.connect() as conn:
        return conn.scalar(select(func.count()).select_from(model).where(*where)) or 0


def orders_of(code: str, turn: int | None = 1) -> bytes:
    """``code``'s order mail; without a turn it is for whatever turn is open when read."""
    return order_mail(ORDERS[code], empire=code, turn=turn)


def imap_append(server: DovecotServer, *raws: bytes) -> None:
    client = IMAPClient("127.0.0.1", port=server.port, ssl=False)
    client.login(IMAP_USER, IMAP_PASSWORD)
    for raw in raws:
        client.append("INBOX", raw)
    client.logout()


def imap_count(server: DovecotServer, folder: str) -> int:
    client = IMAPClient("127.0.0.1", port=server.port, ssl=False)
    client.login(IMAP_USER, IMAP_PASSWORD)
    try:
        if not client.folder_exists(folder):
            return 0
        client.select_folder(folder, readonly=True)
        return len(client.search(["ALL"]))
    finally:
        client.logout()


def received(sink: SmtpSink) -> list[email.message.Message]:
    return [email.message_from_bytes(raw) for _, _, raw in list(sink.messages)]


def recipients(sink: SmtpSink, subject_part: str = "") -> list[str]:
    return sorted(str(msg["To"]) for msg in received(sink) if subject_part in str(msg["Subject"]))


def assert_each_outbox_mail_arrived_once(engine: Engine, sink: SmtpSink) -> None:
    ids = ["".join(str(msg["Message-ID"]).split()) for msg in received(sink)]  # unfolded
    assert len(ids) == len(set(ids)), "a mail arrived twice"
    with engine.connect() as conn:
        rows = conn.execute(select(m.OutboxMail.message_id, m.OutboxMail.sent_at)).all()
    assert all(sent is not None for _, sent in rows), "a mail was never sent"
    assert sorted(ids) == sorted(mid for mid, _ in rows)


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    engine = create_engine(db_url)
    yield engine
    engine.dispose()


@pytest.mark.slow
def test_full_cycle_mail_in_acks_deadline_turn_reports(
    db_url: str, engine: Engine, imap: DovecotServer, smtp_server: SmtpSink, tmp_path: Path
) -> None:
    setup_game(db_url, tmp_path)
    config = write_config(tmp_path / "turnproc.toml", db_url, imap_port=imap.port, smtp_port=smtp_server.port)
    worker = Worker(config)
    try:
        imap_append(imap, orders_of("RIG"), orders_of("VEG"))
        wait_for(
            "two acknowledgements",
            lambda: recipients(smtp_server, "Re: orders") == sorted(EMAILS.values()),
            [worker],
        )
        # The outbox's own timer may deliver the acks between the commit and the filing.
        wait_for(
            "the mails filed",
            lambda: (imap_count(imap, "INBOX"), imap_count(imap, "Processed")) == (0, 2),
            [worker],
        )
        pass_the_deadline(engine)
        wait_for(
            "two reports and the GM's notice",
            lambda: (
                len(recipients(smtp_server, "report for")) == 2
                and recipients(smtp_server, "turn 1 ran") == [GM]
            ),
            [worker],
        )
        assert recipients(smtp_server, "report for") == sorted(EMAILS.values())
        time.sleep(0.6)  # a few more passes: nothing else may happen
        assert count(engine, m.TurnRecord) == 1
        assert len(smtp_server.messages) == 5
        assert_each_outbox_mail_arrived_once(engine, smtp_server)
    finally:
        code = worker.stop()
    log = worker.log()
    assert code == 0, log
    assert "worker started" in log and "worker stopped" in log and "Traceback" not in log
    assert "INFO turnproc.service.worker: game corpus: turn 1 ran at the deadline" in log


@pytest.mark.slow
@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_two_workers_against_one_postgresql_run_each_turn_once(
    db_url: str, engine: Engine, tmp_path: Path
) -> None:
    setup_game(db_url, tmp_path)
    config = write_config(tmp_path / "turnproc.toml", db_url)
    workers = [Worker(config, "--tick", "0.05"), Worker(config, "--tick", "0.05")]
    try:
        wait_for("both workers", lambda: all("worker started" in w.log() for w in workers), workers)
        for turn in (1, 2, 3):
            app = open_app(Config(database_url=db_url), migrate=False)
            with transaction(app.sessions) as session:
                game = session.scalar(select(m.Game))
                for empire in session.scalars(select(m.Empire)):
                    submit_orders(session, game, empire, ORDERS[empire.code], dt.datetime.now(UTC))
            app.close()
            pass_the_deadline(engine)
            wait_for(f"turn {turn}", lambda n=turn: count(engine, m.TurnRecord) == n, workers)
            # The other worker may be in a pass that came for this turn and
            # waits for the game row's lock: moving the next deadline back
            # before it is through would hand it that deadline, used up by
            # the turn that ran meanwhile (worker.py), and the next turn
            # would wait a year. A GM does not move deadlines that fast.
            settle(workers)
        time.sleep(0.5)  # both keep ticking: neither may run anything more
        assert count(engine, m.TurnRecord) == 3
        assert count(engine, m.OutboxMail, m.OutboxMail.kind == "report") == 6
        assert count(engine, m.OutboxMail, m.OutboxMail.kind == "notice") == 3
    finally:
        codes = [w.stop() for w in workers]
    logs = [w.log() for w in workers]
    assert codes == [0, 0], logs
    for log in logs:
        assert "ERROR" not in log and "Traceback" not in log, log
    ran = [line for log in logs for line in log.splitlines() if "ran at the deadline" in line]
    assert len(ran) == 3


def restart_dovecot(server: DovecotServer) -> None:
    """Start the same Dovecot again: same port, same mail."""
    binary = "/usr/sbin/dovecot" if Path("/usr/sbin/dovecot").exists() else "dovecot"
    server.proc = subprocess.Popen(
        [binary, "-F", "-c", str(server.dir / "dovecot.conf")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    wait_for_port(server.port)


def stop_dovecot(server: DovecotServer) -> None:
    assert server.proc is not None
    server.proc.terminate()
    server.proc.wait(10)
    server.proc = None


def deliver_to_maildir(server: DovecotServer, raw: bytes) -> None:
    """Deliver as the mail server's MTA does while IMAP is down: a file in Maildir/new."""
    maildir = server.dir / "mail" / IMAP_USER / "Maildir"
    for sub in ("tmp", "new", "cur"):
        (maildir / sub).mkdir(parents=True, exist_ok=True)
    name = f"{time.time():.6f}.{uuid.uuid4().hex}.test"
    (maildir / "tmp" / name).write_bytes(raw)
    os.replace(maildir / "tmp" / name, maildir / "new" / name)
    if os.geteuid() == 0:
        for path in [server.dir / "mail" / IMAP_USER, *(server.dir / "mail" / IMAP_USER).rglob("*")]:
            os.chown(path, 65534, 65534)


@pytest.mark.slow
def test_imap_and_smtp_down_for_a_while_nothing_lost_or_doubled(
    sqlite_url: str, imap: DovecotServer, smtp_server: SmtpSink, tmp_path: Path
) -> None:
    from aiosmtpd.controller import Controller

    engine = create_engine(sqlite_url)
    setup_game(sqlite_url, tmp_path)
    config = write_config(
        tmp_path / "turnproc.toml", sqlite_url, imap_port=imap.port, smtp_port=smtp_server.port
    )
    worker = Worker(config)
    try:
        imap_append(imap, orders_of("RIG"))
        wait_for(
            "RIG's acknowledgement",
            lambda: recipients(smtp_server, "Re: orders") == [EMAILS["RIG"]],
            [worker],
        )

        # Both servers go away.
        stop_dovecot(imap)
        smtp_server.controller.stop()
        deliver_to_maildir(imap, orders_of("VEG", turn=None))  # arrives at the provider meanwhile
        pass_the_deadline(engine)  # ... and the deadline passes
        wait_for("the turn, run while mail is down", lambda: count(engine, m.TurnRecord) == 1, [worker])
        wait_for(
            "failures logged",
            lambda: "inbox: IMAP server" in worker.log() and "outbox: SMTP server" in worker.log(),
            [worker],
        )
        time.sleep(1.5)
        assert worker.alive()
        assert count(engine, m.OutboxMail, m.OutboxMail.sent_at.is_(None)) == 3  # 2 reports, 1 notice
        assert count(engine, m.OutboxMail, m.OutboxMail.attempts > 0, m.OutboxMail.sent_at.is_(None)) == 0

        # Back again: everything goes out, once; VEG's mail is read and answered.
        restart_dovecot(imap)
        smtp_server.controller = Controller(smtp_server, hostname="127.0.0.1", port=smtp_server.port)
        smtp_server.controller.start()
        wait_for(
            "the reports, the notice and VEG's acknowledgement",
            lambda: (
                len(smtp_server.messages) == 5
                and count(engine, m.OutboxMail, m.OutboxMail.sent_at.is_(None)) == 0
            ),
            [worker],
        )
        time.sleep(0.6)
        assert len(smtp_server.messages) == 5
        assert recipients(smtp_server, "report for") == sorted(EMAILS.values())
        assert recipients(smtp_server, "Re: orders") == sorted(EMAILS.values())
        assert imap_count(imap, "INBOX") == 0 and imap_count(imap, "Processed") == 2
        assert_each_outbox_mail_arrived_once(engine, smtp_server)
        with engine.connect() as conn:
            veg = (
                conn.execute(select(m.OrderSet.turn).join(m.Empire).where(m.Empire.code == "VEG"))
                .scalars()
                .all()
            )
        assert veg == [2]  # read after the turn: orders for turn 2
    finally:
        code = worker.stop()
        engine.dispose()
    log = worker.log()
    assert code == 0, log
    assert "inbox: reachable again" in log and "outbox: delivering again" in log


@pytest.mark.slow
def test_imap_idle_reads_new_mail_at_once(
    sqlite_url: str, imap: DovecotServer, smtp_server: SmtpSink, tmp_path: Path
) -> None:
    setup_game(sqlite_url, tmp_path)
    config = write_config(
        tmp_path / "turnproc.toml", sqlite_url, imap_port=imap.port, smtp_port=smtp_server.port
    )
    worker = Worker(config, "--idle", "--poll", "120")
    try:
        wait_for("the IDLE connection", lambda: "IMAP IDLE: watching INBOX" in worker.log(), [worker])
        imap_append(imap, orders_of("RIG"))
        wait_for(
            "the acknowledgement, long before the next poll",
            lambda: recipients(smtp_server) == [EMAILS["RIG"]],
            [worker],
            timeout=8,
        )
    finally:
        assert worker.stop() == 0
