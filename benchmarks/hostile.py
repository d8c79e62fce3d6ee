"""Hostile mail shapes: the CPU time intake spends to answer one mail of
50,000 MIME parts (2.2 MB, refused before it is parsed: turnproc/mail/mime.py
``check_shape``), beside a normal Gmail mail (a text and an HTML alternative)
in the same run, on SQLite, in the two-empire game benchmarks/synthetic.py builds.

    .venv/bin/python -m benchmarks.hostile [--parts 50000] [--repeat 9]

Each mail is handled as a poll handles it (``handle_mail``: parse, check,
queue the answer, write the inbound log) from a player's registered address,
so both are answered; the transaction is rolled back after each try, so every
try is the first of its hour (no reply cap). Time is the thread's CPU
(``time.thread_time``), median and max of ``--repeat`` tries, and the load
average is printed. Target: under 50 ms for the 50,000-part mail.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.night import turnsheets
from benchmarks.synthetic import synthetic_state, write_game
from turnproc.app import open_app
from turnproc.config import Config
from turnproc.intake.handle import IntakeResult, handle_mail

HOST_ADDRESS = "turns@turnproc.example"
#: The first empire's address as benchmarks/synthetic.py registers it.
PLAYER = "aaa@bench.example"
NOW = dt.datetime(2026, 1, 5, 18, 5, tzinfo=dt.timezone.utc)


def many_parts(parts: int) -> bytes:
    """A mail from the first empire's player of ``parts`` one-line text parts (44 bytes each)."""
    head = (
        f"From: {PLAYER}\r\nTo: {HOST_ADDRESS}\r\nSubject: orders\r\nMessage-ID: <many@players.example>\r\n"
        'MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b0undary"\r\n\r\n'
    ).encode()
    part = b"--b0undary\r\nContent-Type: text/plain\r\n\r\nx\r\n"
    return head + part * parts + b"--b0undary--\r\n"


def cpu_ms(config: Config, raw: bytes, repeat: int) -> tuple[list[float], IntakeResult]:
    app = open_app(config)
    times: list[float] = []
    result = IntakeResult("none", "")
    try:
        for _ in range(repeat):
            with app.sessions() as session:
                start = time.thread_time()
                result = handle_mail(session, raw, config, NOW)
                session.flush()
                times.append((time.thread_time() - start) * 1000)
                session.rollback()
    finally:
        app.close()
    return times, result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--parts", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/bench.db"
        state = synthetic_state(2)
        write_game(url, state)
        config = Config(
            database_url=url, from_address=f"Host <{HOST_ADDRESS}>", maildir_out=Path(tmp) / "out"
        )
        print(
            f"load average {os.getloadavg()[0]:.2f}; CPU ms to answer one mail (median, max of {args.repeat})"
        )
        mails = [
            (f"{args.parts:,} MIME parts", many_parts(args.parts)),
            ("Gmail (text + HTML)", turnsheets(state, 0)[0]),  # the first empire writes with Gmail
        ]
        for label, raw in mails:
            times, result = cpu_ms(config, raw, args.repeat)
            print(
                f"{label:>22} {len(raw) / 1e6:5.2f} MB  {statistics.median(times):7.2f} ms  "
                f"{max(times):7.2f} ms"
                f"  -> {result.outcome}: {result.detail[:60]}"
            )


if __name__ == "__main__":
    main()
