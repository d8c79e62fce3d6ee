"""One pass of the worker (``Service.tick``) with a controllable clock, on
SQLite and PostgreSQL: deadlines, catch-up, the NMR guard, missed turns,
early runs, WAIT, reminders, schedule changes, pause, failures."""

from __future__ import annotations

import datetime as dt
import threading
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import create_engine, select, text

from tests.service.conftest import GM, FakeClock, Game, Outbox, new_game
from turnproc.app import App
from turnproc.games.game import pause_game, resume_game, set_schedule
from turnproc.service.worker import Service
from turnproc.storage import models as m
from turnproc.storage.db import make_sessionmaker, transaction
from turnproc.storage.queries import get_game

UTC = dt.timezone.utc
LONDON = ZoneInfo("Europe/London")
# The corpus game's deadline is "0 20 * * 5" in London: Friday 9 January 2026, 20:00 GMT.
FRIDAY = dt.datetime(2026, 1, 9, 20, 0, tzinfo=UTC)


def test_the_deadline_runs_the_turn_once_and_tells_the_gm(
    service: Service, clock: FakeClock, game: Game, outbox: Outbox
) -> None:
    game.orders("RIG", clock.now)
    game.orders("VEG", clock.now)
    clock.set(FRIDAY - dt.timedelta(seconds=1))
    assert service.tick().actions == {"corpus": "idle"}
    assert game.turns() == []
    clock.set(FRIDAY + dt.timedelta(seconds=20))
    assert service.tick().actions == {"corpus": "run"}
    assert game.turns() == [1]
    assert game.row().last_deadline_at == FRIDAY
    assert sorted(r.recipient for r in outbox.rows("report")) == ["ann@example.org", "bo@example.org"]
    [notice] = outbox.rows("notice")
    assert notice.recipient == GM and notice.subject == "[corpus] turn 1 ran"
    body = notice.body.decode()
    assert (
        "Every empire had orders in." in body and "Next deadline: Friday 16 January 2026, 20:00 GMT" in body
    )
    # Later passes find nothing more to do.
    for minutes in (1, 30, 600):
        clock.set(FRIDAY + dt.timedelta(minutes=minutes))
        assert service.tick().actions == {"corpus": "idle"}
    assert game.turns() == [1] and len(outbox.rows("notice")) == 1


def test_catch_up_after_downtime_runs_once(
    service: Service, clock: FakeClock, game: Game, outbox: Outbox
) -> None:
    game.orders("RIG", clock.now)
    game.orders("VEG", clock.now)
    # The worker was down for four Fridays.
    clock.set(dt.datetime(2026, 2, 4, 9, tzinfo=UTC))
    assert service.tick().actions == {"corpus": "run"}
    assert service.tick().actions == {"corpus": "idle"}
    assert game.turns() == [1]
    assert game.row().last_deadline_at == dt.datetime(2026, 1, 30, 20, tzinfo=UTC)
    # The next turn's deadline is the next Friday, as the report says.
    assert "Friday 06 February 2026, 20:00 GMT" in outbox.rows("notice")[0].body.decode()


def test_nmr_guard_holds_the_turn_and_mails_the_gm_once(
    service: Service, clock: FakeClock, game: Game, outbox: Outbox
) -> None:
    clock.set(FRIDAY + dt.timedelta(seconds=10))
    assert service.tick().actions == {"corpus": "guard"}
    assert game.turns() == [] and game.row().turn == 1
    assert game.row().last_deadline_at == FRIDAY
    [notice] = outbox.rows("notice")
    assert notice.subject == "[corpus] turn 1 NOT run: 2 of 2 empires sent no orders"
    body = notice.body.decode()
    assert "RIG, VEG" in body and "mail feed" in body and "turnproc turn run corpus" in body
    clock.advance(minutes=5)
    assert service.tick().actions == {"corpus": "idle"}
    assert len(outbox.rows("notice")) == 1
    # The feed is back: orders arrive, the next deadline runs the turn.
    game.orders("RIG", clock.now)
    clock.set(FRIDAY + dt.timedelta(days=7, seconds=10))
    assert service.tick().actions == {"corpus": "run"}
    assert game.turns() == [1]


def test_k_missed_turns_in_a_row_make_an_empire_inactive_and_the_gm_is_told(
    service: Service, clock: FakeClock, game: Game, outbox: Outbox
) -> None:
    """VEG never sends orders (1 of 2 missing is not more than 50 %, so turns run)."""
    for turn in range(1, 6):
        game.orders("RIG", clock.now)
        clock.set(FRIDAY + dt.timedelta(days=7 * (turn - 1), seconds=5))
        assert service.tick().actions == {"corpus": "run"}
        veg = game.empire("VEG")
        assert veg.missed_turns == turn and veg.active is (turn < 5)
    notices = outbox.rows("notice")
    assert [n.subject for n in notices] == [f"[corpus] turn {t} ran" for t in range(1, 6)]
    assert "No orders from: VEG" in notices[0].body.decode() and "inactive" not in notices[3].body.decode()
    assert "Now inactive after missing too many turns in a row: VEG." in notices[4].body.decode()
    assert game.empire("RIG").missed_turns == 0 and game.empire("RIG").active
    # Inactive VEG no longer counts: with RIG's orders in, an early run may go.
    game.update(early_run=True, early_run_delay=10)
    game.orders("RIG", clock.now)
    clock.advance(minutes=11)
    assert service.tick().actions == {"corpus": "early"}
    # Orders make VEG active again.
    game.orders("VEG", clock.now)
    game.orders("RIG", clock.now)
    clock.advance(minutes=11)
    assert service.tick().actions == {"corpus": "early"}
    assert game.empire("VEG").active and game.empire("VEG").missed_turns == 0


def test_early_run_after_the_delay(service: Service, clock: FakeClock, game: Game, outbox: Outbox) -> None:
    game.update(early_run=True, reminder_hours=0)  # delay: the default 30 minutes
    t0 = clock.now
    game.orders("RIG", t0)
    clock.advance(minutes=40)
    assert service.tick().actions == {"corpus": "idle"}  # VEG is missing
    game.orders("VEG", clock.now)
    clock.advance(minutes=29)
    assert service.tick().actions == {"corpus": "idle"}
    clock.advance(minutes=1)
    assert service.tick().actions == {"corpus": "early"}
    assert game.turns() == [1]
    assert game.row().last_deadline_at == t0  # an early run moves the turn, not the schedule
    assert outbox.subjects("notice") == ["[corpus] turn 1 ran early"]
    clock.advance(minutes=31)
    assert service.tick().actions == {"corpus": "idle"}  # turn 2 has no orders yet
    assert game.turns() == [1]


def test_wait_stops_the_early_run_until_withdrawn(service: Service, clock: FakeClock, game: Game) -> None:
    game.update(early_run=True, early_run_delay=10, reminder_hours=0)
    game.orders("RIG", clock.now)
    game.orders("VEG", clock.now, "NAME 201 Vega Prime\nWAIT")
    with game.app.sessions() as session:
        assert session.scalar(select(m.OrderSet.wait).order_by(m.OrderSet.id.desc()).limit(1)) is True
    clock.advance(hours=2)
    assert service.tick().actions == {"corpus": "idle"}
    # New orders without WAIT replace the old ones: the early run goes after the delay.
    game.orders("VEG", clock.now)
    clock.advance(minutes=10)
    assert service.tick().actions == {"corpus": "early"}


def test_wait_alone_still_runs_at_the_deadline(service: Service, clock: FakeClock, game: Game) -> None:
    game.update(early_run=True)
    game.orders("RIG", clock.now)
    game.orders("VEG", clock.now, "WAIT")
    clock.set(FRIDAY + dt.timedelta(seconds=1))
    assert service.tick().actions == {"corpus": "run"}
    # WAIT with nothing on file is no orders (docs/orders.md): VEG missed the turn.
    assert game.empire("VEG").missed_turns == 1


def test_reminders_before_the_deadline_once_to_those_without_orders(
    service: Service, clock: FakeClock, game: Game, outbox: Outbox
) -> None:
    game.orders("RIG", clock.now)
    clock.set(FRIDAY - dt.timedelta(hours=24, seconds=1))
    assert service.tick().actions == {"corpus": "idle"}
    clock.set(FRIDAY - dt.timedelta(hours=23, minutes=59))
    assert service.tick().actions == {"corpus": "remind"}
    [reminder] = outbox.rows("reminder")
    assert reminder.recipient == "bo@example.org"
    assert (
        reminder.subject
        == "corpus: no orders from VEG for turn 1 yet - deadline Friday 09 January 2026, 20:00 GMT"
    )
    assert "EMPIRE VEG <your password>" in reminder.body.decode()
    for hours in (20, 2):
        clock.set(FRIDAY - dt.timedelta(hours=hours))
        assert service.tick().actions == {"corpus": "idle"}
    # A second worker (no memory of its own) sends none either: the Message-ID is the record.
    assert Service(game.app, clock=clock).tick().actions == {"corpus": "idle"}
    assert len(outbox.rows("reminder")) == 1
    # The next turn gets its own reminder.
    game.orders("VEG", clock.now)
    clock.set(FRIDAY + dt.timedelta(seconds=1))
    assert service.tick().actions == {"corpus": "run"}
    clock.set(FRIDAY + dt.timedelta(days=6, hours=1))
    assert service.tick().actions == {"corpus": "remind"}
    assert sorted(r.recipient for r in outbox.rows("reminder")) == [
        "ann@example.org",
        "bo@example.org",
        "bo@example.org",
    ]


def test_a_schedule_change_is_picked_up_without_restart(
    service: Service, clock: FakeClock, game: Game
) -> None:
    game.update(nmr_limit=100, reminder_hours=0)
    assert service.tick().actions == {"corpus": "idle"}
    # Tuesday: the GM switches to a daily 03:00 deadline with plain SQL.
    clock.set(dt.datetime(2026, 1, 6, 10, tzinfo=UTC))
    assert service.tick().actions == {"corpus": "idle"}
    with transaction(game.app.sessions) as session:
        session.execute(text("UPDATE games SET schedule = '0 3 * * *' WHERE name = 'corpus'"))
    clock.advance(seconds=30)
    # Tuesday's 03:00 was before the change: it never runs.
    assert service.tick().actions == {"corpus": "idle"}
    assert game.row().last_deadline_at == dt.datetime(2026, 1, 6, 10, tzinfo=UTC)
    clock.set(dt.datetime(2026, 1, 7, 3, 0, 5, tzinfo=UTC))
    assert service.tick().actions == {"corpus": "run"}
    # And through the GM's command, with a time zone.
    with transaction(game.app.sessions) as session:
        set_schedule(
            session, get_game(session, "corpus"), clock.now, cron="0 9 * * *", timezone="America/New_York"
        )
    clock.set(dt.datetime(2026, 1, 7, 14, 0, 5, tzinfo=UTC))  # 09:00 in New York
    assert service.tick().actions == {"corpus": "run"}
    assert game.turns() == [1, 2]


def test_pause_stops_everything_and_resume_does_not_catch_up(
    service: Service, clock: FakeClock, game: Game
) -> None:
    game.orders("RIG", clock.now)
    game.orders("VEG", clock.now)
    assert service.tick().actions == {"corpus": "idle"}
    with transaction(game.app.sessions) as session:
        pause_game(session, get_game(session, "corpus"))
    clock.set(FRIDAY + dt.timedelta(days=1))
    assert service.tick().actions == {"corpus": "idle"}
    # Resumed with SQL (the worker notices the change) on Sunday: Friday's deadline is gone.
    clock.set(FRIDAY + dt.timedelta(days=2))
    with transaction(game.app.sessions) as session:
        session.execute(text("UPDATE games SET status = 'active' WHERE name = 'corpus'"))
    assert service.tick().actions == {"corpus": "idle"}
    assert game.turns() == []
    clock.set(FRIDAY + dt.timedelta(days=7, seconds=1))
    assert service.tick().actions == {"corpus": "run"}
    # Resumed with the command: the same.
    with transaction(game.app.sessions) as session:
        pause_game(session, get_game(session, "corpus"))
    clock.set(FRIDAY + dt.timedelta(days=15))
    with transaction(game.app.sessions) as session:
        resume_game(session, get_game(session, "corpus"), clock.now)
    assert service.tick().actions == {"corpus": "idle"}
    assert game.turns() == [1]


def test_one_game_failing_never_stops_the_others(
    service: Service, clock: FakeClock, app: App, outbox: Outbox
) -> None:
    broken = new_game(app, clock, "broken", nmr_limit=100)
    fine = new_game(app, clock, "fine", nmr_limit=100)
    with transaction(app.sessions) as session:
        # A GM's typo in SQL: the cron check the command does is bypassed.
        session.execute(text("UPDATE games SET schedule = '0 20 * * funday' WHERE name = 'broken'"))
    clock.set(FRIDAY + dt.timedelta(seconds=5))
    report = service.tick()
    assert report.actions == {"fine": "run"} and len(report.errors) == 1
    assert fine.turns() == [1] and broken.turns() == []
    errors = [n for n in outbox.rows("notice") if "error" in n.subject]
    assert len(errors) == 1 and errors[0].subject.startswith(
        "[broken] turnproc error: DeadlineError: bad cron expression"
    )
    # Retried with back-off, and the GM is not mailed again for the same error.
    for minutes in (1, 10, 60):
        clock.advance(minutes=minutes)
        service.tick()
    assert len([n for n in outbox.rows("notice") if "error" in n.subject]) == 1
    # Fixed: it runs at its next deadline like the rest.
    broken.update(schedule="0 20 * * 5")
    clock.set(FRIDAY + dt.timedelta(days=7, seconds=5))
    clock.advance(minutes=10)
    assert service.tick().actions == {"broken": "run", "fine": "run"}


def test_a_failing_turn_is_retried_and_told_once(
    service: Service, clock: FakeClock, game: Game, outbox: Outbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    import turnproc.turns.run as turns

    game.orders("RIG", clock.now)
    game.orders("VEG", clock.now)

    def broken(*args: object, **kw: object) -> object:
        raise RuntimeError("engine bug")

    monkeypatch.setattr(turns, "resolve", broken)
    clock.set(FRIDAY + dt.timedelta(seconds=5))
    assert service.tick().errors
    assert game.turns() == [] and game.row().last_deadline_at != FRIDAY  # nothing half-done
    clock.advance(minutes=30)
    assert service.tick().errors
    assert outbox.subjects("notice") == ["[corpus] turnproc error: RuntimeError: engine bug"]
    monkeypatch.undo()
    clock.advance(minutes=30)
    assert service.tick().actions == {"corpus": "run"}
    assert game.turns() == [1] and game.row().last_deadline_at == FRIDAY


def test_two_services_at_one_deadline_run_one_turn(
    app: App, clock: FakeClock, game: Game, outbox: Outbox
) -> None:
    game.orders("RIG", clock.now)
    game.orders("VEG", clock.now)
    clock.set(FRIDAY + dt.timedelta(seconds=1))
    services = [Service(app, clock=clock) for _ in range(4)]
    reports: list[object] = []
    barrier = threading.Barrier(len(services))

    def run(s: Service) -> None:
        barrier.wait()
        reports.append(s.tick())

    threads = [threading.Thread(target=run, args=(s,)) for s in services]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    actions = sorted(r.actions.get("corpus", "") for r in reports)  # type: ignore[attr-defined]
    assert actions == ["idle", "idle", "idle", "run"]
    assert not any(r.errors for r in reports)  # type: ignore[attr-defined]
    assert game.turns() == [1] and len(outbox.rows("report")) == 2 and len(outbox.rows("notice")) == 1


@pytest.mark.slow
@pytest.mark.parametrize(
    "zone, schedule, start, deadlines",
    [
        (
            "Europe/London",
            "30 1 * * *",
            dt.datetime(2026, 10, 24, 0, 0, tzinfo=UTC),
            [
                dt.datetime(2026, 10, 24, 0, 30, tzinfo=UTC),
                dt.datetime(2026, 10, 25, 0, 30, tzinfo=UTC),
                dt.datetime(2026, 10, 26, 1, 30, tzinfo=UTC),
            ],
        ),
        (
            "America/New_York",
            "30 2 * * *",
            dt.datetime(2026, 3, 7, 6, 0, tzinfo=UTC),
            [
                dt.datetime(2026, 3, 7, 7, 30, tzinfo=UTC),
                dt.datetime(2026, 3, 8, 7, 30, tzinfo=UTC),
                dt.datetime(2026, 3, 9, 6, 30, tzinfo=UTC),
            ],
        ),
    ],
    ids=["london-autumn", "new-york-spring"],
)
def test_a_daylight_saving_night_runs_each_daily_turn_once(
    app: App, clock: FakeClock, zone: str, schedule: str, start: dt.datetime, deadlines: list[dt.datetime]
) -> None:
    clock.set(start)
    game = new_game(app, clock, schedule=schedule, timezone=zone, nmr_limit=100, reminder_hours=0)
    service = Service(app, clock=clock)
    while clock.now < start + dt.timedelta(hours=3 * 24 - 1):
        service.tick()
        clock.advance(minutes=10)
    assert game.turns() == [1, 2, 3]
    # Each ran on the first pass after its deadline.
    assert [r - d for r, d in zip(game.ran_at(), deadlines)] == [dt.timedelta(0)] * 3


def test_an_unreachable_database_is_logged_and_retried(
    tmp_path, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    from turnproc.config import Config

    engine = create_engine(f"sqlite:///{tmp_path}/missing/dir/game.db")
    app = App(Config(), engine, make_sessionmaker(engine))
    service = Service(app, clock=clock, base_backoff=5)
    assert service.tick().actions == {}
    assert "database unavailable" in caplog.text and "retrying in 5s" in caplog.text
    clock.advance(seconds=4)
    service.tick()
    assert service.tick_backoff.failures == 1  # still waiting, not hammering
    clock.advance(seconds=2)
    service.tick()
    assert service.tick_backoff.failures == 2
    assert service.poll() == 0 and service.flush() == (0, 0)
    engine.dispose()


def test_a_staged_turn_blocks_the_next_deadline_until_released(
    service: Service, clock: FakeClock, game: Game, outbox: Outbox
) -> None:
    from turnproc.turns.control import release_turn

    game.update(hold=True, nmr_limit=100, reminder_hours=0)  # the GM reviews every turn before it goes out
    clock.set(FRIDAY + dt.timedelta(seconds=5))
    assert service.tick().actions == {"corpus": "run"}
    assert outbox.subjects("notice") == ["[corpus] turn 1 ran (staged: not sent yet)"]
    clock.set(FRIDAY + dt.timedelta(days=7, seconds=5))
    assert service.tick().actions == {"corpus": "blocked"}
    assert game.turns() == [1] and service.tick().actions["corpus"] == "idle"
    assert outbox.subjects("notice")[-1] == "[corpus] turn 2 NOT run: turn 1 is still staged for your release"
    assert "turnproc turn release corpus" in outbox.rows("notice")[-1].body.decode()
    with transaction(game.app.sessions) as session:
        release_turn(session, get_game(session, "corpus"), clock.now)
    clock.advance(hours=1)
    assert service.tick().actions == {"corpus": "idle"}  # the players get their time: the next deadline
    clock.set(FRIDAY + dt.timedelta(days=14, seconds=5))
    assert service.tick().actions == {"corpus": "run"}
    assert game.turns() == [1, 2]


def test_mail_servers_down_cost_no_attempts_and_the_gm_hears_after_half_an_hour(
    app: App, clock: FakeClock, outbox: Outbox
) -> None:
    from dataclasses import replace

    from tests.servers import free_port
    from turnproc.config import ImapConfig, SmtpConfig

    app.config = replace(
        app.config,
        transport="imap",
        imap=ImapConfig(host="127.0.0.1", port=free_port(), security="plain", timeout=2),
        smtp=SmtpConfig(host="127.0.0.1", port=free_port(), security="plain", timeout=2),
    )
    service = Service(app, clock=clock, base_backoff=60)
    start = clock.now
    for _ in range(12):  # an hour
        assert service.poll() == 0
        assert service.flush() == (0, 0)
        clock.advance(minutes=5)
    # Neither failure cost a queued mail one of its limited attempts ...
    assert [(r.attempts, r.sent_at) for r in outbox.rows()] == [(0, None), (0, None)]
    # ... and each outage was told once (the mails wait in the outbox like everything else).
    assert sorted(outbox.subjects("notice")) == [
        f"turnproc: the inbox has failed since {start.isoformat(timespec='minutes')}",
        f"turnproc: the outbox has failed since {start.isoformat(timespec='minutes')}",
    ]
    assert outbox.rows()[0].recipient == GM


def test_a_turn_the_gm_ran_by_hand_meanwhile_is_not_followed_by_another(
    service: Service, clock: FakeClock, game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker and `turnproc turn run` share one rule: a run is for the turn
    that was current when it started. The GM runs turn 1 by hand just as the
    worker comes for the deadline: the worker does not run turn 2 on top."""
    import turnproc.service.worker as worker
    from turnproc.turns.run import run_current_turn

    game.orders("RIG", clock.now)
    game.orders("VEG", clock.now)
    clock.set(FRIDAY + dt.timedelta(seconds=5))
    real_anchor = worker.anchor_time
    ran = []

    def gm_runs_the_turn(*args: object) -> object:
        if not ran:  # after the worker's first look, before its locked one
            ran.append(run_current_turn(game.app.sessions, "corpus", game.app.config, clock.now).turn)
        return real_anchor(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(worker, "anchor_time", gm_runs_the_turn)
    assert service.tick().actions == {"corpus": "idle"}
    assert ran == [1] and game.turns() == [1]
    assert game.row().last_deadline_at == FRIDAY  # that deadline is used up
    clock.advance(minutes=5)
    assert service.tick().actions == {"corpus": "idle"}
    assert game.turns() == [1]
