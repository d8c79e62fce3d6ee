"""The missed-orders guard tells every active player that the deadline moved,
once per deadline acted on, however often the worker passes (turnproc/games/notices.py,
docs/gm-handbook.md, section 7)."""

from __future__ import annotations

import datetime as dt
import email
import email.policy

from sqlalchemy import update

from tests.service.conftest import FakeClock, Game, Outbox
from turnproc.app import App
from turnproc.service.worker import Service
from turnproc.storage import models as m
from turnproc.storage.db import transaction

UTC = dt.timezone.utc
FRIDAY = dt.datetime(
    2026, 1, 9, 20, tzinfo=UTC
)  # the corpus game's first deadline (20:00 London = UTC in January)


def _text(row: m.OutboxMail) -> str:
    message = email.message_from_bytes(row.body, policy=email.policy.default)
    return str(message.get_body(("plain",)).get_content())  # type: ignore[union-attr]


def test_the_guard_mails_each_active_player_once(
    service: Service, clock: FakeClock, game: Game, outbox: Outbox
) -> None:
    clock.set(FRIDAY + dt.timedelta(seconds=10))
    assert service.tick().actions == {"corpus": "guard"}
    notices = outbox.rows("deadline")
    assert sorted(r.recipient for r in notices) == ["ann@example.org", "bo@example.org"]
    assert "Friday 16 January 2026, 20:00 GMT" in notices[0].subject
    text = _text(notices[0])
    assert "Too many empires had no orders on file" in text and "Orders on file stay on file" in text
    # A later pass, and a pass that acts on the same deadline again (a retry
    # after the record of the deadline was lost), mail nothing new.
    clock.advance(minutes=5)
    assert service.tick().actions == {"corpus": "idle"}
    game.update(last_deadline_at=FRIDAY - dt.timedelta(days=1))
    assert service.tick().actions == {"corpus": "guard"}
    assert len(outbox.rows("deadline")) == 2


def test_inactive_empires_are_not_told(
    app: App, service: Service, clock: FakeClock, game: Game, outbox: Outbox
) -> None:
    with transaction(app.sessions) as session:
        session.execute(update(m.Empire).where(m.Empire.code == "VEG").values(active=False))
    clock.set(FRIDAY + dt.timedelta(seconds=10))
    assert service.tick().actions == {"corpus": "guard"}
    assert [r.recipient for r in outbox.rows("deadline")] == ["ann@example.org"]
