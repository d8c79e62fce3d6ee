"""Which mails must never be answered: the rules that keep a PBEM host from
joining a mail loop or being used as a mail cannon."""

from __future__ import annotations

from email.message import EmailMessage
from email.utils import parseaddr

__all__ = ["automatic_reason", "sender_address", "OUR_ID_MARK"]

#: Part of every Message-ID we make (see mail.compose.new_message_id).
OUR_ID_MARK = "turnproc."


def _raw(msg: EmailMessage) -> dict[str, str]:
    # The raw header text, first occurrence of each name: policy.default parses
    # a header afresh on every access, which is most of intake's time otherwise.
    headers: dict[str, str] = {}
    for name, value in msg.raw_items():
        headers.setdefault(name.lower(), str(value).strip())
    return headers


def sender_address(msg: EmailMessage, raw: dict[str, str] | None = None) -> str:
    raw = raw if raw is not None else _raw(msg)
    reply_to = parseaddr(raw.get("reply-to", ""))[1]
    return (reply_to or parseaddr(raw.get("from", ""))[1]).strip()


def automatic_reason(msg: EmailMessage) -> str | None:
    """Why ``msg`` is machine-made and gets no reply, or None for a person's mail."""
    raw = _raw(msg)
    auto = raw.get("auto-submitted", "no").lower()
    if auto and not auto.startswith("no"):
        return f"Auto-Submitted: {auto}"
    precedence = raw.get("precedence", "").lower()
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return f"Precedence: {precedence}"
    if raw.get("list-id") or raw.get("list-unsubscribe"):
        return "mailing-list mail"
    if raw.get("x-autoreply") or raw.get("x-autorespond") or raw.get("x-auto-response-suppress", "").lower() in ("all", "oof"):
        return "auto-reply header"
    return_path = raw.get("return-path")
    if return_path is not None and parseaddr(return_path)[1] in ("", "<>"):
        return "empty return path (a bounce)"
    sender = sender_address(msg, raw).lower()
    local = sender.partition("@")[0]
    if not sender or local in ("mailer-daemon", "postmaster", "noreply", "no-reply", "donotreply"):
        return f"sender {sender or '(none)'} does not take replies"
    if msg.get_content_type() == "multipart/report":
        return "delivery status report"
    if OUR_ID_MARK in raw.get("message-id", ""):
        return "our own mail came back"
    return None
