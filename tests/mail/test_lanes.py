"""A flush delivers over several SMTP connections at once (turnproc/mail/lanes.py,
gm-handbook "[smtp] connections"): every mail once, over at most that many
connections; a server that refuses further connections gets every mail over
the ones it took; and a flush stopped mid-batch records every mail a lane
delivered and gives back only the ones none did."""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import create_engine, func, select, update
from sqlalchemy.orm import sessionmaker

from tests.conftest import SmtpSink
from tests.mail.test_outbox_claims import arrived, queue
from turnproc.config import SmtpConfig
from turnproc.errors import ServerUnavailable
from turnproc.mail import outbox
from turnproc.mail.smtp import SmtpTransport
from turnproc.storage import models as m
from turnproc.storage.db import make_engine

UTC = dt.UTC


class LimitedSink(SmtpSink):
    """The test suite's SMTP server, answering ``421`` to a connection beyond
    ``limit`` at once (as Postfix's smtpd_client_connection_count_limit does),
    and counting the connections open."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit, self.open, self.refused = limit, 0, 0
        sink = self

        class Limited(SMTP):
            async def _handle_client(self) -> None:
                if sink.open >= sink.limit:
                    sink.refused += 1
                    await self.push("421 4.7.0 too many connections")
                    assert self.transport is not None
                    self.transport.close()
                    return
                sink.open += 1
                try:
                    await super()._handle_client()
                finally:
                    sink.open -= 1

        class LimitedController(Controller):
            def factory(self) -> SMTP:
                return Limited(self.handler, **self.SMTP_kwargs)

        self.controller = LimitedController(self, hostname="127.0.0.1", port=self.port)


@pytest.fixture
def limited() -> Iterator[Any]:
    started: list[LimitedSink] = []

    def start(limit: int) -> LimitedSink:
        sink = LimitedSink(limit)
        sink.controller.start()
        started.append(sink)
        return sink

    yield start
    for sink in started:
        sink.controller.stop()


def transport(port: int, connections: int) -> SmtpTransport:
    config = SmtpConfig(host="127.0.0.1", port=port, security="plain", timeout=10, connections=connections)
    return SmtpTransport(config, "Host <turns@turnproc.example>")


@pytest.fixture
def sessions(sqlite_url: str) -> sessionmaker:  # type: ignore[type-arg]
    return sessionmaker(make_engine(sqlite_url))


def unsent(sessions: sessionmaker) -> int:  # type: ignore[type-arg]
    with sessions() as session:
        return len(session.scalars(select(m.OutboxMail.id).where(m.OutboxMail.sent_at.is_(None))).all())


def closed_soon(sink: LimitedSink) -> bool:
    deadline = time.monotonic() + 5
    while sink.open and time.monotonic() < deadline:
        time.sleep(0.01)
    return sink.open == 0


@pytest.mark.parametrize("connections", [1, 3])
def test_a_flush_goes_over_the_connections_set_and_closes_them(
    sqlite_url: str,
    sessions: sessionmaker,
    limited: Any,
    connections: int,  # type: ignore[type-arg]
) -> None:
    sink = limited(10)
    mails = 2 * outbox.BATCH + 3
    ids = queue(create_engine(sqlite_url), mails)
    assert outbox.flush_outbox(sessions, transport(sink.port, connections), dt.datetime.now(UTC)) == (
        mails,
        0,
    )
    assert arrived(sink) == {mid: 1 for mid in ids}
    assert len(set(sink.connections)) == connections
    assert unsent(sessions) == 0
    assert closed_soon(sink)  # no idle connection outlives the flush


def test_one_mail_opens_one_connection(  # type: ignore[type-arg]
    sqlite_url: str, sessions: sessionmaker, limited: Any
) -> None:
    sink = limited(10)
    queue(create_engine(sqlite_url), 1)
    assert outbox.flush_outbox(sessions, transport(sink.port, 3), dt.datetime.now(UTC)) == (1, 0)
    assert sink.refused == 0 and len(set(sink.connections)) == 1


def test_a_server_that_takes_one_connection_gets_every_mail_over_it(
    sqlite_url: str,
    sessions: sessionmaker,
    limited: Any,
    caplog: pytest.LogCaptureFixture,  # type: ignore[type-arg]
) -> None:
    sink = limited(1)
    mails = 2 * outbox.BATCH + 3
    ids = queue(create_engine(sqlite_url), mails)
    with caplog.at_level(logging.INFO, logger="turnproc.mail.lanes"):
        assert outbox.flush_outbox(sessions, transport(sink.port, 3), dt.datetime.now(UTC)) == (mails, 0)
    assert arrived(sink) == {mid: 1 for mid in ids}
    assert sink.refused == 2 and len(set(sink.connections)) == 1
    assert "a further SMTP connection was refused" in caplog.text
    with sessions() as session:
        # Nothing counted against a mail for the refused connections.
        assert {row.attempts for row in session.scalars(select(m.OutboxMail))} == {1}


def test_a_refused_mail_fails_alone_whichever_connection_carries_it(
    sqlite_url: str,
    sessions: sessionmaker,
    smtp_server: SmtpSink,  # type: ignore[type-arg]
) -> None:
    queue(create_engine(sqlite_url), 30)
    smtp_server.fail_next = 1
    assert outbox.flush_outbox(sessions, transport(smtp_server.port, 3), dt.datetime.now(UTC)) == (29, 1)
    with sessions() as session:
        failed = session.scalars(select(m.OutboxMail).where(m.OutboxMail.sent_at.is_(None))).one()
        assert failed.attempts == 1 and "451" in failed.last_error and failed.claimed_until is None


class Scripted:
    """A transport whose connections fail as a test says: ``fail_at[n]`` is
    what the n-th delivery over all connections raises (or None)."""

    def __init__(self, plan: dict[int, Exception], connections: int) -> None:
        self.plan, self.connections = plan, connections
        self.lock = threading.Lock()
        self.count = 0
        self.delivered: list[str] = []

    def deliver(self, raw: bytes, recipient: str) -> None:
        with self.lock:
            n, self.count = self.count, self.count + 1
        time.sleep(0.001)  # let the lanes overlap
        error = self.plan.get(n)
        if error is not None:
            raise error
        with self.lock:
            self.delivered.append(recipient)

    def spares(self) -> list[Any]:
        return [Spare(self) for _ in range(self.connections - 1)]


class Spare:
    def __init__(self, first: Scripted) -> None:
        self.first = first

    def deliver(self, raw: bytes, recipient: str) -> None:
        self.first.deliver(raw, recipient)


def _built(mails: list[outbox.Claimed]) -> dict[int, bytes | Exception]:
    """A builder for mails queued without bytes (as reports are)."""
    return {c.id: f"Subject: built {c.id}\r\n\r\nbuilt when sent\r\n".encode() for c in mails}


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    mails=st.integers(1, 200),
    built_from=st.integers(0, 200),
    connections=st.integers(1, 4),
    plan=st.dictionaries(
        st.integers(0, 70),  # times 3: anywhere in up to 200 mails
        st.sampled_from([ServerUnavailable("SMTP server gone"), RuntimeError("550 no such user")]),
        max_size=4,
    ),
)
def test_whatever_stops_a_flush_every_delivered_mail_is_recorded_and_only_the_rest_go_back(
    tmp_path_factory: pytest.TempPathFactory,
    mails: int,
    built_from: int,
    connections: int,
    plan: dict[int, Exception],
) -> None:
    """Mails from ``built_from`` on are built when sent: while one of their
    batches goes out, the next ones are claimed ahead (outbox.AHEAD), and a
    stop gives those back too."""
    url = f"sqlite:///{tmp_path_factory.mktemp('lanes') / 'outbox.db'}"
    engine = make_engine(url)
    m.Base.metadata.create_all(engine)
    queue(engine, mails)
    with engine.begin() as conn:
        conn.execute(update(m.OutboxMail).where(m.OutboxMail.id > built_from).values(body=None))
    factory = sessionmaker(engine)
    scripted = Scripted({n * 3: error for n, error in plan.items()}, connections)
    try:
        sent, failed = outbox.flush_outbox(factory, scripted, dt.datetime.now(UTC), build=_built)
    except outbox.OutboxError as exc:
        assert "SMTP server gone" in str(exc)
    else:
        assert sent == len(scripted.delivered) and sent + failed == mails
    with factory() as session:
        rows = session.scalars(select(m.OutboxMail)).all()
    delivered = set(scripted.delivered)
    assert len(delivered) == len(scripted.delivered)  # none twice
    for row in rows:
        if row.recipient in delivered:
            assert row.sent_at is not None and row.attempts == 1
        else:
            assert row.sent_at is None
            # Failed (an attempt counted, retried later), or given back untouched.
            assert row.claimed_until is None
            assert (row.attempts, bool(row.last_error)) in ((0, False), (1, True))
    engine.dispose()


@pytest.mark.parametrize("built", [True, False])
def test_while_a_batch_of_reports_goes_out_the_next_ones_are_claimed_and_built(
    tmp_path: Any, built: bool
) -> None:
    """deploy/OPERATIONS.md, "Outbox": while a batch of mails built when sent
    goes out, the next outbox.AHEAD batches are already claimed and built; a
    batch of stored mails claims nothing ahead."""
    engine = make_engine(f"sqlite:///{tmp_path / 'outbox.db'}")
    m.Base.metadata.create_all(engine)
    queue(engine, outbox.BATCH * (outbox.AHEAD + 3))
    if built:
        with engine.begin() as conn:
            conn.execute(update(m.OutboxMail).values(body=None))
    factory = sessionmaker(engine)
    seen: list[tuple[int, int]] = []
    builds: list[int] = []

    def build(mails: list[outbox.Claimed]) -> dict[int, bytes | Exception]:
        builds.append(len(mails))
        return _built(mails)

    class Watching:
        def deliver(self, raw: bytes, recipient: str) -> None:
            if recipient == "p0@example.org":
                time.sleep(0.3)  # the claims ahead are made while this goes
                with factory() as session:
                    claimed = session.scalar(
                        select(func.count()).where(m.OutboxMail.claimed_until.is_not(None))
                    )
                seen.append((claimed or 0, len(builds)))

    sent, failed = outbox.flush_outbox(factory, Watching(), dt.datetime.now(UTC), build=build)
    assert (sent, failed) == (outbox.BATCH * (outbox.AHEAD + 3), 0)
    if built:
        assert seen == [((outbox.AHEAD + 1) * outbox.BATCH, outbox.AHEAD + 1)]
    else:
        assert seen == [(outbox.BATCH, 0)]
    engine.dispose()
