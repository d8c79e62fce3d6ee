"""What each mail's template reads: one typed context per folder of
``templates/mail/<template>/``, so mypy checks every key where a mail is queued.

A queued mail's context waits in its outbox row as JSON until the mail is
sent (:func:`turnproc.outgoing.templated.queue_notice`): these types describe
what is written. What is read back stays JSON, as rows queued by an older
version wrote it; a template reads a key added since then only under
``is defined`` (``by_hand``, ``done``, ``wait``), which is why no key here is
ever renamed. ``tests/mail/test_mail_contexts.py`` holds each type to its
template's files.
"""

from __future__ import annotations

from typing import Final, Literal, TypedDict

from ..reports.judge import Verdict
from ..reports.schema import BulletinContext, ReportContext
from ..rules.verdicts import OrderCheck

__all__ = [
    "AckContext",
    "AckMailContext",
    "AddressChangedContext",
    "AddressConfirmContext",
    "AddressSetContext",
    "AnnouncementContext",
    "DeadlineChangedContext",
    "GuessingDigestContext",
    "HandedOverContext",
    "HelpContext",
    "MailSetAsideContext",
    "OrdersEnteredContext",
    "PlayerQuitContext",
    "ReminderContext",
    "RolledBackContext",
    "SignupConfirmContext",
    "SignupReceivedContext",
    "SignupRefusedContext",
    "SignupRequestContext",
    "TurnBlockedContext",
    "TurnGuardedContext",
    "TurnRanContext",
    "WelcomeContext",
    "WelcomeMailContext",
    "WorkerErrorContext",
    "NoticeTemplate",
    "NoticeContext",
    "QueuedMail",
    "QueuedWelcome",
    "CONTEXTS",
    "OFFLINE_ACK",
]


# -- answers to a player's mail --------------------------------------------------------


class AckContext(OrderCheck):
    """What intake says of an order mail (:func:`turnproc.outgoing.mails.ack_context`)."""

    outcome: str
    game: str | None
    empire: str | None
    turn: int | None
    replaced: bool
    deadline: str | None
    reason: str
    notice: str
    offline: bool
    done: list[str]
    wait: bool


class AckMailContext(AckContext):
    """The acknowledgement as queued: with the subject it answers."""

    subject: str


class GuessingDigestContext(TypedDict):
    game: str
    empire: str
    count: int
    first: str
    last: str
    senders: list[tuple[str, int]]
    more_senders: int
    latest: str
    empires: list[tuple[str, int]]
    more_empires: int
    about: str


class HelpContext(TypedDict):
    host: str
    vacation_limit: int | None
    min_password: int
    min_symbols: int
    links: dict[str, str]


class AddressConfirmContext(TypedDict):
    game: str
    empire: str
    code: str
    expires: str


class AddressChangedContext(TypedDict):
    game: str
    empire: str
    old: str
    new: str


class SignupReceivedContext(TypedDict):
    game: str
    code: str
    name: str


class SignupConfirmContext(SignupReceivedContext):
    secret: str
    expires: str


class SignupRefusedContext(TypedDict):
    game: str
    code: str
    reason: str


# -- to the GM -------------------------------------------------------------------------


class TurnRanContext(TypedDict):
    game: str
    turn: int
    early: bool
    deadline: str | None
    next_deadline: str | None
    events: int
    reports: int
    missed: list[str]
    inactive: list[str]
    finished: bool
    staged: bool
    by_hand: bool


class TurnGuardedContext(TypedDict):
    game: str
    turn: int
    deadline: str | None
    next_deadline: str | None
    active: int
    missing: list[str]
    limit: int
    opened: str | None


class TurnBlockedContext(TypedDict):
    game: str
    turn: int
    staged_turn: int | None
    deadline: str | None
    next_deadline: str | None


class WorkerErrorContext(TypedDict):
    game: str
    turn: int
    summary: str
    detail: str


class MailSetAsideContext(TypedDict):
    digest: str
    attempts: int
    error: str
    headers: str


class PlayerQuitContext(TypedDict):
    game: str
    turn: int
    empire: str
    empire_name: str
    email: str


class SignupRequestContext(TypedDict):
    game: str
    code: str
    name: str
    email: str
    pending: int


# -- to players, on the GM's behalf ----------------------------------------------------


class ReminderContext(TypedDict):
    game: str
    turn: int
    empire: str
    empire_name: str
    deadline: str | None
    time_left: str
    reply_to: str


class DeadlineChangedContext(TypedDict):
    game: str
    turn: int
    empire: str
    because: str
    deadline: str | None
    deadline_utc: str | None
    reply_to: str


class AnnouncementContext(TypedDict):
    game: str
    turn: int
    empire: str
    """Whose copy the row is: the mail itself does not say."""
    subject: str
    text: str


class RolledBackContext(TypedDict):
    game: str
    empire: str
    turn: int
    archived: list[int]
    reason: str | None
    reply_to: str


class AddressSetContext(AddressChangedContext):
    pass


class HandedOverContext(TypedDict):
    game: str
    empire: str


class OrdersEnteredContext(TypedDict):
    game: str
    empire: str
    turn: int
    orders: list[str]
    reply_to: str


class WelcomeContext(TypedDict):
    """The welcome as queued: everything but the password, which the row
    holds sealed (:class:`QueuedWelcome`)."""

    game: str
    turn: int
    empire: str
    empire_name: str
    why: str
    reply_to: str
    deadline: str | None
    example: str
    report: str
    modules: str
    links: dict[str, str]


class WelcomeMailContext(WelcomeContext):
    """The welcome as it is rendered, its password unsealed."""

    password: str


# -- what the outbox row holds ---------------------------------------------------------

#: The templates :func:`turnproc.outgoing.templated.queue_notice` sends.
NoticeTemplate = Literal[
    "address_changed",
    "address_confirm",
    "address_set",
    "announcement",
    "deadline_changed",
    "handed_over",
    "help",
    "mail_set_aside",
    "orders_entered",
    "player_quit",
    "reminder",
    "rolled_back",
    "signup_confirm",
    "signup_received",
    "signup_refused",
    "signup_request",
    "turn_blocked",
    "turn_guarded",
    "turn_ran",
    "worker_error",
]

NoticeContext = (
    AddressChangedContext
    | AddressConfirmContext
    | AddressSetContext
    | AnnouncementContext
    | DeadlineChangedContext
    | HandedOverContext
    | HelpContext
    | MailSetAsideContext
    | OrdersEnteredContext
    | PlayerQuitContext
    | ReminderContext
    | RolledBackContext
    | SignupConfirmContext
    | SignupReceivedContext
    | SignupRefusedContext
    | SignupRequestContext
    | TurnBlockedContext
    | TurnGuardedContext
    | TurnRanContext
    | WorkerErrorContext
)


class QueuedMail(TypedDict):
    """``outbox.data`` of a mail built when sent from a template: an
    acknowledgement, a guessing digest or a notice."""

    to: str
    context: AckMailContext | GuessingDigestContext | NoticeContext
    in_reply_to: str
    references: str
    template: str
    """Rows queued before notices were built when sent have none: they are acknowledgements."""


class QueuedWelcome(TypedDict):
    """``outbox.data`` of a welcome: its password sealed by the password key."""

    to: str
    context: WelcomeContext
    sealed: str


#: Each folder of ``templates/mail/`` and the context its files are rendered with.
CONTEXTS: Final[dict[str, type]] = {
    "ack": AckMailContext,
    "address_changed": AddressChangedContext,
    "address_confirm": AddressConfirmContext,
    "address_set": AddressSetContext,
    "announcement": AnnouncementContext,
    "bulletin": BulletinContext,
    "deadline_changed": DeadlineChangedContext,
    "guessing_digest": GuessingDigestContext,
    "handed_over": HandedOverContext,
    "help": HelpContext,
    "mail_set_aside": MailSetAsideContext,
    "orders_entered": OrdersEnteredContext,
    "player_quit": PlayerQuitContext,
    "reminder": ReminderContext,
    "report": ReportContext,
    "rolled_back": RolledBackContext,
    "signup_confirm": SignupConfirmContext,
    "signup_received": SignupReceivedContext,
    "signup_refused": SignupRefusedContext,
    "signup_request": SignupRequestContext,
    "turn_blocked": TurnBlockedContext,
    "turn_guarded": TurnGuardedContext,
    "turn_ran": TurnRanContext,
    "welcome": WelcomeMailContext,
    "worker_error": WorkerErrorContext,
}

#: ``ack/offline.txt``: the acknowledgement as the offline checker says it
#: (:func:`turnproc.reports.judge.judge`), the ack folder's one file of another context.
OFFLINE_ACK: Final[tuple[str, type]] = ("ack/offline.txt", Verdict)
