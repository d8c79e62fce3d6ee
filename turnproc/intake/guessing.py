"""The digests of wrong-password mails: the owner hears of them at most once a
day per empire, the GM at most once a day per game, never once per mail, and
never the sender.

Anyone can write any From line, so a wrong password says nothing about who
sent it, and answering each one would let a forger flood the owner's mailbox
(and the GM's) through us. After a poll, each empire that got wrong passwords
and was not told in the last :data:`DIGEST_EVERY` gets one digest at its
registered address: how many since its last digest, when, and from which
claimed senders; and the GM gets one for the game, listing the empires. Mails
after a digest are counted in the next one.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import ColumnElement, CursorResult, or_, select, update
from sqlalchemy.orm import Session

from ..app import App
from ..config import Config
from ..outgoing.mails import queue_guessing_digest
from ..storage import models as m
from ..storage.db import transaction
from .outcome import Outcome

log = logging.getLogger(__name__)

__all__ = ["DIGEST_EVERY", "tell_of_guessing"]

#: At most one digest per empire (to its owner) and per game (to the GM) in this long.
DIGEST_EVERY = dt.timedelta(days=1)
#: Claimed senders, and empires, a digest names (the most frequent); the rest are counted.
SHOWN = 10
#: How far back the first digest of an empire or a game counts.
FIRST_LOOK_BACK = dt.timedelta(days=7)


@dataclass
class _Tally:
    count: int = 0
    first: dt.datetime | None = None
    last: dt.datetime | None = None
    latest: str = ""
    senders: Counter[str] = field(default_factory=Counter)

    def add(self, sender: str, at: dt.datetime, detail: str) -> None:
        self.count += 1
        self.senders[sender or "(no address)"] += 1
        self.first = at if self.first is None else min(self.first, at)
        if self.last is None or at >= self.last:
            self.last, self.latest = at, detail


def tell_of_guessing(app: App, empire_ids: Iterable[int], now: dt.datetime) -> int:
    """Queue the digests due for ``empire_ids`` (those that got wrong
    passwords in a poll just committed), in a transaction of their own; the
    number of mails queued."""
    wanted = sorted(set(empire_ids))
    if not wanted:
        return 0
    with transaction(app.sessions) as session:
        empires = list(session.scalars(select(m.Empire).where(m.Empire.id.in_(wanted))))
        owners = _claim(session, m.Empire, [(e.id, e.guessing_told_at) for e in empires], now)
        games = _claim(session, m.Game, [(g.id, g.guessing_told_at) for g in _games(session, empires)], now)
        return _queue(session, app.config, empires, owners, games, now)


def _games(session: Session, empires: Sequence[m.Empire]) -> list[m.Game]:
    return list(session.scalars(select(m.Game).where(m.Game.id.in_(sorted({e.game_id for e in empires})))))


def _claim(
    session: Session,
    table: type[m.Empire] | type[m.Game],
    rows: list[tuple[int, dt.datetime | None]],
    now: dt.datetime,
) -> dict[int, dt.datetime]:
    """Of ``rows`` (id, last told), those due a digest now, each with the time
    its digest counts from. The UPDATE claims them: of two workers polling at
    once, one finds a row told already and sends nothing for it."""
    due: dict[int, dt.datetime] = {}
    for row_id, told in rows:
        column: Any = table.guessing_told_at
        claimed = cast(
            "CursorResult[Any]",
            session.execute(
                update(table)
                .where(table.id == row_id, or_(column.is_(None), column <= now - DIGEST_EVERY))
                .values(guessing_told_at=now)
                .execution_options(synchronize_session=False)
            ),
        ).rowcount
        if claimed:
            due[row_id] = told or now - FIRST_LOOK_BACK
    return due


def _queue(
    session: Session,
    config: Config,
    empires: list[m.Empire],
    owners: dict[int, dt.datetime],
    games: dict[int, dt.datetime],
    now: dt.datetime,
) -> int:
    if not owners and not games:
        return 0
    since = min([*owners.values(), *games.values()])
    told_games = {g.id: g for g in _games(session, empires) if g.id in games}
    by_empire = {e.id: e for e in empires}
    wanted = [e.id for e in empires if e.id in owners or e.game_id in games]
    where: list[ColumnElement[bool]] = [
        m.InboundMessage.outcome == Outcome.WRONG_PASSWORD,
        m.InboundMessage.empire_id.in_(wanted),
        m.InboundMessage.received_at > since,
    ]
    owner_tally: dict[int, _Tally] = {}
    game_tally: dict[int, _Tally] = {}
    game_empires: dict[int, Counter[str]] = {}
    # One read of the rows, tallied here: a flood over a thousand empires is
    # a thousand digests, not four thousand queries.
    for empire_id, sender, at, detail in session.execute(
        select(
            m.InboundMessage.empire_id,
            m.InboundMessage.sender,
            m.InboundMessage.received_at,
            m.InboundMessage.detail,
        )
        .where(*where)
        .order_by(m.InboundMessage.id)
    ):
        assert empire_id is not None  # asked for by id
        empire = by_empire[empire_id]
        if empire_id in owners and at > owners[empire_id]:
            owner_tally.setdefault(empire_id, _Tally()).add(sender.lower(), at, detail)
        if empire.game_id in games and at > games[empire.game_id]:
            game_tally.setdefault(empire.game_id, _Tally()).add(sender.lower(), at, detail)
            game_empires.setdefault(empire.game_id, Counter())[empire.code] += 1
    queued = 0
    game_names = {g.id: g.name for g in _games(session, empires)}
    for empire_id, tally in owner_tally.items():
        e = by_empire[empire_id]
        queued += _digest(
            session, config, now, game_names[e.game_id], e.game_id, e.code, e.email, tally, None
        )
    for game_id, tally in game_tally.items():
        if config.gm_address:
            codes = game_empires[game_id].most_common()
            queued += _digest(
                session, config, now, told_games[game_id].name, game_id, "", config.gm_address, tally, codes
            )
    if queued:
        log.info("queued %d digests of wrong-password mails", queued)
    return queued


def _digest(
    session: Session,
    config: Config,
    now: dt.datetime,
    game: str,
    game_id: int,
    empire: str,
    to: str,
    tally: _Tally,
    empires: list[tuple[str, int]] | None,
) -> int:
    assert tally.first is not None and tally.last is not None
    senders = tally.senders.most_common()
    queue_guessing_digest(
        session,
        config,
        now,
        game=game,
        game_id=game_id,
        empire=empire,
        recipient=to,
        count=tally.count,
        first=tally.first,
        last=tally.last,
        senders=senders[:SHOWN],
        more_senders=max(0, len(senders) - SHOWN),
        latest=tally.latest,
        empires=(empires or [])[:SHOWN],
        more_empires=max(0, len(empires or []) - SHOWN),
    )
    return 1
