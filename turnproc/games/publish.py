"""A game's public pages written to a folder (``turnproc site GAME DIR``; the
worker refreshes them after each turn it runs when ``site_dir`` is set).

This module gathers what of a game is public: the roundup after every turn
the players have their reports of (VP, ranks, names: every report shows them
to everyone, rules.md §14), the press every empire reads (which press that is,
the rules say: :func:`turnproc.rules.visibility.public_press`, as for the
reports and the bulletin) and the GM's announcements. It reads no position, fleet, purse, tech or private
message into the pages. A turn staged for the GM's release is not public
until it is released. The pages themselves are drawn by
:mod:`turnproc.reports.site`.
"""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from ..errors import one_line
from ..outgoing.mails import announcement_mails
from ..reports.context import standings
from ..reports.desk import write_desk
from ..reports.public import public_folders, write_public
from ..reports.site import Announcement, Press, PublicGame, Standing, site_files
from ..runtime.resources import public_docs
from ..rules.events import Event
from ..rules.state import Empire
from ..rules.visibility import press_author, public_press
from ..storage import models as m
from ..storage.db import transaction
from ..storage.queries import current_deadline_text, get_game, load_game_view

log = logging.getLogger(__name__)

__all__ = ["public_game", "announcements", "write_site", "refresh_site"]


def _standing(turn: int, empires: list[Empire]) -> Standing:
    return Standing(turn, standings(empires))


def _empires_of(saved: list[dict[str, Any]] | None) -> list[Empire]:
    """The public part of a saved state's empires: code, name, VP, active."""
    return [Empire(code=e["code"], name=e["name"], vp=e["vp"], active=e["active"]) for e in saved or []]


def announcements(session: Session, game: m.Game) -> list[Announcement]:
    """The GM's announcements to every player (``turnproc announce``), oldest
    first: each once its mails have gone out, so the players read it first."""
    shown = []
    for a in session.scalars(select(m.Announcement).where(m.Announcement.game_id == game.id).order_by(m.Announcement.id)):
        unsent = session.scalar(
            select(m.OutboxMail.id).where(announcement_mails(game, a.id), m.OutboxMail.sent_at.is_(None)).limit(1)
        )
        if unsent is None:
            shown.append(Announcement(a.turn, a.subject, a.text))
    return shown


def public_game(session: Session, game: m.Game, now: dt.datetime) -> PublicGame:
    """What of ``game`` is public now."""
    # Only the empires of each saved state: the galaxy in it is most of its bytes.
    records = session.execute(
        select(m.TurnRecord.number, m.TurnRecord.staged, m.TurnRecord.state_before["empires"], m.TurnRecord.events)
        .where(m.TurnRecord.game_id == game.id)
        .order_by(m.TurnRecord.number)
    ).all()
    table: list[Standing] = []
    press: list[Press] = []
    staged = False
    for number, is_staged, before, events in records:
        # The state before turn n holds the standings after turn n - 1.
        table.append(_standing(number - 1, _empires_of(before)))
        if is_staged:
            staged = True  # this turn and any after it wait for the GM's release
            break
        for e in public_press(Event.from_dict(event) for event in events):
            press.append(Press(number, press_author(e), str(e.data.get("text", ""))))
    if not staged:
        rows = session.scalars(select(m.Empire).where(m.Empire.game_id == game.id).order_by(m.Empire.code)).all()
        now_empires = [Empire(code=e.code, name=e.name, vp=e.vp, active=e.active) for e in rows]
        table.append(_standing(game.turn - 1, now_empires))
    loaded = load_game_view(session, game_id=game.id)
    deadline = current_deadline_text(loaded[1], now) if loaded is not None and game.status == "active" else None
    return PublicGame(
        name=game.name,
        turn=game.turn,
        finished=game.status == "finished",
        deadline=deadline,
        standings=table,
        press=press,
        announcements=announcements(session, game),
    )


def write_site(
    session: Session, game_name: str, directory: Path, now: dt.datetime, *, host_address: str = "", pyodide: Path | None = None
) -> list[Path]:
    """Write the public pages of ``game_name`` into ``directory`` (made if
    missing), the order desk in ``orders/`` with them (mailing to
    ``host_address``, checking with the ``pyodide`` release when given); the
    files written. Each file is replaced whole (written aside, then renamed),
    so a web server never serves half a page."""
    game = get_game(session, game_name)
    files = site_files(public_game(session, game, now), public_docs())
    public_folders(directory)
    written = [write_public(directory / name, text.encode("utf-8")) for name, text in sorted(files.items())]
    return written + write_desk(directory / "orders", game.name, host_address, pyodide)


def refresh_site(
    sessions: sessionmaker[Session], site_dir: Path, game_name: str, now: dt.datetime, *, host_address: str = "", pyodide: Path | None = None
) -> None:
    """The worker's refresh after a turn: the game's pages in ``site_dir/GAME``.
    A failure is logged and never stops the worker: the turn ran, and the
    pages catch up at the next refresh."""
    try:
        with transaction(sessions) as session:
            write_site(session, game_name, site_dir / game_name, now, host_address=host_address, pyodide=pyodide)
    except Exception as exc:  # a full disk, a bad folder, a lost connection: all wait for the next turn
        log.warning("game %s: public pages in %s not refreshed: %s", game_name, site_dir, one_line(exc))
