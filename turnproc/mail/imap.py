"""Incoming mail over IMAP (imapclient): fetch without marking, then file away."""

from __future__ import annotations

import logging
import ssl
from collections.abc import Iterator
from types import TracebackType

from imapclient import IMAPClient
from imapclient.imapclient import SEEN

from ..config import ImapConfig

log = logging.getLogger(__name__)

__all__ = ["ImapMailbox"]


class ImapMailbox:
    def __init__(self, config: ImapConfig) -> None:
        self.config = config
        self.client: IMAPClient | None = None

    def __enter__(self) -> ImapMailbox:
        c = self.config
        client = IMAPClient(c.host, port=c.port, ssl=c.security == "tls", timeout=c.timeout)
        if c.security == "starttls":
            client.starttls(ssl.create_default_context())
        client.login(c.user, c.password)
        for folder in (c.processed_folder, c.rejected_folder):
            if not client.folder_exists(folder):
                client.create_folder(folder)
        client.select_folder(c.folder)
        self.client = client
        self._can_move = b"MOVE" in client.capabilities()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self.client is not None:
            try:
                self.client.logout()
            except Exception:  # the connection may already be gone; nothing to save
                log.debug("IMAP logout failed", exc_info=True)
            self.client = None

    def pending(self, batch: int = 100) -> Iterator[tuple[int, bytes]]:
        assert self.client is not None
        uids = sorted(self.client.search(["NOT", "DELETED"]))
        for i in range(0, len(uids), batch):
            chunk = uids[i : i + batch]
            data = self.client.fetch(chunk, ["BODY.PEEK[]"])
            for uid in chunk:
                item = data.get(uid)
                if item is None:
                    continue
                raw = item.get(b"BODY[]")
                if isinstance(raw, bytes):
                    yield uid, raw

    def file(self, uid: int, folder: str) -> None:
        assert self.client is not None
        self.client.add_flags([uid], [SEEN])
        if self._can_move:
            self.client.move([uid], folder)
        else:
            self.client.copy([uid], folder)
            self.client.delete_messages([uid])
            self.client.uid_expunge([uid]) if b"UIDPLUS" in self.client.capabilities() else self.client.expunge()
