"""Building outgoing mails: one EmailMessage per mail, with a stable Message-ID."""

from __future__ import annotations

import secrets
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
import datetime as dt

__all__ = ["new_message_id", "compose", "DOMAIN_FALLBACK"]

DOMAIN_FALLBACK = "turnproc.invalid"


def new_message_id(from_address: str) -> str:
    """A Message-ID we can recognise as ours (mail loops are refused by it)."""
    domain = from_address.rpartition("@")[2] or DOMAIN_FALLBACK
    return make_msgid(idstring=f"turnproc.{secrets.token_hex(6)}", domain=domain)


def compose(
    *,
    sender: str,
    recipient: str,
    subject: str,
    text: str,
    html: str | None = None,
    when: dt.datetime,
    message_id: str,
    in_reply_to: str | None = None,
    references: str | None = None,
    attachments: list[tuple[str, str, bytes]] | None = None,
) -> EmailMessage:
    """A mail with a plain-text body, an optional HTML alternative and attachments
    given as ``(filename, mime type, data)``."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = recipient
    msg["Subject"] = subject
    msg["Date"] = format_datetime(when)
    msg["Message-ID"] = message_id
    # Tell vacation responders and list servers not to answer us.
    msg["Auto-Submitted"] = "auto-replied" if in_reply_to else "auto-generated"
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
        msg["References"] = f"{references} {in_reply_to}".strip() if references else in_reply_to
    msg.set_content(text)
    if html is not None:
        msg.add_alternative(html, subtype="html")
    for filename, mime, data in attachments or []:
        maintype, _, subtype = mime.partition("/")
        msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=filename)
    return msg
