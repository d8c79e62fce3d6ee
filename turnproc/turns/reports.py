"""A turn's reports, on the database's side: what they read from it before
they are built (:class:`~turnproc.reports.turnout.ReportSettings`), and the
rows and mails they become once built (the data of each stored once, the
mail queued to be rendered when it goes)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from ..config import Config
from ..games.notices import announcements_for
from ..outgoing.mails import queue_bulletin, queue_reports
from ..reports.render import subject_renderer
from ..reports.turnout import ReportData, ReportOutput, ReportSettings, report_output
from ..rules.events import Event
from ..rules.state import GameState
from ..runtime import jsontext
from ..runtime.jsontext import Encoded
from ..storage import models as m
from ..storage.queries import current_deadline_or_none, view_of

__all__ = ["write_reports", "empire_rows_of", "report_settings", "store_reports"]


def write_reports(
    session: Session,
    config: Config,
    game: m.Game,
    state: GameState,
    events: list[Event],
    number: int,
    now: dt.datetime,
    *,
    corrected: bool = False,
    held: bool = False,
    reason: str | None = None,
    empire_rows: dict[str, m.Empire] | None = None,
) -> ReportData:
    """Every empire's report of turn ``number`` (``state`` is the state after
    it), built here as ``turn run`` builds them: its data stored once as a
    ``reports`` row, its mail queued to be built when sent; ``reason`` is
    the GM's word on a correction. A game of more than
    ``config.bulletin_threshold`` empires also gets the turn's bulletin
    (roundup, public press, announcements), stored once and queued as one
    mail to every active player. Returns each empire's report data.
    ``empire_rows``: the game's empire rows by code, when the caller has them
    (a thousand rows are not read again)."""
    if empire_rows is None:
        empire_rows = empire_rows_of(session, game)
    settings = report_settings(
        session, config, game, state, number, now, corrected=corrected, reason=reason, empire_rows=empire_rows
    )
    output = report_output(state, events, settings)
    return store_reports(
        session, config, game, state, output, number, now, held=held, empire_rows=empire_rows
    )


def empire_rows_of(session: Session, game: m.Game) -> dict[str, m.Empire]:
    return {e.code: e for e in session.scalars(select(m.Empire).where(m.Empire.game_id == game.id))}


def report_settings(
    session: Session,
    config: Config,
    game: m.Game,
    state: GameState,
    number: int,
    now: dt.datetime,
    *,
    corrected: bool,
    reason: str | None,
    empire_rows: dict[str, m.Empire],
) -> ReportSettings:
    """What the reports of turn ``number`` read from the database."""
    # Only when there is something to say: reports without either stay byte for byte as before.
    extras: dict[str, Any] = {}
    if announced := announcements_for(session, game.id, number):
        extras["announcements"] = announced
    if corrected and reason:
        extras["correction_reason"] = reason
    return ReportSettings(
        game_name=game.name,
        turn=number,
        deadline=current_deadline_or_none(view_of(game), now),
        corrected=corrected,
        bulletin=len(state.empires) > config.bulletin_threshold,
        report_subject=subject_renderer("report"),
        on_leave={
            c: e.vacation_until
            for c, e in empire_rows.items()
            if e.vacation_until is not None and e.vacation_until > number
        },
        extras=extras,
    )


def store_reports(
    session: Session,
    config: Config,
    game: m.Game,
    state: GameState,
    output: ReportOutput,
    number: int,
    now: dt.datetime,
    *,
    held: bool,
    empire_rows: dict[str, m.Empire],
) -> ReportData:
    """The reports' rows and mails, and the bulletin's, from their JSON text."""
    if output.bulletin is not None:
        bulletin = m.Bulletin(
            game_id=game.id, turn=number, data=jsontext.loads(output.bulletin), created_at=now
        )
        session.add(bulletin)
        session.flush()
        readers = [
            empire_rows[c].email
            for c in sorted(state.empires)
            if state.empires[c].active and empire_rows[c].email
        ]
        queue_bulletin(session, config, bulletin, readers, now, held=held)
    # A thousand rows each: one bulk INSERT apiece, without the unit of work's
    # bookkeeping per object (the reports' ids come back for their mails).
    codes = list(output.reports)
    report_ids = session.scalars(
        insert(m.Report).returning(m.Report.id, sort_by_parameter_order=True),
        [
            {
                "game_id": game.id,
                "empire_id": empire_rows[c].id,
                "turn": number,
                "data": Encoded(output.reports[c]),
                "created_at": now,
            }
            for c in codes
        ],
    ).all()
    queue_reports(
        session,
        config,
        game.id,
        number,
        [(empire_rows[c].email, rid, output.subjects[c]) for c, rid in zip(codes, report_ids, strict=True)],
        now,
        held=held,
    )
    return ReportData(output.reports)
