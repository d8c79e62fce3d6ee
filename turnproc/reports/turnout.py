"""What a resolved turn puts out, as JSON text ready to store: every empire's
report data and its mail's subject, the bulletin of a big game, and the turn
record's state before the turn and its events.

It is built from the states and the events alone (:func:`turn_output` reads
no database, mail or clock), and ``turn run`` stores the text as it comes.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..rules.events import Event
from ..rules.serialize import state_to_record
from ..rules.state import GameState
from ..runtime import jsontext
from .bulletin import bulletin_context, bulletin_pointer
from .context import TurnView, report_context
from .schema import BulletinPointer, ReportContext, ReportExtras, StoredReport, add_extras, report_extras

__all__ = ["ReportSettings", "ReportOutput", "RecordOutput", "ReportData", "report_output", "record_output"]


@dataclass(frozen=True)
class ReportSettings:
    """What the reports of a turn take from the database, read before they are built."""

    game_name: str
    turn: int
    """The turn just resolved."""
    deadline: dt.datetime | None
    """The next deadline."""
    corrected: bool
    bulletin: bool
    """Whether the game is big enough for a bulletin (``Config.bulletin_threshold``)."""
    report_subject: Callable[[ReportContext], str]
    """The report mail's subject (``reports.render.subject_renderer``), its
    template looked up before the reports are built."""
    on_leave: dict[str, int] = field(default_factory=dict)
    """Empire → the turn it is on leave until, for those still on leave after this one."""
    extras: Mapping[str, Any] = field(default_factory=dict)
    """Keys added to every report, or to the bulletin when there is one:
    the GM's announcements, a correction's reason."""


@dataclass(frozen=True)
class ReportOutput:
    reports: dict[str, str]
    """Empire code → its report's data, JSON text, in code order."""
    subjects: dict[str, str]
    """Empire code → its report mail's subject."""
    bulletin: str | None
    """The bulletin's data, JSON text, when the game has one."""


@dataclass(frozen=True)
class RecordOutput:
    state_before: str
    """The turn record's state before the turn (``state_to_record``), JSON text."""
    events: str
    """The turn's events (``Event.to_dict`` each), JSON text."""


def record_output(before: GameState, events: list[Event]) -> RecordOutput:
    """The turn record's JSON: ``before`` is the state before the turn,
    ``events`` its events."""
    return RecordOutput(
        jsontext.dumps(state_to_record(before)), jsontext.dumps([e.to_dict() for e in events])
    )


def report_output(state: GameState, events: list[Event], settings: ReportSettings) -> ReportOutput:
    """Every empire's report of the turn (``state`` the state after it), and
    the bulletin of a big game."""
    s = settings
    view = TurnView.build(state, events)
    extras = report_extras(s.extras)
    bulletin: str | None = None
    pointer: BulletinPointer | None = None
    if s.bulletin:
        data = bulletin_context(
            state,
            events,
            game_name=s.game_name,
            turn=s.turn,
            deadline=s.deadline,
            view=view,
            corrected=s.corrected,
        )
        add_extras(data, extras)
        extras = ReportExtras()
        bulletin = jsontext.dumps(data)
        pointer = bulletin_pointer(s.game_name, s.turn, len(state.empires), corrected=s.corrected)
    reports: dict[str, str] = {}
    subjects: dict[str, str] = {}
    for code in sorted(state.empires):
        context = report_context(
            state,
            events,
            code,
            game_name=s.game_name,
            turn=s.turn,
            deadline=s.deadline,
            corrected=s.corrected,
            view=view,
            on_leave_until=s.on_leave.get(code),
            bulletin=pointer,
        )
        add_extras(context, extras)
        reports[code] = jsontext.dumps(context)
        subjects[code] = s.report_subject(context)
    return ReportOutput(reports, subjects, bulletin)


class ReportData(Mapping[str, StoredReport]):
    """Empire code → its report's data, read from the JSON text when asked
    for: a turn's caller mostly counts the reports, and a thousand of them
    parsed for nothing would cost a tenth of a second and tens of MB."""

    def __init__(self, texts: dict[str, str]) -> None:
        self._texts = texts
        self._read: dict[str, StoredReport] = {}

    def __getitem__(self, code: str) -> StoredReport:
        data = self._read.get(code)
        if data is None:
            data = self._read[code] = jsontext.loads(self._texts[code])
        return data

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)
