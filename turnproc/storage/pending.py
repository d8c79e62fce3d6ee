"""Rows an order mail adds to the inbound log and the orders on file, kept as
plain objects and written together by :meth:`PendingRows.write` (one Core
INSERT per table, rather than an ORM object per row through the unit of work:
for a batch of a hundred mails the flush cost more than the rows); and
:func:`write_added`, which writes the outbox rows a batch's answers added to
the session the same way.

The intake writes a batch's rows just before its commit (or each mail's in its
savepoint when the batch is handled mail by mail), the GM's ``submit_orders``
at once. Until then an order set stays a :class:`NewOrderSet` that later mails
of the batch may still change (a replacement clears ``active``, WAIT sets
``wait``), as they changed the unflushed ORM object before.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, fields
from typing import Any

from sqlalchemy import insert, inspect, select
from sqlalchemy.orm import Session

from . import models as m

__all__ = ["NewInbound", "NewOrderSet", "PendingRows", "write_added"]


@dataclass(slots=True)
class NewInbound:
    """An ``inbound_messages`` row (:class:`~.models.InboundMessage`) to be written."""

    sha256: str
    message_id: str | None
    sender: str
    subject: str
    received_at: dt.datetime
    outcome: str
    detail: str = ""
    game_id: int | None = None
    empire_id: int | None = None
    id: int | None = None
    """Its key, once written (read back for the mails of order sets)."""


@dataclass(slots=True)
class NewOrderSet:
    """An ``orders`` row (:class:`~.models.OrderSet`) to be written."""

    game_id: int
    empire_id: int
    turn: int
    raw_text: str
    lines: list[Any]
    orders: list[Any]
    problems: list[Any]
    received_at: dt.datetime
    sent_at: dt.datetime | None
    active: bool
    wait: bool
    message: NewInbound | None
    """The mail it came in (written first, so its key is known), None for
    orders a GM received another way."""


#: Digests per IN list (SQLite caps the bound parameters of a statement).
_IN_LIST = 500
_INBOUND_COLUMNS = tuple(f.name for f in fields(NewInbound) if f.name != "id")
_ORDER_SET_COLUMNS = tuple(f.name for f in fields(NewOrderSet) if f.name != "message")


@dataclass
class PendingRows:
    """The new rows of the inbound log and of the orders on file, in the order added."""

    inbound: list[NewInbound] = field(default_factory=list)
    order_sets: list[NewOrderSet] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.inbound or self.order_sets)

    def write(self, session: Session) -> None:
        """Insert the rows, in the order they were added (so their keys are
        the ones a flush of ORM objects added in that order gave them), in the
        session's transaction; then forget them."""
        connection = session.connection()
        if self.inbound:
            # One executemany, and the keys of the mails an order set names read
            # back by their digest (unique): SQLite returns keys in order only
            # one row at a time.
            connection.execute(
                insert(m.InboundMessage),
                [{name: getattr(row, name) for name in _INBOUND_COLUMNS} for row in self.inbound],
            )
            named = {row.message.sha256: row.message for row in self.order_sets if row.message is not None}
            digests = sorted(named)
            for i in range(0, len(digests), _IN_LIST):
                for digest, key in connection.execute(
                    select(m.InboundMessage.sha256, m.InboundMessage.id).where(
                        m.InboundMessage.sha256.in_(digests[i : i + _IN_LIST])
                    )
                ):
                    named[digest].id = key
        if self.order_sets:
            values = []
            for row in self.order_sets:
                message = row.message
                if message is not None and message.id is None:
                    raise ValueError("an order set's mail must be written before it (or with it)")
                values.append(
                    {
                        **{name: getattr(row, name) for name in _ORDER_SET_COLUMNS},
                        "message_id": message.id if message is not None else None,
                    }
                )
            connection.execute(insert(m.OrderSet), values)
        self.clear()

    def clear(self) -> None:
        self.inbound = []
        self.order_sets = []


def write_added(session: Session, model: type[m.Base]) -> None:
    """Insert the ``model`` objects added to ``session`` and not flushed yet
    with Core INSERTs, in the order they were added (the order, and so the
    keys, the unit of work gives them: it sorts by ``insert_order`` too), each
    with the columns set on it (the others get their defaults, as in a flush),
    and take them out of the session. For objects no one reads again once
    added: the intake's answers, which ``queue_mail`` builds, a hundred a batch."""
    added = sorted((obj for obj in session.new if isinstance(obj, model)), key=_added_at)
    if not added:
        return
    columns = [(prop.key, prop.columns[0].key) for prop in inspect(model).column_attrs]
    connection = session.connection()
    run: list[dict[str, object]] = []
    for obj in added:
        state = inspect(obj).dict
        values = {column: state[key] for key, column in columns if key in state}
        if run and values.keys() != run[0].keys():  # one statement per run of rows setting the same columns
            connection.execute(insert(model), run)
            run = []
        run.append(values)
    connection.execute(insert(model), run)
    for obj in added:
        session.expunge(obj)


def _added_at(obj: m.Base) -> int:
    order = inspect(obj).insert_order
    assert order is not None  # every object added to a session has one
    return order
