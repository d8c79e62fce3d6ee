"""What a flood of password guesses costs intake, against honest mail, in one
run: a game of E empires (SQLite, Maildir in), then three polls of E mails each:

1. honest: every empire's full turnsheet with the right password (this also
   gives every empire its password tag, as the first correct mail does);
2. forged: E mails "from" the empires' own addresses (in other cases and with
   display names), each with a wrong password and a full turnsheet: the tag
   rules out nearly all of them, so scrypt runs for about one in 4,096;
3. forged, untagged: the same after the tags are cleared (empires made before
   tags, until their next correct mail): scrypt for every guess.

    .venv/bin/python -m benchmarks.guessing [--empires 1000]

Prints each poll's CPU time (the whole process: the poll and its scrypt
threads) and wall time. CPU is the figure to compare: on a shared machine wall
time is mostly waiting for a core. Twice the forged mails a CPU-second (two
cores) bounds the guesses a second intake can read; rounded up, that is
turnproc.accounts.passwords.INTAKE_MAILS_PER_SECOND.
"""

from __future__ import annotations

import argparse
import datetime as dt
import mailbox
import random
import tempfile
import time
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path

from sqlalchemy import update

from benchmarks.night import START, turnsheets
from benchmarks.synthetic import GAME, synthetic_orders, synthetic_state, write_game
from turnproc.app import open_app
from turnproc.config import Config
from turnproc.intake import poll_maildir
from turnproc.rules.state import GameState
from turnproc.storage import models as m
from turnproc.storage.db import transaction


def _forged(state: GameState) -> list[bytes]:
    """A wrong-password turnsheet for each empire, "from" its own address."""
    rng = random.Random("guesses")
    raws = []
    for i, code in enumerate(sorted(state.empires)):
        address = f"{code.lower()}@bench.example"
        msg = EmailMessage()
        msg["From"] = [address.upper(), f"Player {code} <{address}>", f'"{address}" <{address}>'][i % 3]
        msg["To"] = "turns@bench.example"
        msg["Subject"] = f"{GAME} orders"
        msg["Date"] = format_datetime(START + dt.timedelta(seconds=i))
        msg["Message-ID"] = f"<guess-{i}-{time.time_ns()}@evil.example>"
        msg.set_content(
            f"GAME {GAME}\nEMPIRE {code} guess-{i:06}\n{synthetic_orders(state, code, rng)}\nEND\n"
        )
        raws.append(msg.as_bytes())
    return raws


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--empires", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="turnproc-guessing-") as tmp:
        folder = Path(tmp)
        url = f"sqlite:///{folder / 'bench.db'}"
        state = synthetic_state(args.empires)
        write_game(url, state)
        config = Config(
            database_url=url,
            maildir_in=folder / "in",
            maildir_out=folder / "out",
            gm_address="gm@bench.example",
        )
        app = open_app(config)
        inbox = mailbox.Maildir(config.maildir_in, create=True)
        now = START + dt.timedelta(hours=1)
        runs = [
            ("honest (right password)", turnsheets(state, 0)),
            ("forged (wrong password)", _forged(state)),
            ("forged, empires untagged", _forged(state)),
        ]
        print(f"{args.empires} empires, {args.empires} mails a poll, SQLite, Maildir")
        rates = {}
        for i, (label, raws) in enumerate(runs):
            if i == 2:
                with transaction(app.sessions) as session:
                    session.execute(update(m.Empire).values(password_tag=None))
            for raw in raws:
                inbox.add(raw)
            cpu, wall = time.process_time(), time.perf_counter()
            results = poll_maildir(app, now + dt.timedelta(minutes=i))
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            outcomes = {
                o: sum(1 for r in results if r.outcome == o) for o in sorted({r.outcome for r in results})
            }
            rates[label] = len(raws) / cpu
            print(
                f"{label:26} CPU {cpu:6.2f} s ({1000 * cpu / len(raws):5.2f} ms a mail, "
                f"{len(raws) / cpu:5.0f} mails a CPU-second)"
                f"  wall {wall:6.2f} s  {outcomes}"
            )
        app.close()
        forged, honest = rates[runs[1][0]], rates[runs[0][0]]
        print(
            f"a forged mail costs {honest / forged:.2f} times an honest one's CPU;"
            " on 2 CPUs intake reads at most "
            f"about {2 * forged:.0f} guesses a second (a generous bound: the poll itself runs on one)"
        )


if __name__ == "__main__":
    main()
