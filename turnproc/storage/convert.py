"""The one bridge between the ORM's session and the rules' dataclasses.

``load_state`` reads a game into a :class:`GameState` (through
:mod:`.stateread`, the one reader of the state's tables, which also serves
the GM's prompt without SQLAlchemy); ``save_state`` writes a state back,
touching only rows whose values changed. Nothing else in turnproc maps rows
to rules objects (``stateread`` is this module's reading half), so a new
column is added in the model, in :mod:`.columns` (and in ``stateread``'s
reader), and here if it needs more than those lists.

Both work over whole tables rather than ORM objects per row, because a
1,000-empire game has 30,000 systems.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any, TypedDict

from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.orm import Session

from ..orders.orders import MailCommand, Order, OrderDict, ParsedOrders, format_order
from ..rules.state import GameSettings, GameState, System, Tech
from . import models as m
from .columns import EMPIRE_FIELDS, SYSTEM_FIELDS, TECH_COLUMNS
from .pending import NewInbound, NewOrderSet, PendingRows
from .queries import plain_reader
from .stateread import read_state, settings_from

log = logging.getLogger(__name__)

__all__ = [
    "load_state",
    "save_state",
    "save_game_fields",
    "settings_of",
    "modules_text",
    "new_game_row",
    "store_orders",
    "order_set_values",
    "orders_for_turn",
]


def modules_text(modules: frozenset[str]) -> str:
    return ",".join(sorted(modules))


def settings_of(game: m.Game) -> GameSettings:
    return settings_from(game.modules, game.turn_limit, game.vp_target, game.ruleset)


def new_game_row(name: str, seed: str, state: GameState) -> m.Game:
    """A games row for a new game whose start is ``state`` (its rows follow
    with :func:`save_state` once the empires have theirs)."""
    return m.Game(
        name=name,
        seed=seed,
        modules=modules_text(state.settings.modules),
        ruleset=state.settings.ruleset,
        turn=state.turn,
        turn_limit=state.settings.turn_limit,
        vp_target=state.settings.vp_target,
    )


def _empire_ids(session: Session, game_id: int) -> dict[str, int]:
    rows = session.execute(select(m.Empire.code, m.Empire.id).where(m.Empire.game_id == game_id))
    return {code: eid for code, eid in rows}


def load_state(session: Session, game: m.Game) -> GameState:
    """The game as the rules see it, read in one pass per table over the
    session's own connection (:func:`turnproc.storage.stateread.read_state`,
    which ``report`` before turn 1 runs without SQLAlchemy). What the session
    changed and has not written is flushed first, so the rows read see it:
    the turn's and the GM's tools change rows, then read the game."""
    return read_state(
        plain_reader(session),
        game.id,
        turn=game.turn,
        settings=settings_of(game),
        finished=game.status == "finished",
    )


def save_game_fields(game: m.Game, state: GameState) -> None:
    """The game row's own columns from ``state``: what :func:`save_state`
    writes first, and ``turn run`` before it builds the reports (the next
    deadline is the new turn's)."""
    game.turn = state.turn
    game.modules = modules_text(state.settings.modules)
    game.ruleset = state.settings.ruleset
    game.turn_limit = state.settings.turn_limit
    game.vp_target = state.settings.vp_target
    if state.finished:
        game.status = "finished"


def save_state(session: Session, game: m.Game, state: GameState) -> None:
    """Write ``state`` over the game's rows.

    Every empire in the state must already have its row (players are added
    with their e-mail and password by the GM, never by the rules).
    """
    empire_ids = _empire_ids(session, game.id)
    missing = sorted(set(state.empires) - set(empire_ids))
    if missing:
        raise ValueError(f"game {game.name!r} has no empire rows for {', '.join(missing)}")

    save_game_fields(game, state)
    _save_empires(session, state, empire_ids)
    system_ids = _save_systems(session, game, state, empire_ids)
    _save_links(session, game, state)
    _save_forces(session, game, state, system_ids, empire_ids)
    _save_seen(session, game, state, system_ids, empire_ids)
    session.flush()


def _save_empires(session: Session, state: GameState, empire_ids: dict[str, int]) -> None:
    changes: list[dict[str, object]] = []
    for code, e in state.empires.items():
        values: dict[str, object] = {f: getattr(e, f) for f in EMPIRE_FIELDS}
        values["inactive_probes"] = list(e.inactive_probes)
        for t, col in TECH_COLUMNS.items():
            values[col] = e.tech(Tech(t))
        changes.append({"_id": empire_ids[code], **values})
    if changes:
        cols = [k for k in changes[0] if k != "_id"]
        stmt = update(m.Empire).where(m.Empire.id == bindparam("_id")).values({c: bindparam(c) for c in cols})
        session.connection().execute(stmt, changes)
        # The UPDATE went past the ORM: an Empire object the session holds
        # (one just added, say) would otherwise keep its old figures, and
        # the next load_state in this session, which reads empires through
        # the ORM, would give them (a welcome mail said balance 0, treasury 0).
        written = set(empire_ids.values())
        for obj in list(session.identity_map.values()):
            if isinstance(obj, m.Empire) and obj.id in written:
                session.expire(obj, cols)


#: System columns written from a System, in this order (``code`` and ``game_id`` aside).
_SYSTEM_COLUMNS = ("owner_id", *SYSTEM_FIELDS)
_ENUM_COLUMNS = tuple(_SYSTEM_COLUMNS.index(f) for f in ("type", "stance"))


def _system_row(s: System, empire_ids: dict[str, int]) -> tuple[Any, ...]:
    """The values of :data:`_SYSTEM_COLUMNS` for ``s``, as the database holds them.

    A tuple, so comparing it with the stored row is one C-level comparison:
    a big game has tens of thousands of systems and most do not change.
    """
    row: list[Any] = [empire_ids[s.owner] if s.owner is not None else None]
    row += [getattr(s, f) for f in SYSTEM_FIELDS]
    for i in _ENUM_COLUMNS:
        row[i] = row[i].value
    return tuple(row)


def _save_systems(
    session: Session, game: m.Game, state: GameState, empire_ids: dict[str, int]
) -> dict[int, int]:
    names = ("id", "code", *_SYSTEM_COLUMNS)
    existing: dict[int, tuple[int, tuple[Any, ...]]] = {}
    for sid, code, *stored in session.execute(
        select(*[getattr(m.System, f) for f in names]).where(m.System.game_id == game.id)
    ):
        existing[code] = (sid, tuple(stored))
    stale = set(existing) - set(state.systems)
    if stale:
        raise ValueError(
            f"game {game.name!r}: the rules dropped systems {sorted(stale)}; systems are never deleted"
        )

    new_rows = []
    changed = []
    for code, s in sorted(state.systems.items()):
        values = _system_row(s, empire_ids)
        old = existing.get(code)
        if old is None:
            new_rows.append({"game_id": game.id, "code": code, **dict(zip(_SYSTEM_COLUMNS, values))})
        elif old[1] != values:
            changed.append({"_id": old[0], **dict(zip(_SYSTEM_COLUMNS, values))})
    conn = session.connection()
    if new_rows:
        # Stars first: a planet's row refers to its star's (game, code).
        new_rows.sort(key=lambda r: (r["star"] is not None, r["code"]))
        conn.execute(insert(m.System), new_rows)
    if changed:
        conn.execute(
            update(m.System)
            .where(m.System.id == bindparam("_id"))
            .values({c: bindparam(c) for c in _SYSTEM_COLUMNS}),
            changed,
        )
    if not new_rows:
        return {code: sid for code, (sid, _) in existing.items()}
    return {
        code: sid
        for code, sid in session.execute(
            select(m.System.code, m.System.id).where(m.System.game_id == game.id)
        )
    }


def _save_links(session: Session, game: m.Game, state: GameState) -> None:
    existing = {
        (a, b) for a, b in session.execute(select(m.Link.a, m.Link.b).where(m.Link.game_id == game.id))
    }
    conn = session.connection()
    gone = [{"_a": a, "_b": b} for a, b in sorted(existing - state.links)]
    if gone:
        conn.execute(
            delete(m.Link).where(
                m.Link.game_id == game.id, m.Link.a == bindparam("_a"), m.Link.b == bindparam("_b")
            ),
            gone,
        )
    added = sorted(state.links - existing)
    if added:
        conn.execute(insert(m.Link), [{"game_id": game.id, "a": a, "b": b} for a, b in added])


def _save_forces(
    session: Session, game: m.Game, state: GameState, system_ids: dict[int, int], empire_ids: dict[str, int]
) -> None:
    # The game's forces through its systems, in one query: IN lists of the
    # system ids, in chunks SQLite can bind, took 60 statements at 30,000
    # systems, and PostgreSQL's driver rewrote each 500-literal text.
    existing: dict[tuple[int, int], tuple[int, int, int]] = {}
    for sid, eid, c, f, col in session.execute(
        select(m.Force.system_id, m.Force.empire_id, m.Force.cruisers, m.Force.fighters, m.Force.colony_ships)
        .join(m.System, m.System.id == m.Force.system_id)
        .where(m.System.game_id == game.id)
    ):
        existing[(sid, eid)] = (c, f, col)
    wanted: dict[tuple[int, int], tuple[int, int, int]] = {}
    for code, s in state.systems.items():
        if s.owner is not None and (s.cruisers or s.fighters or s.colony_ships):
            wanted[(system_ids[code], empire_ids[s.owner])] = (s.cruisers, s.fighters, s.colony_ships)
    conn = session.connection()
    gone = [{"_sid": sid, "_eid": eid} for sid, eid in sorted(set(existing) - set(wanted))]
    if gone:
        conn.execute(
            delete(m.Force).where(
                m.Force.system_id == bindparam("_sid"), m.Force.empire_id == bindparam("_eid")
            ),
            gone,
        )
    added = [
        {"system_id": sid, "empire_id": eid, "cruisers": c, "fighters": f, "colony_ships": col}
        for (sid, eid), (c, f, col) in sorted(wanted.items())
        if (sid, eid) not in existing
    ]
    if added:
        conn.execute(insert(m.Force), added)
    changed = [
        {"_sid": sid, "_eid": eid, "cruisers": c, "fighters": f, "colony_ships": col}
        for (sid, eid), (c, f, col) in sorted(wanted.items())
        if (sid, eid) in existing and existing[(sid, eid)] != (c, f, col)
    ]
    if changed:
        conn.execute(
            update(m.Force)
            .where(m.Force.system_id == bindparam("_sid"), m.Force.empire_id == bindparam("_eid"))
            .values(
                cruisers=bindparam("cruisers"),
                fighters=bindparam("fighters"),
                colony_ships=bindparam("colony_ships"),
            ),
            changed,
        )


def _save_seen(
    session: Session, game: m.Game, state: GameState, system_ids: dict[int, int], empire_ids: dict[str, int]
) -> None:
    existing = {
        (eid, sid)
        for eid, sid in session.execute(
            select(m.Seen.empire_id, m.Seen.system_id)
            .join(m.Empire, m.Empire.id == m.Seen.empire_id)
            .where(m.Empire.game_id == game.id)
        )
    }
    wanted = {
        (empire_ids[code], system_ids[sys_code])
        for code, codes in state.seen.items()
        if code in empire_ids
        for sys_code in codes
    }
    conn = session.connection()
    # The seen map only grows in play, but a GM's rollback may shrink it.
    gone = [{"_eid": eid, "_sid": sid} for eid, sid in sorted(existing - wanted)]
    if gone:
        conn.execute(
            delete(m.Seen).where(
                m.Seen.empire_id == bindparam("_eid"), m.Seen.system_id == bindparam("_sid")
            ),
            gone,
        )
    added = sorted(wanted - existing)
    if added:
        conn.execute(insert(m.Seen), [{"empire_id": e, "system_id": s} for e, s in added])


# -- orders on file ------------------------------------------------------------------


def store_orders(
    rows: PendingRows,
    game_id: int,
    empire_id: int,
    turn: int,
    parsed: ParsedOrders,
    raw_text: str,
    message: NewInbound | None,
    now: dt.datetime,
    sent_at: dt.datetime | None = None,
    *,
    current: m.OrderSet | NewOrderSet | None = None,
) -> tuple[NewOrderSet, bool]:
    """Store the valid lines as the empire's orders for ``turn`` (added to
    ``rows``, which the caller writes): the new order set, and True when it
    replaced earlier ones. ``sent_at``: when the player wrote them;
    ``current``: the set on file now (None: nothing is on file), which may be
    one of ``rows`` not written yet. There is never more than one."""
    replaced = False
    if current is not None and current.active:
        current.active, replaced = False, True
    row = NewOrderSet(
        game_id=game_id,
        empire_id=empire_id,
        turn=turn,
        raw_text=raw_text,
        received_at=now,
        sent_at=sent_at,
        active=True,
        message=message,
        **order_set_values(parsed),
    )
    rows.order_sets.append(row)
    return row, replaced


class OrderSetValues(TypedDict):
    """The columns of an order set that come from the parse (:func:`order_set_values`)."""

    lines: list[str]
    orders: list[OrderDict]
    problems: list[StoredProblem]
    wait: bool


class StoredProblem(TypedDict):
    line: int
    code: str
    message: str
    severity: str


def order_set_values(parsed: ParsedOrders) -> OrderSetValues:
    """The columns of an order set that come from the parse."""
    return {
        "lines": [format_order(o) for o in parsed.orders],
        # Numbered by their place in ``lines``, as the reports have always told
        # them; the key keeps its first place (dataclasses.replace per order
        # was half the cost of storing a mail's orders).
        "orders": [{**o.to_dict(), "line": i} for i, o in enumerate(parsed.orders, 1)],
        "problems": [
            {"line": p.line, "code": p.code, "message": p.message, "severity": p.severity.value}
            for p in parsed.problems
        ],
        "wait": MailCommand.WAIT in parsed.commands,
    }


def orders_for_turn(session: Session, game: m.Game) -> tuple[dict[str, list[Order]], dict[str, list[str]]]:
    """Every empire's orders on file for the game's current turn: as the
    engine reads them, and as stored lines (for the turn record)."""
    rows = session.execute(
        select(m.Empire.code, m.OrderSet.lines, m.OrderSet.orders)
        .join(m.OrderSet, m.OrderSet.empire_id == m.Empire.id)
        .where(m.OrderSet.game_id == game.id, m.OrderSet.turn == game.turn, m.OrderSet.active.is_(True))
        .order_by(m.OrderSet.id)
    ).all()
    lines: dict[str, list[str]] = {}
    stored: dict[str, list[Order]] = {}
    for code, text, parsed in rows:  # later rows replace earlier ones
        lines[code] = list(text)
        stored[code] = [Order.from_dict(d) for d in parsed]
    return dict(sorted(stored.items())), lines
