"""Fixtures for the service tests: a controllable clock, an app on SQLite and
PostgreSQL, and the two-empire game of tests.factories."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.factories import make_game
from tests.mailrows import with_bodies
from turnproc.app import App, open_app
from turnproc.config import Config
from turnproc.intake import submit_orders
from turnproc.service.worker import Service
from turnproc.storage import models as m
from turnproc.storage.db import transaction

UTC = dt.timezone.utc
GM = "gm@example.org"
#: The corpus game's orders that are valid on turn 1 and later (ships stay home).
ORDERS = {"RIG": "NAME 101 New Haven", "VEG": "NAME 201 Vega Prime"}


class FakeClock:
    """The service's clock, moved by the test."""

    def __init__(self, now: dt.datetime) -> None:
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now

    def set(self, when: dt.datetime) -> None:
        self.now = when.astimezone(UTC)

    def advance(self, **delta: float) -> dt.datetime:
        self.now += dt.timedelta(**delta)
        return self.now


class Outbox:
    """Queued mail as the tests look at it: kind, recipient, subject."""

    def __init__(self, app: App) -> None:
        self.app = app

    def rows(self, kind: str | None = None) -> list[m.OutboxMail]:
        with self.app.sessions() as session:
            query = select(m.OutboxMail).order_by(m.OutboxMail.id)
            if kind is not None:
                query = query.where(m.OutboxMail.kind == kind)
            # Every mail is built when sent: build what is queued as the flush would.
            return with_bodies(session, list(session.scalars(query)), self.app.config.from_address)

    def subjects(self, kind: str) -> list[str]:
        return [r.subject for r in self.rows(kind)]


class Game:
    """Shortcuts on one game of the app's database."""

    def __init__(self, app: App, name: str) -> None:
        self.app, self.name = app, name

    def row(self) -> m.Game:
        with self.app.sessions() as session:
            game = session.scalar(select(m.Game).where(m.Game.name == self.name))
            assert game is not None
            return game

    def update(self, **values: object) -> None:
        with transaction(self.app.sessions) as session:
            game = session.scalar(select(m.Game).where(m.Game.name == self.name))
            for key, value in values.items():
                setattr(game, key, value)

    def orders(self, code: str, now: dt.datetime, text: str | None = None) -> None:
        with transaction(self.app.sessions) as session:
            game = session.scalar(select(m.Game).where(m.Game.name == self.name))
            empire = session.scalar(
                select(m.Empire).where(m.Empire.game_id == game.id, m.Empire.code == code)
            )
            parsed, _ = submit_orders(session, game, empire, text or ORDERS[code], now)
            assert not parsed.errors, parsed.errors

    def turns(self) -> list[int]:
        with self.app.sessions() as session:
            game_id = session.scalar(select(m.Game.id).where(m.Game.name == self.name))
            return list(
                session.scalars(
                    select(m.TurnRecord.number)
                    .where(m.TurnRecord.game_id == game_id)
                    .order_by(m.TurnRecord.number)
                )
            )

    def ran_at(self) -> list[dt.datetime]:
        with self.app.sessions() as session:
            game_id = session.scalar(select(m.Game.id).where(m.Game.name == self.name))
            return list(
                session.scalars(
                    select(m.TurnRecord.ran_at)
                    .where(m.TurnRecord.game_id == game_id)
                    .order_by(m.TurnRecord.number)
                )
            )

    def empire(self, code: str) -> m.Empire:
        with self.app.sessions() as session:
            game_id = session.scalar(select(m.Game.id).where(m.Game.name == self.name))
            empire = session.scalar(
                select(m.Empire).where(m.Empire.game_id == game_id, m.Empire.code == code)
            )
            assert empire is not None
            return empire


@pytest.fixture
def clock() -> FakeClock:
    # Monday 5 January 2026, noon in London (GMT).
    return FakeClock(dt.datetime(2026, 1, 5, 12, 0, tzinfo=UTC))


@pytest.fixture
def app(db_url: str, tmp_path: Path) -> Iterator[App]:
    config = Config(
        database_url=db_url,
        transport="maildir",
        maildir_in=tmp_path / "mail" / "in",
        maildir_out=tmp_path / "mail" / "out",
        from_address="Star Chase host <turns@turnproc.example>",
        gm_address=GM,
    )
    app = open_app(config)
    yield app
    app.close()


def new_game(app: App, clock: FakeClock, name: str = "corpus", **settings: object) -> Game:
    """The corpus game (RIG, VEG), deadline Friday 20:00 London, deadlines
    counted from the clock's now."""
    with transaction(app.sessions) as session:
        make_game(session, name, last_deadline_at=clock.now, **settings)
    return Game(app, name)


@pytest.fixture
def game(app: App, clock: FakeClock) -> Game:
    return new_game(app, clock)


@pytest.fixture
def service(app: App, clock: FakeClock) -> Service:
    return Service(app, clock=clock)


@pytest.fixture
def outbox(app: App) -> Outbox:
    return Outbox(app)
