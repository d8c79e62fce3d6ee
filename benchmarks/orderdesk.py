"""Order desk benchmark: the time from opening the page to the first checked
line, cold (a fresh browser profile: nothing cached) and warm (the same
profile opening the page again: the browser's cache and the desk's offline
copy), and the bytes the page downloads each time.

    .venv/bin/python -m benchmarks.orderdesk [--runs 2]

It builds the tests' six-empire game and its site with the desk
(tests/desk.py; Pyodide from ``$TURNPROC_PYODIDE_DIR`` or the folder
tests/run.sh installs), serves it over HTTP on loopback and drives headless
Chromium (Playwright): open the page, pick RIG's JSON report, type one order
line, and wait for its verdict. The clock starts before the page is asked
for. Bytes are what the server sent (bodies). The load average is printed:
Pyodide's start is CPU work, and a busy machine stretches it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any


from tests.desk import DeskGame, Served, chromium_browser, new_page, pyodide_dir, serve


def first_verdict(page: Any, url: str, report: Path) -> float:
    """Seconds from asking for the page to the first line judged."""
    start = time.perf_counter()
    page.goto(url)
    page.set_input_files("#file", str(report), timeout=600_000)
    page.fill("#password", "sesame", timeout=600_000)
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
        game = DeskGame(Path(tmp), pyodide_dir())
        try:
            with serve(game.site) as served, chromium_browser() as browser:
                results = measure(served, browser, game.report, args.runs)
        finally:
            game.close()
    print(f"order desk, phone viewport 390x844, {args.runs} run(s) each; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for kind, rows in results.items():
        times = [t for t, _ in rows]
        sizes = [b for _, b in rows]
        print(f"{kind}: first checked line after {statistics.median(times):.2f} s median "
              f"(runs: {', '.join(f'{t:.2f}' for t in times)}); downloaded {statistics.median(sizes) / 1e6:.2f} MB "
              f"(runs: {', '.join(f'{b:,}' for b in sizes)} bytes)")  # fmt: skip


if __name__ == "__main__":
    main()
