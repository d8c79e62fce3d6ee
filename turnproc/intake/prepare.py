"""Before a batch is handled: its mails parsed once, and the passwords they
carry verified on a thread pool while the batch is handled mail by mail
(:meth:`.cache.IntakeCache.prepare` runs the pre-pass).

Scrypt is slow on purpose and lets go of the interpreter lock, so verifying
the batch's passwords on the other cores, ahead of the mail that needs the
answer, takes most of its cost off the intake's critical path. Each (empire,
password) is verified at most once per poll; the outcome is kept in memory
for the poll only, keyed by a SHA-256 of the password and by the stored hash
(a GM's reset in between makes a new key), and never stored.

Nothing here decides a mail's outcome: :mod:`.handle` asks in the same order
as before, and a mail the pre-pass skipped is verified when it asks.
"""

from __future__ import annotations

import hashlib
import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from ..accounts.passwords import verify_password
from ..config import Config
from ..mail.dmarc import dmarc_failed
from ..mail.hygiene import automatic_reason, clean_header, raw_headers, sender_address
from ..mail.mime import MailLimits, MailRefused, ReadBudget, message_text, parse_headers, read_message
from ..orders.orders import Header
from ..orders.parser import ShapedMail, parse_header, shape_mail

__all__ = ["MAX_TEXT", "Parsed", "PasswordChecks", "limits_of", "parse_raw"]

#: Text read for the header; longer mails are refused (by handle).
MAX_TEXT = 256 * 1024


@dataclass
class Parsed:
    """What intake reads of a mail before it knows whose it is."""

    unreadable: str
    """Why the body could not be read ("" when it could)."""
    headers: dict[str, str]
    text: str
    header: Header
    sender: str
    """The From address, cleaned ("" without one)."""
    automatic: str | None
    """Why the mail is machine-made and gets no answer (:func:`~turnproc.mail.hygiene.automatic_reason`)."""
    shaped: ShapedMail
    """Its text's lines and shape, found for the header and kept for the whole parse."""
    forged: str = ""
    """Why the trusted mail server says the From is forged (DMARC failed), or ""."""


def limits_of(config: Config) -> MailLimits:
    """The shape and reading time the config allows a mail."""
    return MailLimits(config.mail_max_parts, config.mail_max_depth, config.mail_read_seconds)


def parse_raw(
    raw: bytes,
    limits: MailLimits = MailLimits(),  # noqa: B008 - frozen: one shared default is safe
    trusted_authserv_id: str = "",
) -> Parsed:
    """What intake reads of ``raw`` before it knows whose it is (for the
    batch's pre-pass, or for a mail handled alone). A mail beyond ``limits``
    is read for its headers only, and ``unreadable`` says why. With the
    receiving server's ``trusted_authserv_id``, also its DMARC verdict."""
    unreadable = ""
    budget = ReadBudget(limits.read_seconds)
    try:
        msg = read_message(raw, limits)
    except MailRefused as exc:
        msg, unreadable = parse_headers(raw), str(exc)
    # The raw header text: the email package parses a header afresh on
    # every access, which is most of intake's time otherwise.
    headers = raw_headers(msg)
    read: dict[str, tuple[ShapedMail, Header]] = {}

    def header_of(text: str) -> tuple[ShapedMail, Header]:
        # The reader asks for the headers of a multipart mail's texts: the
        # very parse the chosen one needs next, kept (Gmail 0.45 -> 0.37 ms a mail).
        if text not in read:
            shaped = shape_mail(text)
            read[text] = shaped, parse_header(text, shaped)
        return read[text]

    text = ""
    if not unreadable:
        try:
            text = message_text(msg, lambda t: header_of(t)[1], budget)
        except MailRefused as exc:
            unreadable = str(exc)
    from_address = sender_address(msg, headers)
    shaped, header = header_of(text[:MAX_TEXT])
    forged = ""
    if trusted_authserv_id and from_address:
        results = [str(v) for k, v in msg.raw_items() if k.lower() == "authentication-results"]
        forged = dmarc_failed(results, trusted_authserv_id, from_address.rpartition("@")[2])
    return Parsed(
        unreadable,
        headers,
        text,
        header,
        clean_header(from_address),
        automatic_reason(msg, headers, from_address),
        shaped,
        forged,
    )


_Key = tuple[int, str, str]


def _key(empire_id: int, stored: str, password: str) -> _Key:
    return (empire_id, stored, hashlib.sha256(password.encode()).hexdigest())


def _pool_size() -> int:
    """A thread for every core but one: the one the poll's own thread needs.
    The poll, not scrypt, is the critical path (3 ms a mail against 1.4 ms of
    scrypt); a thread on every core only took CPU from it: on two cores a
    1,000-mail poll took 3.41 s with two threads, 3.21 s with one (eight
    polls each, alternately). A mail whose answer is needed before a thread
    began on it is verified by the poll itself (:meth:`PasswordChecks.check`),
    so a night of slow hashes (chosen passwords) still uses every core."""
    return max(1, (os.cpu_count() or 1) - 1)


class PasswordChecks:
    """Each (empire, password) verified at most once per poll. The pool is
    made when the first verification is handed to it (never for a single
    mail handled outside a poll), and shut down by :meth:`close`."""

    def __init__(self, workers: int | None = None) -> None:
        self._workers = workers or _pool_size()
        self._pool: ThreadPoolExecutor | None = None
        self._outcomes: dict[_Key, Future[bool] | bool] = {}
        self.verified = 0
        """scrypt verifications done or under way (for tests and the benchmark)."""

    def submit(self, empire_id: int, stored: str, password: str) -> bool:
        """Start verifying ``password`` against the empire's ``stored`` hash on
        the pool; False when this pair is known or under way."""
        key = _key(empire_id, stored, password)
        if key in self._outcomes:
            return False
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix="scrypt")
        self._outcomes[key] = self._pool.submit(verify_password, password, stored)
        self.verified += 1
        return True

    def check(self, empire_id: int, stored: str, password: str) -> bool:
        key = _key(empire_id, stored, password)
        outcome = self._outcomes.get(key)
        if outcome is None:
            self.verified += 1
            outcome = verify_password(password, stored)
        elif isinstance(outcome, Future):
            # Not begun yet: verified here rather than waited for.
            outcome = verify_password(password, stored) if outcome.cancel() else outcome.result()
        self._outcomes[key] = outcome
        return outcome

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        self._outcomes.clear()
