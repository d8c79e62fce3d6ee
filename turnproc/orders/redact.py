"""Passwords out of stored text.

An order mail's EMPIRE line carries the empire's password, and a PASSWORD
line the new one; the text is kept for the GM (orders on file, the GM views),
never a password itself (docs/gm-schema.md). What follows the empire code on
any EMPIRE line, and what follows the keyword on any PASSWORD line, is
replaced, whichever line the parser took as the header, so a pasted report's
form or a quoted earlier mail loses its password too.
"""

from __future__ import annotations

import re

__all__ = ["REDACTED", "redact_passwords"]

REDACTED = "********"

# The EMPIRE keyword, possibly after quote marks and spaces, then the code,
# then whatever the password was.
_EMPIRE_LINE = re.compile(r"(?im)^([ \t>]*EMPIRE[ \t\u00a0,]+[^ \t\u00a0,\r\n]+)[ \t\u00a0,]+\S[^\r\n]*$")
# A PASSWORD line (also quoted): everything after the keyword.
_PASSWORD_LINE = re.compile(r"(?im)^([ \t>]*PASSWORD)[ \t\u00a0,]+\S[^\r\n]*$")


def redact_passwords(text: str, password: str | None = None) -> str:
    """``text`` with every EMPIRE and PASSWORD line's password replaced, and any
    other occurrence of ``password`` (when it is long enough not to hit
    ordinary words)."""
    text = _EMPIRE_LINE.sub(lambda mt: f"{mt.group(1)} {REDACTED}", text)
    text = _PASSWORD_LINE.sub(lambda mt: f"{mt.group(1)} {REDACTED}", text)
    if password and len(password) >= 6:
        text = text.replace(password, REDACTED)
    return text
