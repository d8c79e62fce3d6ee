"""Report benchmark: every empire's report for the synthetic N-empire game
(default 1,000 empires, 30 systems each) after one resolved turn, through the
code ``turn run`` and the outbox use, and the map picture of the largest map
there is, the whole galaxy.

    .venv/bin/python -m benchmarks.reports [--empires 1000] [--skip-galaxy]

Part 1, the reports: the game (Game and Empire rows, state, orders) is written
to a fresh SQLite database and the turn resolved off the clock. Then, with
the code ``turn run`` uses (:func:`turnproc.turns.reports.write_reports`), one
transaction builds every context (fog of war) in this process (``turn run``
of a big game builds them in a forked child, beside its writing of the
state: benchmarks/turn.py), stores each report's data and the turn's
bulletin (in a game over the bulletin threshold) and queues their mails
without bytes; the commit is timed too. Then, as sending does
(:func:`turnproc.outgoing.reportmail.builder`, batches of 25 on every CPU), every
queued mail is built: text, HTML, SVG and PNG map, JSON, MIME. Prints both
phases' wall and CPU time (the rendering processes' CPU included) and the
average size of each part of a report mail.

Part 2, the largest map: one empire that has seen every system of the same
galaxy; times the SVG drawing (full size, for the attachment) and the PNG
(fitted to MAX_PNG_SIDE), and prints their sizes.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import tempfile
import time
from pathlib import Path

from sqlalchemy import select

from benchmarks.night import cpu_seconds
from benchmarks.synthetic import GAME, synthetic_state, write_game
from turnproc.config import Config
from turnproc.mail.outbox import BATCH, Claimed
from turnproc.outgoing.reportmail import builder
from turnproc.reports.context import report_context
from turnproc.reports.mapimage import png_map, png_size
from turnproc.reports.svgmap import MAX_PNG_SIDE, svg_map
from turnproc.rules.state import Tech
from turnproc.rules.turn import resolve, turn_rng
from turnproc.storage import models as m
from turnproc.storage.convert import load_state, orders_for_turn
from turnproc.storage.db import make_engine, make_sessionmaker, transaction
from turnproc.turns.reports import write_reports


def reports(n: int, work: Path) -> None:
    t0 = time.perf_counter()
    state = synthetic_state(n)
    url = f"sqlite:///{work / 'reports.db'}"
    write_game(url, state)
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    now = dt.datetime(2026, 1, 6, tzinfo=dt.timezone.utc)
    config = Config(database_url=url, from_address="Host <turns@bench.example>")
    with transaction(sessions) as session:
        game = session.scalar(select(m.Game).where(m.Game.name == GAME))
        assert game is not None
        before = load_state(session, game)
        orders, _ = orders_for_turn(session, game)
        new, events = resolve(before, orders, turn_rng(game.seed, before.turn))
        game.schedule, game.timezone = "0 20 * * 5", "Europe/London"
    print(
        f"set-up: {n} empires, {len(new.systems)} systems, {len(events)} events in "
        f"{time.perf_counter() - t0:.1f} s"
    )

    start, cpu = time.perf_counter(), cpu_seconds()
    with transaction(sessions) as session:
        game = session.scalar(select(m.Game).where(m.Game.name == GAME))
        assert game is not None
        contexts = write_reports(session, config, game, new, events, before.turn, now)
        session.flush()
        t = time.perf_counter()  # the commit happens as the block closes
    commit = time.perf_counter() - t
    stored, stored_cpu = time.perf_counter() - start, cpu_seconds() - cpu
    with sessions() as session:
        rows = list(session.scalars(select(m.OutboxMail).order_by(m.OutboxMail.id)))
        claimed = [Claimed.of(r) for r in rows]
        data_bytes = sum(
            len(json.dumps(d, separators=(",", ":"))) for d in session.scalars(select(m.Report.data))
        )
    assert len(contexts) == n and all(c.body is None for c in claimed)
    start, cpu = time.perf_counter(), cpu_seconds()
    built: dict[int, bytes | Exception] = {}
    with builder(sessions, config.from_address) as build:
        for i in range(0, len(claimed), BATCH):
            built.update(build(claimed[i : i + BATCH]))
    rendered, rendered_cpu = time.perf_counter() - start, cpu_seconds() - cpu
    engine.dispose()
    failed = [b for b in built.values() if isinstance(b, Exception)]
    assert not failed, failed[:1]
    mails = [b for b in built.values() if isinstance(b, bytes)]
    print(
        f"turn run's part: {n} reports' data stored and their mails queued in {stored:.2f} s wall, "
        f"{stored_cpu:.2f} s CPU "
        f"(commit {commit:.2f} s); {data_bytes / n / 1024:.1f} KiB of report data each"
    )
    print(
        f"sending's part: {len(mails)} mails built in {rendered:.2f} s wall, {rendered_cpu:.2f} s CPU "
        f"= {len(mails) / rendered:.0f} mails/s"
        f" (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)"
    )
    print(
        f"  average mail {sum(map(len, mails)) / len(mails) / 1024:.1f} KiB"
        + (" (a bulletin game: one bulletin mail among them)" if any(c.bulletin_id for c in claimed) else "")
    )


def galaxy(n: int) -> None:
    state = synthetic_state(n)
    viewer = sorted(state.empires)[0]
    # The worst case: every system seen, and in scanner range (so every link
    # and every system's ships and name are on the map).
    state.seen[viewer] = set(state.systems)
    state.empires[viewer].techs[Tech.SCANNER] = 10_000
    ctx = report_context(state, [], viewer, game_name="bench", turn=0)
    t = time.perf_counter()
    full = svg_map(ctx)
    svg_s = time.perf_counter() - t
    t, c = time.perf_counter(), time.process_time()
    png = png_map(ctx)
    png_s, png_cpu = time.perf_counter() - t, time.process_time() - c
    width, height = png_size(png)
    print(
        f"largest map: {viewer} has seen all {len(state.systems)} systems ({len(ctx['map']['links'])} links)"
    )
    print(f"  SVG attachment (every label):  {svg_s:6.2f} s, {len(full.encode()) / 1024 / 1024:6.2f} MiB")
    print(
        f"  PNG picture (at most {MAX_PNG_SIDE} px): {png_s:6.2f} s ({png_cpu:.2f} s CPU), "
        f"{len(png) / 1024:6.0f} KiB, {width} x {height} px"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--empires", type=int, default=1000)
    ap.add_argument("--skip-galaxy", action="store_true", help="only the reports")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="turnproc-reports-") as tmp:
        reports(args.empires, Path(tmp))
    if not args.skip_galaxy:
        galaxy(args.empires)


if __name__ == "__main__":
    main()
