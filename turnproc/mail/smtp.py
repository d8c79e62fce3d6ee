"""Outgoing mail over SMTP (smtplib): implicit TLS, STARTTLS or plain, with AUTH."""

from __future__ import annotations

import logging
import smtplib
import ssl
import time

from ..config import SmtpConfig
from ..errors import ServerUnavailable, one_line
from .compose import bare_address
from .lanes import Transport

__all__ = ["SmtpTransport"]

log = logging.getLogger(__name__)


#: A connection idle this long is checked with NOOP before it is used again
#: (servers drop idle clients; a mail must not be lost to a stale socket).
IDLE_CHECK = 10.0


def crlf_lines(raw: bytes) -> bytes:
    """``raw`` with every line ending in CRLF, as SMTP's DATA wants it:
    smtplib fixes the line ends of a str message but sends bytes as they
    are, and a strict server reads a bare-LF mail as one long line. (A line
    that starts with a dot is doubled by smtplib's ``data``.)"""
    return raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


class SmtpTransport:
    """One connection for a whole flush, or one lane of it (``close`` ends it): a night's mails
    need one TLS handshake and one login, not one each."""

    def __init__(self, config: SmtpConfig, sender: str) -> None:
        self.config = config
        self.sender = bare_address(sender)
        self._from = sender
        self._client: smtplib.SMTP | None = None
        self._used = 0.0

    def _connect(self) -> smtplib.SMTP:
        """A connected, logged-in client; :class:`ServerUnavailable` (one line)
        when the server cannot be reached or refuses the login."""
        c = self.config
        try:
            return self._open()
        except smtplib.SMTPAuthenticationError as exc:
            reason = (
                exc.smtp_error.decode("utf-8", "replace")
                if isinstance(exc.smtp_error, bytes)
                else str(exc.smtp_error)
            )
            raise ServerUnavailable(
                f"SMTP login as {c.user!r} on {c.host}:{c.port} refused: {exc.smtp_code} {reason.strip()}"
            ) from None
        except (OSError, smtplib.SMTPException) as exc:
            raise ServerUnavailable(f"SMTP server {c.host}:{c.port} unavailable: {one_line(exc)}") from None

    def _open(self) -> smtplib.SMTP:
        c = self.config
        if c.security == "tls":
            client: smtplib.SMTP = smtplib.SMTP_SSL(
                c.host, c.port, timeout=c.timeout, context=ssl.create_default_context()
            )
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
        to = bare_address(recipient)
        client = self._connection()
        try:
            client.sendmail(self.sender, [to], crlf_lines(raw))
        except (smtplib.SMTPServerDisconnected, OSError):
            # The connection broke under this mail: the next one starts a new
            # one; this one is a failed attempt, retried later (never twice
            # at once: the server may have taken it before the line dropped).
            self.close()
            raise
        finally:
            self._used = time.monotonic()

    def deliver_many(self, raw: bytes, recipients: list[str]) -> None:
        """One message to many, in one transaction with every recipient in the
        envelope only. A server that takes fewer recipients per transaction
        (452, RFC 5321 4.5.3.1.10) gets the rest in further ones; an address
        it refuses for good is logged and skipped, the others still get it."""
        rest = [bare_address(r) for r in recipients]
        wire = crlf_lines(raw)
        while rest:
            client = self._connection()
            try:
                refused = client.sendmail(self.sender, rest, wire)
            except smtplib.SMTPRecipientsRefused as exc:
                refused = exc.recipients
                if not any(code == 452 for code, _ in refused.values()):
                    raise
            except (smtplib.SMTPServerDisconnected, OSError):
                self.close()
                raise
            finally:
                self._used = time.monotonic()
            later = [r for r in rest if r in refused and refused[r][0] == 452]
            for address, (code, reason) in refused.items():
                if code != 452:
                    log.warning(
                        "SMTP server refused %s: %s %s", address, code, reason.decode("utf-8", "replace")
                    )
            if len(later) == len(rest):
                raise smtplib.SMTPRecipientsRefused(refused)
            rest = later

    def spares(self) -> list[Transport]:
        """Transports for the further connections a flush may open
        (``[smtp] connections``), none connected yet."""
        return [SmtpTransport(self.config, self._from) for _ in range(self.config.connections - 1)]

    def close(self) -> None:
        client, self._client = self._client, None
        if client is None:
            return
        try:
            client.quit()
        except (OSError, smtplib.SMTPException):
            client.close()
