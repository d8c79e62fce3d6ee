"""The GM's commands for the service: game schedule, pause, resume, worker --once;
and the worker's log formats."""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select, update

from turnproc.runtime.logs import JournalFormatter, JsonFormatter
from turnproc.storage import models as m


@pytest.fixture
def run(migrated_default_db, run_cli):
    """A two-empire game made through the CLI, then the CLI itself."""
    _run = run_cli
    _run("game", "new", "alpha", "--players", "2", "--seed", "svc")
    _run("empire", "add", "alpha", "--code", "RIG", "--name", "Rigel", "--email", "ann@example.org")
    _run("empire", "add", "alpha", "--code", "VEG", "--name", "Vega", "--email", "bo@example.org")
    return _run


def _game(tmp_path: Path) -> m.Game:
    engine = create_engine(f"sqlite:///{tmp_path / 'turnproc.db'}")
    with engine.connect() as conn:
        row = conn.execute(select(m.Game.__table__)).mappings().one()
    engine.dispose()
    return m.Game(**row)


def test_schedule_sets_and_shows(run, tmp_path: Path) -> None:
    code, out, _ = run("game", "schedule", "alpha")
    assert code == 0 and "schedule: none (run turns by hand) (UTC)" in out and "early run: off" in out
    before = dt.datetime.now(dt.timezone.utc)
    code, out, _ = run(
        "game",
        "schedule",
        "alpha",
        "--cron",
        "0  3 * * 1",
        "--tz",
        "Europe/London",
        "--early-run",
        "on",
        "--early-run-delay",
        "45",
        "--reminder-hours",
        "12",
        "--inactive-after",
        "3",
        "--nmr-limit",
        "40",
    )
    assert code == 0, out
    assert "schedule: 0 3 * * 1 (Europe/London)" in out
    assert "next deadline: Monday" in out and ("03:00 GMT" in out or "03:00 BST" in out)
    assert (
        "early run: on, 45 minutes after the last orders" in out
        and "reminders: 12 hours before the deadline" in out
    )
    assert (
        "inactive after 3 missed turns; the missed-orders guard stops a turn when more than 40% send no "
        "orders" in out
    )
    game = _game(tmp_path)
    assert (game.schedule, game.timezone, game.early_run, game.early_run_delay) == (
        "0 3 * * 1",
        "Europe/London",
        True,
        45,
    )
    assert (game.reminder_hours, game.inactive_after, game.nmr_limit) == (12, 3, 40)
    # A new schedule counts deadlines from now: none before the change runs.
    assert game.last_deadline_at is not None and game.last_deadline_at >= before
    code, out, _ = run("game", "schedule", "alpha", "--early-run-delay", "1")
    assert code == 0 and "early run: on, 1 minute after the last orders" in out  # not "1 minutes"
    code, out, _ = run("game", "schedule", "alpha", "--early-run", "off")
    assert code == 0 and "early run: off" in out and _game(tmp_path).last_deadline_at == game.last_deadline_at
    code, out, _ = run("game", "schedule", "alpha", "--cron", "off")
    assert code == 0 and "schedule: none" in out and _game(tmp_path).schedule is None


@pytest.mark.parametrize(
    "args, message",
    [
        (("--cron", "0 3 * *"), "bad cron expression '0 3 * *'"),
        (("--cron", "0 3 * * funday"), "bad cron expression"),
        (("--cron", "0 3 * * *", "--tz", "Mars/Olympus"), "unknown time zone 'Mars/Olympus'"),
        (("--nmr-limit", "150"), "--nmr-limit 150: must be from 0 to 100"),
        (("--inactive-after", "0"), "--inactive-after 0: must be from 1"),
    ],
)
def test_schedule_mistakes_are_one_line_errors_and_change_nothing(
    run, tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    before = _game(tmp_path)
    code, _, err = run("game", "schedule", "alpha", "--early-run", "on", *args)
    assert code == 1 and message in err and err.count("\n") == 1
    after = _game(tmp_path)
    assert (after.schedule, after.timezone, after.early_run, after.nmr_limit) == (
        before.schedule,
        before.timezone,
        before.early_run,
        before.nmr_limit,
    )


def test_pause_and_resume(run, tmp_path: Path) -> None:
    run("game", "schedule", "alpha", "--cron", "0 3 * * *")
    code, out, _ = run("game", "pause", "alpha")
    assert code == 0 and "paused" in out and _game(tmp_path).status == "paused"
    code, _, err = run("game", "pause", "alpha")
    assert code == 1 and "already paused" in err
    code, out, _ = run("game", "show", "alpha")
    assert "paused" in out
    code, out, _ = run("game", "resume", "alpha")
    assert code == 0 and "game alpha: active" in out and "next deadline:" in out
    code, _, err = run("game", "resume", "alpha")
    assert code == 1 and "is not paused" in err
    code, _, err = run("game", "pause", "nope")
    assert code == 1 and "no game named 'nope'" in err


@pytest.mark.slow
def test_worker_once_runs_a_due_deadline_and_sends_the_mail(run, tmp_path: Path) -> None:
    run("game", "schedule", "alpha", "--cron", "0 3 * * *", "--nmr-limit", "100")
    engine = create_engine(f"sqlite:///{tmp_path / 'turnproc.db'}")
    with engine.begin() as conn:
        conn.execute(
            update(m.Game).values(last_deadline_at=dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=2))
        )
    engine.dispose()
    (tmp_path / "turnproc.toml").write_text('gm_address = "gm@example.org"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNPROC_")}
    done = subprocess.run(
        [sys.executable, "-m", "turnproc", "worker", "--once", "--log-format", "journal"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "<6>INFO turnproc.service.worker: game alpha: turn 1 ran at the deadline" in done.stderr
    assert "<4>WARNING" not in done.stderr
    sent = list((tmp_path / "mail" / "out" / "new").iterdir())
    # Two welcome mails, the new schedule to both players, two reports, one notice to the GM.
    assert len(sent) == 7
    done = subprocess.run(
        [sys.executable, "-m", "turnproc", "worker", "--once"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and len(list((tmp_path / "mail" / "out" / "new").iterdir())) == 7


def _record(level: int, msg: str, exc: bool = False) -> logging.LogRecord:
    exc_info = None
    if exc:
        try:
            raise ValueError("boom")
        except ValueError:
            exc_info = sys.exc_info()
    return logging.LogRecord("turnproc.service.worker", level, __file__, 1, msg, (), exc_info)


def test_journal_lines_carry_the_priority_and_no_timestamp() -> None:
    f = JournalFormatter()
    assert f.format(_record(logging.INFO, "turn ran")) == "<6>INFO turnproc.service.worker: turn ran"
    lines = f.format(_record(logging.ERROR, "failed", exc=True)).splitlines()
    assert lines[0] == "<3>ERROR turnproc.service.worker: failed"
    assert len(lines) > 2 and all(line.startswith("<3>") for line in lines)
    assert lines[-1] == "<3>ValueError: boom"


def test_json_lines_are_one_object_each() -> None:
    line = JsonFormatter().format(_record(logging.WARNING, "inbox: down", exc=True))
    assert "\n" not in line
    entry = json.loads(line)
    assert (
        entry["level"] == "WARNING"
        and entry["logger"] == "turnproc.service.worker"
        and entry["message"] == "inbox: down"
    )
    assert "ValueError: boom" in entry["exception"] and entry["time"].endswith("+00:00")
