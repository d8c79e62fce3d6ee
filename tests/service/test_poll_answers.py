"""The worker's poll hands each batch's answers to the outbox as soon as the
batch is committed, not once the whole inbox is read: in a deadline-eve burst
the first players' acknowledgements go while later mails are still read."""

from __future__ import annotations

import mailbox

import pytest

from tests.factories import order_mail
from tests.service.conftest import ORDERS, FakeClock, Game, Outbox
from turnproc.app import App
from turnproc.intake import inbox
from turnproc.service.worker import Service


def _inbox(app: App) -> mailbox.Maildir:
    app.config.maildir_in.parent.mkdir(parents=True, exist_ok=True)
    return mailbox.Maildir(app.config.maildir_in, create=True)


def test_each_batch_wakes_the_outbox_once_committed(
    app: App, game: Game, clock: FakeClock, outbox: Outbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(inbox, "BATCH", 1)  # three mails, three batches
    box = _inbox(app)
    for code in ("RIG", "VEG", "RIG"):
        box.add(order_mail(ORDERS[code], empire=code, turn=1))
    # What a flush woken at each call would find: the answers committed so far.
    found: list[int] = []
    service = Service(app, clock=clock, on_mail_queued=lambda: found.append(len(outbox.rows("ack"))))
    assert service.poll() == 3
    assert found == [1, 2, 3]
    assert service.flush_requested.is_set()


def test_a_batch_with_nothing_to_answer_wakes_nothing(app: App, game: Game, clock: FakeClock) -> None:
    # A bounce is filed without an answer: no flush is woken for it.
    raw = (
        b"From: MAILER-DAEMON@example.org\nTo: turns@turnproc.example\n"
        b"Subject: Undelivered Mail Returned to Sender\n\nGone.\n"
    )
    _inbox(app).add(raw)
    woken: list[bool] = []
    service = Service(app, clock=clock, on_mail_queued=lambda: woken.append(True))
    assert service.poll() == 1
    assert woken == [] and not service.flush_requested.is_set()
