"""The password key file, and what the database holds of a password: only
hashes and keyed tags, and a queued welcome mail's password sealed by the key,
gone once the mail is delivered (docs/gm-handbook.md "Passwords and
guessing", deploy/OPERATIONS.md "The password key")."""

from __future__ import annotations

import dataclasses
import datetime as dt
import mailbox
import re
import stat
from email import message_from_bytes, policy
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.security.host import NOW, deliver, mail
from turnproc.accounts.passwordkey import KEY_FILE_NAME, key_path, load_key
from turnproc.accounts.passwords import verify_password
from turnproc.app import App
from turnproc.config import Config
from turnproc.games.empires import reset_password
from turnproc.intake import poll_maildir
from turnproc.mail.outbox import SCRUBBED
from turnproc.outgoing.reportmail import send_outbox
from turnproc.storage import models as m
from turnproc.storage.db import transaction


def test_the_key_file_is_made_private_beside_the_data_and_never_replaced(tmp_path: Path) -> None:
    config = Config(database_url=f"sqlite:///{tmp_path / 'data' / 'game.db'}")
    (tmp_path / "data").mkdir()
    path = key_path(config)
    assert path == tmp_path / "data" / KEY_FILE_NAME
    key = load_key(config)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_key(config) == key  # read, not made again
    named = dataclasses.replace(config, password_tag_key_file=tmp_path / "elsewhere.key")
    assert key_path(named) == tmp_path / "elsewhere.key" and load_key(named) != key


def test_on_a_database_server_the_key_is_in_the_state_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "state"))
    assert (
        key_path(Config(database_url="postgresql+psycopg://turnproc@db/turnproc"))
        == tmp_path / "state" / KEY_FILE_NAME
    )


def test_a_lost_key_loses_nothing_the_next_correct_password_tags_again(app: App, tmp_path: Path) -> None:
    deliver(app, mail("TAX"))
    assert [r.outcome for r in poll_maildir(app, NOW)] == ["accepted"]
    lost = dataclasses.replace(app.config, password_tag_key_file=tmp_path / "new.key")
    relaunched = App(lost, app.engine, app.sessions)
    deliver(app, mail("TAX", password="a-guess"), mail("MOVE 101 103 1"))
    assert sorted(r.outcome for r in poll_maildir(relaunched, NOW + dt.timedelta(minutes=1))) == [
        "accepted",
        "wrong_password",
    ]
    with app.sessions() as session:
        rig = session.scalars(select(m.Empire).where(m.Empire.code == "RIG")).one()
        assert load_key(lost).valid(rig.password_hash, rig.password_tag)
        assert not load_key(app.config).valid(rig.password_hash, rig.password_tag)


def test_a_queued_welcome_holds_no_password_and_a_sent_one_nothing(app: App) -> None:
    with transaction(app.sessions) as session:
        game = session.scalars(select(m.Game)).one()
        password = reset_password(session, app.config, game, "RIG", NOW)
    with app.sessions() as session:
        [row] = session.scalars(select(m.OutboxMail).where(m.OutboxMail.kind == "welcome")).all()
        assert row.body is None and row.data is not None and password not in row.data
        rig = session.scalars(select(m.Empire).where(m.Empire.code == "RIG")).one()
        assert load_key(app.config).valid(rig.password_hash, rig.password_tag)
        everything = " ".join(str(v) for v in session.execute(select(m.Empire.__table__)).all())
        assert password not in everything
    sent, failed = send_outbox(app.sessions, app.config, NOW)
    assert (sent, failed) == (1, 0)
    [delivered] = [
        message_from_bytes(mailbox.Maildir(app.config.maildir_out).get_bytes(k), policy=policy.default)
        for k in mailbox.Maildir(app.config.maildir_out).iterkeys()
    ]
    text = str(delivered.get_body(preferencelist=("plain",)).get_content())  # type: ignore[union-attr]
    found = re.search(r"Your password:\s+(\S+)", text)
    # The password once, where it is said to be; the example order mail has the
    # placeholder, so a welcome sent back never reads as her order mail.
    assert found is not None and found.group(1) == password and text.count(password) == 1
    assert "EMPIRE RIG <password>" in text
    assert verify_password(password, rig.password_hash)
    with app.sessions() as session:
        [row] = session.scalars(select(m.OutboxMail).where(m.OutboxMail.kind == "welcome")).all()
        assert row.body == SCRUBBED and row.data is None


def test_a_welcome_sealed_under_another_key_is_not_sent_with_a_wrong_password(
    app: App, tmp_path: Path
) -> None:
    with transaction(app.sessions) as session:
        game = session.scalars(select(m.Game)).one()
        reset_password(session, app.config, game, "RIG", NOW)
    other = dataclasses.replace(app.config, password_tag_key_file=tmp_path / "other.key")
    sent, failed = send_outbox(app.sessions, other, NOW)
    assert (sent, failed) == (0, 1)
