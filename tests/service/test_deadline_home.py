"""A game's deadline has one home (turnproc/storage/readmodel.py): what is due,
what is coming, and the two writers every caller goes through (a deadline
used up by a turn, a deadline moved by the GM or by a new count)."""

from __future__ import annotations

import ast
import datetime as dt
from pathlib import Path

import turnproc
from turnproc.storage import models as m
from turnproc.storage.queries import consume_deadline, current_deadline, deadline_due, move_deadline, view_of

UTC = dt.UTC
HOME = Path(turnproc.__file__).parent / "storage" / "readmodel.py"
FIELDS = {"last_deadline_at", "deadline_override"}


def game(**fields: object) -> m.Game:
    row = m.Game(
        name="alpha",
        seed="s",
        id=1,
        turn=3,
        status="active",
        schedule="0 18 * * *",
        timezone="UTC",
        created_at=dt.datetime(2026, 1, 1, tzinfo=UTC),
        early_run=False,
        early_run_delay=0,
        reminder_hours=0,
        inactive_after=3,
        nmr_limit=0,
        hold=False,
        ruleset="standard",
        modules="",
    )
    for name, value in fields.items():
        setattr(row, name, value)
    return row


def test_no_module_but_the_home_writes_a_deadline_field() -> None:
    writers = []
    for path in sorted(HOME.parent.parent.rglob("*.py")):
        if path == HOME:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AugAssign | ast.AnnAssign)
                else []
            )
            for target in targets:
                for t in ast.walk(target):
                    if isinstance(t, ast.Attribute) and t.attr in FIELDS:
                        writers.append(f"{path.name}:{node.lineno}")
    assert not writers, f"call consume_deadline or move_deadline instead: {writers}"


def test_a_passed_deadline_is_due_once_and_used_up() -> None:
    last = dt.datetime(2026, 1, 1, 18, tzinfo=UTC)
    row = game(last_deadline_at=last)
    # Two days of outage: the deadlines missed collapse into the latest.
    now = dt.datetime(2026, 1, 3, 19, tzinfo=UTC)
    due = deadline_due(view_of(row), now)
    assert due == dt.datetime(2026, 1, 3, 18, tzinfo=UTC)
    consume_deadline(row, due)
    assert row.last_deadline_at == due and deadline_due(view_of(row), now) is None
    assert current_deadline(view_of(row), now) == dt.datetime(2026, 1, 4, 18, tzinfo=UTC)
    # Never back: an older deadline used up later changes nothing.
    consume_deadline(row, last)
    assert row.last_deadline_at == due


def test_a_hand_set_deadline_replaces_the_schedule_until_a_turn_uses_it() -> None:
    now = dt.datetime(2026, 1, 2, 12, tzinfo=UTC)
    row = game(last_deadline_at=dt.datetime(2026, 1, 1, 18, tzinfo=UTC))
    move_deadline(row, to=dt.datetime(2026, 1, 5, 9, tzinfo=dt.timezone(dt.timedelta(hours=1))))
    assert row.deadline_override == dt.datetime(2026, 1, 5, 8, tzinfo=UTC)
    assert current_deadline(view_of(row), now) == dt.datetime(2026, 1, 5, 8, tzinfo=UTC)
    assert deadline_due(view_of(row), now) is None  # the schedule's 18:00 today is not due: the GM moved it
    assert deadline_due(view_of(row), dt.datetime(2026, 1, 5, 8, tzinfo=UTC)) == dt.datetime(
        2026, 1, 5, 8, tzinfo=UTC
    )
    consume_deadline(row)  # a turn ran (early, or by hand): the hand-set deadline was for it
    assert row.deadline_override is None


def test_a_new_count_skips_the_deadlines_before_it() -> None:
    row = game(last_deadline_at=dt.datetime(2026, 1, 1, 18, tzinfo=UTC))
    resumed = dt.datetime(2026, 1, 4, 20, tzinfo=UTC)
    move_deadline(row, count_from=resumed)
    assert deadline_due(view_of(row), resumed) is None
    assert current_deadline(view_of(row), resumed) == dt.datetime(2026, 1, 5, 18, tzinfo=UTC)
