"""The welcome mail: what a new player (or the new player of an empire handed
over, or a player given a new password) is sent.

Any path that adds an empire calls :func:`send_welcomes` in its transaction:
``empire add``, ``empire import`` and ``empire replace`` do, and so can
:mod:`turnproc.games.game` (this module imports nothing above storage, mail and
reports).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..accounts.passwordkey import load_key
from ..config import Config
from ..reports.context import TurnView, position_context
from ..reports.render import SharedParts, render_report_text
from ..storage import models as m
from ..storage.convert import load_state
from ..storage.queries import current_deadline_or_none, current_deadline_text, view_of
from .mails import queue_welcome

__all__ = ["Welcome", "send_welcomes", "example_orders"]


@dataclass(frozen=True)
class Welcome:
    """A player to welcome: the empire and the password just made for it."""

    empire: m.Empire
    password: str
    why: str = "new"
    """``new`` (added or imported), ``password`` (a new password) or ``replace``
    (the empire changed hands): the mail's first lines say which."""


# -- the welcome mail ----------------------------------------------------------------


def example_orders(game: str, code: str, turn: int, home: int | None, name: str) -> str:
    """A complete order mail for the empire, as the welcome mail shows it:
    every line is valid once the password is in place of ``<password>``
    (tests/admin/test_empire_commands.py parses it). Never the real password:
    a player who sends the welcome back must not send an order mail the host
    would take for theirs (the example's orders are the host's words)."""
    lines = [f"GAME {game}", f"EMPIRE {code} <password>", f"TURN {turn}", ""]
    if home is not None:
        lines.append(f"NEWCRS {home} 1")
    lines.append(f"MESSAGE ALL Greetings from the {name}!")
    return "\n".join(lines)


def send_welcomes(
    session: Session,
    config: Config,
    game: m.Game,
    welcomes: Sequence[Welcome],
    now: dt.datetime,
    progress: Callable[[str, int, int], None] | None = None,
) -> int:
    """Queue each player's welcome mail: password (sealed in the queued row,
    and tagged on the empire: turnproc/accounts/passwordkey.py), an example order mail,
    the next deadline, and the empire's latest report (for an empire with no
    report yet, its position now, as the turn-0 report shows it). The state
    and the parts every report shares are built once for all of them."""
    if not welcomes:
        return 0
    state = load_state(session, game)
    view, shared = TurnView.build(state, []), SharedParts()
    active = game.status == "active"
    deadline = current_deadline_text(view_of(game), now) if active else None
    deadline_at = current_deadline_or_none(view_of(game), now) if active else None
    session.flush()  # each empire's id goes into its password's tag
    latest = _latest_reports(session, [w.empire.id for w in welcomes])
    key = load_key(config)
    queued = 0
    for w in welcomes:
        e = w.empire
        e.password_tag = key.tag(e.id, e.password_hash, w.password)
        report = latest.get(e.id)
        if report is None:
            context = position_context(state, e.code, game_name=game.name, deadline=deadline_at, view=view)
            report = render_report_text(context, shared)
        empire_state = state.empires.get(e.code)
        home = empire_state.home if empire_state is not None else None
        queued += queue_welcome(
            session,
            config,
            game,
            now,
            empire=e.code,
            empire_name=e.name,
            recipient=e.email,
            sealed_password=key.seal(w.password),
            why=w.why,
            deadline=deadline,
            example=example_orders(game.name, e.code, game.turn, home, e.name),
            report=report,
            modules=game.modules,
        )
        if progress is not None and (queued % 100 == 0 or queued == len(welcomes)):
            progress("mailed", queued, len(welcomes))
    return queued


def _latest_reports(session: Session, empire_ids: list[int]) -> dict[int, str]:
    newest = (
        select(m.Report.empire_id, func.max(m.Report.turn).label("turn"))
        .where(m.Report.empire_id.in_(empire_ids))
        .group_by(m.Report.empire_id)
        .subquery()
    )
    rows = session.execute(
        select(m.Report.empire_id, m.Report.data).join(
            newest, (m.Report.empire_id == newest.c.empire_id) & (m.Report.turn == newest.c.turn)
        )
    )
    return {eid: render_report_text(data) for eid, data in rows}
