"""Which mails must never be answered: the rules that keep a PBEM host from
joining a mail loop or being used as a mail cannon."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import parseaddr

__all__ = ["automatic_reason", "sender_address", "OUR_ID_MARK"]

#: Part of every Message-ID we make (see mail.compose.new_message_id).
OUR_ID_MARK = "turnproc."


def sender_address(msg: EmailMessage) -> str:
    reply_to = parseaddr(str(msg.get("Reply-To", "")))[1]
    return (reply_to or parseaddr(str(msg.get("From", "")))[1]).strip()


def automatic_reason(msg: EmailMessage) -> str | None:
    """Why ``msg`` is machine-made and gets no reply, or None for a person's mail."""
    auto = str(msg.get("Auto-Submitted", "no")).strip().lower()
    if auto and not auto.startswith("no"):
        return f"Auto-Submitted: {auto}"
    precedence = str(msg.get("Precedence", "")).strip().lower()
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return f"Precedence: {precedence}"
    if msg.get("List-Id") or msg.get("List-Unsubscribe"):
        return "mailing-list mail"
    if msg.get("X-Autoreply") or msg.get("X-Autorespond") or msg.get("X-Auto-Response-Suppress", "").lower() in ("all", "oof"):
        return "auto-reply header"
    return_path = msg.get("Return-Path")
    if return_path is not None and parseaddr(str(return_path))[1] in ("", "<>"):
        return "empty return path (a bounce)"
    sender = sender_address(msg).lower()
    local = sender.partition("@")[0]
    if not sender or local in ("mailer-daemon", "postmaster", "noreply", "no-reply", "donotreply"):
        return f"sender {sender or '(none)'} does not take replies"
    if msg.get_content_type() == "multipart/report":
        return "delivery status report"
    if OUR_ID_MARK in str(msg.get("Message-ID", "")):
        return "our own mail came back"
    return None
