"""The worker refreshes a game's public pages after each turn it runs, when the
config names a ``site_dir`` (deploy/turnproc.example.toml, docs/gm-handbook.md),
on SQLite and PostgreSQL; a folder it cannot write does not stop it."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.service.conftest import GM, FakeClock, new_game
from turnproc.app import App, open_app
from turnproc.config import Config, load_config
from turnproc.service.worker import Service

FRIDAY = dt.datetime(2026, 1, 9, 20, 0, tzinfo=dt.timezone.utc)


@pytest.fixture
def site_app(db_url: str, tmp_path: Path) -> Iterator[App]:
    config = Config(
        database_url=db_url,
        maildir_in=tmp_path / "in",
        maildir_out=tmp_path / "out",
        gm_address=GM,
        site_dir=tmp_path / "www",
    )
    app = open_app(config)
    yield app
    app.close()


def test_the_worker_writes_the_pages_after_a_turn(site_app: App, clock: FakeClock, tmp_path: Path) -> None:
    game = new_game(site_app, clock)
    service = Service(site_app, clock=clock)
    game.orders("RIG", clock.now, "MESSAGE ALL Rigel speaks")
    game.orders("VEG", clock.now)
    assert service.tick().actions == {"corpus": "idle"}
    assert not (tmp_path / "www").exists()  # no turn ran, nothing written
    clock.set(FRIDAY + dt.timedelta(seconds=5))
    assert service.tick().actions == {"corpus": "run"}
    index = (tmp_path / "www" / "corpus" / "index.html").read_text(encoding="utf-8")
    assert "After turn 1." in index
    assert "Rigel speaks" in (tmp_path / "www" / "corpus" / "press.html").read_text(encoding="utf-8")


def test_a_site_folder_it_cannot_write_is_logged_and_the_turn_stands(
    site_app: App, clock: FakeClock, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "www").write_text("a file where the folder should be", encoding="utf-8")
    game = new_game(site_app, clock)
    game.orders("RIG", clock.now)
    game.orders("VEG", clock.now)
    clock.set(FRIDAY + dt.timedelta(seconds=5))
    with caplog.at_level(logging.WARNING, logger="turnproc.games.publish"):
        assert Service(site_app, clock=clock).tick().actions == {"corpus": "run"}
    assert game.turns() == [1]
    assert any("public pages" in r.getMessage() and "not refreshed" in r.getMessage() for r in caplog.records)


def test_site_dir_in_the_config_file_is_relative_to_the_file(tmp_path: Path) -> None:
    (tmp_path / "etc").mkdir()
    file = tmp_path / "etc" / "turnproc.toml"
    file.write_text('site_dir = "www"\n', encoding="utf-8")
    assert load_config(file, env={}).site_dir == tmp_path / "etc" / "www"
    assert Config().site_dir is None
