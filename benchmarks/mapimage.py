"""Map picture benchmark: the CPU time of one PNG map, compact (drawn by
turnproc/reports/pixelmap.py) and full (rendered by resvg), for the empires of
the synthetic N-empire game (default 1,000 empires, 30 systems each) after 5
resolved turns, as in a big game's send run.

    .venv/bin/python -m benchmarks.mapimage [--empires 1000] [--turns 5] [--stride 1] [--cache state.pkl]

The state is built as benchmarks/synthetic.py builds it and played for
``--turns`` turns with synthetic orders (a minute or more for 1,000 empires;
``--cache`` keeps it in a pickle for the next run). For every ``--stride``-th
empire it builds the report context off the clock, then times
``png_map(context, compact=True)`` and ``png_map(context)`` with
``time.process_time()`` (CPU, which other work on the machine moves less than
the wall clock; the load average is printed). Prints mean, p95 and max
milliseconds per PNG, the pixel sizes, and the ratio full / compact; then the
fixed cost of text: a tiny picture with and without a word, with and without
the DejaVu font files (resvg's, the full picture's). Target: compact <= 8 ms CPU.
"""

from __future__ import annotations

import argparse
import os
import pickle
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import resvg_py

from benchmarks.synthetic import synthetic_orders, synthetic_state
from turnproc.orders.parser import parse_orders
from turnproc.reports.context import TurnView, report_context
from turnproc.reports.fonts import font_files
from turnproc.reports.mapimage import png_map, png_size
from turnproc.reports.svgmap import COMPACT_SIDE, MAX_PNG_SIDE
from turnproc.rules.turn import resolve, turn_rng


def played_state(empires: int, turns: int) -> tuple[Any, Any]:
    """The synthetic game after ``turns`` turns of synthetic orders, and the last turn's events."""
    state = synthetic_state(empires)
    events: Any = []
    for k in range(turns):
        rng = random.Random(k)
        orders = {}
        for code in sorted(state.empires):
            try:
                body = synthetic_orders(state, code, rng)
            except (AssertionError, IndexError):  # an empire without a base or a free neighbour
                body = "TAX"
            orders[code] = parse_orders(body, state, code).orders
        state, events = resolve(state, orders, turn_rng("bench", state.turn))
    return state, events


def cpu_ms(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.process_time()
    out = fn()
    return (time.process_time() - start) * 1000, out


def summary(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"mean {statistics.mean(ordered):6.2f}  p95 {p95:6.2f}  max {ordered[-1]:6.2f} ms"


def text_costs() -> None:
    """A 10 x 10 picture: nothing, a word with the DejaVu files, a word without."""
    fonts = list(font_files() or ())
    empty = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
        '<rect width="10" height="10" fill="#fff"/></svg>'
    )
    word = empty.replace(
        "</svg>", '<text x="0" y="9" font-family="DejaVu Sans" font-size="9">Ab</text></svg>'
    )
    cases = {
        "empty, no fonts": (empty, {"skip_system_fonts": True}),
        "empty, DejaVu files passed": (empty, {"skip_system_fonts": True, "font_files": fonts}),
        "a word, DejaVu files passed": (word, {"skip_system_fonts": True, "font_files": fonts}),
        "a word, regular face only": (word, {"skip_system_fonts": True, "font_files": fonts[:1]}),
    }
    for name, (svg, options) in cases.items():
        times = [cpu_ms(lambda: resvg_py.svg_to_bytes(svg_string=svg, **options))[0] for _ in range(50)]
        print(f"  {name:30s} median {statistics.median(times):5.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--empires", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--stride", type=int, default=1, help="time every N-th empire")
    parser.add_argument("--cache", type=Path, help="pickle of the played state: read if there, else written")
    args = parser.parse_args()

    if args.cache and args.cache.exists():
        with args.cache.open("rb") as f:
            state, events = pickle.load(f)
    else:
        seconds, (state, events) = cpu_ms(lambda: played_state(args.empires, args.turns))
        print(f"state: {args.empires} empires, {args.turns} turns played in {seconds / 1000:.0f} s CPU")
        if args.cache:
            with args.cache.open("wb") as f:
                pickle.dump((state, events), f)
    view = TurnView.build(state, events)
    codes = sorted(state.empires)[:: args.stride]
    compact: list[float] = []
    full: list[float] = []
    compact_px: list[tuple[int, int]] = []
    full_px: list[tuple[int, int]] = []
    png_map(
        {
            "empire": {"code": "X"},
            "map": {"systems": [], "links": []},
            "scouting": [],
            "systems": [],
            "game": "",
            "turn": 0,
        },
        compact=True,
    )
    for code in codes:
        context = report_context(
            state, events, code, game_name="bench", turn=state.turn - 1, deadline=None, view=view
        )
        ms, png = cpu_ms(lambda: png_map(context, compact=True))
        compact.append(ms)
        compact_px.append(png_size(png))
        ms, png = cpu_ms(lambda: png_map(context))
        full.append(ms)
        full_px.append(png_size(png))
    print(
        f"{len(codes)} empires of {len(state.empires)} (stride {args.stride}); load average "
        f"{os.getloadavg()[0]:.2f} at the end"
    )
    for name, times, sizes, side in (
        ("compact", compact, compact_px, COMPACT_SIDE),
        ("full", full, full_px, MAX_PNG_SIDE),
    ):
        pixels = [w * h for w, h in sizes]
        biggest = max(sizes, key=lambda s: s[0] * s[1])
        print(
            f"{name:8s} (side {side:4d}): {summary(times)};"
            f"  {statistics.mean(pixels) / 1000:6.0f} kpx mean, largest {biggest[0]} x {biggest[1]}"
        )
    print(f"full / compact: {statistics.mean(full) / statistics.mean(compact):.1f} x CPU per PNG")
    print("fixed cost of text (10 x 10 px):")
    text_costs()


if __name__ == "__main__":
    main()
