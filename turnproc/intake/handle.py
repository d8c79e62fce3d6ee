"""One order mail in: hygiene, header, password, orders, the answer.

Everything happens in the caller's transaction: the orders are stored and the
acknowledgement queued together, and the caller files the mail away only
after that transaction committed. A mail already handled (same bytes)
changes nothing, which makes a crash between commit and filing harmless.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..config import Config
from ..mail.hygiene import automatic_reason, sender_address
from ..mail.mime import message_text, parse_message
from ..mails import ack_context, queue_ack, queue_report
from ..rules.orders import Header, MailCommand, Order, ParsedOrders, Severity, format_order, slots_used
from ..rules.parser import parse_header, parse_mail, parse_orders
from ..rules.problems import is_header_code
from ..storage import models as m
from ..storage.convert import load_state, store_orders
from ..storage.queries import GameView, orders_on_file, replies_last_hour, withdraw_orders
from .cache import EmpireRow, IntakeCache

log = logging.getLogger(__name__)

__all__ = ["REPLY_CAPS_PER_HOUR", "MAX_TEXT", "PROCESSED", "REJECTED", "IntakeResult", "handle_mail", "submit_orders"]

#: Replies of one kind to one address per hour, at most (mail-cannon guard).
#: Acknowledgements get room for a player revising orders all evening; answers
#: to unknown or wrong-password mail are what an attacker would try to multiply.
#: Mail we cannot place (no header, unknown game or empire) gets one answer an
#: hour at most: it is where forged senders and mail loops show up.
REPLY_CAPS_PER_HOUR = {"ack": 30, "reject": 5, "report": 5, "unknown": 1}
MAX_TEXT = 256 * 1024

# Folders an intake result files the mail into.
PROCESSED = "Processed"
REJECTED = "Rejected"


@dataclass
class IntakeResult:
    outcome: str
    """duplicate, ignored, rejected, accepted, cleared or commands."""
    folder: str
    game: str | None = None
    empire: str | None = None
    detail: str = ""
    replies: list[str] = field(default_factory=list)
    """Message-IDs of the mails queued in answer."""


def handle_mail(
    session: Session, raw: bytes, config: Config, now: dt.datetime, cache: IntakeCache | None = None
) -> IntakeResult:
    """Handle one incoming mail inside the caller's transaction."""
    cache = cache or IntakeCache()
    digest = hashlib.sha256(raw).hexdigest()
    if cache.already_handled(session, digest):
        return IntakeResult("duplicate", PROCESSED, detail="already handled")
    result = _Mail(session, raw, digest, config, now, cache).handle()
    cache.handled.add(digest)
    return result


def submit_orders(
    session: Session, game: m.Game, empire: m.Empire, text: str, now: dt.datetime
) -> tuple[ParsedOrders, bool]:
    """Orders a GM received another way: parsed by the same parser, stored the same way."""
    state = load_state(session, game)
    parsed = parse_orders(text, state, empire.code)
    replaced = store_orders(session, game.id, empire.id, game.turn, parsed, text, None, now)
    return parsed, replaced


def _line_results(parsed: ParsedOrders) -> list[dict[str, object]]:
    by_line: dict[int, dict[str, object]] = {}
    for o in parsed.orders:
        by_line[o.line] = {"line": o.line, "text": format_order(o), "result": "OK"}
    for p in parsed.problems:
        entry = by_line.setdefault(p.line, {"line": p.line, "text": p.text.strip(), "result": ""})
        label = "ERROR" if p.severity is Severity.ERROR else "WARNING"
        note = f"{label} [{p.code}] {p.message}"
        entry["result"] = note if entry["result"] in ("", "OK") else f"{entry['result']}; {note}"
    return [by_line[k] for k in sorted(by_line)]


class _Mail:
    """One mail's way through intake."""

    def __init__(
        self, session: Session, raw: bytes, digest: str, config: Config, now: dt.datetime, cache: IntakeCache
    ) -> None:
        self.session, self.config, self.now, self.cache = session, config, now, cache
        self.msg = parse_message(raw)
        self.subject = str(self.msg.get("Subject", "") or "")
        self.message_id = str(self.msg.get("Message-ID", "") or "")
        self.sender = sender_address(self.msg)
        self.replies: list[str] = []
        # Added to the session once its outcome is known: one INSERT, no UPDATEs.
        self.record = m.InboundMessage(
            sha256=digest,
            message_id=self.message_id[:998] or None,
            sender=self.sender[:254],
            subject=self.subject[:998],
            received_at=now,
            outcome="pending",
        )

    def finish(self, result: IntakeResult) -> IntakeResult:
        self.record.outcome = result.outcome
        self.record.detail = result.detail[:2000]
        self.session.add(self.record)
        result.replies = self.replies
        return result

    def reply(self, recipient: str, kind: str, context: dict[str, object], game_id: int | None) -> None:
        if self.cache.replies_sent(self.session, recipient, kind, self.now) >= REPLY_CAPS_PER_HOUR[kind]:
            log.warning("not answering %s: %d %s replies in the last hour", recipient, REPLY_CAPS_PER_HOUR[kind], kind)
            return
        mid = queue_ack(self.session, self.config, self.msg, recipient, context, kind=kind, game_id=game_id, now=self.now)
        self.cache.count_reply(recipient, kind)
        self.replies.append(mid)

    def reject(
        self, header: Header, reason: str, recipient: str | None, game_id: int | None = None, kind: str = "reject"
    ) -> IntakeResult:
        if recipient:
            context = ack_context(
                outcome="rejected", game=header.game, empire=header.empire, turn=header.turn, reason=reason
            )
            self.reply(recipient, kind, context, game_id)
        return self.finish(IntakeResult("rejected", REJECTED, header.game, header.empire, reason))

    def handle(self) -> IntakeResult:
        auto = automatic_reason(self.msg)
        if auto:
            return self.finish(IntakeResult("ignored", REJECTED, detail=auto))
        text = message_text(self.msg)
        header = parse_header(text[:MAX_TEXT])
        if len(text) > MAX_TEXT:
            reason = f"the mail's text is longer than {MAX_TEXT // 1024} KiB; send only the orders"
            return self.reject(header, reason, self.sender, kind="unknown")
        if not header.game or not header.empire:
            missing = "GAME" if not header.game else "EMPIRE"
            reason = f"no {missing} line was found; an order mail starts with GAME <name> and EMPIRE <code> <password>"
            return self.reject(header, reason, self.sender, kind="unknown")
        game = self.cache.game(self.session, header.game)
        if game is None:
            return self.reject(header, f"there is no game called {header.game!r} here", self.sender, kind="unknown")
        self.record.game_id = game.id
        empire = self.cache.empire(self.session, game, header.empire)
        if empire is None:
            reason = f"game {game.name} has no empire {header.empire.upper()!r}"
            return self.reject(header, reason, self.sender, game.id, kind="unknown")
        self.record.empire_id = empire.id
        if not self.cache.check_password(empire, header.password or ""):
            # Nothing is stored; the owner hears of it, whoever sent it.
            note = f"a mail for your empire arrived from {self.sender or 'an unknown sender'} with a wrong password; nothing was stored"
            return self.reject(header, note, empire.email, game.id)
        if game.status == "finished":
            return self.reject(header, f"game {game.name} is over", empire.email, game.id)
        if header.turn is not None and header.turn != game.turn:
            reason = f"these orders are for turn {header.turn}, but game {game.name} is taking orders for turn {game.turn}"
            return self.reject(header, reason, empire.email, game.id)
        return self.accept(game, empire, text)

    def accept(self, game: GameView, empire: EmpireRow, text: str) -> IntakeResult:
        session = self.session
        state = self.cache.state(session, game)
        parsed = parse_mail(text, state, empire.code, self.cache.systems_known_to(session, game, empire.code))
        notice = ""
        if self.sender and self.sender.lower() != empire.email.lower():
            notice = f"This mail came from {self.sender}, not from your registered address; if that was not you, tell the GM."
        has_order_lines = bool(parsed.orders) or any(
            p.severity is Severity.ERROR and not is_header_code(p.code) for p in parsed.problems
        )
        on_file: list[Order] | None = None
        replaced = False
        outcome = "commands"
        if MailCommand.CLEAR in parsed.commands and not parsed.orders:
            withdraw_orders(session, empire.id, game.turn)
            on_file, outcome = [], "cleared"
        elif has_order_lines:
            replaced = store_orders(session, game.id, empire.id, game.turn, parsed, text, self.record, self.now)
            on_file, outcome = list(parsed.orders), "accepted"
        elif MailCommand.WAIT in parsed.commands:
            # WAIT alone keeps the orders on file and only holds off an early
            # run; with nothing on file there is no early run to hold off.
            current = orders_on_file(session, empire.id, game.turn)
            if current is not None:
                current.wait = True
        if on_file is None:
            current = orders_on_file(session, empire.id, game.turn)
            on_file = [Order.from_dict(d) for d in current.orders] if current is not None else []
        context = ack_context(
            outcome=outcome,
            game=game.name,
            empire=empire.code,
            turn=game.turn,
            lines=_line_results(parsed),
            errors=list(parsed.errors),
            on_file=[format_order(o) for o in on_file],
            slots=slots_used(on_file),
            replaced=replaced,
            deadline=self.cache.deadline(game, self.now),
            notice=notice,
        )
        self.reply(empire.email, "ack", context, game.id)
        if MailCommand.REPORT in parsed.commands:
            _resend_report(session, game, empire, self.config, self.now)
        return self.finish(IntakeResult(outcome, PROCESSED, game.name, empire.code, f"{len(parsed.orders)} orders"))


def _resend_report(session: Session, game: GameView, empire: EmpireRow, config: Config, now: dt.datetime) -> None:
    # A staged turn's report is the GM's until released: the player gets the one before.
    staged = select(m.TurnRecord.id).where(
        m.TurnRecord.game_id == m.Report.game_id, m.TurnRecord.number == m.Report.turn, m.TurnRecord.staged.is_(True)
    )
    latest = session.scalar(
        select(m.Report)
        .where(m.Report.empire_id == empire.id, ~staged.exists())
        .order_by(m.Report.turn.desc())
        .limit(1)
    )
    if latest is None:
        return
    if replies_last_hour(session, empire.email, "report", now) >= REPLY_CAPS_PER_HOUR["report"]:
        return
    queue_report(session, config, game.id, game.name, empire.code, empire.email, latest, now)
