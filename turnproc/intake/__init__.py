"""Order mail in: each mail handled in the poll's transaction (``handle``),
what its orders, or orders the GM entered, do to the orders on file
(``onfile``), the inbox read in batches and filed after the commit
(``inbox``), and what a poll reuses between mails (``cache``), and what a
mail's handling comes to (``outcome``)."""

from .cache import IntakeCache
from .handle import IntakeResult, handle_mail
from .inbox import poll, poll_imap, poll_maildir
from .onfile import submit_orders
from .outcome import Folder, Outcome

__all__ = [
    "IntakeCache",
    "IntakeResult",
    "Outcome",
    "Folder",
    "handle_mail",
    "submit_orders",
    "poll",
    "poll_imap",
    "poll_maildir",
]
