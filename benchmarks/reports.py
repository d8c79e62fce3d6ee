"""Report benchmark: every empire's report for the synthetic N-empire game
(default 1,000 empires, 30 systems each) after one resolved turn, through the
code ``turn run`` uses (:func:`turnproc.turns.write_reports`), and the map
picture of the largest map there is, the whole galaxy.

    .venv/bin/python benchmarks/reports.py [--empires 1000] [--skip-galaxy]

Part 1, the reports: the game (Game and Empire rows, state, orders) is written
to a fresh SQLite database and the turn resolved off the clock; then one
transaction, as ``turn run`` has, builds every context (fog of war), renders
text, HTML, SVG and PNG map and JSON, stores each ``reports`` row, composes the
MIME mail and queues it in the outbox; the commit is timed too. Prints the
total, reports/s, the time inside the PNG rendering and inside each step, and
the average size of each format. Target: <= 30 s for 1,000.

Part 2, the largest map: one empire that has seen every system of the same
galaxy; times the SVG drawing (full size, for the attachment) and the PNG
(fitted to MAX_PNG_SIDE), and prints their sizes.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import func, select  # noqa: E402

import turnproc.mails  # noqa: E402
import turnproc.reports.render  # noqa: E402
import turnproc.turns  # noqa: E402
from benchmarks.synthetic import GAME, synthetic_state, write_game  # noqa: E402
from turnproc.config import Config  # noqa: E402
from turnproc.reports.context import report_context  # noqa: E402
from turnproc.reports.mapimage import png_map, png_size  # noqa: E402
from turnproc.reports.svgmap import MAX_PNG_SIDE, svg_map  # noqa: E402
from turnproc.rules.state import Tech  # noqa: E402
from turnproc.rules.turn import resolve, turn_rng  # noqa: E402
from turnproc.storage import models as m  # noqa: E402
from turnproc.storage.convert import load_state, orders_for_turn  # noqa: E402
from turnproc.storage.db import make_engine, make_sessionmaker, transaction  # noqa: E402

STEPS: dict[str, float] = {}
SIZES: dict[str, int] = {"text": 0, "html": 0, "svg": 0, "png": 0, "json": 0, "mail": 0}


def timed(module: Any, name: str) -> None:
    """Wrap ``module.name`` so the time spent inside it is added up in STEPS."""
    inner: Callable[..., Any] = getattr(module, name)

    @functools.wraps(inner)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            STEPS[name] = STEPS.get(name, 0.0) + time.perf_counter() - t

    setattr(module, name, wrapper)


def reports(n: int, work: Path) -> None:
    t0 = time.perf_counter()
    state = synthetic_state(n)
    url = f"sqlite:///{work / 'reports.db'}"
    write_game(url, state)
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    now = dt.datetime(2026, 1, 6, tzinfo=dt.timezone.utc)
    config = Config(database_url=url, from_address="Host <turns@bench.invalid>")
    with transaction(sessions) as session:
        game = session.scalar(select(m.Game).where(m.Game.name == GAME))
        assert game is not None
        before = load_state(session, game)
        orders, _ = orders_for_turn(session, game)
        new, events = resolve(before, orders, turn_rng(game.seed, before.turn))
        game.schedule, game.timezone = "0 20 * * 5", "Europe/London"
    print(f"set-up: {n} empires, {len(new.systems)} systems, {len(events)} events in {time.perf_counter() - t0:.1f} s")

    # What each step costs, from inside the real code path.
    timed(turnproc.turns, "report_context")
    timed(turnproc.turns, "render_report_documents")
    timed(turnproc.reports.render, "png_map")
    timed(turnproc.turns, "queue_report")
    timed(turnproc.mails, "compose")
    start, cpu = time.perf_counter(), time.process_time()
    with transaction(sessions) as session:
        game = session.scalar(select(m.Game).where(m.Game.name == GAME))
        assert game is not None
        texts = turnproc.turns.write_reports(session, config, game, new, events, before.turn, now)
        session.flush()
        t = time.perf_counter()  # the commit happens as the block closes
    commit = time.perf_counter() - t
    total, cpu = time.perf_counter() - start, time.process_time() - cpu
    with sessions() as session:
        stored = session.scalar(select(func.count()).select_from(m.Report))
        queued = session.scalar(select(func.count()).select_from(m.OutboxMail))
        for report in session.scalars(select(m.Report)):
            SIZES["text"] += len(report.text.encode())
        for body in session.scalars(select(m.OutboxMail.body)):
            SIZES["mail"] += len(body)
    engine.dispose()
    assert stored == queued == n == len(texts), (stored, queued, n)
    print(f"all {n} reports rendered, stored (reports rows) and queued in {total:.2f} s wall, {cpu:.2f} s CPU "
          f"= {n / total:.1f} reports/s  (target: <= 30 s for 1,000; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    for name, seconds in sorted(STEPS.items(), key=lambda kv: -kv[1]):
        print(f"  inside {name:<24} {seconds:7.2f} s")
    print(f"  commit                          {commit:7.2f} s")
    print(f"  average report text {SIZES['text'] / n / 1024:6.1f} KiB, whole mail (MIME, base64 PNG) {SIZES['mail'] / n / 1024:6.1f} KiB")


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
    print(f"largest map: {viewer} has seen all {len(state.systems)} systems ({len(ctx['map']['links'])} links)")
    print(f"  SVG attachment (every label):  {svg_s:6.2f} s, {len(full.encode()) / 1024 / 1024:6.2f} MiB")
    print(f"  PNG picture (at most {MAX_PNG_SIDE} px): {png_s:6.2f} s ({png_cpu:.2f} s CPU), {len(png) / 1024:6.0f} KiB, {width} x {height} px")


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
