"""Every mail the host sends: one function per kind, each building the typed
context (:mod:`turnproc.outgoing.contexts`) of ``templates/mail/<kind>/`` and
queueing the mail in the caller's transaction (the outbox delivers it after
the commit).

Kinds: the acknowledgement of an order mail (``ack``), a report (``report``),
and the GM's and players' notices: ``turn_ran``, ``turn_guarded`` (the
missed-orders guard kept a turn from running), ``turn_blocked`` (a staged turn
waits for release), ``reminder`` and ``worker_error``; the answers to the
player's account commands and to sign-up by mail (in :mod:`turnproc.outgoing.accountmails`);
to players on the GM's behalf: ``welcome`` (a new empire's password and first report),
``deadline_changed`` and ``announcement`` (the last two, to every active player at once, in
:mod:`turnproc.outgoing.announcements`).

When a mail's bytes are built: when it is sent, every one. The row holds what
the mail says (a stored report or bulletin, or the template and its context,
a welcome's password sealed), and the flush builds the bytes on every CPU,
outside the poll's and the turn's transactions. The one mail built when
queued is a report that is not stored (the start position a welcome
carries), which has nothing to be built from later.
"""

from __future__ import annotations

import datetime as dt
import re

from sqlalchemy.orm import Session

from ..config import Config
from ..mail.compose import shown_address
from ..mail.hygiene import clean_header
from ..mail.queueing import Deferred, queue_deferred, queue_mail
from ..orders.orders import ProblemDict
from ..reports.links import game_links
from ..reports.render import render_subject, report_subject
from ..rules.verdicts import order_check
from ..runtime import jsontext
from ..storage import models as m
from ..storage.mailkinds import MailKind
from . import messageids
from .contexts import (
    AckContext,
    AckMailContext,
    GuessingDigestContext,
    MailSetAsideContext,
    QueuedWelcome,
    ReminderContext,
    TurnBlockedContext,
    TurnGuardedContext,
    TurnRanContext,
    WelcomeContext,
    WorkerErrorContext,
)
from .reportmail import BULLETIN_TO, report_mail
from .templated import queue_built_when_sent, queue_notice

__all__ = [
    "ack_context",
    "order_check",
    "queue_ack",
    "queue_report",
    "queue_reports",
    "queue_bulletin",
    "queue_turn_ran",
    "queue_turn_guarded",
    "queue_turn_blocked",
    "queue_reminder",
    "queue_worker_error",
    "queue_welcome",
    "queue_guessing_digest",
]


# -- acknowledgements ------------------------------------------------------------------


def ack_context(
    *,
    outcome: str,
    game: str | None,
    empire: str | None,
    turn: int | None,
    lines: list[dict[str, object]] | None = None,
    errors: list[ProblemDict] | None = None,
    on_file: list[str] | None = None,
    slots: int = 0,
    replaced: bool = False,
    deadline: str | None = None,
    reason: str = "",
    notice: str = "",
    skipped: list[str] | None = None,
    cost: dict[str, int] | None = None,
    done: list[str] | None = None,
    wait: bool = False,
) -> AckContext:
    """``outcome``: accepted, cleared, commands or rejected (then ``reason``
    says why). ``on_file`` None: say nothing about the orders on file.
    ``lines`` to ``cost`` are what :func:`order_check` gives; ``done``: what
    each account command in the mail did, one line each; ``wait``: the orders
    on file carry WAIT."""
    return {
        "outcome": outcome,
        "game": game,
        "empire": empire,
        "turn": turn,
        "lines": lines or [],
        "errors": errors or [],
        "on_file": on_file,
        "slots": slots,
        "replaced": replaced,
        "deadline": deadline,
        "reason": reason,
        "notice": notice,
        "skipped": skipped or [],
        "cost": cost,
        "offline": False,
        "done": done or [],
        "wait": wait,
    }


#: The reply prefixes mail programs write (English, German, Dutch, the
#: Nordic languages, French, Spanish, Italian), one or more, with a count or not.
_REPLY_PREFIX = re.compile(
    r"^(\s*(re|aw|antw|sv|vs|r|rif|réf|ref|res)(\[\d+\]|\(\d+\))?\s*:\s*)+", re.IGNORECASE
)


def queue_ack(
    session: Session,
    config: Config,
    recipient: str,
    context: AckContext,
    *,
    kind: MailKind,
    game_id: int | None,
    now: dt.datetime,
    subject: str,
    in_reply_to: str,
    references: str,
) -> str:
    """The answer to a mail (threaded under it: its subject, Message-ID and
    References); its own Message-ID. ``kind`` (ack, reject, unknown) is what
    the reply caps count. Queued as what it says (``outbox.data``), its bytes
    built when it is sent (:func:`turnproc.outgoing.reportmail.ack_mail`), as a
    report's are: rendering and writing out a thousand answers was an eighth
    of a big night's poll, which reads its mails one at a time, while sending
    builds on every CPU."""
    # Whatever the sender put in their headers, ours stay short and storable;
    # the template puts one "Re: " in front, so an answer to "Re: orders" is
    # "Re: orders", never "Re: Re: orders".
    subject = _REPLY_PREFIX.sub("", clean_header(subject))
    if len(subject) > 200:
        subject = subject[:199] + "\u2026"
    mail: AckMailContext = {"subject": subject or "your orders", **context}
    mid = messageids.message_id(config.from_address)
    queue_built_when_sent(
        session,
        recipient,
        "ack",
        mail,
        mid,
        kind=kind,
        game_id=game_id,
        now=now,
        in_reply_to=clean_header(in_reply_to)[:500],
        references=" ".join(clean_header(references).split()[-10:])[:900],
    )
    return mid


# -- reports ---------------------------------------------------------------------------


def queue_report(
    session: Session,
    config: Config,
    game_id: int,
    game_name: str,
    empire_code: str,
    recipient: str,
    report: m.Report,
    now: dt.datetime,
    *,
    held: bool = False,
    kind: MailKind = MailKind.REPORT,
) -> None:
    """The report as a mail (:func:`turnproc.outgoing.reportmail.report_mail`): a stored
    report's mail is built when sent (:func:`queue_reports`); one not stored
    (the start position) is built now, the same way. ``held`` keeps it back
    for a staged turn; ``kind`` tells a turn's report from a copy sent again."""
    if report.id is not None:
        queue_reports(
            session,
            config,
            game_id,
            report.turn,
            [(recipient, report.id, report_subject(report.data))],
            now,
            held=held,
            kind=kind,
        )
        return
    stem = f"{game_name}-turn{report.turn}-{empire_code}"
    raw = report_mail(
        config.from_address,
        recipient,
        messageids.message_id(config.from_address),
        now,
        report.data,
        stem,
        config.site_url,
    )
    queue_mail(session, raw, kind=kind, game_id=game_id, turn=report.turn, held=held, now=now)


def queue_reports(
    session: Session,
    config: Config,
    game_id: int,
    turn: int,
    reports: list[tuple[str, int, str]],
    now: dt.datetime,
    *,
    held: bool = False,
    kind: MailKind = MailKind.REPORT,
) -> None:
    """Report mails, (recipient, report id, the mail's subject) each, queued
    to be built when sent: a turn's thousand in one INSERT."""
    mails = [
        Deferred(recipient, subject, messageids.message_id(config.from_address), report_id=report_id)
        for recipient, report_id, subject in reports
    ]
    queue_deferred(session, mails, kind=kind, game_id=game_id, now=now, turn=turn, held=held)


def queue_bulletin(
    session: Session,
    config: Config,
    bulletin: m.Bulletin,
    recipients: list[str],
    now: dt.datetime,
    *,
    held: bool = False,
    copy_to: str | None = None,
) -> None:
    """The turn's bulletin, built when sent: one mail to all ``recipients``,
    named only in the envelope; or, with ``copy_to``, again to one player who
    asked (REPORT n)."""
    mail = Deferred(
        copy_to or BULLETIN_TO,
        render_subject("bulletin", bulletin.data),
        messageids.message_id(config.from_address),
        bulletin_id=bulletin.id,
        bcc=None if copy_to else recipients,
    )
    kind, turn = (MailKind.BULLETIN_COPY, None) if copy_to else (MailKind.BULLETIN, bulletin.turn)
    queue_deferred(session, [mail], kind=kind, game_id=bulletin.game_id, now=now, turn=turn, held=held)


# -- notices ---------------------------------------------------------------------------


def queue_turn_ran(
    session: Session,
    config: Config,
    game_id: int,
    now: dt.datetime,
    *,
    game: str,
    turn: int,
    early: bool,
    deadline: str | None,
    next_deadline: str | None,
    events: int,
    reports: int,
    missed: list[str],
    inactive: list[str],
    finished: bool,
    staged: bool,
    by_hand: bool = False,
) -> bool:
    """To the GM: a turn ran (at its deadline, early, or by hand: ``turn run``)."""
    context: TurnRanContext = {
        "game": game,
        "turn": turn,
        "early": early,
        "deadline": deadline,
        "next_deadline": next_deadline,
        "events": events,
        "reports": reports,
        "missed": missed,
        "inactive": inactive,
        "finished": finished,
        "staged": staged,
        "by_hand": by_hand,
    }
    return queue_notice(session, config, "turn_ran", context, now, game_id=game_id)


def queue_turn_guarded(
    session: Session,
    config: Config,
    game_id: int,
    now: dt.datetime,
    *,
    game: str,
    turn: int,
    deadline: str | None,
    next_deadline: str | None,
    active: int,
    missing: list[str],
    limit: int,
    opened: str | None,
) -> bool:
    """To the GM: the missed-orders guard kept the turn from running."""
    context: TurnGuardedContext = {
        "game": game,
        "turn": turn,
        "deadline": deadline,
        "next_deadline": next_deadline,
        "active": active,
        "missing": missing,
        "limit": limit,
        "opened": opened,
    }
    return queue_notice(session, config, "turn_guarded", context, now, game_id=game_id)


def queue_turn_blocked(
    session: Session,
    config: Config,
    game_id: int,
    now: dt.datetime,
    *,
    game: str,
    turn: int,
    staged_turn: int | None,
    deadline: str | None,
    next_deadline: str | None,
) -> bool:
    """To the GM: a deadline passed while an earlier turn waits for release."""
    context: TurnBlockedContext = {
        "game": game,
        "turn": turn,
        "staged_turn": staged_turn,
        "deadline": deadline,
        "next_deadline": next_deadline,
    }
    return queue_notice(session, config, "turn_blocked", context, now, game_id=game_id)


def queue_reminder(
    session: Session,
    config: Config,
    game: m.Game,
    now: dt.datetime,
    *,
    empire: str,
    empire_name: str,
    recipient: str,
    deadline: str | None,
    time_left: str,
) -> bool:
    """To a player without orders: the deadline is near, ``time_left`` away
    (:func:`turnproc.turns.schedule.time_left`). At most one per empire and turn (a
    stable Message-ID)."""
    context: ReminderContext = {
        "game": game.name,
        "turn": game.turn,
        "empire": empire,
        "empire_name": empire_name,
        "deadline": deadline,
        "time_left": time_left,
        "reply_to": config.from_address,
    }
    mid = messageids.game_once_id(config.from_address, game, "reminder", f"t{game.turn}", empire)
    return queue_notice(
        session,
        config,
        "reminder",
        context,
        now,
        game_id=game.id,
        recipient=recipient,
        kind=MailKind.REMINDER,
        message_id=mid,
        turn=game.turn,
    )


def queue_guessing_digest(
    session: Session,
    config: Config,
    now: dt.datetime,
    *,
    game: str,
    game_id: int,
    empire: str,
    recipient: str,
    count: int,
    first: dt.datetime,
    last: dt.datetime,
    senders: list[tuple[str, int]],
    more_senders: int,
    latest: str,
    empires: list[tuple[str, int]],
    more_empires: int,
) -> None:
    """To an empire's owner (``empire`` its code) or to the GM (``empire``
    empty, ``empires`` the game's empires with their counts), never to a
    sender: ``count`` mails with a wrong password since the last digest
    (intake/guessing.py)."""
    told = len(empires) + more_empires
    context: GuessingDigestContext = {
        "game": game,
        "empire": empire,
        "count": count,
        "first": f"{first:%Y-%m-%d %H:%M}",
        "last": f"{last:%Y-%m-%d %H:%M}",
        "senders": senders,
        "more_senders": more_senders,
        "latest": latest,
        "empires": empires,
        "more_empires": more_empires,
        "about": empire or f"{told} empire{'s' if told != 1 else ''}",
    }
    # A flood over a thousand empires is a thousand digests: the poll only stores what they say.
    mid = messageids.message_id(config.from_address)
    queue_built_when_sent(
        session, recipient, "guessing_digest", context, mid, kind=MailKind.GUESSING, game_id=game_id, now=now
    )


def queue_mail_set_aside(
    session: Session, config: Config, now: dt.datetime, *, digest: str, attempts: int, error: str, raw: bytes
) -> bool:
    """To the GM: a mail failed through our fault in every poll and was moved
    to the Failed folder; its headers say whose it was."""
    head = (
        raw.split(b"\r\n\r\n", 1)[0]
        .split(b"\n\n", 1)[0][:4000]
        .decode("utf-8", "replace")
        .replace("\x00", "")
    )
    context: MailSetAsideContext = {"digest": digest, "attempts": attempts, "error": error, "headers": head}
    mid = messageids.once_message_id(config.from_address, (), "set-aside", digest[:32], attempts)
    return queue_notice(session, config, "mail_set_aside", context, now, game_id=None, message_id=mid)


def queue_worker_error(
    session: Session,
    config: Config,
    now: dt.datetime,
    *,
    summary: str,
    detail: str,
    game: m.Game | None = None,
    error_kind: str = "",
) -> bool:
    """To the GM: the worker cannot do its job. For a game, once per turn and
    kind of error, however often it recurs."""
    context: WorkerErrorContext = {
        "game": game.name if game else "",
        "turn": game.turn if game else 0,
        "summary": summary,
        "detail": detail,
    }
    mid = (
        messageids.game_once_id(config.from_address, game, "error", f"t{game.turn}", error_kind)
        if game
        else None
    )
    return queue_notice(
        session, config, "worker_error", context, now, game_id=game.id if game else None, message_id=mid
    )


# -- to players, on the GM's behalf ----------------------------------------------------


def queue_welcome(
    session: Session,
    config: Config,
    game: m.Game,
    now: dt.datetime,
    *,
    empire: str,
    empire_name: str,
    recipient: str,
    sealed_password: str,
    why: str,
    deadline: str | None,
    example: str,
    report: str,
    modules: str,
) -> bool:
    """To a new player (or the new player of a handed-over empire): the
    password, how to send orders, the next deadline and the latest report.
    Queued as what it says, with the password sealed by the password key
    (turnproc/accounts/passwordkey.py); ``example`` says ``<password>`` where the
    password goes, never the password itself (a welcome sent back must not
    read as an order mail). The outbox row holds no password, and the mail is
    built when it is sent (:func:`turnproc.outgoing.reportmail.welcome_mail`).
    ``why``: ``new`` player, new ``password``, or ``replace`` (new hands)."""
    context: WelcomeContext = {
        "game": game.name,
        "turn": game.turn,
        "empire": empire,
        "empire_name": empire_name,
        "why": why,
        "reply_to": config.from_address,
        "deadline": deadline,
        "example": example,
        "report": report,
        "modules": modules,
        "links": game_links(config.site_url, game.name, config.gm_address),
    }
    subject = render_subject("welcome", context)
    mid = messageids.message_id(config.from_address)
    queued: QueuedWelcome = {"to": recipient, "context": context, "sealed": sealed_password}
    data = jsontext.dumps(queued)
    queue_mail(
        session,
        None,
        kind=MailKind.WELCOME,
        game_id=game.id,
        now=now,
        headers=(shown_address(recipient), subject, mid),
        data=data,
    )
    return True
