"""A batch of mails delivered over several connections to the server at once.

Each SMTP mail is four round trips (MAIL, RCPT, DATA, the message), and on
one connection the host waits out every one of them: 2,000 mails to a relay
30 ms away are four minutes of waiting, and even to a server on the same
machine the two sides take turns instead of working side by side. A flush
therefore delivers over up to ``[smtp] connections`` connections, each on a
thread of its own (a *lane*), taking the batch's mails one at a time; the
flush's own thread keeps the database work (:mod:`.outbox`).

Lanes change how mails are carried, not what a flush promises: a batch is
claimed before any of it goes and marked sent after; a mail is handed to one
lane only; when the flush stops, every lane finishes the mail it holds and
takes no other, and what the lanes delivered is recorded before anything is
given back. A server that refuses a further connection (a provider's limit)
costs nothing: that lane is left out for the rest of the flush and its mail
goes over another.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from queue import SimpleQueue
from typing import Protocol, runtime_checkable

from ..errors import ServerUnavailable

log = logging.getLogger(__name__)

__all__ = ["Lanes", "Spawning", "Send", "Transport"]


class Transport(Protocol):
    """Where a flush hands its mails (SMTP, a local Maildir)."""

    def deliver(self, raw: bytes, recipient: str) -> None: ...


@runtime_checkable
class Spawning(Protocol):
    """A transport that can open further connections to its server."""

    def spares(self) -> list[Transport]:
        """Up to as many more transports as it may use beside itself, none
        connected yet, each closed by its own ``close``."""
        ...


class Send(Protocol):
    """Hands mail ``index`` of the batch to ``transport`` (raises what delivering raised)."""

    def __call__(self, transport: Transport, index: int) -> None: ...


#: What a lane reports: (index, None) delivered, (index, error) not; None: the lane stopped.
_Outcome = tuple[int, BaseException | None] | None


class Lanes:
    """The connections of one flush. :meth:`run` delivers a batch and yields
    each mail's outcome as it comes; :meth:`close` ends the spare connections
    (the first transport is the caller's to close)."""

    def __init__(self, first: Transport) -> None:
        self._first = first
        self._spares: list[Transport] | None = None
        self._alive = [first]
        """The connections not left out, the caller's first."""
        self._fresh: set[int] = set()
        """Connections that have not delivered yet: a refusal there leaves
        them out while another is alive (whichever of them the server took)."""
        self._threads: ThreadPoolExecutor | None = None
        self._size = 0
        self._delivered = False
        self._lock = threading.Lock()

    def _lanes(self, mails: int) -> list[Transport]:
        if mails > 1 and self._spares is None:
            # Opened at the first batch of more than one mail: a flush that
            # carries one acknowledgement needs one connection.
            self._spares = self._first.spares() if isinstance(self._first, Spawning) else []
            self._alive += self._spares
            self._fresh = {id(t) for t in self._spares}
            if not self._delivered:
                self._fresh.add(id(self._first))
        return self._alive[: max(1, mails)]

    def run(self, mails: int, send: Send) -> Batch:
        lanes = self._lanes(mails)
        if self._size < len(lanes):
            if self._threads is not None:
                self._threads.shutdown(wait=True)  # idle: the batch before is over
            self._threads, self._size = (
                ThreadPoolExecutor(len(lanes), thread_name_prefix="smtp-lane"),
                len(lanes),
            )
        return Batch(self, lanes, mails, send)

    def _retire(self, lane: Transport, error: ServerUnavailable) -> bool:
        """Whether ``lane`` refused at its first mail and may just be left out."""
        with self._lock:
            if id(lane) not in self._fresh or len(self._alive) < 2:
                return False
            self._fresh.discard(id(lane))
            self._alive.remove(lane)
        log.info("outbox: a further SMTP connection was refused (%s); going on with fewer", error)
        return True

    def _delivered_over(self, lane: Transport) -> None:
        with self._lock:
            self._delivered = True
            self._fresh.discard(id(lane))

    def close(self) -> None:
        if self._threads is not None:
            self._threads.shutdown(wait=True)
            self._threads, self._size = None, 0
        for spare in self._spares or []:
            close = getattr(spare, "close", None)
            if close is not None:
                close()
        self._spares = None


class Batch:
    """One batch on its way: iterate for (index, error or None) in the order
    the mails went; :meth:`stop` ends it early (see the module's docstring)."""

    def __init__(self, lanes: Lanes, transports: list[Transport], mails: int, send: Send) -> None:
        self._owner = lanes
        self._send = send
        self._todo = deque(range(mails))
        self._lock = threading.Lock()
        self._stopping = False
        self._done: SimpleQueue[_Outcome] = SimpleQueue()
        self._running = 0
        for transport in transports:
            self._start(transport)

    def _start(self, transport: Transport) -> None:
        assert self._owner._threads is not None
        self._running += 1
        self._owner._threads.submit(self._lane, transport)

    def _next(self) -> int | None:
        with self._lock:
            if self._stopping or not self._todo:
                return None
            return self._todo.popleft()

    def _lane(self, transport: Transport) -> None:
        try:
            while (index := self._next()) is not None:
                try:
                    self._send(transport, index)
                except ServerUnavailable as exc:
                    if self._owner._retire(transport, exc):
                        with self._lock:
                            self._todo.appendleft(index)
                        return
                    self._done.put((index, exc))
                    return  # this connection cannot go on; the flush decides
                # Anything else is handed to the flush, which raises it in the caller.
                except BaseException as exc:  # noqa: BLE001
                    self._done.put((index, exc))
                else:
                    self._owner._delivered_over(transport)
                    self._done.put((index, None))
        finally:
            self._done.put(None)

    def __iter__(self) -> Iterator[tuple[int, BaseException | None]]:
        while self._running:
            outcome = self._done.get()
            if outcome is not None:
                yield outcome
                continue
            self._running -= 1
            if not self._running and not self._stopping and self._todo:
                # The last lane left while one left out gave its mail back.
                self._start(self._owner._alive[0])

    def stop(self) -> list[tuple[int, BaseException | None]]:
        """No lane takes another mail; waits for the ones under way and
        returns their outcomes."""
        with self._lock:
            self._stopping = True
        return list(self)
