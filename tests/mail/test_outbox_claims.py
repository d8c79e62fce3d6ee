"""Outbox delivery exactly once across worker processes, and a delivery whose
sent mark cannot be committed.

The kill test: three ``turnproc worker`` processes flush one outbox (one
database, one aiosmtpd sink); one is SIGKILLed mid-flush. Every mail must
arrive, and only the mails the killed worker held a claim on at the kill (one
batch, ``outbox.BATCH``) may arrive twice (they may have been accepted by the
server before the worker could commit their sent mark: SMTP cannot rule that
out). The claim rows tell which mails those are: ``claimed_by`` names the
worker (host/pid/tag) and ``sent_at`` is still empty.
"""

from __future__ import annotations

import datetime as dt
import email
import os
import signal
import time
from collections import Counter
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, event, func, insert, select

from tests.conftest import SmtpSink, database_copy
from tests.servers import free_port
from tests.service.test_worker_process import Worker, wait_for, write_config
from turnproc.cli import main
from turnproc.mail import outbox
from turnproc.mail.marks import UNRECORDED
from turnproc.storage import models as m

UTC = dt.timezone.utc


def queue(engine: Engine, n: int) -> list[str]:
    """``n`` plain mails straight into the outbox; their Message-IDs."""
    now = dt.datetime.now(UTC)
    rows, ids = [], []
    for i in range(n):
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = "turns@turnproc.example", f"p{i}@example.org", f"mail {i}"
        msg["Message-ID"] = mid = f"<outbox-{i}@turnproc.example>"
        msg.set_content(f"number {i}\n")
        ids.append(mid)
        rows.append(
            dict(
                kind="test",
                recipient=f"p{i}@example.org",
                subject=f"mail {i}",
                message_id=mid,
                body=msg.as_bytes(),
                created_at=now,
                attempts=0,
                last_error="",
                held=False,
            )
        )
    with engine.begin() as conn:
        conn.execute(insert(m.OutboxMail), rows)
    return ids


def arrived(sink: SmtpSink) -> Counter[str]:
    return Counter(str(email.message_from_bytes(raw)["Message-ID"]) for _, _, raw in list(sink.messages))


def sent_count(engine: Engine) -> int:
    with engine.connect() as conn:
        return (
            conn.scalar(
                select(func.count()).select_from(m.OutboxMail).where(m.OutboxMail.sent_at.is_not(None))
            )
            or 0
        )


def disk_fills(smtp_server: SmtpSink) -> tuple[dict[str, bool], Any]:
    """A cursor listener that fails every outbox UPDATE once the server has
    taken a mail, as a full disk does, while ``disk["full"]``."""
    disk = {"full": True}

    def full_disk(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        if disk["full"] and smtp_server.messages and statement.lstrip().upper().startswith("UPDATE OUTBOX"):
            raise conn.dialect.loaded_dbapi.OperationalError("database or disk is full")

    return disk, full_disk


@pytest.mark.slow
@pytest.mark.parametrize(
    "backend, mails",
    [pytest.param("postgres", 1000, marks=pytest.mark.postgres), ("sqlite", 300)],
)
def test_three_workers_one_killed_deliver_each_mail_once(
    request: pytest.FixtureRequest, backend: str, mails: int, smtp_server: SmtpSink, tmp_path: Path
) -> None:
    with database_copy(request, backend) as url:
        engine = create_engine(url)
        ids = queue(engine, mails)
        workers = []
        for n in range(3):
            folder = tmp_path / f"w{n}"
            folder.mkdir()
            config = write_config(
                folder / "turnproc.toml", url, imap_port=free_port(), smtp_port=smtp_server.port
            )
            config.write_text("outbox_lease = 3\n" + config.read_text())
            workers.append(Worker(config))
        try:
            victim = workers[0]
            wait_for(
                "a quarter of the mails", lambda: len(smtp_server.messages) >= mails // 4, workers, timeout=60
            )
            os.kill(victim.proc.pid, signal.SIGKILL)
            victim.proc.wait()
            with engine.connect() as conn:
                in_flight = set(
                    conn.scalars(
                        select(m.OutboxMail.message_id).where(
                            m.OutboxMail.claimed_by.like(f"%/{victim.proc.pid}/%"),
                            m.OutboxMail.sent_at.is_(None),
                        )
                    )
                )
            survivors = workers[1:]
            wait_for("every mail marked sent", lambda: sent_count(engine) == mails, survivors, timeout=120)
            time.sleep(0.5)  # anything still on its way to the sink
        finally:
            for w in workers[1:]:
                w.stop()
        got = arrived(smtp_server)
        assert set(got) == set(ids)
        doubled = {mid: n for mid, n in got.items() if n > 1}
        # At most the one batch the killed worker held, and at most twice.
        assert len(in_flight) <= outbox.BATCH
        assert set(doubled) <= in_flight, (doubled, in_flight)
        assert all(n == 2 for n in doubled.values())
        with engine.connect() as conn:
            senders = set(conn.scalars(select(m.OutboxMail.claimed_by).distinct()))
        assert len(senders) >= 2  # the work was shared
        for w in workers[1:]:
            assert "Traceback" not in w.log()
        engine.dispose()


def test_a_sent_mark_that_cannot_be_committed_sends_nothing_twice(
    db_url: str,
    smtp_server: SmtpSink,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Case 3: the disk fills between the server's 250 and the sent mark. One
    line, exit 1; after space is freed, `turnproc send` sends only the rest,
    even from a new process (the claims' lease holds the delivered batch)."""
    engine = create_engine(db_url)
    ids = queue(engine, outbox.BATCH + 1)
    config = write_config(
        tmp_path / "turnproc.toml", db_url, imap_port=free_port(), smtp_port=smtp_server.port
    )
    disk, full_disk = disk_fills(smtp_server)

    event.listen(Engine, "before_cursor_execute", full_disk)
    try:
        code = main(["--config", str(config), "send"])
        err = capsys.readouterr().err
        assert code == 1
        assert err.startswith(
            "turnproc: error: mail <outbox-0@turnproc.example> to p0@example.org"
            f" (and {outbox.BATCH - 1} more) "
            "was delivered but cannot be marked sent"
        )
        assert "database or disk is full" in err and "Traceback" not in err and err.count("\n") == 1
        assert sorted(arrived(smtp_server).elements()) == sorted(ids[: outbox.BATCH])
        disk["full"] = False
        UNRECORDED.clear()  # a new process knows nothing of the mail in hand but its journal
        assert main(["--config", str(config), "send"]) == 0
        assert "1 mails sent" in capsys.readouterr().out
    finally:
        event.remove(Engine, "before_cursor_execute", full_disk)
    assert arrived(smtp_server) == Counter(ids)
    engine.dispose()


def test_the_same_process_records_the_mark_at_its_next_flush(
    db_url: str, smtp_server: SmtpSink, tmp_path: Path
) -> None:
    """A worker that could not record a delivery records it first thing at
    its next flush, before claiming anything: the mail is marked sent, not
    left to its lease."""
    from turnproc.app import open_app
    from turnproc.config import load_config
    from turnproc.outgoing.reportmail import send_outbox

    engine = create_engine(db_url)
    queue(engine, 1)
    config = load_config(
        write_config(tmp_path / "turnproc.toml", db_url, imap_port=free_port(), smtp_port=smtp_server.port)
    )
    app = open_app(config)
    disk, full_disk = disk_fills(smtp_server)

    event.listen(app.engine, "before_cursor_execute", full_disk)
    now = dt.datetime.now(UTC)
    with pytest.raises(outbox.OutboxError, match="was delivered but cannot be marked sent"):
        send_outbox(app.sessions, config, now)
    disk["full"] = False
    # Long after the lease: without the remembered mark it would go again.
    assert send_outbox(app.sessions, config, now + dt.timedelta(hours=1)) == (0, 0)
    assert sent_count(engine) == 1 and len(smtp_server.messages) == 1
    app.close()
    engine.dispose()


@pytest.mark.slow  # waits for a lease to run out
def test_a_new_send_after_the_lease_records_the_marks_from_the_journal(
    db_url: str, smtp_server: SmtpSink, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The error tells the GM to run `turnproc send` once space is freed: a
    new process, after the claims' lease ran out, records the lost marks from
    the journal (outbox_journal) and sends none of those mails again."""
    engine = create_engine(db_url)
    ids = queue(engine, 3)
    config = write_config(
        tmp_path / "turnproc.toml", db_url, imap_port=free_port(), smtp_port=smtp_server.port
    )
    config.write_text("outbox_lease = 1\n" + config.read_text())
    disk, full_disk = disk_fills(smtp_server)

    event.listen(Engine, "before_cursor_execute", full_disk)
    try:
        assert main(["--config", str(config), "send"]) == 1
        err = capsys.readouterr().err
        assert f"the marks are kept in {tmp_path / 'outbox-journal'}" in err and "Traceback" not in err
        disk["full"] = False
        UNRECORDED.clear()  # a new process: only the journal knows
        time.sleep(1.5)  # the lease is over: without the marks the mails would go again
        assert main(["--config", str(config), "send"]) == 0
    finally:
        event.remove(Engine, "before_cursor_execute", full_disk)
    assert arrived(smtp_server) == Counter(ids) and sent_count(engine) == 3
    assert (tmp_path / "outbox-journal").read_text() == ""
    engine.dispose()
