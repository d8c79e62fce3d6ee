"""Outgoing mail over SMTP (smtplib): implicit TLS, STARTTLS or plain, with AUTH."""

from __future__ import annotations

import smtplib
import ssl
import time
from email.utils import parseaddr

from ..config import SmtpConfig
from ..errors import ServerUnavailable, one_line

__all__ = ["SmtpTransport"]


#: A connection idle this long is checked with NOOP before it is used again
#: (servers drop idle clients; a mail must not be lost to a stale socket).
IDLE_CHECK = 10.0


def wire_bytes(raw: bytes) -> bytes:
    """``raw`` with every line ending in CRLF. SMTP lines end in CRLF; smtplib
    fixes line ends of str messages but not of bytes, and a strict server
    reads a bare-LF mail as one long line. Two C-speed passes, not a regex."""
    return raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


class SmtpTransport:
    """One connection for a whole flush (``close`` ends it): a night's mails
    need one TLS handshake and one login, not one each."""

    def __init__(self, config: SmtpConfig, sender: str) -> None:
        self.config = config
        self.sender = parseaddr(sender)[1] or sender
        self._client: smtplib.SMTP | None = None
        self._used = 0.0

    def _connect(self) -> smtplib.SMTP:
        """A connected, logged-in client; :class:`ServerUnavailable` (one line)
        when the server cannot be reached or refuses the login."""
        c = self.config
        try:
            return self._open()
        except smtplib.SMTPAuthenticationError as exc:
            reason = exc.smtp_error.decode("utf-8", "replace") if isinstance(exc.smtp_error, bytes) else str(exc.smtp_error)
            raise ServerUnavailable(f"SMTP login as {c.user!r} on {c.host}:{c.port} refused: {exc.smtp_code} {reason.strip()}") from None
        except (OSError, smtplib.SMTPException) as exc:
            raise ServerUnavailable(f"SMTP server {c.host}:{c.port} unavailable: {one_line(exc)}") from None

    def _open(self) -> smtplib.SMTP:
        c = self.config
        if c.security == "tls":
            client: smtplib.SMTP = smtplib.SMTP_SSL(c.host, c.port, timeout=c.timeout, context=ssl.create_default_context())
        else:
            client = smtplib.SMTP(c.host, c.port, timeout=c.timeout)
            if c.security == "starttls":
                client.starttls(context=ssl.create_default_context())
        if c.user:
            try:
                client.login(c.user, c.password)
            except BaseException:
                client.close()
                raise
        return client

    def _connection(self) -> smtplib.SMTP:
        client = self._client
        if client is not None and time.monotonic() - self._used > IDLE_CHECK:
            try:
                if client.noop()[0] != 250:
                    raise smtplib.SMTPServerDisconnected("NOOP refused")
            except (OSError, smtplib.SMTPException):
                self.close()
                client = None
        if client is None:
            client = self._client = self._connect()
        return client

    def deliver(self, raw: bytes, recipient: str) -> None:
        to = parseaddr(recipient)[1] or recipient
        client = self._connection()
        try:
            client.sendmail(self.sender, [to], wire_bytes(raw))
        except (smtplib.SMTPServerDisconnected, OSError):
            # The connection broke under this mail: the next one starts a new
            # one; this one is a failed attempt, retried later (never twice
            # at once: the server may have taken it before the line dropped).
            self.close()
            raise
        finally:
            self._used = time.monotonic()

    def close(self) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        try:
            client.quit()
        except (OSError, smtplib.SMTPException):
            client.close()
