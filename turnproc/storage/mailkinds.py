"""The kinds of mail the host sends, as the outbox stores them (``outbox.kind``).

A kind is what the reply caps count and what the outbox tells apart when it
builds and scrubs a mail; it is coarser than the template a mail is written
from (every notice to the GM is a ``NOTICE``, whatever it says). The values
are the strings the outbox rows have always held, so old rows read as the
enum with no migration.

The enum lives with the column it names, not in :mod:`turnproc.outgoing`
which writes the mails: the read-model (a reminder sent this turn), the
outbox (which kinds carry a secret) and intake (the reply caps) all sit below
the mails that use them.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["MailKind", "SECRET_KINDS"]


class MailKind(StrEnum):
    """One kind of outgoing mail; its value is what ``outbox.kind`` holds."""

    ACK = "ack"
    """The answer to an order mail that was read."""
    REJECT = "reject"
    """The answer to an order mail that was refused (a wrong password, a bad header)."""
    UNKNOWN = "unknown"
    """The answer to a mail that names no game or empire here."""
    STRANGER = "stranger"
    """An answer to an address that is no player's: HELP, a JOIN refused."""
    HELP = "help"
    """A player's HELP guide."""
    REPORT = "report"
    """A turn's report to one empire."""
    REPORT_COPY = "report_copy"
    """A report sent again to a player who asked for it (REPORT n)."""
    BULLETIN = "bulletin"
    """The turn's bulletin to every player, the recipients in the envelope only."""
    BULLETIN_COPY = "bulletin_copy"
    """A bulletin sent again to one player who asked for it."""
    NOTICE = "notice"
    """A notice: to the GM (a turn ran, the guard, an error) or to a player on the GM's behalf."""
    REMINDER = "reminder"
    """To a player with no orders in: the deadline is near."""
    DEADLINE = "deadline"
    """To every player: the deadline moved."""
    ANNOUNCEMENT = "announcement"
    """To every player: the GM's announcement."""
    WELCOME = "welcome"
    """To a new player: the password (sealed until sent) and the first report."""
    GUESSING = "guessing"
    """The digest of wrong passwords, to an empire's owner or the GM."""
    ADDRESS_CONFIRM = "address_confirm"
    """The code an ADDRESS command sends to the new address."""
    SIGNUP_CONFIRM = "signup_confirm"
    """The code a JOIN mail is answered with."""
    SIGNUP = "signup"
    """A sign-up's answer: refused, or received and waiting for the GM."""


#: Kinds of mail that carry a secret (a new player's password, sealed by the
#: password key until the mail is built; an address-change or a JOIN's code):
#: once delivered, their body and data are scrubbed.
SECRET_KINDS = frozenset({MailKind.WELCOME, MailKind.ADDRESS_CONFIRM, MailKind.SIGNUP_CONFIRM})
