"""Sign-up by mail: the GM opens a game to strangers, a JOIN mail becomes a
pending request, and the GM approves or refuses it.

A request is checked when it arrives and again when the GM approves it (the
game may have filled up, or the code gone, in between). Approval creates the
empire through :func:`turnproc.games.add_empire`, exactly as ``empire add``
does, and mails the applicant the password. The rules are in
docs/gm-handbook.md ("Sign-up by mail") and, for players, docs/orders.md.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from .accountmails import (
    queue_signup_received,
    queue_signup_refused,
    queue_signup_request,
)
from .config import Config
from .errors import GMError
from .games import add_empire
from .storage import models as m
from .storage.queries import galaxy_counts
from .welcome import Welcome, send_welcomes

log = logging.getLogger(__name__)

__all__ = [
    "PlayerSummary",
    "answer_signup",
    "approve_signup",
    "player_summary",
    "refuse_signup",
    "request_signup",
    "set_signup",
]


@dataclass(frozen=True)
class PlayerSummary:
    """What ``game show`` says about sign-up, leave and quitting."""

    signup_open: bool
    signup_limit: int | None
    pending: tuple[tuple[str, str, str], ...]
    """(code, name, address) of each request waiting for the GM."""
    vacation_limit: int
    on_leave: tuple[tuple[str, int], ...]
    """(code, last turn of leave) of each empire on leave now."""
    quitting: tuple[str, ...]
    """Empires that sent QUIT: inactive when the current turn runs."""


def _pending(session: Session, game_id: int) -> list[m.SignupRequest]:
    return list(
        session.scalars(
            select(m.SignupRequest)
            .where(m.SignupRequest.game_id == game_id, m.SignupRequest.status == "pending")
            .order_by(m.SignupRequest.id)
        )
    )


def player_summary(session: Session, game: m.Game) -> PlayerSummary:
    empires = session.execute(
        select(m.Empire.code, m.Empire.vacation_until, m.Empire.quit_at).where(m.Empire.game_id == game.id).order_by(m.Empire.code)
    ).all()
    return PlayerSummary(
        signup_open=bool(game.signup_open),
        signup_limit=game.signup_limit,
        pending=tuple((r.code, r.name, r.email) for r in _pending(session, game.id)),
        vacation_limit=game.vacation_limit,
        on_leave=tuple((code, until) for code, until, _ in empires if until is not None and until >= game.turn),
        quitting=tuple(code for code, _, quit_at in empires if quit_at is not None),
    )


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
    session: Session, game: m.Game, code: str, email: str, *, request_id: int | None = None, name: str | None = None
) -> str | None:
    """Why ``email`` may not join ``game`` as ``code`` now; None when it may."""
    if game.status == "finished":
        return f"game {game.name} is over"
    others = select(m.SignupRequest).where(
        m.SignupRequest.game_id == game.id, m.SignupRequest.status == "pending", m.SignupRequest.id != (request_id or -1)
    )
    pending = list(session.scalars(others))
    taken = session.execute(select(m.Empire.code, m.Empire.email).where(m.Empire.game_id == game.id)).all()
    if any(e_code == code for e_code, _ in taken) or any(r.code == code for r in pending):
        return f"the code {code} is taken in game {game.name}; choose other letters"
    if any(e_mail.lower() == email.lower() for _, e_mail in taken):
        return f"{email} already plays in game {game.name}"
    if any(r.email.lower() == email.lower() for r in pending):
        return f"{email} already has a request waiting in game {game.name}"
    names = session.scalars(select(m.Empire.name).where(m.Empire.game_id == game.id)).all()
    if name is not None and any(n.casefold() == name.casefold() for n in [*names, *(r.name for r in pending)]):
        return f"the name {name!r} is taken in game {game.name}; choose another"
    _, free = galaxy_counts(session, game.id)
    full = free <= len(pending) or (game.signup_limit is not None and len(taken) + len(pending) >= game.signup_limit)
    if full:
        return f"game {game.name} is full"
    return None


def request_signup(
    session: Session, config: Config, game: m.Game, now: dt.datetime, *, code: str, name: str, email: str
) -> tuple[m.SignupRequest | None, str]:
    """A JOIN from ``email``: the pending request (the GM is told), or None
    and why not. The applicant's answer is the caller's (intake caps it)."""
    code = code.upper()
    if not game.signup_open:
        return None, f"game {game.name} is not taking sign-ups now; ask its game master"
    why = _refusal(session, game, code, email, name=name)
    if why is not None:
        return None, why
    request = m.SignupRequest(game_id=game.id, code=code, name=name, email=email, status="pending", reason="", requested_at=now)
    session.add(request)
    session.flush()
    pending = len(_pending(session, game.id))
    queue_signup_request(
        session, config, now, game=game.name, game_id=game.id, code=code, name=name, email=email, pending=pending
    )
    log.info("game %s: sign-up request %s from %s", game.name, code, email)
    return request, ""


def answer_signup(
    session: Session, config: Config, now: dt.datetime, request: m.SignupRequest, game: m.Game, kind: str
) -> bool:
    """Tell the applicant their request waits for the GM (``kind``: as the reply caps count it)."""
    return queue_signup_received(
        session, config, now, game=game.name, game_id=game.id, recipient=request.email, code=request.code,
        name=request.name, kind=kind,
    )  # fmt: skip


def _request(session: Session, game: m.Game, code: str) -> m.SignupRequest:
    found = session.scalar(
        select(m.SignupRequest).where(
            m.SignupRequest.game_id == game.id,
            m.SignupRequest.code == code.upper(),
            m.SignupRequest.status == "pending",
        )
    )
    if found is None:
        waiting = ", ".join(r.code for r in _pending(session, game.id)) or "none"
        raise GMError(f"game {game.name} has no sign-up request {code.upper()!r} waiting (waiting: {waiting})")
    return found


def approve_signup(
    session: Session, config: Config, game: m.Game, code: str, now: dt.datetime
) -> tuple[m.Empire, str]:
    """Create the requested empire and send the applicant the welcome mail (its
    password, how to send orders, the position and the deadline)."""
    request = _request(session, game, code)
    why = _refusal(session, game, request.code, request.email, request_id=request.id, name=request.name)
    if why is not None:
        raise GMError(f"cannot approve {request.code}: {why}")
    empire, password = add_empire(session, game, request.code, request.name, request.email)
    request.status, request.decided_at = "approved", now
    send_welcomes(session, config, game, [Welcome(empire, password)], now)
    session.flush()
    return empire, password


def refuse_signup(session: Session, config: Config, game: m.Game, code: str, now: dt.datetime, reason: str = "") -> m.SignupRequest:
    """Refuse a request and tell the applicant (with ``reason`` when given)."""
    request = _request(session, game, code)
    request.status, request.decided_at, request.reason = "refused", now, reason.strip()
    queue_signup_refused(
        session, config, now, game=game.name, game_id=game.id, recipient=request.email, code=request.code, reason=request.reason
    )
    session.flush()
    return request

