"""Reports against events, over random games in both rule sets: the balance, the VP,
the lost-in-space pool and the reserve a report shows are what the turn's events
say, and every report validates against the published schema (rules.md §14, rules.md §19.2)."""

from __future__ import annotations

import json
import random
from importlib import resources
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.rules.test_determinism import galaxies, orders_for
from turnproc.reports.context import SCHEMA_ID, report_context
from turnproc.reports.render import render_report_documents
from turnproc.rules.events import Event
from turnproc.rules.turn import resolve

SCHEMA = json.loads(
    resources.files("turnproc.reports").joinpath("report.schema.json").read_text(encoding="utf-8")
)
#: Built once: ``jsonschema.validate`` checks the schema itself on every call.
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def _last(events: list[Event], kind: str, empire: str) -> dict[str, Any] | None:
    found = [e.data for e in events if e.kind == kind and e.empire == empire]
    return found[-1] if found else None


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), ruleset=st.sampled_from([1, 2]))
def test_r19_2_reports_agree_with_the_events(data: st.DataObject, ruleset: int) -> None:
    """rules.md §19.2: "The report shows reserve and lost-in-space counts"; and in both rule
    sets the balance, VP and pool a report gives are the events' figures."""
    state = data.draw(galaxies(ruleset=ruleset))
    seed = data.draw(st.integers(0, 2**32))
    for turn in range(3):
        if state.finished:
            break
        orders = {code: data.draw(orders_for(state, code)) for code in sorted(state.empires)}
        new, events = resolve(state, orders, random.Random(seed + turn))
        for code in sorted(new.empires):
            context = report_context(new, events, code, game_name="agree", turn=state.turn)
            docs = render_report_documents(context)
            VALIDATOR.validate(json.loads(docs.json))
            shown = context["empire"]
            income, supply, vp = (_last(events, k, code) for k in ("income", "supply", "vp"))
            if income is not None and supply is not None:
                assert shown["balance"] == income["total"] - supply["paid"]
            if vp is not None:
                assert shown["vp"] == vp["vp"]
            assert shown["lost_in_space"] == new.empires[code].lost_in_space
            if ruleset == 2:
                assert context["schema"] == SCHEMA_ID and context["ruleset"] == 2
                pool = _last(events, "reserve", code)
                if pool is not None:
                    assert (shown["reserve"], shown["lost_in_space"]) == (
                        pool["reserve"],
                        pool["lost_in_space"],
                    )
                view = _last(events, "probe_view", code)
                assert context["probes"]["probes"] == (view["probes"] if view else [])
            else:
                assert context["schema"] == SCHEMA_ID
                assert "reserve" not in shown and "probes" not in context and "ruleset" not in context
                assert len(shown["techs"]) == 13
        state = new
