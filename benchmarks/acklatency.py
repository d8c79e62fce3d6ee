"""How long a player waits for the acknowledgement: from the order mail's APPEND
to a real Dovecot until the acknowledgement reaches a real SMTP server
(aiosmtpd), with the real ``turnproc worker --idle`` in its own process, as
deployed (default ``--poll``, ``--flush`` and ``--tick``), on a game of N
empires, on SQLite or on PostgreSQL (the test servers' private cluster, with
fsync off).

    .venv/bin/python -m benchmarks.acklatency [--n 1000] [--alone 40] [--burst 1000]
        [--backend sqlite|postgres]

Two phases, one worker:
* alone: one full turnsheet at a time, each APPENDed once the previous
  mail's acknowledgement arrived, each from another empire;
* burst: a full turnsheet from every empire (``--burst`` of them), mailed
  from Gmail, Outlook and plain clients as the night benchmark builds them,
  APPENDed one after the other as fast as the IMAP server takes them (a
  deadline's eve).

A mail's wait runs from the moment its APPEND returned (the mail is in the
inbox) to the moment the SMTP server took the acknowledgement whose
In-Reply-To is the mail's Message-ID. Printed: p50, p95 and max of each phase,
and for the burst the time from the last APPEND to the last acknowledgement.
Targets: alone p50 <= 2 s, p95 <= 5 s; burst: the last acknowledgement within
60 s of the last APPEND.

Needs dovecot (apt-get install dovecot-imapd) and, for PostgreSQL, the server
binaries (initdb, pg_ctl).
"""

from __future__ import annotations

import argparse
import email.parser
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from imapclient import IMAPClient
from sqlalchemy import delete

from benchmarks.night import turnsheets
from benchmarks.servers import DovecotServer, PostgresServer, free_port, wait_for_port
from benchmarks.synthetic import synthetic_state, write_game
from turnproc.storage import models as m
from turnproc.storage.db import make_engine, make_sessionmaker, transaction

USER, MAILBOX_PASSWORD = "turns", "bench"
#: Longest wait for one acknowledgement (alone) or for the whole burst's.
TIMEOUT = 600.0


class Receipts:
    """The SMTP server's side: when each acknowledgement arrived, by the
    Message-ID it answers (its In-Reply-To)."""

    def __init__(self) -> None:
        self.at: dict[str, float] = {}
        self.other = 0
        self.changed = threading.Condition()
        self._headers = email.parser.BytesHeaderParser()

    async def handle_DATA(self, server: object, session: object, envelope: Any) -> str:
        took = time.time()
        answered = self._headers.parsebytes(envelope.original_content or b"").get("In-Reply-To")
        with self.changed:
            if answered:
                self.at[str(answered).strip()] = took
            else:
                self.other += 1
            self.changed.notify_all()
        return "250 OK"

    def wait_for(self, message_ids: set[str], timeout: float) -> bool:
        """True once every one of ``message_ids`` is answered; False after ``timeout``."""
        end = time.monotonic() + timeout
        with self.changed:
            while not message_ids <= self.at.keys():
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self.changed.wait(left)
        return True


def _message_id(raw: bytes) -> str:
    return str(email.parser.BytesHeaderParser().parsebytes(raw)["Message-ID"]).strip()


def _config(work: Path, url: str, imap_port: int, smtp_port: int) -> Path:
    path = work / "turnproc.toml"
    path.write_text(
        f'database_url = "{url}"\n'
        'transport = "imap"\n'
        'from_address = "Host <turns@turnproc.example>"\n'
        f'[imap]\nhost = "127.0.0.1"\nport = {imap_port}\nsecurity = "plain"\nuser = "{USER}"\n'
        f'[smtp]\nhost = "127.0.0.1"\nport = {smtp_port}\nsecurity = "plain"\n'
    )
    return path


def _percentiles(waits: list[float]) -> str:
    ordered = sorted(waits)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * len(ordered)) - 1)]
    return f"p50 {statistics.median(ordered):.2f} s, p95 {p95:.2f} s, max {ordered[-1]:.2f} s"


def _start_worker(config: Path, log_path: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "TURNPROC_IMAP_PASSWORD": MAILBOX_PASSWORD}
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "turnproc",
                "--config",
                str(config),
                "worker",
                "--idle",
                "--log-format",
                "text",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
    end = time.monotonic() + 60
    while "IMAP IDLE: watching" not in log_path.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > end:
            raise SystemExit(
                f"the worker did not start watching:\n{log_path.read_text(errors='replace')[-3000:]}"
            )
        time.sleep(0.1)
    return proc


def alone(client: IMAPClient, receipts: Receipts, raws: list[bytes]) -> list[float]:
    waits = []
    for raw in raws:
        mid = _message_id(raw)
        client.append("INBOX", raw)
        appended = time.time()
        if not receipts.wait_for({mid}, TIMEOUT):
            raise SystemExit(f"no acknowledgement of {mid} within {TIMEOUT:.0f} s")
        waits.append(receipts.at[mid] - appended)
    return waits


def burst(client: IMAPClient, receipts: Receipts, raws: list[bytes]) -> tuple[list[float], float, float]:
    """Per-mail waits, the APPENDs' own time, and last APPEND -> last acknowledgement."""
    appended: dict[str, float] = {}
    start = time.time()
    for raw in raws:
        client.append("INBOX", raw)
        appended[_message_id(raw)] = time.time()
    last_append = time.time()
    if not receipts.wait_for(set(appended), TIMEOUT):
        missing = len(set(appended) - receipts.at.keys())
        raise SystemExit(
            f"{missing} of {len(raws)} acknowledgements missing {TIMEOUT:.0f} s after the last APPEND"
        )
    waits = [receipts.at[mid] - at for mid, at in appended.items()]
    return waits, last_append - start, max(receipts.at[mid] for mid in appended) - last_append


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1000, help="empires in the game (default 1000)")
    ap.add_argument("--alone", type=int, default=40, help="mails sent one at a time (default 40)")
    ap.add_argument("--burst", type=int, default=None, help="mails in the burst (default: one per empire)")
    ap.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    ap.add_argument("--worker-log", type=Path, help="keep the worker's log lines in this file")
    args = ap.parse_args()
    from aiosmtpd.controller import Controller

    work = Path(tempfile.mkdtemp(prefix="turnproc-acklatency-"))
    dovecot = DovecotServer({USER: MAILBOX_PASSWORD})
    pg = PostgresServer() if args.backend == "postgres" else None
    receipts = Receipts()
    smtp_port = free_port()
    controller = Controller(receipts, hostname="127.0.0.1", port=smtp_port, data_size_limit=0)
    worker: subprocess.Popen[bytes] | None = None
    try:
        dovecot.start()
        controller.start()
        wait_for_port(smtp_port)
        if pg is not None:
            pg.start()
        url = pg.url if pg is not None else f"sqlite:///{work / 'acklatency.db'}"
        state = synthetic_state(args.n)
        write_game(url, state)
        engine = make_engine(url)
        with transaction(make_sessionmaker(engine)) as session:
            session.execute(delete(m.OrderSet))  # the orders come by mail
        engine.dispose()
        # Two turnsheets per empire, each its own Message-ID: one for each phase.
        first, second = turnsheets(state, 0), turnsheets(state, 1)
        worker = _start_worker(_config(work, url, dovecot.port, smtp_port), work / "worker.log")
        client = IMAPClient("127.0.0.1", port=dovecot.port, ssl=False)
        client.login(USER, MAILBOX_PASSWORD)
        load = os.getloadavg()[0]
        # Spread over the empires, so every mail program is among them.
        step = max(1, len(first) // args.alone)
        alone_waits = alone(client, receipts, first[::step][: args.alone])
        burst_waits, appending, tail = burst(client, receipts, second[: args.burst])
        client.logout()
        print(
            f"acknowledgement latency, {args.backend}, N={args.n}, {os.cpu_count()} CPUs,"
            f" load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
        )
        print(
            f"  alone ({len(alone_waits)} mails, one at a time): {_percentiles(alone_waits)}"
            "  (target p50 <= 2 s, p95 <= 5 s)"
        )
        print(
            f"  burst ({len(burst_waits)} mails, APPENDed in {appending:.1f} s): {_percentiles(burst_waits)}"
        )
        print(f"  burst: last acknowledgement {tail:.1f} s after the last APPEND  (target <= 60 s)")
        if receipts.other:
            print(f"  {receipts.other} other mails (no In-Reply-To) reached the SMTP server")
    finally:
        if worker is not None:
            worker.terminate()
            worker.wait(timeout=120)
        controller.stop()
        dovecot.stop()
        if pg is not None:
            pg.stop()
        if args.worker_log and (work / "worker.log").exists():
            shutil.copy(work / "worker.log", args.worker_log)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
