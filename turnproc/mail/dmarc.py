"""The receiving mail server's DMARC verdict on a mail, from its
``Authentication-Results`` header (RFC 8601).

From alone proves nothing: anyone can write a player's address there. Where
the host's own mail server checks DMARC and says so in a header stamped with
its ``authserv-id`` (``trusted_authserv_id`` in the config), a mail whose From
domain failed is forged, and intake files it without an answer and without
checking its password. Only headers carrying that id count: any other may have
been written by the sender (the server must strip incoming headers that claim
its id; deploy/dmarc.md).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import authres

log = logging.getLogger(__name__)

__all__ = ["dmarc_failed"]


def _results(value: str, authserv_id: str) -> list[tuple[str, str, str]]:
    """(method, result, header.from) of each result in one header value, when
    the header is the trusted server's; [] otherwise (or when unreadable)."""
    try:
        header = authres.AuthenticationResultsHeader.parse_value(" ".join(value.split()))
    except (authres.AuthResError, ValueError, IndexError, AttributeError):
        return []
    if str(header.authserv_id).lower() != authserv_id.lower():
        return []
    out = []
    for result in header.results:
        header_from = next(
            (
                str(p.value)
                for p in result.properties
                if str(p.type).lower() == "header" and str(p.name).lower() == "from"
            ),
            "",
        )
        out.append((str(result.method).lower(), str(result.result).lower(), header_from.lower()))
    return out


def dmarc_failed(values: Sequence[str], authserv_id: str, from_domain: str) -> str:
    """Why the mail is forged by the trusted server's word ("" when it is not):
    a ``dmarc=fail`` for the From domain in one of its ``Authentication-Results``
    headers. A header from another server, none at all, or no ``authserv_id``
    configured: "" (the password alone decides, as without DMARC)."""
    if not authserv_id:
        return ""
    for value in values:
        for method, result, header_from in _results(value, authserv_id):
            # A verdict on another domain is about another From (a second
            # From line the server read): it says nothing for or against this one.
            if method == "dmarc" and result == "fail" and header_from in ("", from_domain.lower()):
                return f"{authserv_id} found that DMARC fails for {from_domain}"
    return ""
