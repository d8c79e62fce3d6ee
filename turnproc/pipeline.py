"""The only place that combines storage, rules, reports and mail.

Two jobs live here:

* **intake** — one raw order mail in, orders stored and the acknowledgement
  queued, in the caller's transaction; the caller files the mail away only
  after that transaction committed;
* **turn run** — load the game, resolve the turn, write the new state, the turn
  record and every report mail, all in the caller's one transaction.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from dataclasses import dataclass, field

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from . import deadlines
from .config import Config
from .gm import GMError
from .mail.compose import compose, new_message_id
from .mail.hygiene import automatic_reason, sender_address
from .mail.mime import message_text, parse_message
from .mail.outbox import queue_mail
from .passwords import verify_password
from .reports.context import report_context
from .reports.render import render
from .rules.events import Event, events_to_json
from .rules.orders import MailCommand, Order, ParsedOrders, Severity
from .rules.parser import format_order, parse_mail, parse_orders
from .rules.serialize import state_to_dict
from .rules.state import GameState
from .rules.turn import resolve, turn_rng
from .storage import models as m
from .storage.convert import load_state, save_state

log = logging.getLogger(__name__)

__all__ = [
    "IntakeCache",
    "IntakeResult",
    "intake_message",
    "TurnResult",
    "run_turn",
    "orders_on_file",
    "submit_orders",
    "render_report",
]

#: Replies of one kind to one address per hour, at most (mail-cannon guard).
#: Acknowledgements get room for a player revising orders all evening; answers
#: to unknown or wrong-password mail are what an attacker would try to multiply.
REPLY_CAPS_PER_HOUR = {"ack": 30, "reject": 5, "report": 5}
MAX_TEXT = 256 * 1024

# Folders an intake result files the mail into.
PROCESSED = "Processed"
REJECTED = "Rejected"


@dataclass
class IntakeCache:
    """What one poll may reuse between mails: game states (orders never change
    the state, so it is fixed for the poll) and passwords already verified
    (scrypt is slow on purpose; a player's second mail need not pay it again)."""

    states: dict[tuple[int, int], GameState] = field(default_factory=dict)
    verified: set[tuple[int, str, str]] = field(default_factory=set)

    def state(self, session: Session, game: m.Game) -> GameState:
        key = (game.id, game.turn)
        if key not in self.states:
            self.states[key] = load_state(session, game)
        return self.states[key]

    def check_password(self, empire: m.Empire, password: str) -> bool:
        # Keyed by a digest, never the password itself, and by the stored hash,
        # so a GM's password reset invalidates the entry.
        key = (empire.id, empire.password_hash, hashlib.sha256(password.encode()).hexdigest())
        if key in self.verified:
            return True
        if verify_password(password, empire.password_hash):
            self.verified.add(key)
            return True
        return False


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


def _deadline_text(game: m.Game, now: dt.datetime) -> str | None:
    try:
        return deadlines.format_deadline(deadlines.next_deadline(game.schedule, game.timezone, now))
    except deadlines.DeadlineError:
        log.warning("game %s has a bad schedule %r", game.name, game.schedule)
        return None


def _replies_last_hour(session: Session, recipient: str, kind: str, now: dt.datetime) -> int:
    return session.scalar(
        select(func.count())
        .select_from(m.OutboxMail)
        .where(
            m.OutboxMail.recipient == recipient,
            m.OutboxMail.kind == kind,
            m.OutboxMail.created_at >= now - dt.timedelta(hours=1),
        )
    ) or 0


def orders_on_file(session: Session, empire_id: int, turn: int) -> m.OrderSet | None:
    return session.scalar(
        select(m.OrderSet)
        .where(m.OrderSet.empire_id == empire_id, m.OrderSet.turn == turn, m.OrderSet.active.is_(True))
        .order_by(m.OrderSet.id.desc())
        .limit(1)
    )


def _store_orders(
    session: Session,
    game: m.Game,
    empire: m.Empire,
    parsed: ParsedOrders,
    raw_text: str,
    message_row_id: int | None,
    now: dt.datetime,
) -> bool:
    """Store the valid lines as this turn's orders; True when they replaced earlier ones."""
    replaced = (
        session.execute(
            update(m.OrderSet)
            .where(m.OrderSet.empire_id == empire.id, m.OrderSet.turn == game.turn, m.OrderSet.active.is_(True))
            .values(active=False)
        ).rowcount
        > 0
    )
    session.add(
        m.OrderSet(
            game_id=game.id,
            empire_id=empire.id,
            turn=game.turn,
            raw_text=raw_text,
            lines=[format_order(o) for o in parsed.orders],
            problems=[{"line": p.line, "code": p.code, "message": p.message, "severity": p.severity.value} for p in parsed.problems],
            message_id=message_row_id,
            received_at=now,
            wait=MailCommand.WAIT in parsed.commands,
        )
    )
    return replaced


def submit_orders(
    session: Session, game: m.Game, empire: m.Empire, text: str, now: dt.datetime
) -> tuple[ParsedOrders, bool]:
    """Orders a GM received another way: parsed by the same parser, stored the same way."""
    state = load_state(session, game)
    parsed = parse_orders(text, state, empire.code)
    replaced = _store_orders(session, game, empire, parsed, text, None, now)
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


def intake_message(
    session: Session, raw: bytes, config: Config, now: dt.datetime, cache: IntakeCache | None = None
) -> IntakeResult:
    """Handle one incoming mail inside the caller's transaction.

    A mail already seen (same bytes) changes nothing: that is what makes a
    crash between commit and filing harmless.
    """
    cache = cache if cache is not None else IntakeCache()
    digest = hashlib.sha256(raw).hexdigest()
    if session.scalar(select(m.InboundMessage.id).where(m.InboundMessage.sha256 == digest)) is not None:
        return IntakeResult("duplicate", PROCESSED, detail="already handled")

    msg = parse_message(raw)
    subject = str(msg.get("Subject", "") or "")
    sender = sender_address(msg)
    record = m.InboundMessage(
        sha256=digest,
        message_id=str(msg.get("Message-ID", "") or "")[:998] or None,
        sender=sender[:254],
        subject=subject[:998],
        received_at=now,
        outcome="pending",
    )
    session.add(record)

    def finish(result: IntakeResult) -> IntakeResult:
        record.outcome = result.outcome
        record.detail = result.detail[:2000]
        return result

    auto = automatic_reason(msg)
    if auto:
        return finish(IntakeResult("ignored", REJECTED, detail=auto))

    text = message_text(msg)
    too_long = len(text) > MAX_TEXT
    parsed = parse_mail(text[:MAX_TEXT])
    header = parsed.header

    def reply(recipient: str, kind: str, context: dict[str, object], game_id: int | None) -> None:
        if _replies_last_hour(session, recipient, kind, now) >= REPLY_CAPS_PER_HOUR[kind]:
            log.warning("not answering %s: %d %s replies in the last hour", recipient, REPLY_CAPS_PER_HOUR[kind], kind)
            return
        rendered = render("ack", {"subject": subject or "your orders", **context})
        mid = new_message_id(config.from_address)
        out = compose(
            sender=config.from_address,
            recipient=recipient,
            subject=rendered.subject,
            text=rendered.text,
            when=now,
            message_id=mid,
            in_reply_to=str(msg.get("Message-ID")) if msg.get("Message-ID") else None,
            references=str(msg.get("References")) if msg.get("References") else None,
        )
        queue_mail(session, out, kind=kind, game_id=game_id)
        result_replies.append(mid)

    result_replies: list[str] = []
    base_ctx: dict[str, object] = {
        "game": header.game,
        "empire": header.empire,
        "turn": header.turn,
        "lines": [],
        "errors": [],
        "on_file": None,
        "slots": 0,
        "replaced": False,
        "deadline": None,
        "reason": "",
        "notice": "",
    }

    def reject(reason: str, recipient: str | None, game_id: int | None = None) -> IntakeResult:
        if recipient:
            reply(recipient, "reject", {**base_ctx, "outcome": "rejected", "reason": reason}, game_id)
        return finish(IntakeResult("rejected", REJECTED, header.game, header.empire, reason, result_replies))

    if too_long:
        return reject(f"the mail's text is longer than {MAX_TEXT // 1024} KiB; send only the orders", sender)
    if not header.game or not header.empire:
        missing = "GAME" if not header.game else "EMPIRE"
        return reject(f"no {missing} line was found; an order mail starts with GAME <name> and EMPIRE <code> <password>", sender)
    game = session.scalar(select(m.Game).where(func.lower(m.Game.name) == header.game.lower()))
    if game is None:
        return reject(f"there is no game called {header.game!r} here", sender)
    record.game_id = game.id
    empire = session.scalar(
        select(m.Empire).where(m.Empire.game_id == game.id, m.Empire.code == header.empire.upper())
    )
    if empire is None:
        return reject(f"game {game.name} has no empire {header.empire.upper()!r}", sender, game.id)
    record.empire_id = empire.id
    if not cache.check_password(empire, header.password or ""):
        # Nothing is stored; the owner hears of it, whoever sent it.
        note = f"a mail for your empire arrived from {sender or 'an unknown sender'} with a wrong password; nothing was stored"
        return reject(note, empire.email, game.id)
    if game.status == "finished":
        return reject(f"game {game.name} is over", empire.email, game.id)
    if header.turn is not None and header.turn != game.turn:
        return reject(
            f"these orders are for turn {header.turn}, but game {game.name} is taking orders for turn {game.turn}",
            empire.email,
            game.id,
        )

    parsed = parse_mail(text, cache.state(session, game), empire.code)
    ctx = {
        **base_ctx,
        "game": game.name,
        "empire": empire.code,
        "turn": game.turn,
        "deadline": _deadline_text(game, now),
        "lines": _line_results(parsed),
        "errors": parsed.errors,
    }
    if sender and sender.lower() != empire.email.lower():
        ctx["notice"] = f"This mail came from {sender}, not from your registered address; if that was not you, tell the GM."

    outcome = "commands"
    has_order_lines = bool(parsed.orders) or any(p.severity is Severity.ERROR and p.line > header.line for p in parsed.problems if p.code not in _HEADER_CODES)
    if MailCommand.CLEAR in parsed.commands and not parsed.orders:
        session.execute(
            update(m.OrderSet)
            .where(m.OrderSet.empire_id == empire.id, m.OrderSet.turn == game.turn, m.OrderSet.active.is_(True))
            .values(active=False)
        )
        outcome = "cleared"
    elif has_order_lines or MailCommand.WAIT in parsed.commands:
        session.flush()
        ctx["replaced"] = _store_orders(session, game, empire, parsed, text, record.id, now)
        outcome = "accepted"
    session.flush()
    current = orders_on_file(session, empire.id, game.turn)
    ctx["on_file"] = list(current.lines) if current is not None else []
    ctx["slots"] = sum(1 for line in ctx["on_file"] if not str(line).upper().startswith(("NAME", "MESSAGE")))
    reply(empire.email, "ack", {**ctx, "outcome": outcome}, game.id)
    if MailCommand.REPORT in parsed.commands:
        _resend_report(session, game, empire, config, now)
    return finish(IntakeResult(outcome, PROCESSED, game.name, empire.code, f"{len(parsed.orders)} orders", result_replies))


_HEADER_CODES = frozenset(
    {"missing_game", "missing_empire", "missing_password", "bad_empire", "bad_turn", "wrong_turn", "conflicting_header", "late_header"}
)


def _resend_report(session: Session, game: m.Game, empire: m.Empire, config: Config, now: dt.datetime) -> None:
    latest = session.scalar(
        select(m.Report).where(m.Report.empire_id == empire.id).order_by(m.Report.turn.desc()).limit(1)
    )
    if latest is None:
        return
    if _replies_last_hour(session, empire.email, "report", now) >= REPLY_CAPS_PER_HOUR["report"]:
        return
    _queue_report_mail(session, game, empire, latest, config, now)


def _queue_report_mail(
    session: Session, game: m.Game, empire: m.Empire, report: m.Report, config: Config, now: dt.datetime
) -> None:
    rendered = render("report", report.data)
    out = compose(
        sender=config.from_address,
        recipient=empire.email,
        subject=rendered.subject,
        text=report.text,
        html=rendered.html,
        when=now,
        message_id=new_message_id(config.from_address),
    )
    queue_mail(session, out, kind="report", game_id=game.id)


# -- the turn ---------------------------------------------------------------------


@dataclass
class TurnResult:
    game: str
    turn: int
    events: int
    reports: dict[str, str]
    """Empire code → text of its report."""
    finished: bool


def _orders_for_turn(session: Session, game: m.Game, state: GameState) -> tuple[dict[str, list[Order]], dict[str, list[str]]]:
    rows = session.execute(
        select(m.Empire.code, m.OrderSet.lines, m.OrderSet.id)
        .join(m.OrderSet, m.OrderSet.empire_id == m.Empire.id)
        .where(m.OrderSet.game_id == game.id, m.OrderSet.turn == game.turn, m.OrderSet.active.is_(True))
        .order_by(m.OrderSet.id)
    ).all()
    lines: dict[str, list[str]] = {}
    for code, stored, _ in rows:  # later rows replace earlier ones
        lines[code] = list(stored)
    orders = {
        code: parse_orders("\n".join(text), state, code).orders for code, text in sorted(lines.items())
    }
    return orders, lines


def run_turn(session: Session, game: m.Game, config: Config, now: dt.datetime) -> TurnResult:
    """Resolve the game's current turn, save everything and queue the reports.

    Runs inside the caller's transaction: any failure leaves the database as
    it was. A turn runs at most once: the turn record's (game, number) is unique.
    """
    if game.status == "finished":
        raise GMError(f"game {game.name} is over")
    already = session.scalar(
        select(m.TurnRecord.id).where(m.TurnRecord.game_id == game.id, m.TurnRecord.number == game.turn)
    )
    if already is not None:
        raise GMError(f"turn {game.turn} of game {game.name} has already been run")
    state = load_state(session, game)
    if not state.empires:
        raise GMError(f"game {game.name} has no empires yet: turnproc empire add {game.name} ...")
    orders, lines = _orders_for_turn(session, game, state)
    number = state.turn
    rng_seed = f"{game.seed}:{number}"
    new_state, events = resolve(state, orders, turn_rng(game.seed, number))
    for code, empire in new_state.empires.items():
        # Bookkeeping for the missed-orders rule, not a game rule.
        empire.missed_turns = 0 if code in lines else empire.missed_turns + 1
    save_state(session, game, new_state)
    session.add(
        m.TurnRecord(
            game_id=game.id,
            number=number,
            rng_seed=rng_seed,
            state_before=state_to_dict(state),
            orders=lines,
            events=[e.to_dict() for e in events],
            ran_at=now,
        )
    )
    deadline = _deadline_text(game, now)
    reports: dict[str, str] = {}
    empire_rows = {e.code: e for e in session.scalars(select(m.Empire).where(m.Empire.game_id == game.id))}
    for code in sorted(new_state.empires):
        text, context = render_report(new_state, events, code, game.name, number, deadline)
        report = m.Report(game_id=game.id, empire_id=empire_rows[code].id, turn=number, text=text, data=context, created_at=now)
        session.add(report)
        _queue_report_mail(session, game, empire_rows[code], report, config, now)
        reports[code] = text
    session.flush()
    log.info("game %s: turn %d resolved, %d events, %d reports", game.name, number, len(events), len(reports))
    return TurnResult(game.name, number, len(events), reports, new_state.finished)


def render_report(
    state: GameState, events: list[Event], empire: str, game_name: str, turn: int, deadline: str | None
) -> tuple[str, dict[str, object]]:
    context = report_context(state, events, empire, game_name=game_name, turn=turn, deadline=deadline)
    return render("report", context).text, context


def events_digest(events: list[Event]) -> str:
    return hashlib.sha256(events_to_json(events).encode()).hexdigest()
