"""Polling the inbox: each mail handled in its own transaction, filed away only
after that transaction committed.

If the process dies between commit and filing, the next poll sees the mail
again; ``intake_message`` recognises its bytes and changes nothing.
"""

from __future__ import annotations

import datetime as dt
import logging

from .app import App
from .mail.maildir import MaildirInbox, MaildirOutbox
from .mail.outbox import Transport
from .mail.smtp import SmtpTransport
from .pipeline import IntakeCache, IntakeResult, intake_message
from .storage.db import transaction

log = logging.getLogger(__name__)

__all__ = ["poll_maildir", "poll", "transport_for"]


def poll_maildir(app: App, now: dt.datetime) -> list[IntakeResult]:
    inbox = MaildirInbox(app.config.maildir_in)
    cache = IntakeCache()
    results: list[IntakeResult] = []
    for key, raw in inbox.pending():
        try:
            with transaction(app.sessions) as session:
                result = intake_message(session, raw, app.config, now, cache)
        except Exception:
            # Left in the inbox for the next poll: an order is never dropped
            # because of our own failure.
            log.exception("mail %s could not be handled; left in the inbox", key)
            continue
        inbox.file(key, result.folder)
        log.info("mail %s: %s %s/%s %s", key, result.outcome, result.game, result.empire, result.detail)
        results.append(result)
    return results


def poll(app: App, now: dt.datetime) -> list[IntakeResult]:
    """Fetch and handle every waiting order mail once, from the configured transport."""
    if app.config.transport == "maildir":
        return poll_maildir(app, now)
    return poll_imap(app, now)


def poll_imap(app: App, now: dt.datetime, batch: int = 100) -> list[IntakeResult]:
    """One pass over the IMAP folder: read with BODY.PEEK[] (so nothing is marked
    seen before we are done), handle, commit, then flag and move."""
    from .mail.imap import ImapMailbox

    results: list[IntakeResult] = []
    cache = IntakeCache()
    with ImapMailbox(app.config.imap) as box:
        for uid, raw in box.pending(batch):
            try:
                with transaction(app.sessions) as session:
                    result = intake_message(session, raw, app.config, now, cache)
            except Exception:
                log.exception("IMAP message uid %s could not be handled; left in the folder", uid)
                continue
            box.file(uid, app.config.imap.processed_folder if result.folder == "Processed" else app.config.imap.rejected_folder)
            log.info("uid %s: %s %s/%s %s", uid, result.outcome, result.game, result.empire, result.detail)
            results.append(result)
    return results


def transport_for(app: App) -> Transport:
    if app.config.transport == "maildir":
        return MaildirOutbox(app.config.maildir_out)
    return SmtpTransport(app.config.smtp, app.config.from_address)
