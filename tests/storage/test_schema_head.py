"""The schema check every command makes reads the newest migration's revision
from the files without Alembic (turnproc.storage.migrate): it must name the
head Alembic itself finds, and the revision Alembic reads from a database."""

from __future__ import annotations

from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from turnproc.storage import migrate, plainread
from turnproc.storage.db import make_engine


def test_the_head_read_from_the_files_is_alembics() -> None:
    assert migrate.head_revision() == ScriptDirectory.from_config(migrate._config(None)).get_current_head()


def test_the_revision_read_from_a_database_is_alembics(db_url: str, empty_db_url: str) -> None:
    for url in (db_url, empty_db_url):
        engine = make_engine(url)
        try:
            with engine.connect() as conn:
                expected = MigrationContext.configure(conn).get_current_revision()
            assert migrate.current_revision(engine) == expected
        finally:
            engine.dispose()
    assert expected is None  # the empty one; the migrated one is at head
    engine = make_engine(db_url)
    try:
        assert migrate.current_revision(engine) == migrate.head_revision() is not None
    finally:
        engine.dispose()


def test_the_plain_readers_head_is_alembics() -> None:
    """The reads of the GM's prompt (turnproc/storage/plainread.py) check the
    schema against a constant: a new migration must move it, or fail here."""
    assert ScriptDirectory.from_config(migrate._config(None)).get_current_head() == plainread.SCHEMA_HEAD
