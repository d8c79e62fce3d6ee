"""The APScheduler wiring in-process: a stop request lets the turn in hand finish."""

from __future__ import annotations

import datetime as dt
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import select

import turnproc.service.worker
from tests.factories import make_game
from turnproc.app import open_app
from turnproc.config import Config
from turnproc.service.process import WorkerSettings, run_worker
from turnproc.storage import models as m
from turnproc.storage.db import transaction

UTC = dt.timezone.utc


def test_stop_lets_the_turn_in_hand_finish(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = Config(database_url=sqlite_url, maildir_in=tmp_path / "in", maildir_out=tmp_path / "out")
    app = open_app(config)
    with transaction(app.sessions) as session:
        # A yearly schedule whose deadline is due.
        make_game(
            session,
            schedule="0 3 1 1 *",
            nmr_limit=100,
            last_deadline_at=dt.datetime.now(UTC) - dt.timedelta(days=400),
        )
    real = turnproc.service.worker.run_turn
    running = threading.Event()

    def slow_run_turn(*args: object, **kw: object) -> object:
        running.set()
        time.sleep(1.0)  # a big game's turn
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(turnproc.service.worker, "run_turn", slow_run_turn)
    stop = threading.Event()
    codes: list[int] = []
    thread = threading.Thread(
        target=lambda: codes.append(run_worker(config, WorkerSettings(tick=0.1, poll=0.1, flush=0.1), stop))
    )
    thread.start()
    assert running.wait(20), "the turn never started"
    stop.set()  # what SIGTERM does
    thread.join(30)
    assert not thread.is_alive() and codes == [0]
    with app.sessions() as session:
        assert session.scalars(select(m.TurnRecord.number)).all() == [1]
        assert session.scalar(select(m.Game.turn)) == 2
    app.close()
