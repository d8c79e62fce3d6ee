"""The SQLite database (seeds, password hashes), its WAL
and the Maildirs are private to the account that runs turnproc, whatever the
umask."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from turnproc.mail.maildir import PROCESSED, MaildirInbox, MaildirOutbox
from turnproc.storage.db import make_engine
from turnproc.storage.migrate import ensure_schema


@pytest.fixture
def open_umask() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_sqlite_database_and_its_wal_are_0600(tmp_path: Path, open_umask: None) -> None:
    db = tmp_path / "data" / "turnproc.db"
    engine = make_engine(f"sqlite:///{db}")
    ensure_schema(engine)
    with engine.connect():
        files = [p for p in db.parent.iterdir()]
        assert {p.name for p in files} >= {"turnproc.db", "turnproc.db-wal", "turnproc.db-shm"}
        assert {p.name: mode(p) for p in files} == {p.name: 0o600 for p in files}
    assert mode(db.parent) == 0o700
    engine.dispose()


def test_maildir_folders_and_files_are_private(tmp_path: Path, open_umask: None) -> None:
    out = MaildirOutbox(tmp_path / "mail" / "out")
    out.deliver(b"Subject: report\r\n\r\nsecret\r\n", "ann@example.org")
    inbox = MaildirInbox(tmp_path / "mail" / "in")
    inbox.box.add(b"Subject: orders\r\n\r\nEMPIRE RIG secret\r\n")
    key, _ = next(inbox.pending())
    inbox.file(key, PROCESSED)
    for root in (tmp_path / "mail",):
        for path in [root, *root.rglob("*")]:
            expected = 0o700 if path.is_dir() else 0o600
            assert mode(path) == expected, path
    assert len(list((tmp_path / "mail" / "out" / "new").iterdir())) == 1
    assert len(list((tmp_path / "mail" / "in" / f".{PROCESSED}" / "cur").iterdir())) == 1
