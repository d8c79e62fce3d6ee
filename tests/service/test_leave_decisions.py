"""An empire on leave (VACATION, docs/orders.md) in the worker's decisions:
the missed-orders guard, the early run and the reminders leave it out."""

from __future__ import annotations

import dataclasses
import datetime as dt

from tests.service.test_decisions import FRI_DEADLINE, MON, empire, view
from turnproc.storage.queries import EmpireView
from turnproc.turns.schedule import decide, early_run_at


def on_leave(code: str) -> EmpireView:
    return dataclasses.replace(empire(code), on_leave=True)


def test_the_guard_does_not_count_an_empire_on_leave() -> None:
    at = FRI_DEADLINE + dt.timedelta(seconds=5)
    assert decide(view(empire("AAA", MON), empire("BBB"), nmr_limit=0), at).action == "guard"
    d = decide(view(empire("AAA", MON), on_leave("BBB"), nmr_limit=0), at)
    assert (d.action, d.empires) == ("run", ())


def test_an_early_run_does_not_wait_for_an_empire_on_leave() -> None:
    assert early_run_at(view(empire("AAA", MON), empire("BBB"), early_run=True)) is None
    due = early_run_at(view(empire("AAA", MON), on_leave("BBB"), early_run=True, early_run_delay=30))
    assert due == MON + dt.timedelta(minutes=30)


def test_no_reminder_for_an_empire_on_leave() -> None:
    near = FRI_DEADLINE - dt.timedelta(hours=3)
    d = decide(view(empire("AAA"), on_leave("BBB"), reminder_hours=24), near)
    assert (d.action, d.empires) == ("remind", ("AAA",))
