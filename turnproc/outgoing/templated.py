"""A mail of a template queued with its typed context, its bytes built
when it is sent: the notices (:func:`queue_notice`), and the one way every
such mail is queued (:func:`queue_built_when_sent`), the acknowledgements
and guessing digests of :mod:`turnproc.outgoing.mails` too.

Each notice's template name is paired with its context type
(:mod:`turnproc.outgoing.contexts`) by an overload, so mypy checks the keys of
every notice where it is queued.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal, NotRequired, TypedDict, Unpack, overload

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..config import Config
from ..mail.compose import shown_address
from ..mail.queueing import queue_mail
from ..reports.render import render_subject
from ..runtime import jsontext
from ..storage import models as m
from ..storage.mailkinds import MailKind
from . import messageids
from .contexts import (
    AckMailContext,
    AddressChangedContext,
    AddressConfirmContext,
    AddressSetContext,
    AnnouncementContext,
    DeadlineChangedContext,
    GuessingDigestContext,
    HandedOverContext,
    HelpContext,
    MailSetAsideContext,
    NoticeContext,
    NoticeTemplate,
    OrdersEnteredContext,
    PlayerQuitContext,
    QueuedMail,
    ReminderContext,
    RolledBackContext,
    SignupConfirmContext,
    SignupReceivedContext,
    SignupRefusedContext,
    SignupRequestContext,
    TurnBlockedContext,
    TurnGuardedContext,
    TurnRanContext,
    WorkerErrorContext,
)

__all__ = ["NoticeOptions", "queue_notice", "queue_built_when_sent"]


class NoticeOptions(TypedDict):
    """:func:`queue_notice`'s keyword arguments."""

    game_id: int | None
    recipient: NotRequired[str | None]
    kind: NotRequired[MailKind]
    message_id: NotRequired[str | None]
    turn: NotRequired[int | None]


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["address_changed"],
    context: AddressChangedContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["address_confirm"],
    context: AddressConfirmContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["address_set"],
    context: AddressSetContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["announcement"],
    context: AnnouncementContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["deadline_changed"],
    context: DeadlineChangedContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["handed_over"],
    context: HandedOverContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["help"],
    context: HelpContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["mail_set_aside"],
    context: MailSetAsideContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["orders_entered"],
    context: OrdersEnteredContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["player_quit"],
    context: PlayerQuitContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["reminder"],
    context: ReminderContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["rolled_back"],
    context: RolledBackContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["signup_confirm"],
    context: SignupConfirmContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["signup_received"],
    context: SignupReceivedContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["signup_refused"],
    context: SignupRefusedContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["signup_request"],
    context: SignupRequestContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["turn_blocked"],
    context: TurnBlockedContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["turn_guarded"],
    context: TurnGuardedContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["turn_ran"],
    context: TurnRanContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


@overload
def queue_notice(
    session: Session,
    config: Config,
    template: Literal["worker_error"],
    context: WorkerErrorContext,
    now: dt.datetime,
    **options: Unpack[NoticeOptions],
) -> bool: ...


def queue_notice(
    session: Session,
    config: Config,
    template: NoticeTemplate,
    context: NoticeContext,
    now: dt.datetime,
    *,
    game_id: int | None,
    recipient: str | None = None,
    kind: MailKind = MailKind.NOTICE,
    message_id: str | None = None,
    turn: int | None = None,
) -> bool:
    """Queue the mail of ``templates/mail/<template>/``, built when it is sent;
    to the GM unless ``recipient`` is given. False when there is no one to
    send it to, or when a mail with this stable ``message_id`` was queued
    before."""
    to = recipient if recipient is not None else config.gm_address
    if not to:
        return False
    if message_id is not None and session.scalar(
        select(m.OutboxMail.id).where(m.OutboxMail.message_id == message_id)
    ):
        return False
    mid = message_id or messageids.message_id(config.from_address)
    queue_built_when_sent(session, to, template, context, mid, kind=kind, game_id=game_id, turn=turn, now=now)
    return True


@overload
def queue_built_when_sent(
    session: Session,
    to: str,
    template: Literal["ack"],
    context: AckMailContext,
    mid: str,
    *,
    kind: MailKind,
    game_id: int | None,
    now: dt.datetime,
    turn: int | None = None,
    in_reply_to: str = "",
    references: str = "",
) -> None: ...


@overload
def queue_built_when_sent(
    session: Session,
    to: str,
    template: Literal["guessing_digest"],
    context: GuessingDigestContext,
    mid: str,
    *,
    kind: MailKind,
    game_id: int | None,
    now: dt.datetime,
    turn: int | None = None,
    in_reply_to: str = "",
    references: str = "",
) -> None: ...


@overload
def queue_built_when_sent(
    session: Session,
    to: str,
    template: NoticeTemplate,
    context: NoticeContext,
    mid: str,
    *,
    kind: MailKind,
    game_id: int | None,
    now: dt.datetime,
    turn: int | None = None,
    in_reply_to: str = "",
    references: str = "",
) -> None: ...


def queue_built_when_sent(
    session: Session,
    to: str,
    template: str,
    context: AckMailContext | GuessingDigestContext | NoticeContext,
    mid: str,
    *,
    kind: MailKind,
    game_id: int | None,
    now: dt.datetime,
    turn: int | None = None,
    in_reply_to: str = "",
    references: str = "",
) -> None:
    """The one way a mail is queued: as what it says (its template and
    context), its bytes built when it is sent
    (:func:`turnproc.outgoing.reportmail.ack_mail`). Building on the sending
    side keeps a poll or a turn, which hold the game's lock, from spending
    time on rendering, and lets the flush build on every CPU; the row shows
    its recipient and subject meanwhile. The caller's clock is the mail's
    date: the reply caps count notices to players against it too. (The
    notices' overload takes any notice's context: :func:`queue_notice`'s own
    overloads have paired it with its template.)"""
    data: QueuedMail = {
        "to": to,
        "context": context,
        "in_reply_to": in_reply_to,
        "references": references,
        "template": template,
    }
    headers = (shown_address(to), render_subject(template, context), mid)
    queue_mail(
        session,
        None,
        kind=kind,
        game_id=game_id,
        turn=turn,
        now=now,
        headers=headers,
        data=jsontext.dumps(data),
    )
