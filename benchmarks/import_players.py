"""Import benchmark: ``turnproc empire import`` of N players (default 500) into
a fresh generated galaxy with N homes, on SQLite (or ``--database-url``).

    .venv/bin/python -m benchmarks.import_players            # N = 500
    .venv/bin/python -m benchmarks.import_players --players 100 --database-url postgresql+psycopg://...

What is timed: the command as a GM runs it, in this process — read the CSV,
check every row, place every empire, hash every password, write the rows and
the galaxy, queue every welcome mail (each with its turn-0 report), commit.
Creating the game and the CSV happen before the clock starts. Target (issue
13): 500 players in under 30 s on the project's 2-core machine.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

from turnproc.cli import main


def run(players: int, database_url: str | None, workdir: Path) -> float:
    os.chdir(workdir)
    config = workdir / "turnproc.toml"
    url = database_url or f"sqlite:///{workdir / 'bench.db'}"
    config.write_text(f'database_url = "{url}"\nmaildir_in = "in"\nmaildir_out = "out"\n', encoding="utf-8")
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        status = main(
            ["--config", str(config), "game", "new", "bench", "--players", str(players), "--seed", "bench"]
        )
    if status != 0:
        raise SystemExit(f"game new failed:\n{quiet.getvalue()}")
    rows = ["code,name,email"]
    for i in range(players):
        code = "".join(chr(65 + (i // 26**k) % 26) for k in (2, 1, 0))
        rows.append(f"{code},Empire {code},player{i}@example.org")
    csv_file = workdir / "players.csv"
    csv_file.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        status = main(["--config", str(config), "empire", "import", "bench", str(csv_file)])
    elapsed = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"empire import failed:\n{out.getvalue()}")
    return elapsed


def main_() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, default=500, help="players to import (default 500)")
    parser.add_argument(
        "--database-url", help="a database to use instead of a fresh SQLite file (it must be empty)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        elapsed = run(args.players, args.database_url, Path(tmp))
    load = os.getloadavg()[0]
    verdict = "OK" if elapsed < 30 or args.players != 500 else "TOO SLOW"
    print(
        f"empire import of {args.players} players: {elapsed:.1f} s (target for 500: < 30 s) {verdict};"
        f" load average {load:.1f}"
    )
    return 0 if verdict == "OK" else 1


if __name__ == "__main__":
    sys.exit(main_())
