"""Outgoing mail over SMTP (smtplib): implicit TLS, STARTTLS or plain, with AUTH."""

from __future__ import annotations

import re
import smtplib
import ssl
from email.utils import parseaddr

from ..config import SmtpConfig
from ..errors import ServerUnavailable, one_line

__all__ = ["SmtpTransport"]


class SmtpTransport:
    def __init__(self, config: SmtpConfig, sender: str) -> None:
        self.config = config
        self.sender = parseaddr(sender)[1] or sender

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

    def deliver(self, raw: bytes, recipient: str) -> None:
        to = parseaddr(recipient)[1] or recipient
        # SMTP lines end in CRLF; smtplib fixes line ends of str messages but
        # not of bytes, and a strict server reads a bare-LF mail as one long line.
        wire = re.sub(rb"\r?\n", b"\r\n", raw)
        with self._connect() as client:
            client.sendmail(self.sender, [to], wire)
