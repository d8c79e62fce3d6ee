"""The public pages' refresh over a long game (docs/gm-handbook.md "Public
pages"): after each turn only the new turn's page, the one before it and the
game's own pages are written; older turns' pages keep their files and their
words; after a rollback or a rerun every page shows the turns that hold now.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
from pathlib import Path

import pytest
from sqlalchemy import event

from tests.conftest import SqliteTemplates
from tests.factories import make_game
from turnproc.config import Config
from turnproc.games.publish import write_site
from turnproc.intake import submit_orders
from turnproc.storage import models as m
from turnproc.storage.db import make_engine, make_sessionmaker, transaction
from turnproc.storage.queries import get_game
from turnproc.turns.control import rerun_turn, rollback
from turnproc.turns.run import run_turn

NOW = dt.datetime(2026, 1, 5, 12, 0, tzinfo=dt.timezone.utc)
TURNS = 12
OLD = 1_000_000_000  # a file time long past: a file rewritten gets the clock's

# Both tests start from the long game played once (its database and its pages),
# so they run on one worker, which plays it once.
# Slow: a twelve-turn game is played first.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("site-refresh")]


def _press(session: object, game: m.Game, text: str) -> None:
    empire = next(e for e in game.empires if e.code == "RIG")
    parsed, _ = submit_orders(session, game, empire, f"MESSAGE ALL {text}", NOW)  # type: ignore[arg-type]
    assert not parsed.errors, parsed.errors


def _page(site: Path, turn: int) -> str:
    return (site / "turns" / f"{turn}.html").read_text(encoding="utf-8")


def _play(  # type: ignore[no-untyped-def]
    sessions, config: Config, site: Path, turns: range, word: str = "news"
) -> None:
    for turn in turns:
        with transaction(sessions) as session:
            game = get_game(session, "corpus")
            _press(session, game, f"{word} of turn {turn}")
            run_turn(session, game, config, NOW + dt.timedelta(days=7 * turn))
        with transaction(sessions) as session:
            write_site(session, "corpus", site, NOW + dt.timedelta(days=7 * turn, hours=1))


@pytest.fixture(scope="module")
def played(sqlite_templates: SqliteTemplates, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the game played to turn TURNS - 1 (``game.db``), its pages
    refreshed after each turn (``site``): played once for the module, since
    each test changes only its own copy."""
    folder = tmp_path_factory.mktemp("played")
    shutil.copyfile(sqlite_templates.get(), folder / "game.db")
    engine = make_engine(f"sqlite:///{folder / 'game.db'}")
    sessions = make_sessionmaker(engine)
    with transaction(sessions) as session:
        make_game(session)
    _play(sessions, _config(folder), folder / "site", range(1, TURNS))
    engine.dispose()
    return folder


def _config(folder: Path) -> Config:
    return Config(database_url="sqlite://", maildir_out=folder / "out")


@pytest.fixture
def sessions(played: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    shutil.copyfile(played / "game.db", tmp_path / "game.db")
    engine = make_engine(f"sqlite:///{tmp_path / 'game.db'}")
    yield make_sessionmaker(engine)
    engine.dispose()


@pytest.fixture
def config(played: Path, tmp_path: Path) -> Config:
    """The played game's config and a copy of its pages, in ``tmp_path/site``."""
    for name in ("site", "out"):
        if (played / name).exists():
            shutil.copytree(played / name, tmp_path / name)
    return _config(tmp_path)


def test_a_refresh_writes_only_the_new_turns_pages(  # type: ignore[no-untyped-def]
    sessions, config: Config, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    for path in (site / "turns").iterdir():
        os.utime(path, (OLD, OLD))
    with transaction(sessions) as session:
        game = get_game(session, "corpus")
        _press(session, game, f"news of turn {TURNS}")
        run_turn(session, game, config, NOW + dt.timedelta(days=7 * TURNS))
    reads: list[str] = []
    listen = lambda conn, cursor, sql, params, context, many: reads.append(sql)  # noqa: E731
    event.listen(sessions.kw["bind"], "before_cursor_execute", listen)
    with transaction(sessions) as session:
        write_site(session, "corpus", site, NOW + dt.timedelta(days=7 * TURNS, hours=1))
    event.remove(sessions.kw["bind"], "before_cursor_execute", listen)
    # One turn's saved state read: turn 12's, for the standings after turn 11.
    assert len([sql for sql in reads if "state_before" in sql]) == 1
    written = sorted(p.name for p in (site / "turns").iterdir() if p.stat().st_mtime != OLD)
    # Turn 12's data and page; turn 11's page, whose standings came from the
    # game's live rows until turn 12 ran and now come from turn 12's record.
    assert written == [f"{TURNS - 1}.html", f"{TURNS}.html", f"{TURNS}.json"]
    for turn in range(1, TURNS + 1):
        page = _page(site, turn)
        assert f"Standings after turn {turn}" in page and f"news of turn {turn}" in page
        assert "taking orders" not in page  # it would go stale: the page is written once
    listed = (site / "turns.html").read_text(encoding="utf-8")
    assert all(f'href="turns/{t}.html"' in listed for t in range(TURNS + 1))
    press = (site / "press.html").read_text(encoding="utf-8")
    assert [t for t in range(1, TURNS + 1) if f"news of turn {t}<" in press] == [TURNS - 2, TURNS - 1, TURNS]


def test_rollback_and_rerun_over_a_long_game_show_the_turns_that_hold(
    sessions, config: Config, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    site = tmp_path / "site"
    later = NOW + dt.timedelta(days=7 * TURNS)
    with transaction(sessions) as session:
        game = get_game(session, "corpus")
        rollback(session, game, 6, later, config)
    with transaction(sessions) as session:
        write_site(session, "corpus", site, later)
    assert sorted(int(p.stem) for p in (site / "turns").glob("*.html")) == list(range(6))
    assert sorted(int(p.stem) for p in (site / "turns").glob("*.json")) == list(range(1, 6))
    # Turns 6 and on again, with other press; then, the pages not refreshed
    # in between, turn 8 taken back and run with other orders (a turn record
    # the same number, maybe the same id: SQLite gives the freed one again),
    # and run again with its seed.
    _play(sessions, config, site, range(6, 10), word="second news")
    with transaction(sessions) as session:
        game = get_game(session, "corpus")
        rollback(session, game, 8, later, config)
        _press(session, game, "third news of turn 8")
        run_turn(session, game, config, later)
        rerun_turn(session, game, 8, config, later + dt.timedelta(days=1))
    with transaction(sessions) as session:
        write_site(session, "corpus", site, later + dt.timedelta(days=1))
    for turn in range(1, 6):
        assert f"news of turn {turn}<" in _page(site, turn) and "second news" not in _page(site, turn)
    assert "second news of turn 6" in _page(site, 6) and "second news of turn 7" in _page(site, 7)
    assert "third news of turn 8" in _page(site, 8) and "second news of turn 8" not in _page(site, 8)
    assert sorted(int(p.stem) for p in (site / "turns").glob("*.html")) == list(range(9))
    # The pages agree with pages written from nothing.
    fresh = tmp_path / "fresh"
    with transaction(sessions) as session:
        write_site(session, "corpus", fresh, later + dt.timedelta(days=1))
    for path in sorted((fresh / "turns").glob("*.html")):
        assert (site / "turns" / path.name).read_bytes() == path.read_bytes(), path.name
    for name in ("index.html", "turns.html", "press.html"):
        assert (site / name).read_bytes() == (fresh / name).read_bytes(), name
