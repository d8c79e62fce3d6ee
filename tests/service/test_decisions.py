"""The worker's decisions as pure functions of a game snapshot and ``now``."""

from __future__ import annotations

import datetime as dt

import pytest

from turnproc.storage.queries import EmpireView, GameView
from turnproc.timing.retry import Backoff
from turnproc.turns.schedule import anchor_time, decide, early_run_at, nmr_guard, reminder_start

UTC = dt.timezone.utc
MON = dt.datetime(2026, 1, 5, 12, tzinfo=UTC)
FRI_DEADLINE = dt.datetime(2026, 1, 9, 20, tzinfo=UTC)  # "0 20 * * 5" in London, winter


def empire(
    code: str,
    orders_at: dt.datetime | None = None,
    *,
    active: bool = True,
    wait: bool = False,
    reminded: bool = False,
) -> EmpireView:
    return EmpireView(
        id=0,
        code=code,
        name=code.title(),
        email=f"{code.lower()}@example.org",
        active=active,
        orders_at=orders_at,
        wait=wait,
        reminded=reminded,
    )


def view(*empires: EmpireView, **kw: object) -> GameView:
    values: dict[str, object] = dict(
        id=1,
        name="g",
        turn=1,
        status="active",
        schedule="0 20 * * 5",
        timezone="Europe/London",
        last_deadline_at=MON,
        opened_at=MON,
        empires=empires,
    )
    values.update(kw)
    return GameView(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "active, missing, limit, held",
    [
        (10, 5, 50, False),  # exactly half: not more than 50 %
        (10, 6, 50, True),
        (3, 2, 50, True),
        (3, 1, 50, False),
        (4, 4, 100, False),  # 100 %: the guard is off
        (4, 1, 0, True),  # 0 %: any missing empire holds the turn
        (4, 0, 0, False),
        (0, 0, 50, False),  # no active empires: nothing to guard
    ],
)
def test_nmr_guard_holds_when_more_than_the_limit_are_missing(
    active: int, missing: int, limit: int, held: bool
) -> None:
    assert nmr_guard(active, missing, limit) is held


def test_deadline_runs_or_holds() -> None:
    at = FRI_DEADLINE + dt.timedelta(seconds=5)
    before = FRI_DEADLINE - dt.timedelta(seconds=1)
    assert decide(view(empire("AAA", MON), empire("BBB"), reminder_hours=0), before).action == "idle"
    d = decide(view(empire("AAA", MON), empire("BBB")), at)
    assert (d.action, d.deadline, d.empires) == ("run", FRI_DEADLINE, ("BBB",))
    d = decide(view(empire("AAA", MON), empire("BBB"), empire("CCC")), at)
    assert (d.action, d.empires) == ("guard", ("BBB", "CCC"))
    # Inactive empires are left out of the percentage.
    d = decide(view(empire("AAA", MON), empire("BBB", active=False), empire("CCC", active=False)), at)
    assert d.action == "run"
    assert decide(view(), at).action == "skip"


def test_paused_and_finished_games_do_nothing() -> None:
    later = FRI_DEADLINE + dt.timedelta(days=30)
    for status in ("paused", "finished"):
        assert decide(view(empire("AAA"), status=status), later).action == "idle"


def test_override_replaces_the_schedule() -> None:
    override = dt.datetime(2026, 1, 11, 12, tzinfo=UTC)
    v = view(empire("AAA", MON), deadline_override=override)
    assert decide(v, FRI_DEADLINE + dt.timedelta(hours=1)).action == "idle"
    d = decide(v, override)
    assert (d.action, d.deadline) == ("run", override)


def test_early_run_waits_for_everyone_then_the_delay() -> None:
    t = MON + dt.timedelta(hours=1)
    base = dict(early_run=True, early_run_delay=30)
    assert early_run_at(view(empire("AAA", MON), empire("BBB"), **base)) is None
    assert early_run_at(view(empire("AAA", MON), empire("BBB", t), **base)) == t + dt.timedelta(minutes=30)
    # An inactive empire is not waited for.
    assert early_run_at(view(empire("AAA", MON), empire("BBB", active=False), **base)) == MON + dt.timedelta(
        minutes=30
    )
    # WAIT from anyone stops it; off means off; nobody active means nothing to run early.
    assert early_run_at(view(empire("AAA", MON), empire("BBB", t, wait=True), **base)) is None
    assert early_run_at(view(empire("AAA", MON), empire("BBB", t))) is None
    assert early_run_at(view(empire("AAA", active=False), **base)) is None
    v = view(empire("AAA", MON), empire("BBB", t), **base)
    assert decide(v, t + dt.timedelta(minutes=29)).action == "idle"
    assert decide(v, t + dt.timedelta(minutes=30)).action == "early"


def test_a_due_deadline_comes_before_an_early_run() -> None:
    v = view(empire("AAA", MON), early_run=True)
    assert decide(v, FRI_DEADLINE).action == "run"


def test_reminders_go_to_active_empires_without_orders_once() -> None:
    v = view(
        empire("AAA", MON),
        empire("BBB"),
        empire("CCC", reminded=True),
        empire("DDD", active=False),
        reminder_hours=24,
    )
    assert decide(v, FRI_DEADLINE - dt.timedelta(hours=24, seconds=1)).action == "idle"
    d = decide(v, FRI_DEADLINE - dt.timedelta(hours=24))
    assert (d.action, d.deadline, d.empires) == ("remind", FRI_DEADLINE, ("BBB",))
    assert (
        decide(view(empire("AAA", MON), reminder_hours=0), FRI_DEADLINE - dt.timedelta(hours=1)).action
        == "idle"
    )


def test_reminders_wait_for_half_the_turn() -> None:
    deadline = dt.datetime(2026, 1, 6, 3, tzinfo=UTC)
    opened = dt.datetime(2026, 1, 5, 3, tzinfo=UTC)  # a daily game: the turn is 24 hours long
    assert reminder_start(deadline, 24, opened) == dt.datetime(2026, 1, 5, 15, tzinfo=UTC)
    assert reminder_start(deadline, 6, opened) == dt.datetime(2026, 1, 5, 21, tzinfo=UTC)
    assert reminder_start(deadline, 0, opened) is None


def test_reminder_hours_are_elapsed_hours_across_a_clock_change() -> None:
    from zoneinfo import ZoneInfo

    deadline = dt.datetime(2026, 3, 30, 3, tzinfo=ZoneInfo("Europe/London"))  # the day after spring forward
    start = reminder_start(deadline, 48, None)
    assert start is not None and deadline - start == dt.timedelta(hours=48)
    assert start == dt.datetime(2026, 3, 28, 2, tzinfo=UTC)


def test_anchor_counts_deadlines_from_a_change() -> None:
    v = view(empire("AAA"), last_deadline_at=None)
    assert anchor_time(v, None, FRI_DEADLINE) == FRI_DEADLINE  # first schedule: from now
    assert anchor_time(view(schedule=None, last_deadline_at=None), None, FRI_DEADLINE) is None
    seen_at = MON + dt.timedelta(days=1)
    old = view(schedule="0 3 * * *").signature
    new = view()
    # Seen with another schedule on Tuesday: count from Tuesday, the change came after.
    assert anchor_time(new, (old, seen_at), FRI_DEADLINE) == seen_at
    # Same signature: nothing to do; a change already anchored later (by the CLI) stays.
    assert anchor_time(new, (new.signature, seen_at), FRI_DEADLINE) is None
    assert (
        anchor_time(view(last_deadline_at=seen_at + dt.timedelta(hours=1)), (old, seen_at), FRI_DEADLINE)
        is None
    )
    # A resume (paused → active) is a change too.
    paused = view(status="paused").signature
    assert anchor_time(new, (paused, seen_at), FRI_DEADLINE) == seen_at


def test_backoff_doubles_up_to_the_cap_and_resets() -> None:
    b = Backoff(base=2, cap=10)
    assert [b.failed(MON) for _ in range(5)] == [2, 4, 8, 10, 10]
    assert not b.ready(MON + dt.timedelta(seconds=9)) and b.ready(MON + dt.timedelta(seconds=10))
    assert b.since == MON
    assert b.succeeded() is True and b.failures == 0 and b.ready(MON)
    assert b.succeeded() is False


def test_a_staged_turn_blocks_runs_early_runs_and_reminders() -> None:
    v = view(empire("AAA", MON), empire("BBB"), staged_turn=1, early_run=True, early_run_delay=0)
    d = decide(v, FRI_DEADLINE)
    assert (d.action, d.deadline) == ("blocked", FRI_DEADLINE)
    assert decide(v, FRI_DEADLINE - dt.timedelta(hours=1)).action == "idle"  # no reminder, no early run
