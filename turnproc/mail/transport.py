"""The configured way out for mail: SMTP, or a local Maildir (the demo)."""

from __future__ import annotations

from ..config import Config
from .maildir import MaildirOutbox
from .outbox import Transport
from .smtp import SmtpTransport

__all__ = ["outbound"]


def outbound(config: Config) -> Transport:
    if config.transport == "maildir":
        return MaildirOutbox(config.maildir_out)
    return SmtpTransport(config.smtp, config.from_address)
