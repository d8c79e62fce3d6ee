"""The GM's wait at the prompt: each command as a cold process, as a GM types
it, on the synthetic N-empire game (benchmarks/synthetic.py: 30 systems an
empire, every empire's orders on file).

    .venv/bin/python -m benchmarks.cli [--empires 1000] [--runs 5]

Set up off the clock: the game written to a SQLite file at turn 1 (its
reports not yet made: ``report`` builds the start-of-game one when asked),
and a copy of it with turn 1 run (``report`` prints the stored one). Then
each command runs ``--runs`` times in a fresh interpreter (``python -m
turnproc``, as the console script does); printed per command: the median
wall time, the median CPU time of the process (its rusage as a child:
user + system), the target beside them, and the load average before and
after, since on a shared machine the wall time is the figure that moves.
Then every empire's turn-0 report at once, in one process (this one, its
imports paid already), as :func:`turnproc.turns.position.position_reports`
builds them over the read-only connection ``report`` opens: the wall and CPU
time, per report, and whether the database file is byte for byte what it was. Last, ``python -X importtime
-m turnproc --version``: the 15 imports with the largest cumulative time.

The commands run against the tree this script is in (the child's
PYTHONPATH), so a copy of it in an older checkout measures that checkout.
Each command runs once untimed first, and the children may write their
bytecode (``__pycache__``), as an installed turnproc has it: with
``--no-bytecode`` (or PYTHONDONTWRITEBYTECODE set and ``--keep-env``) every
process compiles turnproc's own modules again, which the figures then include.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.synthetic import GAME, empire_code, synthetic_state, write_game
from turnproc.config import load_config
from turnproc.storage import plainread
from turnproc.turns.position import position_reports

ROOT = Path(__file__).resolve().parent.parent

#: (label, argv after --config, target in seconds of wall time, which database)
COMMANDS = [
    ("--version", ["--version"], 0.15, None),
    ("--help", ["--help"], 0.15, None),
    ("game show", ["game", "show", GAME], 0.4, "after"),
    ("empire list", ["empire", "list", GAME], 0.4, "after"),
    ("report", ["report", GAME, empire_code(0)], 0.6, "after"),
    ("report (turn 0)", ["report", GAME, empire_code(0)], 0.6, "before"),
]


def _config(folder: Path, db: Path) -> Path:
    path = folder / f"{db.stem}.toml"
    path.write_text(
        f'database_url = "sqlite:///{db}"\nmaildir_in = "{folder / "in"}"\n'
        f'maildir_out = "{folder / "out"}"\n',
        encoding="utf-8",
    )
    return path


def set_up(folder: Path, n: int) -> dict[str, Path]:
    """Two configs: ``before`` turn 1 has run, and ``after``."""
    before, after = folder / "before.db", folder / "after.db"
    write_game(f"sqlite:///{before}", synthetic_state(n))
    shutil.copyfile(before, after)
    configs = {"before": _config(folder, before), "after": _config(folder, after)}
    done = _run(configs["after"], ["turn", "run", GAME, "--yes"])
    if done.returncode != 0:
        raise SystemExit(f"turn run failed:\n{done.stderr}")
    return configs


#: Whether the children may write and use turnproc's bytecode (see the docstring).
BYTECODE = {"cached": True}


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name in ("TURNPROC_CONFIG", "TURNPROC_DATABASE_URL"):
        env.pop(name, None)
    if BYTECODE["cached"]:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _run(config: Path | None, argv: list[str]) -> subprocess.CompletedProcess[str]:
    full = [sys.executable, "-m", "turnproc", *(["--config", str(config)] if config else []), *argv]
    return subprocess.run(full, cwd=ROOT, env=_env(), capture_output=True, text=True, check=False)


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(config: Path | None, argv: list[str], runs: int) -> tuple[float, float]:
    """Median wall and median CPU seconds of ``runs`` cold processes."""
    _run(config, argv)  # untimed: the page cache and the bytecode, as a GM's second command finds them
    walls, cpus = [], []
    for _ in range(runs):
        cpu, wall = _child_cpu(), time.perf_counter()
        done = _run(config, argv)
        walls.append(time.perf_counter() - wall)
        cpus.append(_child_cpu() - cpu)
        if done.returncode != 0:
            raise SystemExit(f"turnproc {' '.join(argv)} failed ({done.returncode}):\n{done.stderr}")
    return statistics.median(walls), statistics.median(cpus)


def importtime(top: int = 15) -> list[tuple[int, int, str]]:
    """(self µs, cumulative µs, module) of ``--version``'s imports, by cumulative time."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "turnproc", "--version"],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    rows = []
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if match:
            rows.append((int(match[1]), int(match[2]), match[3][1:] + match[4]))
    return sorted(rows, key=lambda r: -r[1])[:top]


def turn_0_reports(config: Path) -> tuple[int, float, float, bool]:
    """(reports, wall s, CPU s, database unchanged) of every empire's turn-0
    report built in this process, over the read-only connection ``report``
    opens (the state and the parts the reports share built once)."""
    url = load_config(str(config)).database_url
    db = Path(url.removeprefix("sqlite:///"))
    digest = hashlib.sha256(db.read_bytes()).digest()
    wall, cpu = time.perf_counter(), time.process_time()
    with plainread.opened(url) as reader:
        assert reader is not None, f"not a database plainread reads: {url}"
        game = plainread.get_game(reader, GAME)
        codes = [view.code for view in plainread.empire_views(reader, game.id, game.turn)]
        count = sum(1 for _ in position_reports(reader, game, codes))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return count, wall, cpu, hashlib.sha256(db.read_bytes()).digest() == digest


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--empires", type=int, default=1000)
    parser.add_argument(
        "--runs", type=int, default=5, help="cold processes per command (the median is printed)"
    )
    parser.add_argument(
        "--no-bytecode", action="store_true", help="children compile turnproc's modules in every process"
    )
    args = parser.parse_args()
    BYTECODE["cached"] = not args.no_bytecode
    with tempfile.TemporaryDirectory(prefix="turnproc-cli-") as temp:
        folder = Path(temp)
        started = time.perf_counter()
        configs = set_up(folder, args.empires)
        print(
            f"turnproc at {ROOT}, {args.empires} empires;"
            f" set up in {time.perf_counter() - started:.1f} s (not measured)"
        )
        print(
            f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M}Z, {os.cpu_count()} CPUs,"
            f" load average {_load()}, "
            f"bytecode {'cached' if BYTECODE['cached'] else 'compiled in every process'}"
        )
        print(
            f"{'command':<18} {'wall s':>8} {'CPU s':>8} {'target':>8}"
            f"   (median of {args.runs} cold processes)"
        )
        for label, argv, target, which in COMMANDS:
            wall, cpu = measure(configs[which] if which else None, argv, args.runs)
            verdict = "ok" if wall <= target else "over"
            print(f"{label:<18} {wall:>8.3f} {cpu:>8.3f} {'<= ' + format(target, '.2f'):>8}   {verdict}")
        count, wall, cpu, unchanged = turn_0_reports(configs["before"])
        print(
            f"turn-0 reports, all {count} in one process: {wall:.2f} s wall, {cpu:.2f} s CPU "
            f"({1000 * wall / max(count, 1):.1f} ms each); database unchanged: {'yes' if unchanged else 'NO'}"
        )
        print(f"load average after: {_load()}")
    print("python -X importtime -m turnproc --version, the 15 largest cumulative (ms):")
    print(f"{'cumulative':>10} {'self':>8}  module")
    for self_us, cumulative, name in importtime():
        print(f"{cumulative / 1000:>10.1f} {self_us / 1000:>8.1f}  {name}")


if __name__ == "__main__":
    main()
