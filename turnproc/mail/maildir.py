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

    def _mtime(self, key: str) -> tuple[float, str]:
        try:
            return (Path(self.path, self.box._lookup(key)).stat().st_mtime, key)  # noqa: SLF001
        except (KeyError, OSError):
            return (0.0, key)

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
