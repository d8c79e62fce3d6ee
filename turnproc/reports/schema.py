"""The report's shape, its version, and the upgrade of reports stored in an
older one.

A report context is a plain dict at run time (it is the JSON report, and the
templates read it), typed here key for key after ``report.schema.json``: a
renamed key is a mypy error in every reader, not a "None" in a player's
report. A stored report carries its version in ``schema``; one stored before
the version was raised is upgraded by :func:`upgrade_report`, step by step,
never by guessing from the keys it has.
"""

# No ``from __future__ import annotations`` here: Python 3.11 tells a
# NotRequired key (``__required_keys__``, which the tests read) only from
# annotations it evaluates.
import logging
from collections.abc import Callable, Mapping
from typing import Any, Literal, NotRequired, TypedDict

from ..rules.eventdata import ProbeSight, ProbeState, SystemIncome

__all__ = [
    "SCHEMA_VERSION",
    "SCHEMA_ID",
    "RoundupRow",
    "PressRow",
    "ArrowKind",
    "Arrow",
    "SystemRow",
    "OwnSystemRow",
    "MapSystem",
    "ReportMap",
    "EmpireView",
    "OrderRow",
    "Happening",
    "BulletinPointer",
    "ProbeSection",
    "Announcement",
    "ReportExtras",
    "report_extras",
    "add_extras",
    "StoredReport",
    "TurnHead",
    "BulletinContext",
    "ReportBody",
    "ReportContext",
    "schema_version",
    "upgrade_report",
]

log = logging.getLogger(__name__)

#: Raised whenever the JSON report changes in a way a client program must know
#: about; ``report.schema.json`` carries the same ``$id`` (a test checks).
#: 3: a rule-set-2 game's reports carry ``ruleset``, ``empire.reserve`` and ``probes``.
SCHEMA_VERSION = 3
SCHEMA_ID = f"urn:turnproc:schema:report:{SCHEMA_VERSION}"
#: What version 1 wrote in ``schema``; later versions end in ``:N``.
_SCHEMA_1_ID = "https://turnproc.example/schemas/report-1.json"
_SCHEMA_PREFIX = "urn:turnproc:schema:report:"


class RoundupRow(TypedDict):
    code: str
    name: str
    vp: int
    rank: int
    active: bool


PressRow = TypedDict("PressRow", {"from": str, "to": str, "private": bool, "text": str})
#: How the map draws a move: its own, an attack on the empire, a capture, ships lost on the way.
ArrowKind = Literal["move", "attack", "capture", "lost"]
Arrow = TypedDict("Arrow", {"from": int, "to": int, "kind": ArrowKind, "by": str | None})


class SystemRow(TypedDict):
    """A system the empire sees (the scouting section); its own systems add :class:`OwnSystemRow`'s keys."""

    code: int
    name: str
    type: str
    star: int | None
    row: int
    col: int
    owner: str | None
    pop: int
    limit: int
    industry: int
    cruisers: int
    fighters: int
    colony_ships: int
    stance: str
    links: list[int]
    after_attack: NotRequired[bool]
    """Out of scanner range, shown as it was right after the empire's attack on it (rules.md §14,
    ruling V2)."""


class OwnSystemRow(SystemRow):
    income: int
    supply_cost: int
    in_supply: bool
    blockaded: bool
    sticky: bool
    stance_target: int | None
    retreat_parts: int
    base: bool
    home: bool


class MapSystem(TypedDict):
    code: int
    row: int
    col: int
    type: str
    star: int | None
    owner: str | None
    visible: bool


class ReportMap(TypedDict):
    systems: list[MapSystem]
    links: list[list[int]]
    arrows: list[Arrow]


class EmpireView(TypedDict):
    code: str
    name: str
    balance: int
    treasury: int
    vp: int
    rank: int
    income: int
    next_income: int
    economy_ran: bool
    income_by_system: list[SystemIncome]
    bp_income: int
    supply_cost: int
    supply_paid: int
    supply_shortfall: int
    base: int | None
    home: int | None
    lost_in_space: int
    active: bool
    techs: dict[str, int]
    reserve: NotRequired[int]
    """Rule set 2 only."""


class OrderRow(TypedDict):
    line: int | None
    text: str
    ok: bool
    reason: str | None
    cost: int
    outcome: str


class Happening(TypedDict):
    kind: str
    text: str
    data: Mapping[str, object]
    """The event's own data, as the engine recorded it (``Event.data``)."""


class BulletinPointer(TypedDict):
    subject: str
    turn: int
    empires: int
    top: int


class ProbeSection(TypedDict):
    probes: list[ProbeState]
    systems: list[ProbeSight]
    lost: list[int]


class Announcement(TypedDict):
    subject: str
    text: str


class ReportExtras(TypedDict, total=False):
    """What the turn adds to every report, or to the bulletin when there is
    one; absent when there is nothing to say."""

    announcements: list[Announcement]
    correction_reason: str


class TurnHead(TypedDict):
    """The keys a report and a bulletin both start with."""

    game: str
    turn: int
    next_turn: int
    deadline: str | None
    deadline_text: str | None
    finished: bool
    corrected: bool


class BulletinContext(TurnHead):
    """The turn bulletin of a big game (``bulletin.schema.json``)."""

    schema: str
    subject: str
    empires: int
    roundup: list[RoundupRow]
    press: list[PressRow]
    announcements: NotRequired[list[Announcement]]
    correction_reason: NotRequired[str]


class ReportBody(TurnHead):
    """A report context but its order form, which is written from the rest."""

    schema: str
    on_leave_until: int | None
    empire: EmpireView
    orders: list[OrderRow]
    happenings: list[Happening]
    systems: list[OwnSystemRow]
    scouting: list[SystemRow]
    map: ReportMap
    roundup: list[RoundupRow]
    press: list[PressRow]
    bulletin: NotRequired[BulletinPointer]
    ruleset: NotRequired[int]
    probes: NotRequired[ProbeSection]
    announcements: NotRequired[list[Announcement]]
    correction_reason: NotRequired[str]


class ReportContext(ReportBody):
    """One empire's report of one turn (``report.schema.json``)."""

    order_form: str


def report_extras(extras: Mapping[str, Any]) -> ReportExtras:
    """``extras`` (what the database gave for the turn) as :class:`ReportExtras`,
    in its own order: the reports' JSON keeps the order of its keys."""
    typed = ReportExtras()
    for key, value in extras.items():
        if key == "announcements":
            typed["announcements"] = [
                Announcement(subject=str(a["subject"]), text=str(a["text"])) for a in value
            ]
        elif key == "correction_reason":
            typed["correction_reason"] = str(value)
        else:
            raise ValueError(f"not a key a report takes from its turn: {key!r}")
    return typed


def add_extras(target: ReportContext | BulletinContext, extras: ReportExtras) -> None:
    """Put the turn's extras into a report or the bulletin, after its other keys."""
    if "announcements" in extras:
        target["announcements"] = extras["announcements"]
    if "correction_reason" in extras:
        target["correction_reason"] = extras["correction_reason"]


def schema_version(stored: Mapping[str, Any]) -> int:
    """The version a stored report was written in; one with no ``schema`` is version 1."""
    schema = stored.get("schema")
    if schema is None or schema == _SCHEMA_1_ID:
        return 1
    if (
        isinstance(schema, str)
        and schema.startswith(_SCHEMA_PREFIX)
        and schema[len(_SCHEMA_PREFIX) :].isdigit()
    ):
        return int(schema[len(_SCHEMA_PREFIX) :])
    raise ValueError(f"not a report schema this version knows: {schema!r}")


#: A report as read back from storage, in whichever version it was written: JSON.
StoredReport = dict[str, Any]


def _from_1(stored: StoredReport) -> StoredReport:
    """Version 1 to 2: the deadline as players read it had been ``deadline``;
    the balance line's parts and the leave were not stored, and are worked
    out from what the old report has."""
    empire = dict(stored["empire"])
    empire.setdefault("economy_ran", bool(empire.get("income_by_system")) or bool(empire.get("supply_cost")))
    empire.setdefault("supply_paid", empire.get("supply_cost", 0) - empire.get("supply_shortfall", 0))
    empire.setdefault("next_income", empire.get("income", 0))
    upgraded = {"on_leave_until": None, **stored, "empire": empire}
    upgraded.setdefault("deadline_text", stored.get("deadline"))
    return upgraded


#: Version N -> the step to version N + 1. Version 2 to 3 only added the keys
#: of rule set 2, which a version-2 report (rule set 1) never had.
_STEPS: dict[int, Callable[[StoredReport], StoredReport]] = {1: _from_1, 2: dict}


def upgrade_report(stored: Mapping[str, Any]) -> ReportContext:
    """A report read back from storage (JSON of any version so far) as the
    templates of this version read it. The stored JSON itself is not changed:
    a player asking for an old report again gets it as it was sent."""
    version = schema_version(stored)
    if version > SCHEMA_VERSION:
        raise ValueError(f"report schema {version} is newer than this program's {SCHEMA_VERSION}")
    data: Any = stored
    if version < SCHEMA_VERSION:
        log.debug("upgrading a stored report from schema %d", version)
        data = dict(stored)
        for step in range(version, SCHEMA_VERSION):
            data = _STEPS[step](data)
    # Checked by report.schema.json in the tests, not here: this runs for every report rendered.
    report: ReportContext = data
    return report
