"""Sent marks a flush could not record: the server took the mail, then the
database refused the mark (a full disk, a lost connection).

They are kept in this process, and in a journal file when the flush is
given one (the config's ``outbox_journal``), so that the next flush of any
process that reads the same journal (``turnproc send`` after the worker
stopped, as the error tells the GM) records them before it claims
anything. Without the journal a new process knew nothing of them, and once
the claims' lease ran out the mails went a second time.

The journal is one JSON object a line (mail id, Message-ID, when sent),
appended under an exclusive lock and emptied once the marks are recorded.
A journal that cannot be written either (the same full disk) leaves the
marks in memory, and the error says so.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

log = logging.getLogger(__name__)

__all__ = ["Unrecorded", "UNRECORDED"]

Mark = tuple[str, dt.datetime]
"""(Message-ID, when it was delivered) of a mail id."""


class Unrecorded:
    """The marks delivered and not recorded, in memory and in the journal."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._marks: dict[int, Mark] = {}

    def clear(self) -> None:
        """Forget the marks held in memory (a new process knows none)."""
        with self._lock:
            self._marks.clear()

    def keep(self, delivered: list[tuple[int, str]], at: dt.datetime, journal: Path | None) -> str:
        """Hold the marks of ``delivered`` (id, Message-ID); where they are
        kept, in words for the error ("" for memory only)."""
        with self._lock:
            self._marks.update((mail_id, (message_id, at)) for mail_id, message_id in delivered)
        if journal is None:
            return ""
        lines = "".join(
            json.dumps({"id": i, "message_id": mid, "at": at.isoformat()}) + "\n" for i, mid in delivered
        )
        try:
            with _locked(journal, "a") as file:
                file.write(lines)
                file.flush()
                os.fsync(file.fileno())
        except OSError as exc:
            log.warning("outbox: the journal %s cannot be written either: %s", journal, exc.strerror)
            return f"; the marks are kept by this process only (the journal {journal} cannot be written)"
        return f"; the marks are kept in {journal}"

    def waiting(self, journal: Path | None) -> dict[int, Mark]:
        """Every mark held: this process's and the journal's."""
        with self._lock:
            marks = dict(self._marks)
        if journal is None or not journal.exists():
            return marks
        with _locked(journal, "r") as file:
            for line in file:
                try:
                    entry = json.loads(line)
                    marks.setdefault(
                        int(entry["id"]), (str(entry["message_id"]), dt.datetime.fromisoformat(entry["at"]))
                    )
                except (ValueError, KeyError, TypeError):
                    log.warning("outbox: a line of the journal %s cannot be read: %r", journal, line[:200])
        return marks

    def recorded(self, mail_ids: list[int], journal: Path | None) -> None:
        """The marks of ``mail_ids`` are in the database now."""
        done = set(mail_ids)
        with self._lock:
            for mail_id in done:
                self._marks.pop(mail_id, None)
        if journal is None or not journal.exists():
            return
        with _locked(journal, "r+") as file:
            kept = [line for line in file if _id(line) not in done]
            file.seek(0)
            file.truncate()
            file.writelines(kept)


def _id(line: str) -> int | None:
    try:
        return int(json.loads(line)["id"])
    except (ValueError, KeyError, TypeError):
        return None


@contextmanager
def _locked(path: Path, mode: str) -> Iterator[IO[str]]:
    """``path`` opened (made 0600 if missing) and locked against the other
    processes that flush."""
    if mode != "r":
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    with open(path, mode, encoding="utf-8") as file:
        fcntl.flock(file.fileno(), fcntl.LOCK_SH if mode == "r" else fcntl.LOCK_EX)
        yield file


UNRECORDED = Unrecorded()
"""This process's marks (one per process: any flush in it records them)."""
