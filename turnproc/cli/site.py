"""A game's public pages: ``turnproc site GAME DIR``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .common import add_command, now, open_from, out


def cmd_site(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..games.publish import write_site
    from ..storage.db import read_only  # (as above)

    app = open_from(args)
    with read_only(app.sessions) as session:
        pyodide = Path(args.pyodide) if args.pyodide else app.config.pyodide_dir
        written = write_site(
            session, args.game, Path(args.dir), now(), host_address=app.config.from_address, pyodide=pyodide
        )
    index = Path(args.dir) / "index.html"
    pages = [p for p in written if p.parent == Path(args.dir)]
    out(f"{len(pages)} files of game {args.game}'s public pages in {args.dir} (open {index})")
    checker = "with its checker" if pyodide else "without its checker (no --pyodide, no pyodide_dir)"
    out(f"the order desk {checker}: {Path(args.dir) / 'orders' / 'index.html'}")
    return 0


SUMMARY = (
    "Write a game's public pages (standings, VP plot, public press, announcements, rules) as a static site."
)


def register(sub: Any) -> None:
    p = add_command(sub, "site", cmd_site, SUMMARY, "turnproc site spring26 /var/www/starchase/spring26")
    p.add_argument("game", metavar="GAME", help="the game's name")
    p.add_argument(
        "dir", metavar="DIR", help="the folder to write the pages into (made if missing; files are replaced)"
    )
    p.add_argument(
        "--pyodide",
        metavar="PYODIDE_DIR",
        help=(
            "an unpacked pyodide package (node_modules/pyodide), copied in for the order desk's checker; "
            "default: pyodide_dir of the config"
        ),
    )
