"""Games in every state ``game show``, ``empire list`` and ``report`` print
differently, made through the command line and the GM's SQL: before turn 1
with orders, WAIT, an inactive empire, a vacation, a QUIT, sign-up open with a
request waiting and an unconfirmed one, answers not sent; after turn 1 with a
schedule and a deadline the GM set; on hold with a staged turn; paused.

Used by tests/storage/test_plainread.py (and a GM's before/after check of the
read commands' output: ``python -m tests.variedgames URL FOLDER`` writes them)."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

from sqlalchemy import create_engine, text

from turnproc.cli import main

GAMES = ("early", "late", "held", "paused")

#: Every read command over the games, as argv after --config.
READS = [
    argv
    for game in GAMES
    for argv in (
        ("game", "show", game),
        ("game", "show", game, "--json"),
        ("empire", "list", game),
        ("empire", "list", game, "--json"),
        ("report", game, "RIG"),
        ("report", game, "VEG", "--format", "json"),
    )
] + [
    ("report", "late", "RIG", "--turn", "1"),
    ("report", "late", "ALT", "--turn", "0"),
    ("report", "early", "ALT", "--turn", "0"),
]


def gm(config: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["--config", str(config), *argv])
    return status, out.getvalue(), err.getvalue()


def _ok(config: Path, *argv: str) -> str:
    status, out, err = gm(config, *argv)
    assert status == 0, (argv, out, err)
    return out


def write_config(folder: Path, url: str) -> Path:
    config = folder / "turnproc.toml"
    config.write_text(
        f'database_url = "{url}"\nmaildir_in = "{folder / "in"}"\nmaildir_out = "{folder / "out"}"\n'
        'from_address = "turns@turnproc.example"\n',
        encoding="utf-8",
    )
    return config


def make_games(config: Path, url: str) -> None:
    """The games of the module's docstring, in the database at ``url``."""
    _ok(config, "db", "upgrade")
    orders = config.parent / "orders.txt"
    orders.write_text("TAX\nWAIT\n", encoding="utf-8")
    for game in GAMES:
        _ok(config, "game", "new", game, "--players", "4", "--seed", game)
        for code, name, email in (
            ("RIG", "Rigel League", "ann@example.org"),
            ("VEG", "Vega", "bo@example.org"),
            ("ALT", "Altair \u00e9toile", "cy@example.org"),
        ):
            _ok(config, "empire", "add", game, "--code", code, "--name", name, "--email", email)
        _ok(config, "orders", "submit", game, "RIG", str(orders))
    _ok(config, "empire", "deactivate", "early", "ALT")
    _ok(config, "game", "signup", "early", "--open", "--limit", "6")
    _ok(config, "turn", "run", "late", "--yes", "--force")
    _ok(config, "game", "schedule", "late", "--cron", "0 3 * * *", "--tz", "Europe/London")
    _ok(config, "game", "extend", "late", "--hours", "5")
    _ok(config, "turn", "hold", "held")
    _ok(config, "turn", "run", "held", "--yes", "--force")
    _ok(config, "game", "schedule", "paused", "--cron", "30 18 * * 1", "--early-run", "on")
    _ok(config, "game", "pause", "paused")
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            early = conn.scalar(text("SELECT id FROM games WHERE name = 'early'"))
            conn.execute(
                text(
                    "INSERT INTO signup_requests (game_id, code, name, email, status, reason, requested_at, "
                    "confirmed_at) VALUES (:g, 'DEN', 'Deneb', 'di@example.org', 'pending', '', "
                    ":at, :at), (:g, 'ZZZ', 'Unconfirmed', 'zz@example.org', 'pending', '', :at, NULL)"
                ),
                {"g": early, "at": "2026-03-01 10:00:00.000000"},
            )
            conn.execute(text("UPDATE empires SET vacation_until = 3 WHERE code = 'VEG'"))
            conn.execute(
                text("UPDATE empires SET quit_at = :at WHERE code = 'ALT' AND game_id = :g"),
                {"at": "2026-03-02 11:12:13.000000", "g": early},
            )
            for i, at in enumerate(("2026-03-03 08:00:00.250000", "2026-03-04 09:30:00.000000")):
                conn.execute(
                    text(
                        "INSERT INTO suppressed_replies (game_id, recipient, kind, reason, at) "
                        "VALUES (:g, :r, 'ack', :why, :at)"
                    ),
                    {"g": early, "r": f"p{i}@example.org", "why": f"too many replies {i}", "at": at},
                )
    finally:
        engine.dispose()


def outputs(config: Path) -> dict[str, str]:
    """Each read's status, stdout and stderr, by its command line."""
    found = {}
    for argv in READS:
        status, out, err = gm(config, *argv)
        found[" ".join(argv)] = f"{status}\n{out}\n--stderr--\n{err}"
    return found


if __name__ == "__main__":
    url, folder = sys.argv[1], Path(sys.argv[2])
    folder.mkdir(parents=True, exist_ok=True)
    make_games(write_config(folder, url), url)
