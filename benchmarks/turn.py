"""Turn benchmark: resolve alone, the full ``turn run``, and the I/O floor, for
synthetic games of N empires (30 systems and 16 actions each) on SQLite.

    .venv/bin/python -m benchmarks.turn                  # N = 12, 100, 1000
    .venv/bin/python -m benchmarks.turn --repeat 2       # keep each phase's best run
    .venv/bin/python -m benchmarks.turn --sizes 100 --profile turn

What is timed (each phase in a fresh Python process, so one phase's garbage
and caches do not help or hurt another, and peak RSS is per phase):

resolve
    ``resolve(state, orders, rng)`` only; loading the state and parsing the
    stored orders happen before the clock starts.
turn
    What ``turnproc turn run`` does: one transaction around
    ``turns.run_turn`` — lock the game, load the state, parse the stored
    orders, resolve, save the new state, write the turn record (with the state
    before the turn as JSON), store every empire's report data and queue its
    mail (built when sent: benchmarks/night.py times that) — and the commit.
floor
    The I/O floor: one transaction that loads the same game with
    ``load_state`` and writes with ``save_state`` the state the turn would
    write (resolved beforehand, off the clock), and the commit. So it reads
    and writes exactly the game rows the turn reads and writes, and nothing
    else: no order parsing, no rules, no turn record, no reports, no mail.

Times are wall clock, with the CPU time of the process and of the children
a big turn forked (none now; CPU time
hardly moves when other work shares the machine; the load average is printed
too). ``turn run`` is also split by step (exclusive times of the pipeline's
helpers, SQL flushes, the commit, garbage collection), so the share of the
reports is visible. Peak memory is the process's peak resident set
(``ru_maxrss``); in brackets what the interpreter and imports already hold
before the phase starts.
Targets (N = 1,000 on SQLite, 2 cores): turn <= 30 s, turn <= 5 x floor, and
turn(1000) / turn(100) <= 11.

    .venv/bin/python -m benchmarks.turn --sizes 1000 --compare-rulesets --repeat 3

times ``resolve`` for the same galaxy played in rule set 1 (the usual order mix)
and in rule set 2 (the reserve, recovery, a trade offer, a TAKE and a probe in
every empire's orders, rules.md §19), each in fresh processes, and prints both
and their ratio. Target: rule set 2 within 10 % of rule set 1.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import gc
import io
import json
import os
import pstats
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.night import cpu_seconds
from benchmarks.synthetic import GAME, synthetic_state, write_game
from turnproc.config import Config
from turnproc.rules.turn import resolve, turn_rng
from turnproc.storage.convert import load_state, orders_for_turn, save_state
from turnproc.storage.db import make_engine, make_sessionmaker, transaction
from turnproc.storage.queries import get_game
from turnproc.turns.run import run_turn

NOW = dt.datetime(2026, 1, 5, 20, 0, tzinfo=dt.timezone.utc)
CONFIG = Config(from_address="Host <turns@turnproc.example>")


class Clock:
    """Wall and CPU time (this process and the children it waited for) since it was made;
    CPU time barely moves when other processes share the machine, wall time
    does."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), cpu_seconds()

    def read(self) -> dict[str, float]:
        return {"seconds": time.perf_counter() - self.wall, "cpu": cpu_seconds() - self.cpu}


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# -- the phases, each run in its own process ------------------------------------------------


def _load(sessions: Any) -> tuple[Any, Any, str]:
    with sessions() as session:
        game = get_game(session, GAME)
        state = load_state(session, game)
        orders, _ = orders_for_turn(session, game)
        return state, orders, game.seed


def phase_resolve(sessions: Any) -> dict[str, Any]:
    state, orders, seed = _load(sessions)
    clock = Clock()
    _, events = resolve(state, orders, turn_rng(seed, state.turn))
    return {**clock.read(), "events": len(events)}


#: Steps of run_turn timed separately (names looked up in turnproc.turns.run;
#: those that are not there are skipped), each exclusive of the others.
STEPS = (
    "load_state",
    "orders_for_turn",
    "resolve",
    "save_state",
    "report_settings",
    "report_output",
    "record_output",
    "store_reports",
)


class StepTimer:
    """Exclusive wall time per step: a step's time does not include the time
    of other timed steps it calls."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._stack: list[float] = []

    def wrap(self, name: str, fn: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            self._stack.append(0.0)
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = time.perf_counter() - t0
                inner = self._stack.pop()
                self.seconds[name] = self.seconds.get(name, 0.0) + spent - inner
                if self._stack:
                    self._stack[-1] += spent

        return timed


def phase_turn(sessions: Any) -> dict[str, Any]:
    from sqlalchemy.orm import Session

    from turnproc.turns import run as pipeline

    timer = StepTimer()
    for name in STEPS:
        if callable(getattr(pipeline, name, None)):
            setattr(pipeline, name, timer.wrap(name, getattr(pipeline, name)))
    Session.flush = timer.wrap("flush (SQL writes)", Session.flush)  # type: ignore[method-assign]
    gc_time = [0.0, 0.0]  # total, start of the collection running

    def on_gc(what: str, info: dict[str, int]) -> None:
        if what == "start":
            gc_time[1] = time.perf_counter()
        else:
            gc_time[0] += time.perf_counter() - gc_time[1]

    gc.callbacks.append(on_gc)
    clock = Clock()
    with transaction(sessions) as session:
        result = run_turn(session, get_game(session, GAME), CONFIG, NOW)
        t1 = time.perf_counter()
    took = clock.read()
    steps = dict(timer.seconds)
    steps["commit"] = time.perf_counter() - t1
    steps["other"] = took["seconds"] - sum(steps.values())
    gc.callbacks.remove(on_gc)
    return {
        **took,
        "events": result.events,
        "reports": len(result.reports),
        "steps": steps,
        "gc": gc_time[0],
    }


def phase_floor(sessions: Any) -> dict[str, Any]:
    state, orders, seed = _load(sessions)
    new_state, _ = resolve(state, orders, turn_rng(seed, state.turn))
    for empire in new_state.empires.values():
        empire.missed_turns, empire.active = 0, True  # run_turn's bookkeeping: all sent orders
    del state, orders
    clock = Clock()
    with transaction(sessions) as session:
        game = get_game(session, GAME)
        load_state(session, game)
        save_state(session, game, new_state)
    return clock.read()


PHASES = {"resolve": phase_resolve, "turn": phase_turn, "floor": phase_floor}


def child(phase: str, db: str, profile: bool) -> None:
    engine = make_engine(f"sqlite:///{db}")
    sessions = make_sessionmaker(engine)
    base = _rss_mb()
    profiler = cProfile.Profile() if profile else None
    if profiler:
        profiler.enable()
    out = PHASES[phase](sessions)
    if profiler:
        profiler.disable()
        buf = io.StringIO()
        pstats.Stats(profiler, stream=buf).sort_stats("cumulative").print_stats(45)
        buf.write("\n")
        pstats.Stats(profiler, stream=buf).sort_stats("tottime").print_stats(30)
        print(buf.getvalue(), file=sys.stderr)
    engine.dispose()
    out.update(base_mb=base, peak_mb=_rss_mb())
    print(json.dumps(out))


# -- the driver ----------------------------------------------------------------------------


def _copy(src: Path, dst: Path) -> None:
    with sqlite3.connect(src) as a, sqlite3.connect(dst) as b:
        a.backup(b)


def _run_child(phase: str, db: Path, profile: bool) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "benchmarks.turn", "--child", phase, "--db", str(db)]
    if profile:
        cmd += ["--profile", phase]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if profile or done.returncode:
        sys.stderr.write(done.stderr)
    if done.returncode:
        raise SystemExit(f"phase {phase} failed")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _best_resolve(db_base: Path, work: Path, tag: str, repeat: int) -> dict[str, Any]:
    runs = []
    for i in range(repeat):
        db = work / f"{tag}-{i}.db"
        _copy(db_base, db)
        runs.append(_run_child("resolve", db, False))
        db.unlink()
    return min(runs, key=lambda r: r["seconds"])


def compare_rulesets(n: int, work: Path, repeat: int) -> None:
    """``resolve`` of rule set 1 and of rule set 2 (its order mix) on one galaxy."""
    best: dict[int, dict[str, Any]] = {}
    for ruleset in (1, 2):
        base = work / f"rules{ruleset}-{n}.db"
        write_game(f"sqlite:///{base}", synthetic_state(n, ruleset=ruleset))
        best[ruleset] = _best_resolve(base, work, f"rules{ruleset}-{n}", repeat)
    one, two = best[1], best[2]
    ratio = two["seconds"] / one["seconds"]
    cpu = two["cpu"] / one["cpu"]
    print(f"N={n}, resolve only, best of {repeat}: seconds wall (CPU)")
    print(f"  rule set 1: {one['seconds']:.2f} ({one['cpu']:.2f}), {one['events']} events")
    print(f"  rule set 2: {two['seconds']:.2f} ({two['cpu']:.2f}), {two['events']} events")
    print(
        f"  rule set 2 / rule set 1: x {ratio:.3f} wall, x {cpu:.3f} CPU  "
        f"{'ok' if cpu <= 1.10 else 'MISSED'} (target <= 1.10)"
    )


def measure(n: int, work: Path, profile: str | None, repeat: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    state = synthetic_state(n)
    generated = time.perf_counter() - t0
    base = work / f"game{n}.db"
    t0 = time.perf_counter()
    write_game(f"sqlite:///{base}", state)
    written = time.perf_counter() - t0
    row: dict[str, Any] = {
        "n": n,
        "systems": len(state.systems),
        "setup": f"generated {generated:.1f} s, written {written:.1f} s",
    }
    del state
    for phase in ("resolve", "floor", "turn"):
        runs = []
        for i in range(repeat):
            db = work / f"game{n}-{phase}-{i}.db"
            _copy(base, db)
            runs.append(_run_child(phase, db, profile == phase))
            db.unlink()
        row[phase] = min(runs, key=lambda r: r["seconds"])
    return row


#: Steps of run_turn that make the reports (per empire: its context, stored
#: as data; the mails are queued without bytes and built when sent) and the
#: turn record's JSON.
REPORT_STEPS = ("report_settings", "report_output", "record_output", "store_reports")


def report(rows: list[dict[str, Any]], load: tuple[float, float]) -> None:
    def t(p: dict[str, Any]) -> str:
        return f"{p['seconds']:.2f} ({p['cpu']:.2f})"

    def mem(p: dict[str, Any]) -> str:
        return f"{p['peak_mb']:.0f} ({p['base_mb']:.0f})"

    print()
    print("Star Chase turn benchmark, SQLite. Seconds wall (CPU); peak RSS MB (before the phase).")
    print(
        f"Load average (1 min) at start {load[0]:.2f}, at end {os.getloadavg()[0]:.2f},"
        f" on {os.cpu_count()} CPUs."
    )
    print()
    head = (
        f"{'N':>5} {'systems':>7} | {'resolve':>13} {'turn run':>13} {'I/O floor':>13} | "
        f"{'turn/floor':>10} | {'resolve MB':>10} {'turn MB':>10} {'floor MB':>10}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        res, turn, floor = r["resolve"], r["turn"], r["floor"]
        print(
            f"{r['n']:>5} {r['systems']:>7} | {t(res):>13} {t(turn):>13} {t(floor):>13} | "
            f"{turn['seconds'] / floor['seconds']:>10.2f} | {mem(res):>10} {mem(turn):>10} {mem(floor):>10}"
        )
    print()
    for r in rows:
        turn, floor = r["turn"], r["floor"]
        steps = turn["steps"]
        reports = sum(steps.get(k, 0.0) for k in REPORT_STEPS)
        writes = steps.get("flush (SQL writes)", 0.0) + steps.get("commit", 0.0)
        rest = turn["seconds"] - reports - writes
        print(f"N={r['n']}: {r['setup']}; {turn['events']} events, {turn['reports']} reports")
        print(
            "  turn run by step: "
            + ", ".join(f"{k} {v:.2f}" for k, v in sorted(steps.items(), key=lambda kv: -kv[1]))
        )
        print(
            f"  = reports {reports:.2f} + SQL flush and commit {writes:.2f} + load, orders, rules, "
            f"save, turn record {rest:.2f} ({rest / floor['seconds']:.2f} x floor); "
            f"garbage collection inside these: {turn['gc']:.2f}"
        )
    by_n = {r["n"]: r for r in rows}
    if 100 in by_n and 1000 in by_n:
        print()
        for phase in ("resolve", "turn", "floor"):
            ratio = by_n[1000][phase]["seconds"] / by_n[100][phase]["seconds"]
            cpu = by_n[1000][phase]["cpu"] / by_n[100][phase]["cpu"]
            print(
                f"growth 100 -> 1000 empires, {phase:>7}: x {ratio:.2f} wall, x {cpu:.2f} CPU (linear: x 10)"
            )
    if 1000 in by_n:
        big = by_n[1000]
        turn_s, floor_s = big["turn"]["seconds"], big["floor"]["seconds"]
        growth = turn_s / by_n[100]["turn"]["seconds"] if 100 in by_n else float("nan")
        print()
        print("targets for N = 1000:")
        print(f"  turn run <= 30 s:           {turn_s:6.2f} s  {'ok' if turn_s <= 30 else 'MISSED'}")
        print(
            f"  turn run <= 5 x I/O floor:  {turn_s / floor_s:6.2f} x  "
            f"{'ok' if turn_s <= 5 * floor_s else 'MISSED'}"
        )
        print(f"  growth 100 -> 1000 <= 11 x: {growth:6.2f} x  {'ok' if growth <= 11 else 'MISSED'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="12,100,1000", help="comma-separated empire counts")
    ap.add_argument("--repeat", type=int, default=1, help="run each phase this many times, keep the fastest")
    ap.add_argument("--profile", choices=sorted(PHASES), help="cProfile this phase (to stderr)")
    ap.add_argument(
        "--compare-rulesets",
        action="store_true",
        help="time resolve in rule set 1 and rule set 2 (their order mixes) instead",
    )
    ap.add_argument("--child", choices=sorted(PHASES), help=argparse.SUPPRESS)
    ap.add_argument("--db", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.db, bool(args.profile))
        return
    sizes = [int(x) for x in args.sizes.split(",")]
    load = os.getloadavg()
    if args.compare_rulesets:
        with tempfile.TemporaryDirectory(prefix="turnproc-rules-bench-") as tmp:
            for n in sizes:
                compare_rulesets(n, Path(tmp), args.repeat)
        return
    with tempfile.TemporaryDirectory(prefix="turnproc-turn-bench-") as tmp:
        rows = []
        for n in sizes:
            rows.append(measure(n, Path(tmp), args.profile, args.repeat))
            print(f"N={n} done", file=sys.stderr)
        report(rows, load)


if __name__ == "__main__":
    main()
