"""The inbox's IMAP conversation runs on a thread of its own: the next batch
is fetched while one is handled, and a batch is filed only after it
committed (turnproc/intake/ahead.py)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from turnproc.intake.ahead import FetchAhead
from turnproc.outgoing.mails import ack_context
from turnproc.reports.render import environment, render


class FakeBox:
    """The IMAP commands in the order the server would see them."""

    def __init__(self, uids: list[int], fail_filing: bool = False) -> None:
        self.uids, self.fail_filing = uids, fail_filing
        self.commands: list[tuple[object, ...]] = []
        self.threads: set[str] = set()

    def _log(self, *command: object) -> None:
        self.threads.add(threading.current_thread().name)
        self.commands.append(command)

    def pending(self) -> list[int]:
        self._log("search")
        return list(self.uids)

    def fetch(self, uids: list[int]) -> list[tuple[int, bytes]]:
        self._log("fetch", *uids)
        return [(uid, b"mail %d" % uid) for uid in uids]

    def file_many(self, uids: list[int], folder: str) -> None:
        self._log("file", *uids)
        if self.fail_filing:
            raise ConnectionError("the server went away")


def _poll(box: FakeBox, size: int, handled: list[tuple[object, ...]]) -> None:
    with FetchAhead(box, size) as inbox:  # type: ignore[arg-type]
        for batch in inbox.batches():
            uids = [uid for uid, _ in batch]
            handled.append(("committed", *uids))
            inbox.file(uids, "Processed")


def test_the_next_batch_is_fetched_before_this_one_is_filed() -> None:
    box, handled = FakeBox([1, 2, 3, 4, 5]), []
    _poll(box, 2, handled)
    assert box.commands == [
        ("search",),
        ("fetch", 1, 2),
        ("fetch", 3, 4),
        ("file", 1, 2),
        ("fetch", 5),
        ("file", 3, 4),
        ("file", 5),
    ]
    assert handled == [("committed", 1, 2), ("committed", 3, 4), ("committed", 5)]
    # One thread talks to the server, never the poll's own.
    assert len(box.threads) == 1 and threading.current_thread().name not in box.threads


def test_a_filing_that_failed_stops_the_poll() -> None:
    box, handled = FakeBox([1, 2, 3, 4, 5, 6, 7], fail_filing=True), []
    with pytest.raises(ConnectionError):
        _poll(box, 2, handled)
    # Batch 1's filing failed (while batch 2 was handled, or before): batch 3 is
    # not handled; the mails left are seen again by the next poll.
    assert handled in ([("committed", 1, 2)], [("committed", 1, 2), ("committed", 3, 4)])


def test_a_filing_that_failed_at_the_end_is_raised() -> None:
    with pytest.raises(ConnectionError):
        _poll(FakeBox([1], fail_filing=True), 2, [])


def test_an_empty_inbox_asks_once() -> None:
    box = FakeBox([])
    _poll(box, 2, [])
    assert box.commands == [("search",)]


@pytest.mark.parametrize("outcome", ["accepted", "rejected"])
def test_an_acknowledgement_looks_for_its_missing_html_body_once(
    outcome: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Jinja keeps only the templates it found: render() remembers that an
    acknowledgement has no HTML body instead of asking the disk per mail."""
    context = {
        "subject": "spring26 orders",
        **ack_context(
            outcome=outcome,
            game="spring26",
            empire="RIG",
            turn=3,
            reason="no",
            deadline="Monday",
            lines=[{"line": 4, "text": "TAX", "result": "OK", "row": "   4  TAX" + " " * 28 + "OK"}],
            on_file=["TAX"],
            slots=1,
        ),
    }
    first = render("ack", context)
    env, asked = environment(), list[str]()
    real = env.get_template

    def spy(name: str, *args: Any, **kwargs: Any) -> Any:
        asked.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(env, "get_template", spy)
    assert [render("ack", context) for _ in range(3)] == [first] * 3
    assert first.html is None and "TAX" in first.text and "ack/body.html" not in asked
