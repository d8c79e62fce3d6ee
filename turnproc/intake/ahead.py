"""The inbox's IMAP conversation on a thread of its own, so the poll's
handling never waits for the server: while a batch is handled, the next one
is fetched, and the batches already committed are filed.

The connection is used by that one thread only, one command at a time, in
the order they were asked for (a one-thread executor is a queue), so the
rules of :mod:`.inbox` stand as they were: a mail is filed only after the
transaction that handled it committed, and a mail not filed (the process
died, or the server went away) is seen again by the next poll, which
recognises it and changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType

from ..mail.imap import ImapMailbox

log = logging.getLogger(__name__)

__all__ = ["FetchAhead"]


class FetchAhead:
    """``with FetchAhead(box, size) as inbox``: ``inbox.batches()`` yields the
    waiting mails ``size`` at a time, each fetched while the one before was
    handled; ``inbox.file(uids, folder)`` files mails once their batch
    committed. Leaving the block waits for every filing asked for; a filing
    that failed is raised there, or with the batch after next."""

    def __init__(self, box: ImapMailbox, size: int) -> None:
        self._box, self._size = box, size
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="imap")
        self._filing: list[Future[None]] = []
        self._next: Future[list[tuple[int, bytes]]] | None = None

    def __enter__(self) -> FetchAhead:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._next is not None:
            self._next.cancel()  # a fetch nobody will handle
        self._thread.shutdown(wait=True)  # the committed batches' filings still run
        failed = [error for error in map(_error, self._filing) if error is not None]
        self._filing.clear()
        if not failed:
            return
        if exc is not None:
            # The poll failed already; its own error is the one to raise.
            log.warning("filing mails failed too: %r", failed[0])
            return
        raise failed[0]

    def batches(self) -> Iterator[list[tuple[int, bytes]]]:
        uids = self._thread.submit(self._box.pending).result()
        chunks = [uids[i : i + self._size] for i in range(0, len(uids), self._size)]
        if not chunks:
            return
        fetching = self._next = self._thread.submit(self._box.fetch, chunks[0])
        for following in [*chunks[1:], None]:
            batch = fetching.result()
            # Asked for before this batch's filing: fetched while it is handled.
            if following is not None:
                fetching = self._next = self._thread.submit(self._box.fetch, following)
            else:
                self._next = None
            self._raise_failed_filing()
            yield batch

    def fetched(self) -> bool:
        """Whether the next batch can be had without waiting for the server."""
        return self._next is None or self._next.done()

    def file(self, uids: list[int], folder: str) -> None:
        if uids:
            self._filing.append(self._thread.submit(self._box.file_many, uids, folder))

    def _raise_failed_filing(self) -> None:
        """A filing that failed stops the poll, as it did when filing was
        done in line (the mails it left are seen again by the next poll)."""
        for future in self._filing:
            error = _error(future) if future.done() else None
            if error is not None:
                self._filing.remove(future)
                raise error


def _error(future: Future[None]) -> BaseException | None:
    """What a finished filing raised (None when it went through)."""
    return None if future.cancelled() else future.exception()
