"""Incoming mail over IMAP (imapclient): fetch without marking, then file away."""

from __future__ import annotations

import imaplib
import logging
import ssl
from types import TracebackType

from imapclient import IMAPClient
from imapclient.exceptions import LoginError
from imapclient.imapclient import SEEN

from ..config import ImapConfig
from ..errors import ServerUnavailable, one_line

log = logging.getLogger(__name__)

__all__ = ["ImapMailbox", "connect"]


def connect(config: ImapConfig, *, timeout: float | None = None) -> IMAPClient:
    """A logged-in client: TLS, STARTTLS or plain as configured;
    :class:`ServerUnavailable` (one line) when the server cannot be reached
    or refuses the login."""
    where = f"{config.host}:{config.port}"
    try:
        client = IMAPClient(
            config.host, port=config.port, ssl=config.security == "tls", timeout=timeout or config.timeout
        )
    except (OSError, imaplib.IMAP4.error) as exc:
        raise ServerUnavailable(f"IMAP server {where} unavailable: {one_line(exc)}") from None
    try:
        if config.security == "starttls":
            client.starttls(ssl.create_default_context())
        client.login(config.user, config.password)
    except LoginError as exc:
        client.shutdown()  # no logout without a login; just close the socket
        raise ServerUnavailable(f"IMAP login as {config.user!r} on {where} refused: {_text(exc)}") from None
    except (OSError, imaplib.IMAP4.error) as exc:
        client.shutdown()
        raise ServerUnavailable(f"IMAP server {where} unavailable: {one_line(exc)}") from None
    except BaseException:
        client.shutdown()
        raise
    return client


def _text(exc: BaseException) -> str:
    arg = exc.args[0] if len(exc.args) == 1 else exc
    text = (arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg)).strip()
    if text[:2] in ("b'", 'b"') and text[-1:] == text[1]:  # imapclient quotes the server's bytes
        text = text[2:-1]
    return text.splitlines()[0] if text else type(exc).__name__


class ImapMailbox:
    def __init__(self, config: ImapConfig) -> None:
        self.config = config
        self.client: IMAPClient | None = None

    def __enter__(self) -> ImapMailbox:
        c = self.config
        client = connect(c)
        for folder in (c.processed_folder, c.rejected_folder, c.failed_folder):
            if not client.folder_exists(folder):
                client.create_folder(folder)
        client.select_folder(c.folder)
        self.client = client
        self._can_move = b"MOVE" in client.capabilities()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.client is not None:
            try:
                self.client.logout()
            except Exception:  # the connection may already be gone; nothing to save
                log.debug("IMAP logout failed", exc_info=True)
            self.client = None

    def pending(self) -> list[int]:
        """The UIDs of the waiting mails, oldest first."""
        assert self.client is not None
        return sorted(self.client.search(["NOT", "DELETED"]))

    def fetch(self, uids: list[int]) -> list[tuple[int, bytes]]:
        """These mails' bytes, in one FETCH, without marking them seen (a mail
        gone meanwhile is left out)."""
        assert self.client is not None
        data = self.client.fetch(uids, ["BODY.PEEK[]"])
        out: list[tuple[int, bytes]] = []
        for uid in uids:
            raw = data.get(uid, {}).get(b"BODY[]")
            if isinstance(raw, bytes):
                out.append((uid, raw))
        return out

    def file_many(self, uids: list[int], folder: str) -> None:
        """Mark handled mails seen and move them out of the inbox: two round
        trips (STORE, MOVE) whatever their number."""
        assert self.client is not None
        if not uids:
            return
        # Silent: the server does not echo every mail's new flags back.
        self.client.add_flags(uids, [SEEN], silent=True)
        if self._can_move:
            self.client.move(uids, folder)
        else:
            self.client.copy(uids, folder)
            self.client.delete_messages(uids)
            if b"UIDPLUS" in self.client.capabilities():
                self.client.uid_expunge(uids)
            else:
                self.client.expunge()
