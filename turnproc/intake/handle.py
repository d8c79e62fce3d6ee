"""One order mail in: hygiene, header, password, orders, the answer.

Everything happens in the caller's transaction: the orders are stored and the
acknowledgement queued together, and the caller files the mail away only
after that transaction committed. A mail already handled (same bytes)
changes nothing, which makes a crash between commit and filing harmless.
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import logging
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime

from sqlalchemy.orm import Session

from ..accounts.passwordkey import load_key
from ..config import Config
from ..games.signup import (
    answer_signup,
    confirm_signup,
    join_code_sent_within_hour,
    join_refusal,
    request_signup,
    signup_games_waiting,
)
from ..mail.hygiene import auto_reply_subject, clean_header, decoded_words, replyable
from ..orders.commands import HEADERLESS
from ..orders.mailshape import first_word
from ..orders.orders import (
    Header,
    MailCommand,
    ParsedOrders,
    Problem,
    SkipReason,
)
from ..orders.parser import parse_mail
from ..orders.redact import redact_passwords
from ..outgoing.contexts import AckContext
from ..outgoing.mails import ack_context, order_check, queue_ack
from ..storage import models as m
from ..storage.mailkinds import MailKind
from ..storage.pending import NewInbound
from ..storage.queries import GameView
from .account import Account, help_mail
from .cache import EmpireRow, IntakeCache
from .onfile import apply_orders
from .outcome import Folder, Outcome
from .prepare import MAX_TEXT, limits_of, parse_raw

log = logging.getLogger(__name__)

__all__ = [
    "REPLY_CAPS_PER_HOUR",
    "MAX_TEXT",
    "PROCESSED",
    "REJECTED",
    "IntakeResult",
    "handle_mail",
]

#: Replies of one kind to one address per hour, at most (mail-cannon guard).
#: Acknowledgements get room for a player revising orders all evening; answers
#: to unknown or wrong-password mail are what an attacker would try to multiply.
#: Mail we cannot place (no header, unknown game or empire) gets one answer an
#: hour at most: it is where forged senders and mail loops show up.
#: A player's HELP guides and the codes an ADDRESS request mails to a new
#: address are capped too: a password is enough to ask for them.
REPLY_CAPS_PER_HOUR = {
    MailKind.ACK: 30,
    MailKind.REJECT: 5,
    MailKind.REPORT_COPY: 5,
    MailKind.UNKNOWN: 1,
    MailKind.STRANGER: 1,
    MailKind.HELP: 3,
    MailKind.ADDRESS_CONFIRM: 3,
}

# Folders an intake result files the mail into.
PROCESSED = Folder.PROCESSED
REJECTED = Folder.REJECTED
FAILED = Folder.FAILED


@dataclass
class IntakeResult:
    outcome: Outcome
    folder: Folder | None
    """None: left in the inbox for the next poll (a failure not yet set aside)."""
    game: str | None = None
    empire: str | None = None
    detail: str = ""
    replies: list[str] = field(default_factory=list)
    """Message-IDs of the mails queued in answer."""


def handle_mail(
    session: Session, raw: bytes, config: Config, now: dt.datetime, cache: IntakeCache | None = None
) -> IntakeResult:
    """Handle one incoming mail inside the caller's transaction. The rows it
    adds to the inbound log and the orders on file wait in ``cache.rows`` for
    the caller to write (a poll writes a batch's together); without a
    ``cache`` they are written before this returns."""
    if cache is None:
        cache = IntakeCache(load_key(config))
        result = handle_mail(session, raw, config, now, cache)
        cache.rows.write(session)
        return result
    digest = hashlib.sha256(raw).hexdigest()
    if cache.already_handled(session, digest):
        return IntakeResult(Outcome.DUPLICATE, PROCESSED, detail="already handled")
    result = _Mail(session, raw, digest, config, now, cache).handle()
    cache.batch.handled.add(digest)
    return result


class _Mail:
    """One mail's way through intake."""

    def __init__(
        self, session: Session, raw: bytes, digest: str, config: Config, now: dt.datetime, cache: IntakeCache
    ) -> None:
        self.session, self.config, self.now, self.cache = session, config, now, cache
        # Parsed by the batch's pre-pass, or here for a mail handled alone.
        self.parsed = cache.handling(digest) or parse_raw(raw, limits_of(config), config.trusted_authserv_id)
        self.unreadable, self.headers = self.parsed.unreadable, self.parsed.headers
        self.subject = clean_header(decoded_words(self.headers.get("subject", "")))
        self.message_id = clean_header(self.headers.get("message-id", ""))
        self.sender = self.parsed.sender
        self.replies: list[str] = []
        # Written with the batch's rows once its outcome is known: one INSERT, no UPDATEs.
        self.record = NewInbound(
            sha256=digest,
            message_id=self.message_id[:998] or None,
            sender=self.sender[:254],
            subject=self.subject[:998],
            received_at=now,
            outcome=Outcome.PENDING,
        )

    def finish(self, result: IntakeResult) -> IntakeResult:
        if self.message_id:
            # For the rest of this batch; a rolled-back batch starts the set afresh.
            self.cache.batch.seen_ids.add(self.message_id[:998])
        self.record.outcome = result.outcome
        self.record.detail = clean_header(result.detail)[:2000]
        self.cache.rows.inbound.append(self.record)
        result.replies = self.replies
        return result

    def may_send(self, recipient: str, kind: MailKind, game_id: int | None) -> bool:
        """Whether one more answer of ``kind`` may go to ``recipient`` now (and
        count it); when not, the GM can see it was held back, and why."""
        if not replyable(recipient):
            self.suppress(recipient, kind, game_id, "not an address a reply can go to")
            return False
        cap = REPLY_CAPS_PER_HOUR[kind]
        if self.cache.replies_sent(self.session, recipient, kind, self.now) >= cap:
            self.suppress(recipient, kind, game_id, f"{cap} {kind} replies to this address in the last hour")
            return False
        self.cache.count_reply(recipient, kind)
        return True

    def may_answer_stranger(self, game_id: int | None) -> bool:
        """Answers to addresses that play nowhere are few an hour, all together."""
        cap = self.config.stranger_replies_per_hour
        if self.cache.stranger_replies(self.session, self.now) >= cap:
            self.suppress(
                self.sender,
                MailKind.STRANGER,
                game_id,
                f"{cap} answers to unregistered addresses in the last hour",
            )
            return False
        if not self.may_send(self.sender, MailKind.STRANGER, game_id):
            return False
        self.cache.count_stranger_reply()
        return True

    def reply(self, recipient: str, kind: MailKind, context: AckContext, game_id: int | None) -> None:
        if not self.may_send(recipient, kind, game_id):
            return
        mid = queue_ack(
            self.session,
            self.config,
            recipient,
            context,
            kind=kind,
            game_id=game_id,
            now=self.now,
            subject=self.subject,
            in_reply_to=self.message_id,
            references=self.headers.get("references", ""),
        )
        self.replies.append(mid)

    def suppress(self, recipient: str, kind: MailKind, game_id: int | None, reason: str) -> None:
        """Not answering is recorded, so the GM can see who was not answered and why."""
        log.warning("not answering %s (%s): %s", recipient or "(no address)", kind, reason)
        self.session.add(
            m.SuppressedReply(
                game_id=game_id, recipient=recipient[:254], kind=kind, reason=reason[:200], at=self.now
            )
        )

    def reject(
        self,
        header: Header,
        reason: str,
        recipient: str | None,
        game_id: int | None = None,
        kind: MailKind = MailKind.REJECT,
    ) -> IntakeResult:
        if recipient is not None:
            context = ack_context(
                outcome=Outcome.REJECTED,
                game=header.game,
                empire=header.empire,
                turn=header.turn,
                reason=reason,
            )
            self.reply(recipient, kind, context, game_id)
        return self.finish(IntakeResult(Outcome.REJECTED, REJECTED, header.game, header.empire, reason))

    def handle(self) -> IntakeResult:
        auto = self.parsed.automatic
        if auto:
            return self.finish(IntakeResult(Outcome.IGNORED, REJECTED, detail=auto))
        if self.message_id and self.cache.message_id_seen(self.session, self.message_id):
            # A relay's re-delivery (same Message-ID, one more Received: line):
            # what the first copy did stands.
            return self.finish(
                IntakeResult(
                    Outcome.DUPLICATE, PROCESSED, detail=f"Message-ID {self.message_id[:200]} seen before"
                )
            )
        if self.unreadable:
            reason = f"{self.unreadable}; send the orders as plain text"
            return self.unplaced(Header(), reason, None)
        text, header = self.parsed.text, self.parsed.header
        if auto_reply_subject(self.subject) and not (header.game and header.empire and header.password):
            return self.finish(
                IntakeResult(Outcome.IGNORED, REJECTED, detail="an automatic reply (by its subject)")
            )
        if not self.sender:
            return self.unsigned(header)
        if self.parsed.forged:
            # The mail server vouches it is not from whom it says: whoever it
            # names hears nothing, and no password is checked (nor counted).
            log.info("forged mail from %s filed unanswered: %s", self.sender, self.parsed.forged)
            return self.finish(
                IntakeResult(Outcome.FORGED, REJECTED, header.game, header.empire, self.parsed.forged)
            )
        if len(text) > MAX_TEXT:
            reason = f"the mail's text is longer than {MAX_TEXT // 1024} KiB; send only the orders"
            if self.cache.registered(self.session, self.sender):
                return self.reject(header, reason, self.sender)  # a player's mistake, under the refusal cap
            return self.unplaced(
                header, reason, self.cache.game(self.session, header.game) if header.game else None
            )
        game = self.cache.game(self.session, header.game) if header.game else None
        if not header.game or not header.empire:
            parsed = parse_mail(text, shaped=self.parsed.shaped)
            if (parsed.commands and set(parsed.commands) <= HEADERLESS) or _request_problem(parsed):
                return self.request(parsed, header)
            # A game it does name is still where the GM looks for an answer held back.
            return self.unplaced(header, _no_header_reason(header, text), game)
        if game is None:
            hint = _did_you_mean(header.game, self.cache.game_names(self.session))
            return self.unplaced(header, f"there is no game called {header.game!r} here{hint}", None)
        self.record.game_id = game.id
        empire = self.cache.empire(self.session, game, header.empire)
        if empire is None:
            hint = _did_you_mean(header.empire.upper(), self.cache.empire_codes(self.session, game))
            reason = f"game {game.name} has no empire {header.empire.upper()!r}{hint}"
            return self.unplaced(header, reason, game)
        self.record.empire_id = empire.id
        # Every mail's password is checked, whoever it claims to be from: From
        # proves nothing, so nothing here may set one sender's mail aside.
        if not self.cache.check_password(empire, header.password or ""):
            return self.wrong_password(header, text, game, empire)
        self.cache.tag_if_untagged(self.session, game, empire, header.password or "")
        if game.status == "finished":
            return self.reject(header, f"game {game.name} is over", empire.email, game.id)
        if header.turn is not None and header.turn != game.turn:
            reason = (
                f"these orders are for turn {header.turn}, "
                f"but game {game.name} is taking orders for turn {game.turn}"
            )
            return self.reject(header, reason, empire.email, game.id)
        return self.accept(game, empire, text, header)

    def password_problem(self, header: Header, text: str) -> str:
        came_from = f"from {self.sender}"
        if header.password is None:
            # The parser knows why there is none (no password, or the form's
            # placeholder); its words say what to write instead.
            parsed = parse_mail(text, shaped=self.parsed.shaped)
            problems = [p for p in parsed.problems if p.code in ("missing_password", "placeholder_password")]
            why = problems[0].message if problems else "The EMPIRE line has no password."
            return f"a mail for your empire arrived {came_from} without a password: {why} Nothing was stored"
        return f"a mail for your empire arrived {came_from} with a wrong password; nothing was stored"

    def wrong_password(self, header: Header, text: str, game: GameView, empire: EmpireRow) -> IntakeResult:
        """Nothing is stored and nobody is answered now: a thousand forged
        mails must not become a thousand mails to the owner. The owner and the
        GM hear of it in one digest (intake/guessing.py), which quotes the
        reason recorded here (what was wrong with the EMPIRE line)."""
        reason = self.password_problem(header, text)
        self.cache.count_wrong_password(empire.id)
        return self.finish(IntakeResult(Outcome.WRONG_PASSWORD, REJECTED, header.game, header.empire, reason))

    def unplaced(self, header: Header, reason: str, game: GameView | None) -> IntakeResult:
        """A mail that is no player's orders for a game we can find. A player
        writing from a registered address is answered (once an hour); a
        stranger only when the mail names a game that exists, and only a few
        strangers an hour in all: otherwise anyone could make the host mail
        whomever they name in a forged From."""
        if self.cache.registered(self.session, self.sender):
            return self.reject(header, reason, self.sender, game.id if game else None, kind=MailKind.UNKNOWN)
        if game is None:
            self.suppress(
                self.sender,
                MailKind.STRANGER,
                None,
                "a mail from an unregistered address that names no game here",
            )
            return self.finish(IntakeResult(Outcome.REJECTED, REJECTED, header.game, header.empire, reason))
        cap = self.config.stranger_replies_per_hour
        if self.cache.stranger_replies(self.session, self.now) >= cap:
            self.suppress(
                self.sender,
                MailKind.STRANGER,
                game.id,
                f"{cap} answers to unregistered addresses in the last hour",
            )
            return self.finish(IntakeResult(Outcome.REJECTED, REJECTED, header.game, header.empire, reason))
        self.cache.count_stranger_reply()
        return self.reject(header, reason, self.sender, game.id, kind=MailKind.STRANGER)

    def unsigned(self, header: Header) -> IntakeResult:
        """A mail with no From address, or one that does not name exactly one
        (read strictly, as mail programs do): nothing to verify it against and no one
        to answer; the empire it names, if any, is told at its own address."""
        reason = "the mail has no From address"
        game = self.cache.game(self.session, header.game) if header.game else None
        empire = (
            self.cache.empire(self.session, game, header.empire)
            if game is not None and header.empire
            else None
        )
        if game is None or empire is None:
            self.suppress("", MailKind.UNKNOWN, game.id if game is not None else None, reason)
            return self.finish(IntakeResult(Outcome.REJECTED, REJECTED, header.game, header.empire, reason))
        self.record.game_id, self.record.empire_id = game.id, empire.id
        note = (
            "a mail for your empire arrived with no From address, so it could not be checked; "
            "nothing was stored"
        )
        return self.reject(header, note, empire.email, game.id)

    def accept(self, game: GameView, empire: EmpireRow, text: str, header: Header) -> IntakeResult:
        session = self.session
        state = self.cache.state(session, game)
        known = self.cache.systems_known_to(session, game, empire.code)
        parsed = parse_mail(text, state, empire.code, known, self.parsed.shaped)
        if (
            self.cache.replies_sent(session, empire.email, MailKind.ACK, self.now)
            >= REPLY_CAPS_PER_HOUR[MailKind.ACK]
        ):
            # No acknowledgement can say what they did: the account commands
            # (each may mail someone) wait for the next hour; orders still count.
            log.warning(
                "game %s: %s is past the acknowledgement cap; its commands were not run",
                game.name,
                empire.code,
            )
            done: list[str] = []
            address = empire.email
        else:
            done, address = Account(
                session, self.config, self.now, self.cache, game, empire, self.sender, self
            ).run(parsed)
        notice = ""
        if self.sender.lower() != address.lower():
            notice = (
                f"This mail came from {self.sender}, not from your registered address; "
                "if that was not you, tell the GM."
            )
        applied = apply_orders(
            session,
            self.cache.rows,
            game.id,
            empire.id,
            game.turn,
            parsed,
            redact_passwords(text, header.password),
            self.record,
            self.now,
            _sent_at(self.headers.get("date", ""), self.now),
            self.cache.order_set(session, game, empire.id),
        )
        self.cache.remember_order_set(empire.id, game.turn, applied.current)
        if applied.outcome is Outcome.OLDER and applied.on_file_since is not None:
            notice = (notice + " " if notice else "") + (
                "These orders were written before the ones on file "
                f"(sent {applied.on_file_since:%Y-%m-%d %H:%M} UTC), "
                "so those stay on file."
            )
        outcome, replaced = applied.outcome, applied.replaced
        # Accepted, they were written out for the order set just stored.
        written = (
            applied.current.lines if outcome is Outcome.ACCEPTED and applied.current is not None else None
        )
        context = ack_context(
            outcome=outcome,
            game=game.name,
            empire=empire.code,
            turn=game.turn,
            **order_check(parsed, applied.on_file, state, empire.code, written),
            replaced=replaced,
            deadline=self.cache.deadline(game, self.now),
            notice=notice,
            done=done,
            wait=applied.outcome is not Outcome.CLEARED
            and applied.current is not None
            and applied.current.wait,
        )
        self.reply(address, MailKind.ACK, context, game.id)
        return self.finish(
            IntakeResult(outcome, PROCESSED, game.name, empire.code, f"{len(parsed.orders)} orders")
        )

    def request(self, parsed: ParsedOrders, header: Header) -> IntakeResult:
        """A mail with no header that asks for HELP or to JOIN a game."""
        join = parsed.command(MailCommand.JOIN)
        registered = self.cache.registered(self.session, self.sender)
        confirm = parsed.command(MailCommand.CONFIRM)
        if join is None and confirm is not None:
            return self.confirm_join(confirm.text or "")
        if join is None and MailCommand.HELP in parsed.commands:
            game = self.cache.game(self.session, header.game) if header.game else None
            if not (
                self.may_send(self.sender, MailKind.HELP, None)
                if registered
                else self.may_answer_stranger(None)
            ):
                return self.finish(
                    IntakeResult(Outcome.HELP, PROCESSED, detail="not answered: too many answers this hour")
                )
            row = self.session.get(m.Game, game.id) if game is not None else None
            help_mail(
                self.session,
                self.config,
                self.now,
                self.sender,
                row,
                MailKind.HELP if registered else MailKind.STRANGER,
            )
            return self.finish(IntakeResult(Outcome.HELP, PROCESSED, detail="the HELP guide"))
        if join is None:
            # A JOIN line that did not parse: the line names a game when it has a second word.
            problem = _request_problem(parsed)
            assert problem is not None  # neither HELP nor JOIN read: the JOIN line had a mistake
            words = problem.text.split()
            game = self.cache.game(self.session, words[1]) if len(words) > 1 else None
            return self.unplaced(
                Header(game=game.name if game else None), f"your JOIN line: {problem.message}", game
            )
        game = self.cache.game(self.session, join.text or "")
        if game is None:
            hint = _did_you_mean(join.text or "", self.cache.game_names(self.session))
            return self.unplaced(
                Header(game=join.text), f"there is no game called {join.text!r} here{hint}", None
            )
        self.record.game_id = game.id
        row = self.session.get_one(m.Game, game.id)
        code, name = join.code or "", join.name or ""
        why = join_refusal(self.session, row, self.now, code=code, name=name, email=self.sender)
        if why is not None:
            return self.unplaced(Header(game=game.name, empire=join.code), why, game)
        # The code is the answer: a JOIN that cannot be answered is not kept
        # (From proves nothing; only the code coming back from there does).
        if join_code_sent_within_hour(self.session, self.sender, self.now):
            self.suppress(
                self.sender,
                MailKind.SIGNUP_CONFIRM,
                game.id,
                "a JOIN's code went to this address in the last hour",
            )
            return self.finish(
                IntakeResult(
                    Outcome.SIGNUP,
                    REJECTED,
                    game.name,
                    code.upper(),
                    "not answered: a code went there this hour",
                )
            )
        if not (
            self.may_send(self.sender, MailKind.STRANGER, game.id)
            if registered
            else self.may_answer_stranger(game.id)
        ):
            return self.finish(
                IntakeResult(
                    Outcome.SIGNUP,
                    REJECTED,
                    game.name,
                    code.upper(),
                    "not answered: too many answers this hour",
                )
            )
        request, why = request_signup(
            self.session, self.config, row, self.now, code=code, name=name, email=self.sender
        )
        if request is None:  # checked just above, in this transaction
            return self.unplaced(Header(game=game.name, empire=join.code), why, game)
        return self.finish(
            IntakeResult(
                Outcome.SIGNUP,
                PROCESSED,
                game.name,
                request.code,
                f"sign-up from {self.sender} waits for its code",
            )
        )

    def confirm_join(self, secret: str) -> IntakeResult:
        """A header-less CONFIRM: the code a JOIN mailed to this address."""
        games = signup_games_waiting(self.session, self.sender, self.now)
        if not games:
            reason = (
                "no sign-up waits for a code from this address; to confirm a new address for your empire, "
                "send CONFIRM under your GAME and EMPIRE lines"
            )
            return self.unplaced(Header(), reason, None)
        why = ""
        for game_id in games:
            row = self.session.get_one(m.Game, game_id)
            self.record.game_id = game_id
            request, why = confirm_signup(
                self.session, self.config, row, self.now, email=self.sender, secret=secret
            )
            if request is not None:
                # The address proved itself with the code: one answer per code, beside the stranger caps.
                answer_signup(self.session, self.config, self.now, request, row, MailKind.SIGNUP)
                detail = f"sign-up request from {self.sender}"
                return self.finish(IntakeResult(Outcome.SIGNUP, PROCESSED, row.name, request.code, detail))
        return self.unplaced(
            Header(), why, self.cache.game(self.session, self.session.get_one(m.Game, games[-1]).name)
        )


def _sent_at(date: str, now: dt.datetime) -> dt.datetime:
    """The mail's Date, never later than now (a wrong clock must not lock
    later mails out), now when it has none."""
    try:
        when = parsedate_to_datetime(date)
    except (TypeError, ValueError, IndexError):
        return now
    if when is None:
        return now
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return min(when.astimezone(dt.timezone.utc), now)


def _no_header_reason(header: Header, text: str) -> str:
    """Why a mail has no usable header, in the parser's words where it found
    more to say (a header only in quoted text), and what it did not read."""
    missing = "GAME" if not header.game else "EMPIRE"
    reason = (
        f"no {missing} line was found; an order mail starts with GAME <name> and EMPIRE <code> <password>"
    )
    parsed = parse_mail(text)
    quoted = [p for p in parsed.problems if p.code == "header_only_quoted"]
    if quoted:
        reason += f". {quoted[0].message}"
    elif any(s.reason is SkipReason.QUOTED for s in parsed.skipped):
        reason += ". Lines starting with > (quoted text) were not read"
    return reason


def _request_problem(parsed: ParsedOrders) -> Problem | None:
    """The first error on a header-less mail's JOIN line."""
    return next((p for p in parsed.errors if first_word(p.text) == MailCommand.JOIN), None)


def _did_you_mean(word: str, candidates: list[str]) -> str:
    close = difflib.get_close_matches(word.lower(), [c.lower() for c in candidates], n=1, cutoff=0.6)
    if not close:
        return ""
    match = next(c for c in candidates if c.lower() == close[0])
    return f" (did you mean {match}?)"
