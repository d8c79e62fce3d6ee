"""Order desk benchmark: the time from opening the page to the first checked
line, cold (a fresh browser profile: nothing cached) and warm (the same
profile opening the page again: the browser's cache and the desk's offline
copy), and the bytes the page downloads each time.

    .venv/bin/python -m benchmarks.orderdesk [--runs 2]

It builds a generated six-empire game (rule set 2) after turn 1 and its site
with the desk, as the order desk's tests do (Pyodide from
``$TURNPROC_PYODIDE_DIR`` or the folder tests/run.sh installs), serves it over
HTTP on loopback and drives headless Chromium (Playwright): open the page, pick
RIG's JSON report, type one order line, and wait for its verdict. The clock
starts before the page is asked for. Bytes are what the server sent (bodies).
The load average is printed: Pyodide's start is CPU work, and a busy machine
stretches it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import select

from benchmarks.desk import Served, chromium, chromium_browser, new_page, pyodide_dir, serve
from turnproc.accounts.passwords import hash_password
from turnproc.app import open_app
from turnproc.config import Config
from turnproc.games.game import add_empire, new_game
from turnproc.games.publish import write_site
from turnproc.reports.render import render_report_documents
from turnproc.storage import models as m
from turnproc.storage.db import transaction
from turnproc.turns.run import run_turn

CODES = ("RIG", "VEG", "ZAP", "ORI", "LYR", "CYG")
HOST = "Star Chase host <turns@turnproc.example>"
PASSWORD = "sesame"
START = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)


def desk_game(folder: Path, pyodide: Path) -> tuple[Path, Path]:
    """A generated six-empire game (rule set 2) after turn 1, every empire's
    password :data:`PASSWORD`: (its site with the desk, RIG's JSON report as
    the report mail carries it)."""
    config = Config(
        database_url=f"sqlite:///{folder / 'game.db'}",
        maildir_in=folder / "in",
        maildir_out=folder / "out",
        from_address=HOST,
    )
    app = open_app(config)
    try:
        with transaction(app.sessions) as session:
            game, _ = new_game(session, "six", players=len(CODES), seed="order-desk", ruleset=2)
            for code in CODES:
                empire, _ = add_empire(
                    session, game, code, f"Empire {code}", f"{code.lower()}@players.example"
                )
                empire.password_hash = hash_password(PASSWORD)
            session.flush()
            run_turn(session, game, config, START)
            rig = next(e for e in game.empires if e.code == "RIG")
            report = session.scalar(
                select(m.Report).where(m.Report.empire_id == rig.id).order_by(m.Report.turn.desc())
            )
            assert report is not None
            json_text = render_report_documents(report.data).json
            write_site(session, "six", folder / "site", START, host_address=HOST, pyodide=pyodide)
    finally:
        app.close()
    (folder / "RIG-turn-1.json").write_text(json_text, encoding="utf-8")
    return folder / "site", folder / "RIG-turn-1.json"


def first_verdict(page: Any, url: str, report: Path) -> float:
    """Seconds from asking for the page to the first line judged."""
    start = time.perf_counter()
    page.goto(url)
    page.set_input_files("#file", str(report), timeout=600_000)
    page.fill("#password", PASSWORD, timeout=600_000)
    page.fill("#orders", "TAX", timeout=600_000)
    page.wait_for_function("window.orderDesk.checked > 0", timeout=600_000)
    return time.perf_counter() - start


def measure(served: Served, browser: Any, report: Path, runs: int) -> dict[str, list[tuple[float, int]]]:
    url = f"{served.origin}/orders/index.html"
    results: dict[str, list[tuple[float, int]]] = {"cold": [], "warm": []}
    for _ in range(runs):
        context, page = new_page(browser, 390, 844, has_touch=True)
        before = served.sent
        results["cold"].append((first_verdict(page, url, report), served.sent - before))
        page.wait_for_timeout(500)  # the offline copy's worker takes over
        before = served.sent
        results["warm"].append((first_verdict(page, url, report), served.sent - before))
        context.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2, help="cold and warm openings each (default 2)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        site, report = desk_game(Path(tmp), pyodide_dir())
        with serve(site) as served, chromium_browser(chromium()) as browser:
            results = measure(served, browser, report, args.runs)
    print(
        f"order desk, phone viewport 390x844, {args.runs} run(s) each; load average "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    for kind, rows in results.items():
        times = [t for t, _ in rows]
        sizes = [b for _, b in rows]
        print(
            f"{kind}: first checked line after {statistics.median(times):.2f} s median "
            f"(runs: {', '.join(f'{t:.2f}' for t in times)}); downloaded "
            f"{statistics.median(sizes) / 1e6:.2f} MB "
            f"(runs: {', '.join(f'{b:,}' for b in sizes)} bytes)"
        )


if __name__ == "__main__":
    main()
