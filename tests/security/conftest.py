"""The ``app`` every security test attacks: the two-empire game on SQLite and
on PostgreSQL, mail in from a Maildir, the GM at :data:`tests.security.host.GM`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.factories import HOST_ADDRESS, make_game
from tests.security.host import GM
from turnproc.app import App, open_app
from turnproc.config import Config
from turnproc.storage.db import transaction


@pytest.fixture
def app(db_url: str, tmp_path: Path) -> Iterator[App]:
    config = Config(
        database_url=db_url,
        maildir_in=tmp_path / "in",
        maildir_out=tmp_path / "out",
        from_address=f"Host <{HOST_ADDRESS}>",
        gm_address=GM,
    )
    app = open_app(config)
    with transaction(app.sessions) as session:
        make_game(session)
    yield app
    app.close()
