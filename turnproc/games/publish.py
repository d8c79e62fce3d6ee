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
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from ..errors import one_line
from ..outgoing.announcements import announcement_mails
from ..reports.context import standings
from ..reports.desk import write_desk
from ..reports.public import public_folders, write_public
from ..reports.schema import RoundupRow
from ..reports.site import PRESS_TURNS, Announcement, Press, PublicGame, Standing, site_files
from ..rules.events import Event
from ..rules.state import Empire
from ..rules.visibility import press_author, public_press
from ..runtime.resources import public_docs
from ..storage import models as m
from ..storage.db import transaction
from ..storage.queries import current_deadline_text, get_game, load_game_view

log = logging.getLogger(__name__)

__all__ = ["public_game", "announcements", "write_site", "refresh_site"]


def _empires_of(saved: list[dict[str, Any]] | None) -> list[Empire]:
    """The public part of a saved state's empires: code, name, VP, active."""
    return [Empire(code=e["code"], name=e["name"], vp=e["vp"], active=e["active"]) for e in saved or []]


def announcements(session: Session, game: m.Game) -> list[Announcement]:
    """The GM's announcements to every player (``turnproc announce``), oldest
    first: each once its mails have gone out, so the players read it first."""
    shown = []
    for a in session.scalars(
        select(m.Announcement).where(m.Announcement.game_id == game.id).order_by(m.Announcement.id)
    ):
        unsent = session.scalar(
            select(m.OutboxMail.id)
            .where(announcement_mails(game, a.id), m.OutboxMail.sent_at.is_(None))
            .limit(1)
        )
        if unsent is None:
            shown.append(Announcement(a.turn, a.subject, a.text))
    return shown


@dataclass
class _Turns:
    """The released turns' public part as a refresh needs it."""

    records: dict[int, int] = field(default_factory=dict)
    """Turn number → its record's id, for every turn run (the staged one too)."""
    vp: dict[int, dict[str, int]] = field(default_factory=dict)
    """Turn → each empire's VP after it, for every turn the players have their reports of."""
    rows: dict[int, list[RoundupRow]] = field(default_factory=dict)
    """Turn → the standings after it, where this refresh read them."""
    staged: bool = False
    changed: set[int] = field(default_factory=set)
    """Turns whose page shows what changed since it was written (or never was)."""


def _saved(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _released_turns(session: Session, game: m.Game, directory: Path | None) -> _Turns:
    """Each released turn's VP, oldest first.

    With ``directory``, what the plot needs of each turn (every empire's VP
    after the turn before it) is kept in ``turns/N.json`` there when first
    read, and read back from it after: the database is read only for a turn
    never published, or published before a rollback or rerun replaced it
    (its record is another, or the archive took a turn at or before it
    since). A state before is most of a turn's bytes (the whole galaxy):
    reading every one at every refresh made a 100-turn game's refresh seven
    times turn 5's."""
    records = session.execute(
        select(m.TurnRecord.id, m.TurnRecord.number, m.TurnRecord.staged, m.TurnRecord.ran_at)
        .where(m.TurnRecord.game_id == game.id)
        .order_by(m.TurnRecord.number)
    ).all()
    archived = session.execute(
        select(m.ArchivedTurn.id, m.ArchivedTurn.number).where(m.ArchivedTurn.game_id == game.id)
    ).all()
    newest_archived = max((a.id for a in archived), default=0)
    turns = _Turns()
    for record_id, number, is_staged, ran_at in records:
        turns.records[number] = record_id
        key = f"{record_id} {ran_at.isoformat()}"
        path = directory / "turns" / f"{number}.json" if directory is not None and not is_staged else None
        data = _saved(path) if path is not None else None
        if (
            data is None
            or data.get("record") != key
            or any(a.id > data.get("archive", 0) and a.number <= number for a in archived)
        ):
            # The state before turn n holds the standings after turn n - 1.
            rows = _standings_before(session, record_id)
            turns.rows[number - 1] = rows
            data = {"record": key, "archive": newest_archived, "vp": {r["code"]: r["vp"] for r in rows}}
            if path is not None:
                public_folders(path.parent)
                write_public(path, json.dumps(data).encode("utf-8"))
            turns.changed |= {number - 1, number}
        turns.vp[number - 1] = data["vp"]
        if is_staged:
            turns.staged = True  # this turn and any after it wait for the GM's release
            break
    return turns


def _standings_before(session: Session, record_id: int) -> list[RoundupRow]:
    # Only the empires of the saved state: the galaxy in it is most of its bytes.
    before = session.scalar(select(m.TurnRecord.state_before["empires"]).where(m.TurnRecord.id == record_id))
    return standings(_empires_of(before))


def _press(session: Session, game: m.Game, numbers: set[int]) -> list[Press]:
    """The MESSAGEs to ALL of turns ``numbers``, oldest first."""
    press = []
    records = session.execute(
        select(m.TurnRecord.number, m.TurnRecord.events)
        .where(m.TurnRecord.game_id == game.id, m.TurnRecord.number.in_(sorted(numbers)))
        .order_by(m.TurnRecord.number)
    )
    for number, events in records:
        for e in public_press(Event.from_dict(event) for event in events):
            press.append(Press(number, press_author(e), str(e.data.get("text", ""))))
    return press


def public_game(
    session: Session, game: m.Game, now: dt.datetime, directory: Path | None = None
) -> PublicGame:
    """What of ``game`` is public now: every turn's standings and press
    (``directory``: the game's pages; then only what :func:`write_site`
    writes, see :func:`_released_turns`)."""
    turns = _released_turns(session, game, directory)
    shown = (
        set(turns.vp)
        if directory is None
        else turns.changed | {t for t in turns.vp if not (directory / "turns" / f"{t}.html").exists()}
    )
    return _public_game(session, game, now, turns, shown)


def _public_game(
    session: Session, game: m.Game, now: dt.datetime, turns: _Turns, pages: set[int]
) -> PublicGame:
    """The game's public part, with the standings and press of the turns in
    ``pages``, the latest turn, and the press of the newest PRESS_TURNS."""
    vp = dict(turns.vp)
    rows = dict(turns.rows)
    if not turns.staged:
        empires = session.scalars(
            select(m.Empire).where(m.Empire.game_id == game.id).order_by(m.Empire.code)
        ).all()
        rows[game.turn - 1] = standings(
            Empire(code=e.code, name=e.name, vp=e.vp, active=e.active) for e in empires
        )
        vp[game.turn - 1] = {r["code"]: r["vp"] for r in rows[game.turn - 1]}
    released = sorted(vp)
    pages = (pages & set(released)) | set(released[-1:])
    for turn in sorted(pages - set(rows)):
        rows[turn] = _standings_before(session, turns.records[turn + 1])
    loaded = load_game_view(session, game_id=game.id)
    deadline = (
        current_deadline_text(loaded[1], now) if loaded is not None and game.status == "active" else None
    )
    return PublicGame(
        name=game.name,
        turn=game.turn,
        finished=game.status == "finished",
        deadline=deadline,
        standings=[Standing(t, rows[t]) for t in sorted(pages)],
        press=_press(session, game, (pages | set(released[-PRESS_TURNS:])) - {0}),
        announcements=announcements(session, game),
        vp=vp,
    )


def write_site(
    session: Session,
    game_name: str,
    directory: Path,
    now: dt.datetime,
    *,
    host_address: str = "",
    pyodide: Path | None = None,
) -> list[Path]:
    """Write the public pages of ``game_name`` into ``directory`` (made if
    missing), the order desk in ``orders/`` with them (mailing to
    ``host_address``, checking with the ``pyodide`` release when given); the
    files written. Each file is replaced whole (written aside, then renamed),
    so a web server never serves half a page.

    A turn's page (``turns/N.html``) is written when it is missing or what it
    shows changed: after a turn, the new turn's and the one before it (whose
    standings came from the game's live rows until then); older turns' pages
    are left as they are, so a refresh costs the same on turn 100 as on turn 5."""
    game = get_game(session, game_name)
    public_folders(directory / "turns")
    shown = public_game(session, game, now, directory)
    files = site_files(shown, public_docs(), turns=[s.turn for s in shown.standings])
    _forget_later(directory / "turns", max(shown.vp, default=-1))
    written = [write_public(directory / name, text.encode("utf-8")) for name, text in sorted(files.items())]
    return written + write_desk(directory / "orders", game.name, host_address, pyodide)


def _forget_later(folder: Path, last: int) -> None:
    """Remove the pages and kept data of turns after ``last``: a rollback took
    them back, or the GM holds them. (Turn N's data file holds what turn N - 1's
    page shows: the last page's is the live game's, kept nowhere.)"""
    for path in folder.iterdir():
        number = path.name.split(".", 1)[0]
        if number.isdigit() and int(number) > last:
            path.unlink(missing_ok=True)


def refresh_site(
    sessions: sessionmaker[Session],
    site_dir: Path,
    game_name: str,
    now: dt.datetime,
    *,
    host_address: str = "",
    pyodide: Path | None = None,
) -> None:
    """The worker's refresh after a turn: the game's pages in ``site_dir/GAME``.
    A failure is logged and never stops the worker: the turn ran, and the
    pages catch up at the next refresh."""
    try:
        with transaction(sessions) as session:
            write_site(
                session, game_name, site_dir / game_name, now, host_address=host_address, pyodide=pyodide
            )
    # Any failure (a full disk, a bad folder, a lost connection) waits for the next turn.
    except Exception as exc:  # noqa: BLE001
        log.warning("game %s: public pages in %s not refreshed: %s", game_name, site_dir, one_line(exc))
