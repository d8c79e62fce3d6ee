"""The turn bulletin of a big game (docs/orders.md, "Your report and the turn
bulletin"): the roundup and the public press, rendered once a turn and mailed
once to every player, instead of inside each of a thousand reports.

Only what is public (rules.md §14) goes in: every empire's code, name, VP and
rank, and the press to every empire. The sending, the storing and the size
above which a game has a bulletin are the caller's; this module says what a
bulletin holds and what a report in such a game says about it.
"""

from __future__ import annotations

import datetime as dt

from ..rules.events import Event
from ..rules.state import GameState
from .context import BULLETIN_TOP, TurnView, public_press, roundup, turn_head
from .schema import BulletinContext, BulletinPointer

__all__ = [
    "BULLETIN_SCHEMA_VERSION",
    "BULLETIN_SCHEMA_ID",
    "bulletin_subject",
    "bulletin_pointer",
    "bulletin_context",
]

#: Raised whenever the bulletin's JSON changes in a way a client program must
#: know about; ``bulletin.schema.json`` carries the same ``$id`` (a test checks).
BULLETIN_SCHEMA_VERSION = 1
BULLETIN_SCHEMA_ID = f"urn:turnproc:schema:bulletin:{BULLETIN_SCHEMA_VERSION}"


def bulletin_subject(game_name: str, turn: int, *, corrected: bool = False) -> str:
    """The subject of turn ``turn``'s bulletin mail; each report of a bulletin
    game quotes it, so a player can find the mail."""
    return f"[{game_name}] Turn {turn} bulletin: roundup and press" + (" (corrected)" if corrected else "")


def bulletin_pointer(game_name: str, turn: int, empires: int, *, corrected: bool = False) -> BulletinPointer:
    """What ``report_context(..., bulletin=...)`` takes, and what the report's
    ``bulletin`` key then holds: the bulletin's subject, its turn, how many
    empires its roundup lists, and how many top rows the report keeps."""
    return {
        "subject": bulletin_subject(game_name, turn, corrected=corrected),
        "turn": turn,
        "empires": empires,
        "top": BULLETIN_TOP,
    }


def bulletin_context(
    state: GameState,
    events: list[Event],
    *,
    game_name: str,
    turn: int,
    deadline: dt.datetime | None,
    view: TurnView | None = None,
    corrected: bool = False,
) -> BulletinContext:
    """The bulletin of ``turn`` (the turn just resolved; ``state`` is the state
    after it, ``events`` its events): the whole roundup and all public press,
    for every player alike. ``view``: the turn's :class:`TurnView`, when the
    reports already built it. The caller adds ``announcements`` and
    ``correction_reason`` as it does to the reports."""
    rows = view.roundup if view is not None else roundup(state)
    # The ignore: strict mypy wants the optional keys named when a literal
    # unpacks another TypedDict; the caller adds them (ReportExtras).
    return {
        "schema": BULLETIN_SCHEMA_ID,
        "subject": bulletin_subject(game_name, turn, corrected=corrected),
        **turn_head(  # type: ignore[typeddict-item]
            state, game_name=game_name, turn=turn, deadline=deadline, corrected=corrected
        ),
        "empires": len(state.empires),
        "roundup": rows,
        "press": public_press(events),
    }
