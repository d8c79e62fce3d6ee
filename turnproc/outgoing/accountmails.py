"""The mails that answer a player's account commands (HELP, ADDRESS, QUIT:
``help``, ``address_confirm``, ``address_changed``, ``player_quit`` to the GM)
and sign-up by mail (``signup_received``, ``signup_request`` to the GM,
``signup_refused``; an approval is the welcome mail of :mod:`turnproc.outgoing.welcome`): one
function per kind, as in :mod:`turnproc.outgoing.mails`, each context typed
(:mod:`turnproc.outgoing.contexts`) and queued by :func:`turnproc.outgoing.templated.queue_notice`."""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import Session

from ..config import Config
from ..reports.links import game_links
from ..storage.mailkinds import MailKind
from . import messageids
from .contexts import (
    AddressChangedContext,
    AddressConfirmContext,
    HelpContext,
    PlayerQuitContext,
    SignupConfirmContext,
    SignupReceivedContext,
    SignupRefusedContext,
    SignupRequestContext,
)
from .templated import queue_notice

__all__ = [
    "empire_tag",
    "queue_help",
    "queue_address_confirm",
    "queue_address_changed",
    "queue_player_quit",
    "queue_signup_confirm",
    "queue_signup_received",
    "queue_signup_request",
    "queue_signup_refused",
]


def queue_help(
    session: Session,
    config: Config,
    now: dt.datetime,
    *,
    recipient: str,
    game_id: int | None,
    vacation_limit: int | None,
    min_password: int,
    min_symbols: int,
    kind: MailKind = MailKind.HELP,
    game: str | None = None,
) -> bool:
    """To anyone who sent HELP (or only "help"): the short guide, with the
    links of ``game`` when it is known. ``kind`` is what the reply caps count
    it as (``stranger`` for an unknown address)."""
    context: HelpContext = {
        "host": config.from_address,
        "vacation_limit": vacation_limit,
        "min_password": min_password,
        "min_symbols": min_symbols,
        "links": game_links(config.site_url, game, config.gm_address),
    }
    return queue_notice(
        session, config, "help", context, now, game_id=game_id, recipient=recipient, kind=kind
    )


def empire_tag(kind: str, empire_id: int) -> str:
    """The Message-ID tag of a capped mail ``kind`` about one empire
    (:func:`turnproc.outgoing.messageids.message_id`)."""
    return f"{kind.replace('_', '-')}-{empire_id}"


def queue_address_confirm(
    session: Session,
    config: Config,
    now: dt.datetime,
    *,
    game: str,
    game_id: int,
    empire: str,
    recipient: str,
    code: str,
    expires: dt.datetime,
    empire_id: int,
) -> bool:
    """To the new address of an ADDRESS request: the code that confirms it
    (its Message-ID names the empire: the caps count per empire)."""
    context: AddressConfirmContext = {
        "game": game,
        "empire": empire,
        "code": code,
        "expires": f"{expires:%Y-%m-%d %H:%M}",
    }
    mid = messageids.message_id(config.from_address, empire_tag("address_confirm", empire_id))
    return queue_notice(
        session,
        config,
        "address_confirm",
        context,
        now,
        game_id=game_id,
        recipient=recipient,
        kind=MailKind.ADDRESS_CONFIRM,
        message_id=mid,
    )


def queue_address_changed(
    session: Session,
    config: Config,
    now: dt.datetime,
    *,
    game: str,
    game_id: int,
    empire: str,
    old: str,
    new: str,
) -> bool:
    """To the old address once the new one confirmed: the empire's mail moved."""
    context: AddressChangedContext = {"game": game, "empire": empire, "old": old, "new": new}
    return queue_notice(
        session, config, "address_changed", context, now, game_id=game_id, recipient=old, kind=MailKind.NOTICE
    )


def queue_player_quit(
    session: Session,
    config: Config,
    now: dt.datetime,
    *,
    game: str,
    game_id: int,
    turn: int,
    empire: str,
    empire_name: str,
    email: str,
    empire_id: int,
) -> bool:
    """To the GM: a player sent QUIT (its Message-ID names the empire: one an hour per empire)."""
    context: PlayerQuitContext = {
        "game": game,
        "turn": turn,
        "empire": empire,
        "empire_name": empire_name,
        "email": email,
    }
    mid = messageids.message_id(config.from_address, empire_tag("player_quit", empire_id))
    return queue_notice(session, config, "player_quit", context, now, game_id=game_id, message_id=mid)


def queue_signup_received(
    session: Session,
    config: Config,
    now: dt.datetime,
    *,
    game: str,
    game_id: int,
    recipient: str,
    code: str,
    name: str,
    kind: MailKind = MailKind.STRANGER,
) -> bool:
    """To the applicant of a JOIN: the request waits for the GM (counted as
    an answer to a stranger by the reply caps, unless ``kind`` says otherwise)."""
    context: SignupReceivedContext = {"game": game, "code": code, "name": name}
    return queue_notice(
        session, config, "signup_received", context, now, game_id=game_id, recipient=recipient, kind=kind
    )


def queue_signup_confirm(
    session: Session,
    config: Config,
    now: dt.datetime,
    *,
    game: str,
    game_id: int,
    recipient: str,
    code: str,
    name: str,
    secret: str,
    expires: dt.datetime,
) -> bool:
    """To the address a JOIN came from: the code that makes it a request (a
    kind of its own: its body is scrubbed once delivered, as a password's)."""
    context: SignupConfirmContext = {
        "game": game,
        "code": code,
        "name": name,
        "secret": secret,
        "expires": f"{expires:%Y-%m-%d %H:%M}",
    }
    return queue_notice(
        session,
        config,
        "signup_confirm",
        context,
        now,
        game_id=game_id,
        recipient=recipient,
        kind=MailKind.SIGNUP_CONFIRM,
    )


def queue_signup_request(
    session: Session,
    config: Config,
    now: dt.datetime,
    *,
    game: str,
    game_id: int,
    code: str,
    name: str,
    email: str,
    pending: int,
) -> bool:
    """To the GM: a JOIN waits for approval."""
    context: SignupRequestContext = {
        "game": game,
        "code": code,
        "name": name,
        "email": email,
        "pending": pending,
    }
    return queue_notice(session, config, "signup_request", context, now, game_id=game_id)


def queue_signup_refused(
    session: Session,
    config: Config,
    now: dt.datetime,
    *,
    game: str,
    game_id: int,
    recipient: str,
    code: str,
    reason: str,
) -> bool:
    """To the applicant: the GM refused the request."""
    context: SignupRefusedContext = {"game": game, "code": code, "reason": reason}
    return queue_notice(
        session,
        config,
        "signup_refused",
        context,
        now,
        game_id=game_id,
        recipient=recipient,
        kind=MailKind.SIGNUP,
    )
