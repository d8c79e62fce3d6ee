"""Report benchmark: render and queue every empire's report for the synthetic
N-empire game (default 1,000 empires, 30 systems each) after one resolved turn.

    .venv/bin/python benchmarks/reports.py [--empires 1000]

Times, in one run: building the contexts (fog of war), rendering text + HTML +
SVG map + JSON, composing the MIME mails, and queueing them in the outbox of a
SQLite database (one transaction, as `turn run` does). Prints seconds,
reports/s and the average size of each format. Target: <= 30 s for 1,000.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.synthetic import synthetic_orders, synthetic_state  # noqa: E402
from turnproc.mail.compose import compose, new_message_id  # noqa: E402
from turnproc.mail.outbox import queue_mail  # noqa: E402
from turnproc.reports.context import TurnView, report_context  # noqa: E402
from turnproc.reports.render import SharedParts, render_report_documents  # noqa: E402
from turnproc.rules.parser import parse_orders  # noqa: E402
from turnproc.rules.turn import resolve, turn_rng  # noqa: E402
from turnproc.storage.db import make_engine, make_sessionmaker, transaction  # noqa: E402
from turnproc.storage.migrate import ensure_schema  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--empires", type=int, default=1000)
    args = ap.parse_args()
    n = args.empires

    t0 = time.perf_counter()
    state = synthetic_state(n)
    rng = random.Random("reports")
    orders = {code: parse_orders(synthetic_orders(state, code, rng), state, code).orders for code in sorted(state.empires)}
    new, events = resolve(state, orders, turn_rng("bench", state.turn))
    print(f"set-up: {n} empires, {len(new.systems)} systems, {len(events)} events in {time.perf_counter() - t0:.1f} s")

    work = Path(tempfile.mkdtemp(prefix="turnproc-reports-"))
    engine = make_engine(f"sqlite:///{work / 'reports.db'}")
    ensure_schema(engine)
    sessions = make_sessionmaker(engine)
    now = dt.datetime(2026, 1, 6, tzinfo=dt.timezone.utc)

    timings = {"view": 0.0, "context": 0.0, "render": 0.0, "compose": 0.0, "queue": 0.0}
    sizes = {"text": 0, "html": 0, "svg": 0, "json": 0, "mail": 0}
    start = time.perf_counter()
    # As run_turn does: what all reports share is worked out and rendered once.
    view, shared = TurnView.build(new, events), SharedParts()
    timings["view"] = time.perf_counter() - start
    with transaction(sessions) as session:
        for code in sorted(new.empires):
            t = time.perf_counter()
            ctx = report_context(new, events, code, game_name="bench", turn=1, deadline="Friday 09 January 2026, 20:00 GMT", view=view)
            timings["context"] += time.perf_counter() - t
            t = time.perf_counter()
            docs = render_report_documents(ctx, shared)
            timings["render"] += time.perf_counter() - t
            t = time.perf_counter()
            msg = compose(
                sender="Host <turns@bench.invalid>",
                recipient=f"{code.lower()}@bench.invalid",
                subject=docs.subject,
                text=docs.text,
                html=docs.html,
                when=now,
                message_id=new_message_id("turns@bench.invalid"),
                attachments=[("map.svg", "image/svg+xml", docs.svg.encode()), ("report.json", "application/json", docs.json.encode())],
            )
            timings["compose"] += time.perf_counter() - t
            t = time.perf_counter()
            row = queue_mail(session, msg, kind="report", game_id=None)
            timings["queue"] += time.perf_counter() - t
            sizes["text"] += len(docs.text.encode())
            sizes["html"] += len(docs.html.encode())
            sizes["svg"] += len(docs.svg.encode())
            sizes["json"] += len(docs.json.encode())
            sizes["mail"] += len(row.body)
        t = time.perf_counter()  # the commit happens as the block closes
    commit = time.perf_counter() - t
    total = time.perf_counter() - start
    engine.dispose()

    for name, seconds in timings.items():
        print(f"  {name:<8} {seconds:7.2f} s")
    print(f"  commit   {commit:7.2f} s")
    print(f"all {n} reports rendered and queued in {total:.2f} s = {n / total:.1f} reports/s  (target: <= 30 s for 1,000)")
    for name, total_bytes in sizes.items():
        print(f"  average {name:<5} {total_bytes / n / 1024:7.1f} KiB")


if __name__ == "__main__":
    main()
