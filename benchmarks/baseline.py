"""The night benchmark's stored baseline (benchmarks/baseline.json) and its check.

Machines differ and a shared machine's speed drifts, so the baseline holds no
seconds: it holds each phase's time (poll, turn, send and the whole night, of
the first night and the last, per backend and size) divided by a calibration
measured in the same run: the best time of a fixed piece of pure-Python work
(:func:`calibration_work`) that uses none of turnproc's code, timed before the
nights and again after them. A change that makes a phase slower moves its
ratio; a slower or busier machine moves the phase and the calibration alike.

    .venv/bin/python -m benchmarks.night --save-baseline   # write the figures of this run
    .venv/bin/python -m benchmarks.night --check           # fail if a phase got slower

``--check`` runs the night as the baseline was made (its sizes, backends and
history, unless the command line names others) and exits non-zero when a
phase's ratio is more than :data:`TOLERANCE` (``--tolerance``) above the
baseline's.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

BASELINE = Path(__file__).with_name("baseline.json")
#: How much worse than the baseline a phase's ratio may be before --check fails:
#: 30 %, wider than the run-to-run spread of the night at N=1,000 on a shared
#: 2-core machine, narrower than the regressions worth catching.
TOLERANCE = 0.30
PHASES = ("poll", "turn", "send", "night")


def calibration_work() -> None:
    """The kinds of work a night does (build records, sort, format strings,
    JSON out and back, count, hash), on fixed data."""
    records = [{"code": f"E{i:05d}", "x": (i * 7919) % 1009, "name": f"Empire {i}"} for i in range(10_000)]
    records.sort(key=lambda r: (r["x"], r["code"]))
    text = json.dumps(records)
    back = json.loads(text)
    Counter(r["x"] % 97 for r in back)
    "".join(f"{r['code']}:{r['x']};" for r in back)
    hashlib.sha256(text.encode()).hexdigest()


def calibrate(repeat: int = 5) -> float:
    """Seconds of :func:`calibration_work`, the best of ``repeat`` tries."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        calibration_work()
        best = min(best, time.perf_counter() - start)
    return best


def ratios(rows: Iterable[dict[str, Any]], calibration: float) -> dict[str, float]:
    """Each phase's seconds over ``calibration``, keyed ``"BACKEND N=SIZE turn T PHASE"``,
    for the first and the last night of each of the night benchmark's ``rows``."""
    out: dict[str, float] = {}
    for row in rows:
        nights = row["nights"]
        for night in {nights[0]["night"]: nights[0], nights[-1]["night"]: nights[-1]}.values():
            seconds = {phase: night[phase] for phase in PHASES[:3]}
            seconds["night"] = sum(seconds.values())
            for phase in PHASES:
                key = f"{row['backend']} N={row['n']} turn {night['night'] + 1} {phase}"
                out[key] = round(seconds[phase] / calibration, 3)
    return out


def load(path: Path = BASELINE) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def save(path: Path, run: dict[str, Any], calibration: float, figures: dict[str, float]) -> None:
    """Write the baseline: how the night was run, the calibration's seconds
    (for the reader: only the ratios are compared) and the ratios."""
    data = {
        "made": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpus": os.cpu_count(),
        "load_average": round(os.getloadavg()[0], 1),
        "run": run,
        "calibration_seconds": round(calibration, 4),
        "ratios": figures,
    }
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def compare(baseline: dict[str, float], now: dict[str, float], tolerance: float) -> tuple[list[str], bool]:
    """The comparison's lines, and whether every phase the two share is within
    ``tolerance`` of the baseline (false too when they share none)."""
    shared = [key for key in baseline if key in now]
    lines = [f"{'phase':<34} {'baseline':>9} {'now':>9} {'change':>8}"]
    ok = bool(shared)
    for key in shared:
        change = now[key] / baseline[key] - 1 if baseline[key] else 0.0
        worse = change > tolerance
        ok = ok and not worse
        verdict = f"  slower than the baseline by more than {tolerance:.0%}" if worse else ""
        lines.append(f"{key:<34} {baseline[key]:>9.3f} {now[key]:>9.3f} {change:>+8.0%}{verdict}")
    if not shared:
        lines.append("no phase of this run is in the baseline: run it with the baseline's sizes and backends")
    missing = sorted(set(now) - set(baseline))
    if missing:
        lines.append(f"not in the baseline, not compared: {', '.join(missing)}")
    return lines, ok


class Gauge:
    """The calibration around one run of the night: made before the nights
    (:meth:`__init__`) and after them (:meth:`finish`)."""

    def __init__(self) -> None:
        self.before = calibrate()

    def finish(
        self,
        rows: list[dict[str, Any]],
        run: dict[str, Any],
        path: Path,
        *,
        save_to: bool,
        check: bool,
        tolerance: float,
    ) -> int:
        """Save and/or check this run's ratios; the process's exit status."""
        calibration = (self.before + calibrate()) / 2
        figures = ratios(rows, calibration)
        print(f"\ncalibration {calibration * 1000:.1f} ms (before the nights {self.before * 1000:.1f} ms)")
        status = 0
        if check:
            lines, ok = compare(load(path)["ratios"], figures, tolerance)
            print(f"each phase's seconds / the calibration's, against {path}:")
            print("\n".join(lines))
            print("within the tolerance" if ok else "FAILED: see above")
            status = 0 if ok else 1
        if save_to:
            save(path, run, calibration, figures)
            print(f"baseline written to {path}")
        return status
