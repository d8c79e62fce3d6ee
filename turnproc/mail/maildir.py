"""The embedded default's mail: a local Maildir for incoming and one for outgoing."""

from __future__ import annotations

import logging
import mailbox
from collections.abc import Iterator
from pathlib import Path

log = logging.getLogger(__name__)

__all__ = ["MaildirInbox", "MaildirOutbox", "PROCESSED", "REJECTED"]

PROCESSED = "Processed"
REJECTED = "Rejected"


class MaildirInbox:
    """Incoming mail in ``path``; handled mail moves to the Processed or
    Rejected sub-folder, as the IMAP intake does with server folders."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.box = mailbox.Maildir(self.path, create=True)

    def pending(self) -> Iterator[tuple[str, bytes]]:
        """(key, raw bytes) of every message still waiting, oldest first."""
        self.box.clean()
        keys = sorted(self.box.iterkeys(), key=self._mtime)
        for key in keys:
            try:
                yield key, self.box.get_bytes(key)
            except KeyError:  # taken by another process meanwhile
                continue

    @staticmethod
    def _mtime(key: str) -> tuple[int, int, str]:
        # Maildir keys are "SECONDS.M<microseconds>P<pid>Q<n>.host": delivery
        # order, so a player's later mail is handled later (and replaces).
        parts = key.split(".")
        seconds = int(parts[0]) if parts[0].isdigit() else 0
        micro = 0
        if len(parts) > 1 and parts[1].startswith("M"):
            digits = parts[1][1:].split("P", 1)[0]
            micro = int(digits) if digits.isdigit() else 0
        return (seconds, micro, key)

    def file(self, key: str, folder: str) -> None:
        """Move a handled message out of the inbox (after its transaction committed)."""
        target = self.box.add_folder(folder) if folder not in self.box.list_folders() else self.box.get_folder(folder)
        try:
            msg = self.box.get_message(key)
        except KeyError:
            return
        msg.add_flag("S")
        msg.set_subdir("cur")
        target.add(msg)
        self.box.discard(key)


class MaildirOutbox:
    """Outgoing mail written as files to ``path`` (one per mail)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.box = mailbox.Maildir(self.path, create=True)

    def deliver(self, raw: bytes, recipient: str) -> None:
        self.box.add(raw)
