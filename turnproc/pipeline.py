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
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

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
from .reports.context import TurnView, report_context
from .reports.render import ReportDocuments, SharedParts, render, render_report_documents
from .rules.events import Event
from .rules.activity import record_missed_turns
from .rules.checks import KnownSystems, known_systems, known_systems_all
from .rules.orders import Header, MailCommand, Order, ParsedOrders, Severity, format_order, slots_used
from .rules.parser import parse_header, parse_mail, parse_orders
from .rules.problems import is_header_code
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
#: Mail we cannot place (no header, unknown game or empire) gets one answer an
#: hour at most: it is where forged senders and mail loops show up.
REPLY_CAPS_PER_HOUR = {"ack": 30, "reject": 5, "report": 5, "unknown": 1}
MAX_TEXT = 256 * 1024

# Folders an intake result files the mail into.
PROCESSED = "Processed"
REJECTED = "Rejected"


@dataclass(frozen=True)
class GameRow:
    """The few game columns intake needs, read once per batch."""

    id: int
    name: str
    turn: int
    status: str
    schedule: str | None
    timezone: str
    deadline_override: dt.datetime | None = None


@dataclass(frozen=True)
class EmpireRow:
    id: int
    code: str
    email: str
    password_hash: str


@dataclass
class IntakeCache:
    """What one poll may reuse between mails: game states (orders never change
    the state, so it is fixed for the poll) and passwords already verified
    (scrypt is slow on purpose; a player's second mail need not pay it again)."""

    states: dict[tuple[int, int], GameState] = field(default_factory=dict)
    verified: set[tuple[int, str, str]] = field(default_factory=set)
    games: dict[str, GameRow | None] = field(default_factory=dict)
    empires: dict[tuple[int, str], EmpireRow | None] = field(default_factory=dict)
    deadlines: dict[tuple[int, str | None, str, dt.datetime | None], str | None] = field(default_factory=dict)
    reply_counts: dict[tuple[str, str], int] = field(default_factory=dict)
    asked: set[str] = field(default_factory=set)
    """Digests of this batch's mails, looked up together."""
    handled: set[str] = field(default_factory=set)
    """Of those (and of any handled since), the ones already in the log."""
    known: dict[tuple[int, int, str], KnownSystems | None] = field(default_factory=dict)

    def new_batch(self, session: Session | None = None, raws: Sequence[bytes] = ()) -> None:
        """Rows are read again in each batch's transaction: a turn may have run
        between two batches, and orders must go to the turn current now. With
        the batch's mails, which of them were handled before is asked once."""
        self.games.clear()
        self.empires.clear()
        self.asked = set()
        self.handled = set()
        if session is not None and raws:
            self.asked = {hashlib.sha256(raw).hexdigest() for raw in raws}
            self.handled = set(
                session.scalars(select(m.InboundMessage.sha256).where(m.InboundMessage.sha256.in_(sorted(self.asked))))
            )

    def already_handled(self, session: Session, digest: str) -> bool:
        if digest in self.handled:
            return True
        if digest in self.asked:
            return False
        return session.scalar(select(m.InboundMessage.id).where(m.InboundMessage.sha256 == digest)) is not None

    def game(self, session: Session, name: str) -> GameRow | None:
        key = name.lower()
        if key not in self.games:
            # FOR SHARE (PostgreSQL): a turn run, which locks the game row for
            # update, waits for this batch, and this batch waits for it.
            row = session.execute(
                select(m.Game.id, m.Game.name, m.Game.turn, m.Game.status, m.Game.schedule, m.Game.timezone, m.Game.deadline_override)
                .where(func.lower(m.Game.name) == key)
                .with_for_update(read=True)
            ).first()
            self.games[key] = GameRow(*row) if row is not None else None
        return self.games[key]

    def empire(self, session: Session, game: GameRow, code: str) -> EmpireRow | None:
        key = (game.id, code.upper())
        if key not in self.empires:
            row = session.execute(
                select(m.Empire.id, m.Empire.code, m.Empire.email, m.Empire.password_hash).where(
                    m.Empire.game_id == game.id, m.Empire.code == key[1]
                )
            ).first()
            self.empires[key] = EmpireRow(*row) if row is not None else None
        return self.empires[key]

    def deadline(self, game: GameRow, now: dt.datetime) -> str | None:
        key = (game.id, game.schedule, game.timezone, game.deadline_override)
        if key not in self.deadlines:
            self.deadlines[key] = _deadline_text(game, now)
        return self.deadlines[key]

    def replies_sent(self, session: Session, recipient: str, kind: str, now: dt.datetime) -> int:
        key = (recipient, kind)
        if key not in self.reply_counts:
            self.reply_counts[key] = _replies_last_hour(session, recipient, kind, now)
        return self.reply_counts[key]

    def count_reply(self, recipient: str, kind: str) -> None:
        self.reply_counts[(recipient, kind)] = self.reply_counts.get((recipient, kind), 0) + 1

    def knowledge(self, session: Session, game: GameRow, empire: str) -> KnownSystems | None:
        key = (game.id, game.turn, empire)
        if key not in self.known:
            self.known[key] = known_systems(self.state(session, game), empire)
        return self.known[key]

    def state(self, session: Session, game: GameRow) -> GameState:
        key = (game.id, game.turn)
        if key not in self.states:
            self.states[key] = load_state(session, session.get_one(m.Game, game.id))
        return self.states[key]

    def check_password(self, empire: EmpireRow, password: str) -> bool:
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


def _deadline_text(game: m.Game | GameRow, now: dt.datetime) -> str | None:
    if game.deadline_override is not None:
        # The GM moved this turn's deadline by hand; the schedule resumes after the turn.
        try:
            zone: dt.tzinfo = ZoneInfo(game.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            zone = dt.timezone.utc
        return deadlines.format_deadline(game.deadline_override.astimezone(zone))
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
    game: m.Game | GameRow,
    empire: m.Empire | EmpireRow,
    parsed: ParsedOrders,
    raw_text: str,
    message: m.InboundMessage | None,
    now: dt.datetime,
) -> bool:
    """Store the valid lines as this turn's orders; True when they replaced earlier ones."""
    replaced = _withdraw(session, empire.id, game.turn)
    session.add(
        m.OrderSet(
            game_id=game.id,
            empire_id=empire.id,
            turn=game.turn,
            raw_text=raw_text,
            lines=[format_order(o) for o in parsed.orders],
            problems=[{"line": p.line, "code": p.code, "message": p.message, "severity": p.severity.value} for p in parsed.problems],
            message=message,
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
    cache = cache or IntakeCache()
    digest = hashlib.sha256(raw).hexdigest()
    if cache.already_handled(session, digest):
        return IntakeResult("duplicate", PROCESSED, detail="already handled")
    result = _Intake(session, raw, digest, config, now, cache).run()
    cache.handled.add(digest)
    return result


class _Intake:
    """One mail's way through intake: hygiene, header, password, orders, reply."""

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
        rendered = render("ack", {"subject": self.subject or "your orders", **context})
        mid = new_message_id(self.config.from_address)
        references = str(self.msg.get("References", "") or "") or None
        out = compose(
            sender=self.config.from_address,
            recipient=recipient,
            subject=rendered.subject,
            text=rendered.text,
            when=self.now,
            message_id=mid,
            in_reply_to=self.message_id or None,
            references=references,
        )
        queue_mail(self.session, out, kind=kind, game_id=game_id, now=self.now)
        self.cache.count_reply(recipient, kind)
        self.replies.append(mid)

    def reject(
        self, header: Header, reason: str, recipient: str | None, game_id: int | None = None, kind: str = "reject"
    ) -> IntakeResult:
        if recipient:
            context = {**_empty_ack(header), "outcome": "rejected", "reason": reason}
            self.reply(recipient, kind, context, game_id)
        return self.finish(IntakeResult("rejected", REJECTED, header.game, header.empire, reason))

    def run(self) -> IntakeResult:
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

    def accept(self, game: GameRow, empire: EmpireRow, text: str) -> IntakeResult:
        session = self.session
        state = self.cache.state(session, game)
        parsed = parse_mail(text, state, empire.code, self.cache.knowledge(session, game, empire.code))
        ctx: dict[str, object] = {
            **_empty_ack(parsed.header),
            "game": game.name,
            "empire": empire.code,
            "turn": game.turn,
            "deadline": self.cache.deadline(game, self.now),
            "lines": _line_results(parsed),
            "errors": parsed.errors,
        }
        if self.sender and self.sender.lower() != empire.email.lower():
            ctx["notice"] = f"This mail came from {self.sender}, not from your registered address; if that was not you, tell the GM."
        has_order_lines = bool(parsed.orders) or any(
            p.severity is Severity.ERROR and not is_header_code(p.code) for p in parsed.problems
        )
        on_file: list[str] | None = None
        outcome = "commands"
        if MailCommand.CLEAR in parsed.commands and not parsed.orders:
            _withdraw(session, empire.id, game.turn)
            on_file, outcome = [], "cleared"
        elif has_order_lines:
            ctx["replaced"] = _store_orders(session, game, empire, parsed, text, self.record, self.now)
            on_file, outcome = [format_order(o) for o in parsed.orders], "accepted"
        elif MailCommand.WAIT in parsed.commands:
            # WAIT alone keeps the orders on file and only holds off an early
            # run; with nothing on file there is no early run to hold off.
            current = orders_on_file(session, empire.id, game.turn)
            if current is not None:
                current.wait = True
        if on_file is None:
            current = orders_on_file(session, empire.id, game.turn)
            on_file = list(current.lines) if current is not None else []
        ctx["on_file"] = on_file
        ctx["slots"] = slots_used(parse_orders("\n".join(on_file)).orders)
        self.reply(empire.email, "ack", {**ctx, "outcome": outcome}, game.id)
        if MailCommand.REPORT in parsed.commands:
            _resend_report(session, game, empire, self.config, self.now)
        return self.finish(IntakeResult(outcome, PROCESSED, game.name, empire.code, f"{len(parsed.orders)} orders"))


def _empty_ack(header: Header) -> dict[str, object]:
    return {
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


def _withdraw(session: Session, empire_id: int, turn: int) -> bool:
    """Mark the empire's orders for ``turn`` as withdrawn; True when there were some."""
    result = session.execute(
        update(m.OrderSet)
        .where(m.OrderSet.empire_id == empire_id, m.OrderSet.turn == turn, m.OrderSet.active.is_(True))
        .values(active=False)
    )
    return bool(getattr(result, "rowcount", 0))


def _resend_report(
    session: Session, game: m.Game | GameRow, empire: m.Empire | EmpireRow, config: Config, now: dt.datetime
) -> None:
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
    if _replies_last_hour(session, empire.email, "report", now) >= REPLY_CAPS_PER_HOUR["report"]:
        return
    _queue_report_mail(session, game, empire, latest, config, now)


def _queue_report_mail(
    session: Session,
    game: m.Game | GameRow,
    empire: m.Empire | EmpireRow,
    report: m.Report,
    config: Config,
    now: dt.datetime,
    *,
    held: bool = False,
    docs: ReportDocuments | None = None,
) -> None:
    """The report as a mail: text and HTML alternatives, the map as SVG and the
    machine-readable JSON attached. ``held`` keeps it back for a staged turn;
    ``docs`` are the report already rendered (else rendered from its data)."""
    docs = docs or render_report_documents(report.data)
    stem = f"{game.name}-turn{report.turn}-{empire.code}"
    out = compose(
        sender=config.from_address,
        recipient=empire.email,
        subject=docs.subject,
        text=docs.text,
        html=docs.html,
        when=now,
        message_id=new_message_id(config.from_address),
        attachments=[
            (f"{stem}-map.svg", "image/svg+xml", docs.svg.encode("utf-8")),
            (f"{stem}.json", "application/json", docs.json.encode("utf-8")),
        ],
    )
    queue_mail(session, out, kind="report", game_id=game.id, turn=report.turn, held=held, now=now)


# -- the turn ---------------------------------------------------------------------


@dataclass
class TurnResult:
    game: str
    turn: int
    events: int
    reports: dict[str, str]
    """Empire code → text of its report."""
    finished: bool
    missed: list[str] = field(default_factory=list)
    """Empires with no orders on file for the turn."""
    inactive: list[str] = field(default_factory=list)
    """Empires this turn made inactive (``Game.inactive_after`` misses in a row)."""
    staged: bool = False
    """Held for the GM: saved, but its mails wait for ``turnproc turn release``."""


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
    known = known_systems_all(state)  # one walk over the galaxy for all empires
    orders = {
        code: parse_orders("\n".join(text), state, code, known.get(code)).orders
        for code, text in sorted(lines.items())
    }
    return orders, lines


def run_turn(
    session: Session,
    game: m.Game,
    config: Config,
    now: dt.datetime,
    *,
    stage: bool | None = None,
    corrected: bool = False,
) -> TurnResult:
    """Resolve the game's current turn, save everything and queue the reports.

    Runs inside the caller's transaction: any failure leaves the database as
    it was. A turn runs at most once: the turn record's (game, number) is unique.

    ``stage`` (default: the game's ``hold`` setting) saves the turn as staged
    and holds its mails until the GM releases it (:mod:`turnproc.turnctl`);
    no further turn runs while one is staged. ``corrected`` marks the reports
    as replacing earlier ones (a GM's rerun).
    """
    # Lock the game row (PostgreSQL; SQLite's BEGIN IMMEDIATE already holds the
    # write lock): intake batches and a second runner wait for this turn.
    session.execute(select(m.Game.id).where(m.Game.id == game.id).with_for_update())
    session.refresh(game)
    if game.status == "finished":
        raise GMError(f"game {game.name} is over")
    already = session.scalar(
        select(m.TurnRecord.id).where(m.TurnRecord.game_id == game.id, m.TurnRecord.number == game.turn)
    )
    if already is not None:
        raise GMError(f"turn {game.turn} of game {game.name} has already been run")
    staged = session.scalar(
        select(m.TurnRecord.number).where(m.TurnRecord.game_id == game.id, m.TurnRecord.staged.is_(True))
    )
    if staged is not None:
        raise GMError(
            f"turn {staged} of game {game.name} is staged for the GM: "
            f"turnproc turn release {game.name} (or turn discard) first"
        )
    if stage is None:
        stage = game.hold
    state = load_state(session, game)
    if not state.empires:
        raise GMError(f"game {game.name} has no empires yet: turnproc empire add {game.name} ...")
    orders, lines = _orders_for_turn(session, game, state)
    number = state.turn
    rng_seed = f"{game.seed}:{number}"
    new_state, events = resolve(state, orders, turn_rng(game.seed, number))
    missed, inactive = record_missed_turns(new_state, lines, game.inactive_after)
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
            staged=stage,
        )
    )
    game.deadline_override = None  # a hand-set deadline is for the turn just run
    deadline = _deadline_text(game, now)
    reports: dict[str, str] = {}
    empire_rows = {e.code: e for e in session.scalars(select(m.Empire).where(m.Empire.game_id == game.id))}
    view, shared = TurnView.build(new_state, events), SharedParts()
    for code in sorted(new_state.empires):
        context = report_context(
            new_state, events, code, game_name=game.name, turn=number, deadline=deadline, corrected=corrected, view=view
        )
        docs = render_report_documents(context, shared)
        report = m.Report(game_id=game.id, empire_id=empire_rows[code].id, turn=number, text=docs.text, data=context, created_at=now)
        session.add(report)
        _queue_report_mail(session, game, empire_rows[code], report, config, now, held=stage, docs=docs)
        reports[code] = docs.text
    session.flush()
    log.info("game %s: turn %d resolved, %d events, %d reports", game.name, number, len(events), len(reports))
    return TurnResult(game.name, number, len(events), reports, new_state.finished, missed, inactive, staged=stage)


def render_report(
    state: GameState,
    events: list[Event],
    empire: str,
    game_name: str,
    turn: int,
    deadline: str | None,
    corrected: bool = False,
) -> tuple[str, dict[str, Any]]:
    """The report's text and its context (the JSON report) for one empire."""
    context = report_context(
        state, events, empire, game_name=game_name, turn=turn, deadline=deadline, corrected=corrected
    )
    return render_report_documents(context).text, context
