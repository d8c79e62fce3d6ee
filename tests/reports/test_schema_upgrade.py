"""Stored reports are upgraded by the version they carry, not by the keys they have."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import turnproc.reports
from turnproc.reports.render import render_report_text
from turnproc.reports.schema import (
    SCHEMA_ID,
    SCHEMA_VERSION,
    Arrow,
    BulletinPointer,
    EmpireView,
    Happening,
    MapSystem,
    OrderRow,
    OwnSystemRow,
    PressRow,
    ProbeSection,
    ReportContext,
    ReportMap,
    RoundupRow,
    SystemRow,
    report_extras,
    schema_version,
    upgrade_report,
)
from turnproc.rules.eventdata import ProbeSight, ProbeState

STORED = Path(__file__).parent / "stored" / "report-schema-1.json"
GOLDEN = Path(__file__).parent / "golden" / "plain" / "RIG.json"


def _stored() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(STORED.read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize(
    ("schema", "version"),
    [
        (None, 1),
        ("https://turnproc.example/schemas/report-1.json", 1),
        ("urn:turnproc:schema:report:2", 2),
        (SCHEMA_ID, SCHEMA_VERSION),
    ],
)
def test_the_version_is_read_from_the_schema_key(schema: str | None, version: int) -> None:
    stored = {} if schema is None else {"schema": schema}
    assert schema_version(stored) == version


@pytest.mark.parametrize("schema", ["urn:turnproc:schema:report:x", "urn:turnproc:schema:bulletin:1", 3])
def test_a_schema_that_is_no_report_version_is_refused(schema: object) -> None:
    with pytest.raises(ValueError, match="not a report schema"):
        schema_version({"schema": schema})


def test_a_report_newer_than_the_program_is_refused() -> None:
    with pytest.raises(ValueError, match="newer"):
        upgrade_report({"schema": f"urn:turnproc:schema:report:{SCHEMA_VERSION + 1}"})


def test_a_version_1_report_without_a_schema_key_is_upgraded_as_version_1() -> None:
    old = _stored()
    del old["schema"]
    upgraded = upgrade_report(old)
    assert upgraded["deadline_text"] == old["deadline"] and upgraded["on_leave_until"] is None
    empire = upgraded["empire"]
    assert (empire["economy_ran"], empire["supply_paid"], empire["next_income"]) == (True, 86, 86)
    assert "deadline_text" not in old and "economy_ran" not in old["empire"], (
        "the stored report is left as it was"
    )
    assert "Orders for turn 2 are due Friday 09 January 2026, 20:00 GMT." in render_report_text(old)


def test_a_current_report_is_not_changed_even_when_a_key_is_missing() -> None:
    """Nothing is guessed from the keys: a current report missing one is an
    error in the template, not silently filled in as if it were old."""
    current = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert upgrade_report(current) is current
    del current["empire"]["economy_ran"]
    assert "economy_ran" not in upgrade_report(current)["empire"]
    with pytest.raises(Exception, match="economy_ran"):
        render_report_text(current)


def test_the_extras_keep_their_order_and_refuse_an_unknown_key() -> None:
    extras = report_extras({"correction_reason": "typo", "announcements": [{"subject": "S", "text": "T"}]})
    assert list(extras) == ["correction_reason", "announcements"]
    with pytest.raises(ValueError, match="motd"):
        report_extras({"motd": "hello"})


def _keys(shape: Any) -> tuple[set[str], set[str]]:
    return set(shape.__required_keys__), set(shape.__required_keys__ | shape.__optional_keys__)


@pytest.mark.parametrize(
    ("pointer", "shape"),
    [
        ("", ReportContext),
        ("properties/empire", EmpireView),
        ("properties/orders/items", OrderRow),
        ("properties/happenings/items", Happening),
        ("properties/map", ReportMap),
        ("properties/map/properties/systems/items", MapSystem),
        ("properties/map/properties/arrows/items", Arrow),
        ("properties/roundup/items", RoundupRow),
        ("properties/press/items", PressRow),
        ("properties/bulletin", BulletinPointer),
        ("properties/probes", ProbeSection),
        ("properties/probes/properties/probes/items", ProbeState),
        ("properties/probes/properties/systems/items", ProbeSight),
        ("$defs/system", SystemRow),
    ],
)
def test_the_typed_report_has_the_keys_of_report_schema_json(pointer: str, shape: Any) -> None:
    """Each part of the typed report context names the keys the published
    schema does, and requires the ones it requires (the rule-set-2 keys, which
    the schema requires only in a rule-set-2 report, are optional in the type)."""
    schema = json.loads(
        (Path(turnproc.reports.__file__).parent / "report.schema.json").read_text(encoding="utf-8")
    )
    node = schema
    for part in filter(None, pointer.split("/")):
        node = node[part]
    required, every = _keys(shape)
    assert every == set(node["properties"])
    # on_leave_until: written in every report since version 2, optional in the schema all the same.
    assert required - {"on_leave_until"} == set(node.get("required", [])) - {"reserve"}


def test_own_systems_have_the_keys_of_the_schema() -> None:
    schema = json.loads(
        (Path(turnproc.reports.__file__).parent / "report.schema.json").read_text(encoding="utf-8")
    )
    system, own = schema["$defs"]["system"], schema["$defs"]["own_system"]
    required, every = _keys(OwnSystemRow)
    # supply_paid is described for an own system but never written: the empire has it.
    assert every == (set(system["properties"]) | set(own["properties"])) - {"supply_paid"}
    assert required == set(system["required"]) | set(own["required"])
