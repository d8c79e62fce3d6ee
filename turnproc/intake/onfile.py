"""The orders on file: what a parsed order mail, or orders a GM received
another way (``submit_orders``), does to them (docs/orders.md). The mail's
own handling (hygiene, header, password, the answer) is ``handle``'s.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy.orm import Session

from ..orders.orders import MailCommand, Order, ParsedOrders, Severity
from ..orders.parser import parse_orders
from ..orders.problems import is_header_code
from ..orders.redact import redact_passwords
from ..storage import models as m
from ..storage.convert import load_state, store_orders
from ..storage.pending import NewInbound, NewOrderSet, PendingRows
from ..storage.queries import orders_on_file, withdraw_orders
from .outcome import Outcome

__all__ = ["Applied", "apply_orders", "submit_orders"]


def submit_orders(
    session: Session, game: m.Game, empire: m.Empire, text: str, now: dt.datetime
) -> tuple[ParsedOrders, bool]:
    """Orders a GM received another way: parsed by the same parser, stored the
    same way, and as by mail, orders on file change only when a line is accepted."""
    state = load_state(session, game)
    parsed = parse_orders(text, state, empire.code)
    current = orders_on_file(session, empire.id, game.turn)
    rows = PendingRows()
    applied = apply_orders(
        session, rows, game.id, empire.id, game.turn, parsed, redact_passwords(text), None, now, now, current
    )
    rows.write(session)
    return parsed, applied.replaced


@dataclass
class Applied:
    outcome: Outcome
    """accepted, cleared, older, unchanged or commands."""
    on_file: list[Order]
    """The orders on file afterwards."""
    replaced: bool = False
    on_file_since: dt.datetime | None = None
    """When the orders on file were written (for ``older``)."""
    current: m.OrderSet | NewOrderSet | None = None
    """The order set on file afterwards (one not written yet, when these orders replaced it)."""


def apply_orders(
    session: Session,
    rows: PendingRows,
    game_id: int,
    empire_id: int,
    turn: int,
    parsed: ParsedOrders,
    raw_text: str,
    message: NewInbound | None,
    now: dt.datetime,
    sent_at: dt.datetime,
    current: m.OrderSet | NewOrderSet | None,
) -> Applied:
    """What a parsed order mail does to the orders on file (docs/orders.md):
    they change only when at least one order line is accepted, or on CLEAR;
    of two mails for one turn the one written later counts; WAIT alone marks
    the orders on file. ``current`` is the order set on file now; a new one
    is added to ``rows``."""
    if MailCommand.CLEAR in parsed.commands and not parsed.orders:
        withdraw_orders(session, empire_id, turn)
        if current is not None:
            current.active = False
        return Applied(Outcome.CLEARED, [])
    if parsed.orders and current is not None and current.sent_at is not None and sent_at < current.sent_at:
        # Mail can arrive out of order.
        return Applied(Outcome.OLDER, _orders_of(current), on_file_since=current.sent_at, current=current)
    if parsed.orders:
        stored, replaced = store_orders(
            rows, game_id, empire_id, turn, parsed, raw_text, message, now, sent_at, current=current
        )
        return Applied(Outcome.ACCEPTED, list(parsed.orders), replaced, current=stored)
    if any(p.severity is Severity.ERROR and not is_header_code(p.code) for p in parsed.problems):
        return Applied(
            Outcome.UNCHANGED, _orders_of(current), current=current
        )  # every order line failed: what is on file stays
    if MailCommand.WAIT in parsed.commands and current is not None:
        # WAIT alone keeps the orders on file and only holds off an early
        # run; with nothing on file there is no early run to hold off.
        current.wait = True
    return Applied(Outcome.COMMANDS, _orders_of(current), current=current)


def _orders_of(current: m.OrderSet | NewOrderSet | None) -> list[Order]:
    # Read only when they are what stays on file: a turnsheet replacing them
    # (the usual mail) would read seventeen orders back for nothing.
    return [Order.from_dict(d) for d in current.orders] if current is not None else []
