"""Which mails must never be answered: the rules that keep a PBEM host from
joining a mail loop or being used as a mail cannon."""

from __future__ import annotations

import re
from email.errors import HeaderParseError
from email.header import decode_header, make_header
from email.message import Message
from email.utils import parseaddr

from .identity import from_address

__all__ = [
    "automatic_reason",
    "auto_reply_subject",
    "clean_header",
    "decoded_words",
    "raw_headers",
    "sender_address",
    "replyable",
    "OUR_ID_MARK",
]

#: Part of every Message-ID we make (see turnproc.outgoing.messageids).
OUR_ID_MARK = "turnproc."


def raw_headers(msg: Message) -> dict[str, str]:
    # The raw header text, first occurrence of each name: policy.default parses
    # a header afresh on every access, which is most of intake's time otherwise.
    headers: dict[str, str] = {}
    for name, value in msg.raw_items():
        headers.setdefault(name.lower(), str(value).strip())
    return headers


def decoded_words(value: str) -> str:
    """A header value with its RFC 2047 encoded words decoded; a broken one
    is kept as it came."""
    if "=?" not in value:
        return value
    try:
        return str(make_header(decode_header(value)))
    except (HeaderParseError, LookupError, ValueError):
        return value


def clean_header(text: str) -> str:
    """Header text as it may be stored or sent on: no NUL (PostgreSQL refuses
    it), no lone surrogates (raw 8-bit bytes in a header; no database driver
    encodes them) and no line breaks from a folded or hostile header."""
    text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return " ".join(text.replace("\x00", "").split())


def sender_address(msg: Message, raw: dict[str, str] | None = None) -> str:
    """Who sent the mail: its From address, normalised ("" without exactly
    one, read strictly: :func:`.identity.from_address`). Reply-To says where a
    person would like answers, not who they are, so it decides nothing here:
    anyone can set it to a player's address."""
    raw = raw if raw is not None else raw_headers(msg)
    return from_address(raw.get("from", ""))


_ADDRESS = re.compile(
    r"[^@\s<>()\[\],;:\\\"]+"  # the local part
    r"@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+"  # labels
)


def replyable(address: str) -> bool:
    """Whether ``address`` is one a reply can go to: local@domain.tld, short
    enough for SMTP. ``ann`` (from ``ann at players dot example``) is not."""
    return len(address) <= 254 and _ADDRESS.fullmatch(address) is not None


# Subjects out-of-office replies start with, in the languages players write in,
# for the auto-responders that set none of the headers below.
_AUTO_SUBJECT = re.compile(
    r"^\s*(?:(?:re|aw|fw|fwd|wg|sv|vs|tr|rif)\s*:\s*)*(?:"
    r"out of (?:the )?office|automatic reply|auto(?:matic)?[- ]?(?:reply|response)|autoreply|auto:|"
    r"away from (?:the )?office|on vacation|vacation reply|abwesenheitsnotiz|automatische antwort|"
    r"r[ée]ponse automatique|absence du bureau|message d'absence|risposta automatica|fuori sede|"
    r"respuesta autom[áa]tica|"
    r"fuera de la oficina|automatisch antwoord|afwezig|resposta autom[áa]tica|autosvar|"
    r"automaattinen vastaus|odpowied[źz] automatyczna|automatick[áa] odpov[ěe][ďd]"
    r")",
    re.IGNORECASE,
)


def auto_reply_subject(subject: str) -> bool:
    """Whether ``subject`` is an auto-responder's ("Out of Office: Re: …",
    "Automatische Antwort: …"). Only a hint: a mail that also carries a
    complete order header is a person's, whatever its subject."""
    return _AUTO_SUBJECT.match(subject) is not None


def automatic_reason(
    msg: Message, raw: dict[str, str] | None = None, sender: str | None = None
) -> str | None:
    """Why ``msg`` is machine-made and gets no reply, or None for a person's
    mail. ``sender``: its :func:`sender_address`, when the caller has it."""
    raw = raw if raw is not None else raw_headers(msg)
    auto = raw.get("auto-submitted", "no").lower()
    if auto and not auto.startswith("no"):
        return f"Auto-Submitted: {auto}"
    precedence = raw.get("precedence", "").lower()
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return f"Precedence: {precedence}"
    if raw.get("list-id") or raw.get("list-unsubscribe"):
        return "mailing-list mail"
    if (
        raw.get("x-autoreply")
        or raw.get("x-autorespond")
        or raw.get("x-auto-response-suppress", "").lower() in ("all", "oof")
    ):
        return "auto-reply header"
    return_path = raw.get("return-path")
    if return_path is not None and parseaddr(return_path)[1] in ("", "<>"):
        return "empty return path (a bounce)"
    sender = (sender if sender is not None else sender_address(msg, raw)).lower()
    local = sender.partition("@")[0]
    if local in ("mailer-daemon", "postmaster", "noreply", "no-reply", "donotreply"):
        return f"sender {sender} does not take replies"
    if msg.get_content_type() == "multipart/report":
        return "delivery status report"
    if OUR_ID_MARK in raw.get("message-id", ""):
        return "our own mail came back"
    return None
