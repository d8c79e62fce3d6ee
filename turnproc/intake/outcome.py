"""What intake made of a mail: its outcome, as the inbound log stores it, and
the folder the mail is filed in.

Both are ``StrEnum``: the values are the words the database, the logs and
the GM's queries have always had, and compare equal to them.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Outcome", "Folder"]


class Outcome(StrEnum):
    """The ``outcome`` of an inbound mail (``inbound_messages.outcome``)."""

    PENDING = "pending"
    """Being handled: the row's value until its outcome is known."""
    DUPLICATE = "duplicate"
    """The same bytes or Message-ID handled before."""
    IGNORED = "ignored"
    """An automatic reply (by its headers or its subject): never answered."""
    FORGED = "forged"
    """DMARC failed, by the trusted mail server's word."""
    REJECTED = "rejected"
    """Not placed (no header, unknown game or empire) or not signed."""
    WRONG_PASSWORD = "wrong_password"
    """Not answered: the owner and the GM hear of it in the day's digest (intake/guessing.py)."""
    HELP = "help"
    """A mail that only asks for HELP."""
    SIGNUP = "signup"
    """A JOIN answered with its code, or its code come back and the request now waiting for the GM."""
    ACCEPTED = "accepted"
    """Order lines accepted: they are the orders on file now."""
    CLEARED = "cleared"
    """CLEAR alone: no orders on file."""
    COMMANDS = "commands"
    """Commands only (WAIT, REPORT, ...): the orders on file stay."""
    UNCHANGED = "unchanged"
    """Every order line failed: what is on file stays."""
    OLDER = "older"
    """Written before the orders on file: those stay."""
    FAILED = "failed"
    """Our fault: left for the next poll, or set aside."""


class Folder(StrEnum):
    """Where a handled mail is filed (a Maildir folder's name; the IMAP
    folders are the config's ``processed_folder``, ``rejected_folder`` and
    ``failed_folder``)."""

    PROCESSED = "Processed"
    REJECTED = "Rejected"
    FAILED = "Failed"
