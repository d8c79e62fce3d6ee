"""The embedded default's mail: a local Maildir for incoming and one for outgoing."""

from __future__ import annotations

import logging
import mailbox
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

log = logging.getLogger(__name__)

__all__ = ["MaildirInbox", "MaildirOutbox", "PrivateMaildir", "PROCESSED", "REJECTED"]

PROCESSED = "Processed"
REJECTED = "Rejected"


class PrivateMaildir(mailbox.Maildir):
    """A Maildir whose folders are 0700 and files 0600 whatever the umask:
    mail holds players' passwords and reports (the standard library's
    Maildir makes its files 0666 less the umask)."""

    def __init__(self, dirname: str | os.PathLike[str], create: bool = True) -> None:
        super().__init__(dirname, factory=None, create=create)
        self.path = Path(dirname)
        for sub in ("", "tmp", "new", "cur"):
            folder = os.path.join(self._path, sub)
            if os.path.isdir(folder) and stat.S_IMODE(os.stat(folder).st_mode) & 0o077:
                os.chmod(folder, 0o700)

    def _create_tmp(self) -> BinaryIO:
        # Private, and not in the stubs: hence getattr.
        made: BinaryIO = getattr(mailbox.Maildir, "_create_tmp")(self)  # noqa: B009
        os.fchmod(made.fileno(), 0o600)
        return made

    def add_folder(self, folder: str) -> PrivateMaildir:
        path = os.path.join(self._path, "." + folder)
        result = PrivateMaildir(path)
        marker = os.path.join(path, "maildirfolder")
        if not os.path.exists(marker):
            os.close(os.open(marker, os.O_CREAT | os.O_WRONLY, 0o600))
        return result

    def get_folder(self, folder: str) -> PrivateMaildir:
        return PrivateMaildir(os.path.join(self._path, "." + folder), create=False)


def _private_parent(path: Path) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)


class MaildirInbox:
    """Incoming mail in ``path``; handled mail moves to the Processed or
    Rejected sub-folder, as the IMAP intake does with server folders."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        _private_parent(self.path)
        self.box = PrivateMaildir(self.path)

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
        """Move a handled message out of the inbox (after its transaction
        committed): its file is renamed into the folder's ``cur``, marked
        seen, as a mail program files it. The bytes stay as they came; a copy
        through the email package parsed the whole mail and wrote it again
        (12 s of CPU for a mail of 50,000 MIME parts)."""
        target = (
            self.box.add_folder(folder)
            if folder not in self.box.list_folders()
            else self.box.get_folder(folder)
        )
        try:
            subpath: str = getattr(self.box, "_lookup")(key)  # noqa: B009 - private, not in the stubs
        except KeyError:
            return
        name, _, info = os.path.basename(subpath).partition(self.box.colon)
        flags = "".join(sorted(set(info[2:] if info.startswith("2,") else "") | {"S"}))
        try:
            os.replace(self.path / subpath, target.path / "cur" / f"{name}{self.box.colon}2,{flags}")
        except FileNotFoundError:  # taken by another process meanwhile
            return


class MaildirOutbox:
    """Outgoing mail written as files to ``path`` (one per mail)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        _private_parent(self.path)
        self.box = PrivateMaildir(self.path)

    def deliver(self, raw: bytes, recipient: str) -> None:
        self.box.add(raw)

    def deliver_many(self, raw: bytes, recipients: list[str]) -> None:
        """A mail to many (a bulletin) is one file, as a server keeps one copy."""
        self.box.add(raw)
