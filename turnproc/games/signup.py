"""Sign-up by mail: the GM opens a game to strangers, a JOIN mail is answered
with a code, the code coming back from the same address makes it a pending
request (double opt-in: From proves nothing, a code mailed there does), and
the GM approves or refuses it.

An unconfirmed JOIN holds nothing: not a code, not a home, not a place under
the game's limit, and nobody but its address hears of it; a few wait per game
and one per address, and each expires after :data:`JOIN_CODE_HOURS`.

A request is checked when it arrives and again when the GM approves it (the
game may have filled up, or the code gone, in between). Approval creates the
empire through :func:`turnproc.games.game.add_empire`, exactly as ``empire add``
does, and mails the applicant the password. The rules are in
docs/gm-handbook.md ("Sign-up by mail") and, for players, docs/orders.md.

The mail layer is imported inside the functions that mail: ``game show``
reads the sign-up summary here, and would otherwise load the mail clients
and the report renderer it never uses (tests/test_cli_imports.py).
"""

from __future__ import annotations

import datetime as dt
import logging

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..accounts.passwords import generate_password, hash_code, verify_password
from ..config import Config
from ..errors import GMError
from ..storage import models as m
from ..storage import plainread
from ..storage.mailkinds import MailKind
from ..storage.queries import galaxy_counts, plain_reader
from ..storage.readmodel import PlayerSummary
from .game import add_empire

log = logging.getLogger(__name__)

__all__ = [
    "PlayerSummary",
    "JOIN_CODE_HOURS",
    "UNCONFIRMED_PER_GAME",
    "answer_signup",
    "approve_signup",
    "confirm_signup",
    "join_code_sent_within_hour",
    "player_summary",
    "refuse_signup",
    "request_signup",
    "set_signup",
]


#: How long the code a JOIN mails to its address works.
JOIN_CODE_HOURS = 48
#: Unconfirmed JOINs one game keeps at most (forged ones take no home, but
#: each is a row and a mail): past it a JOIN is refused until some expire.
UNCONFIRMED_PER_GAME = 20


def _pending(session: Session, game_id: int) -> list[m.SignupRequest]:
    """The confirmed requests waiting for the GM."""
    return list(
        session.scalars(
            select(m.SignupRequest)
            .where(
                m.SignupRequest.game_id == game_id,
                m.SignupRequest.status == "pending",
                m.SignupRequest.confirmed_at.is_not(None),
            )
            .order_by(m.SignupRequest.id)
        )
    )


def _unconfirmed(session: Session, game_id: int, now: dt.datetime) -> list[m.SignupRequest]:
    """JOINs whose code has not come back yet and still works."""
    return list(
        session.scalars(
            select(m.SignupRequest)
            .where(
                m.SignupRequest.game_id == game_id,
                m.SignupRequest.status == "pending",
                m.SignupRequest.confirmed_at.is_(None),
                m.SignupRequest.requested_at > now - dt.timedelta(hours=JOIN_CODE_HOURS),
            )
            .order_by(m.SignupRequest.id)
        )
    )


def player_summary(session: Session, game: m.Game) -> PlayerSummary:
    return plainread.player_summary(plain_reader(session), game.id)


def set_signup(session: Session, game: m.Game, *, open_: bool | None, limit: int | None) -> PlayerSummary:
    """Open or close sign-up and set its limit (0: none); what is not given stays."""
    if game.status == "finished":
        raise GMError(f"game {game.name} is over")
    if limit is not None:
        if not 0 <= limit <= 2000:
            raise GMError(f"--limit {limit}: must be from 0 (no limit) to 2000")
        game.signup_limit = limit or None
    if open_ is not None:
        game.signup_open = open_
    session.flush()
    return player_summary(session, game)


def _refusal(
    session: Session,
    game: m.Game,
    code: str,
    email: str,
    *,
    request_id: int | None = None,
    name: str | None = None,
) -> str | None:
    """Why ``email`` may not join ``game`` as ``code`` now; None when it may."""
    if game.status == "finished":
        return f"game {game.name} is over"
    pending = [r for r in _pending(session, game.id) if r.id != request_id]
    taken = session.execute(select(m.Empire.code, m.Empire.email).where(m.Empire.game_id == game.id)).all()
    if any(e_code == code for e_code, _ in taken) or any(r.code == code for r in pending):
        return f"the code {code} is taken in game {game.name}; choose other letters"
    if any(e_mail.lower() == email.lower() for _, e_mail in taken):
        return f"{email} already plays in game {game.name}"
    if any(r.email.lower() == email.lower() for r in pending):
        return f"{email} already has a request waiting in game {game.name}"
    names = session.scalars(select(m.Empire.name).where(m.Empire.game_id == game.id)).all()
    if name is not None and any(
        n.casefold() == name.casefold() for n in [*names, *(r.name for r in pending)]
    ):
        return f"the name {name!r} is taken in game {game.name}; choose another"
    _, free = galaxy_counts(session, game.id)
    full = free <= len(pending) or (
        game.signup_limit is not None and len(taken) + len(pending) >= game.signup_limit
    )
    if full:
        return f"game {game.name} is full"
    return None


def join_refusal(
    session: Session, game: m.Game, now: dt.datetime, *, code: str, name: str, email: str
) -> str | None:
    """Why a JOIN from ``email`` gets no code now; None when it may. Checked
    again when the code comes back (:func:`confirm_signup`)."""
    if not game.signup_open:
        return f"game {game.name} is not taking sign-ups now; ask its game master"
    why = _refusal(session, game, code.upper(), email, name=name)
    if why is not None:
        return why
    waiting = [r for r in _unconfirmed(session, game.id, now) if r.email.lower() != email.lower()]
    if len(waiting) >= UNCONFIRMED_PER_GAME:
        return f"too many sign-ups wait for their codes in game {game.name}; try again in a day"
    return None


def join_code_sent_within_hour(session: Session, email: str, now: dt.datetime) -> bool:
    """Whether a JOIN's code went to ``email``, however spelled (case, a
    +tag), in the last hour: one an hour per address, in every game."""
    # Here, not at the top (see the module's docstring).
    from ..mail.identity import cap_key

    key = cap_key(email)
    sent = session.scalars(
        select(m.OutboxMail.recipient).where(
            m.OutboxMail.kind == MailKind.SIGNUP_CONFIRM,
            m.OutboxMail.created_at >= now - dt.timedelta(hours=1),
        )
    )
    return any(cap_key(recipient) == key for recipient in sent)


def request_signup(
    session: Session, config: Config, game: m.Game, now: dt.datetime, *, code: str, name: str, email: str
) -> tuple[m.SignupRequest | None, str]:
    """A JOIN from ``email``, when :func:`join_refusal` has none: the code is
    mailed to ``email`` (the caller asked the reply caps) and the request
    waits for it, replacing one of the address's waiting for its code.
    Nobody else is told."""
    # Here, not at the top (see the module's docstring).
    from ..outgoing.accountmails import queue_signup_confirm

    code = code.upper()
    why = join_refusal(session, game, now, code=code, name=name, email=email)
    if why is not None:
        return None, why
    for earlier in _unconfirmed(session, game.id, now):
        if earlier.email.lower() == email.lower():
            session.delete(earlier)
    secret = generate_password(8)
    request = m.SignupRequest(
        game_id=game.id,
        code=code,
        name=name,
        email=email,
        status="pending",
        reason="",
        requested_at=now,
        code_hash=hash_code(secret),
    )
    session.add(request)
    expires = now + dt.timedelta(hours=JOIN_CODE_HOURS)
    queue_signup_confirm(
        session,
        config,
        now,
        game=game.name,
        game_id=game.id,
        recipient=email,
        code=code,
        name=name,
        secret=secret,
        expires=expires,
    )
    session.flush()  # intake does not flush on its own: the next JOIN of this poll must see it
    log.info("game %s: sign-up %s from %s waits for its code", game.name, code, email)
    return request, ""


def confirm_signup(
    session: Session, config: Config, game: m.Game, now: dt.datetime, *, email: str, secret: str
) -> tuple[m.SignupRequest | None, str]:
    """The code of a JOIN came back from ``email``: the request now waits for
    the GM (who is told), or None and why not."""
    # Here, not at the top (see the module's docstring).
    from ..outgoing.accountmails import queue_signup_request

    waiting = [r for r in _unconfirmed(session, game.id, now) if r.email.lower() == email.lower()]
    if not waiting:
        return (
            None,
            f"no sign-up from {email} waits for a code in game {game.name} (codes work for "
            f"{JOIN_CODE_HOURS} hours)",
        )
    request = waiting[-1]
    if not verify_password(secret.lower(), request.code_hash or ""):
        return None, f"that is not the code sent to {email} for game {game.name}; nothing changed"
    why = _refusal(session, game, request.code, email, request_id=request.id, name=request.name)
    if why is not None:
        session.delete(request)
        return None, why
    request.confirmed_at, request.code_hash = now, None
    session.flush()
    pending = len(_pending(session, game.id))
    queue_signup_request(
        session,
        config,
        now,
        game=game.name,
        game_id=game.id,
        code=request.code,
        name=request.name,
        email=email,
        pending=pending,
    )
    log.info("game %s: sign-up request %s from %s confirmed", game.name, request.code, email)
    return request, ""


def signup_games_waiting(session: Session, email: str, now: dt.datetime) -> list[int]:
    """The games where a JOIN from ``email`` waits for its code."""
    return list(
        session.scalars(
            select(m.SignupRequest.game_id)
            .where(
                func.lower(m.SignupRequest.email) == email.lower(),
                m.SignupRequest.status == "pending",
                m.SignupRequest.confirmed_at.is_(None),
                m.SignupRequest.requested_at > now - dt.timedelta(hours=JOIN_CODE_HOURS),
            )
            .distinct()
        )
    )


def answer_signup(
    session: Session, config: Config, now: dt.datetime, request: m.SignupRequest, game: m.Game, kind: MailKind
) -> bool:
    """Tell the applicant their request waits for the GM (``kind``: as the reply caps count it)."""
    # Here, not at the top (see the module's docstring).
    from ..outgoing.accountmails import queue_signup_received

    return queue_signup_received(
        session,
        config,
        now,
        game=game.name,
        game_id=game.id,
        recipient=request.email,
        code=request.code,
        name=request.name,
        kind=kind,
    )


def _request(session: Session, game: m.Game, code: str, *, unconfirmed: bool = False) -> m.SignupRequest:
    """The confirmed request for ``code`` (or, with ``unconfirmed``, the
    latest one still waiting for its code when none is confirmed)."""
    found = session.scalar(
        select(m.SignupRequest).where(
            m.SignupRequest.game_id == game.id,
            m.SignupRequest.code == code.upper(),
            m.SignupRequest.status == "pending",
            m.SignupRequest.confirmed_at.is_not(None),
        )
    )
    if found is None and unconfirmed:
        found = session.scalar(
            select(m.SignupRequest)
            .where(
                m.SignupRequest.game_id == game.id,
                m.SignupRequest.code == code.upper(),
                m.SignupRequest.status == "pending",
            )
            .order_by(m.SignupRequest.id.desc())
            .limit(1)
        )
    if found is None:
        waiting = ", ".join(r.code for r in _pending(session, game.id)) or "none"
        raise GMError(
            f"game {game.name} has no sign-up request {code.upper()!r} waiting (waiting: {waiting})"
        )
    return found


def approve_signup(
    session: Session, config: Config, game: m.Game, code: str, now: dt.datetime
) -> tuple[m.Empire, str]:
    """Create the requested empire and send the applicant the welcome mail (its
    password, how to send orders, the position and the deadline)."""
    # Here, not at the top (see the module's docstring).
    from ..outgoing.welcome import Welcome, send_welcomes

    request = _request(session, game, code)
    why = _refusal(session, game, request.code, request.email, request_id=request.id, name=request.name)
    if why is not None:
        raise GMError(f"cannot approve {request.code}: {why}")
    empire, password = add_empire(session, game, request.code, request.name, request.email)
    request.status, request.decided_at = "approved", now
    send_welcomes(session, config, game, [Welcome(empire, password)], now)
    session.flush()
    return empire, password


def refuse_signup(
    session: Session, config: Config, game: m.Game, code: str, now: dt.datetime, reason: str = ""
) -> m.SignupRequest:
    """Refuse a request and tell the applicant (with ``reason`` when given);
    one whose code never came back is refused without a mail: its address
    never asked, as far as anyone knows."""
    # Here, not at the top (see the module's docstring).
    from ..outgoing.accountmails import queue_signup_refused

    request = _request(session, game, code, unconfirmed=True)
    request.status, request.decided_at, request.reason = "refused", now, reason.strip()
    request.code_hash = None
    if request.confirmed_at is not None:
        queue_signup_refused(
            session,
            config,
            now,
            game=game.name,
            game_id=game.id,
            recipient=request.email,
            code=request.code,
            reason=request.reason,
        )
    session.flush()
    return request
