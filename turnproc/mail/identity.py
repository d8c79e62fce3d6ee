"""Who a mail says it is from, read as mail programs (and DMARC) read it, and
the addresses and names the host will keep.

From is read by the email package's strict header parser: exactly one
address and no parse defect, or the mail is from nobody (filed, not
answered). ``alf@example.org <attacker@evil.example>`` is not alf: a mail
program shows, and DMARC checks, the bracketed address, so the two readings
must never differ. Addresses are checked for syntax (``email-validator``, no
DNS) and kept in its normal form; the spelling a reply cap counts
(:func:`cap_key`) also drops case and a ``+tag``.
"""

from __future__ import annotations

import re
import unicodedata
from email.headerregistry import Address, HeaderRegistry
from functools import lru_cache

from email_validator import EmailNotValidError, validate_email

__all__ = ["cap_key", "from_address", "refused_character", "valid_address"]

_REGISTRY = HeaderRegistry()

#: Most From lines are a bare address or plain words and one bracketed
#: address; for these the strict parser finds exactly what this finds, at a
#: tenth of its cost (the parse is the larger part of reading a sender).
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_PLAIN_NAMED = re.compile(
    rf"(?:[A-Za-z0-9]+ )*[A-Za-z0-9]+ <({_ATEXT}(?:\.{_ATEXT})*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)>"
)
_PLAIN_BARE = re.compile(rf"{_ATEXT}(?:\.{_ATEXT})*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*")


def refused_character(text: str) -> str | None:
    """The first character of ``text`` the host will not keep in an address or
    a name, as ``U+XXXX``; None when there is none. Control characters (C0,
    DEL, C1: a terminal obeys them) and format characters (bidi overrides such
    as U+202E, zero-width spaces and joiners, the BOM: they make one text look
    like another)."""
    for char in text:
        if unicodedata.category(char) in ("Cc", "Cf"):
            return f"U+{ord(char):04X}"
    return None


@lru_cache(maxsize=4096)
def valid_address(address: str) -> str | None:
    """``address`` in its normal form (the domain in lower case), or None
    when it is not one address a mail could reach by its syntax."""
    if len(address) > 254 or refused_character(address) is not None:
        return None
    try:
        return validate_email(address, check_deliverability=False).normalized
    except EmailNotValidError:
        return None


@lru_cache(maxsize=4096)
def from_address(value: str) -> str:
    """The one address a From header's raw ``value`` names, normalised; ""
    when it names none, more than one, or cannot be read without guessing."""
    value = value.strip()
    if _PLAIN_BARE.fullmatch(value):
        found = value
    elif (named := _PLAIN_NAMED.fullmatch(value)) is not None:
        found = named.group(1)
    else:
        try:
            header = _REGISTRY("from", value)
        except (ValueError, IndexError, TypeError):
            return ""
        addresses: tuple[Address, ...] = getattr(header, "addresses", ())
        if header.defects or len(addresses) != 1:
            return ""
        found = addresses[0].addr_spec
    return valid_address(found) or ""


def cap_key(address: str) -> str:
    """The spelling the reply caps count ``address`` under: ``Victim@X.org``,
    ``victim+1@x.org`` and ``victim@x.org`` are one recipient."""
    local, at, domain = address.strip().lower().rpartition("@")
    if not at:
        return domain
    return f"{local.partition('+')[0] or local}@{domain}"
