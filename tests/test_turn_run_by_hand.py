"""`turnproc turn run` by hand is as careful as the worker: one guard for both,
a confirmation, a minimum time between turns, and a second run for the same
turn refused in one line, one after the other and started together, on
SQLite and PostgreSQL with a 100-empire game."""

from __future__ import annotations

import datetime as dt
import io
import itertools
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from tests.conftest import Fill
from tests.factories import make_game
from turnproc.config import Config
from turnproc.errors import GMError
from turnproc.games.empires import import_players
from turnproc.games.game import new_game
from turnproc.storage import models as m
from turnproc.storage.db import make_engine, make_sessionmaker, transaction
from turnproc.storage.queries import get_game, load_game_view
from turnproc.turns import byhand as handrun
from turnproc.turns import schedule

CODES = tuple("".join(c) for c in itertools.islice(itertools.product("ABCDEFGHIJ", repeat=3), 100))
NOW = dt.datetime(2026, 12, 4, 20, 0, tzinfo=dt.timezone.utc)


def _hundred(url: str) -> None:
    # The GM's bulk import: a hundred players in seconds, where adding them one
    # by one costs minutes.
    engine = make_engine(url)
    players = "code,name,email\n" + "".join(f"{c},Empire {c},p{i}@example.org\n" for i, c in enumerate(CODES))
    with transaction(make_sessionmaker(engine)) as session:
        game, _ = new_game(session, "big", players=len(CODES), seed="by-hand")
        import_players(session, Config(), game, players, NOW)
        game.nmr_limit = 100  # no orders are needed here: the guard never holds a turn of this game
    engine.dispose()


@pytest.fixture
def db_template() -> tuple[str, Fill | None]:
    return "by-hand-100-import", _hundred


@pytest.fixture
def config_file(db_url: str, tmp_path: Path) -> Path:
    path = tmp_path / "turnproc.toml"
    path.write_text(f'database_url = "{db_url}"\nmaildir_in = "in"\nmaildir_out = "out"\n', encoding="utf-8")
    return path


def _turn_run(config: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "turnproc", "--config", str(config), "turn", "run", "big", *extra],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _turn_and_records(db_url: str) -> tuple[int, int]:
    engine = make_engine(db_url)
    try:
        with make_sessionmaker(engine)() as session:
            return get_game(session, "big").turn, session.scalar(
                select(func.count()).select_from(m.TurnRecord)
            ) or 0
    finally:
        engine.dispose()


@pytest.mark.slow
def test_a_second_turn_run_after_the_first_is_refused_in_one_line(config_file: Path, db_url: str) -> None:
    first = _turn_run(config_file, "--yes")
    out, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    assert out.startswith("game big, turn 1: orders in from 0 of 100 active empires\n")
    assert "game big: turn 1 resolved" in out
    second = _turn_run(config_file, "--yes")
    out, err = second.communicate(timeout=120)
    assert second.returncode == 1
    assert len(err.splitlines()) == 1, err
    assert "turn 1 of game big ran" in err and "min_turn_interval" in err and "--force" in err
    assert _turn_and_records(db_url) == (2, 1)


@pytest.mark.slow
def test_two_turn_runs_started_together_run_one_turn(config_file: Path, db_url: str) -> None:
    runs = [_turn_run(config_file, "--yes") for _ in range(2)]
    results = [(p.wait(timeout=120), *p.communicate()) for p in runs]
    codes = sorted(code for code, _, _ in results)
    assert codes == [0, 1], results
    refused = next(err for code, _, err in results if code == 1)
    assert len(refused.splitlines()) == 1, refused
    # Whichever way the second lost: it waited for the first's lock, or it
    # started after the first had committed.
    assert "turn 1 of game big has already run" in refused or "turn 1 of game big ran" in refused
    assert _turn_and_records(db_url) == (2, 1)


@pytest.mark.slow  # a big game's turn in a process of its own
def test_without_a_terminal_turn_run_needs_yes(config_file: Path, db_url: str) -> None:
    p = _turn_run(config_file)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 1
    assert len(err.splitlines()) == 1 and "--yes" in err and "no terminal" in err
    assert _turn_and_records(db_url) == (1, 0)


# -- in-process: the prompt, the guard shared with the worker, the GM's record ---------


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def corpus(sqlite_url: str) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(sqlite_url)
    sessions = make_sessionmaker(engine)
    with transaction(sessions) as session:
        make_game(session)
    yield sessions
    engine.dispose()


def test_on_a_terminal_turn_run_asks_first(run_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    run_cli("game", "new", "alpha", "--players", "1", "--seed", "x")
    run_cli("empire", "add", "alpha", "--code", "RIG", "--name", "Rigel", "--email", "ann@example.org")
    monkeypatch.setattr(sys, "stdin", Terminal())
    asked: list[str] = []
    answers = iter(["n", "y"])

    def answer(prompt: str) -> str:
        asked.append(prompt)
        return next(answers)

    monkeypatch.setattr("builtins.input", answer)
    code, out, _ = run_cli("turn", "run", "alpha", "--force")
    assert code == 1 and "nothing was run" in out and asked == ["run turn 1 of alpha now? [y/N] "]
    assert "orders in from 0 of 1 active empires" in out and "missing: RIG" in out
    code, out, _ = run_cli("turn", "run", "alpha", "--force")
    assert code == 0 and "turn 1 resolved" in out


def test_the_worker_and_turn_run_refuse_with_one_guard(
    corpus: sessionmaker[Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both ask turnproc.turns.schedule.run_refusal, and the same refusal stops both."""
    with transaction(corpus) as session:
        get_game(session, "corpus").deadline_override = NOW - dt.timedelta(minutes=1)
    with corpus() as session:
        loaded = load_game_view(session, name="corpus")
        assert loaded is not None
        view = loaded[1]
    calls: list[str] = []
    real = schedule.run_refusal

    def spy(*args: object, **kwargs: object) -> schedule.Refusal | None:
        calls.append("called")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(schedule, "run_refusal", spy)
    decision = schedule.decide(view, NOW)
    refusal = real(view, NOW)
    assert refusal is not None and refusal.kind == "guard" and decision.action == "guard"
    assert decision.empires == refusal.empires == ("RIG", "VEG")
    with pytest.raises(GMError) as refused:
        handrun.run_by_hand(corpus, "corpus", Config(), NOW)
    assert str(refused.value) == f"{refusal.text}; turnproc turn run corpus --force runs it anyway"
    assert len(calls) == 3  # decide, and turn run's look before and under the lock


def test_turn_run_by_hand_forced_mails_the_gm_one_line(corpus: sessionmaker[Session]) -> None:
    config = Config(gm_address="gm@example.org")
    result = handrun.run_by_hand(corpus, "corpus", config, NOW, force=True)
    assert result.turn == 1
    with corpus() as session:
        notices = session.scalars(
            select(m.OutboxMail.subject).where(m.OutboxMail.recipient == "gm@example.org")
        ).all()
    assert list(notices) == ["[corpus] turn 1 ran by hand"]
    # The next turn, at once: refused by the minimum interval, forced past it.
    with pytest.raises(GMError, match=r"turn 1 of game corpus ran 0 seconds ago, less than the 10 minutes"):
        handrun.run_by_hand(corpus, "corpus", config, NOW)
    assert handrun.run_by_hand(corpus, "corpus", config, NOW, force=True).turn == 2
