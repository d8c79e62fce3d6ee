"""What a player's account commands do, once the mail's password checked out.

REPORT (again, or of any past turn), HELP, PASSWORD, ADDRESS and CONFIRM,
VACATION and BACK, QUIT: each changes the empire's row or queues a mail in the
caller's transaction, and says in one line what it did; the acknowledgement
lists those lines under "Commands". The player's words for each are in
docs/orders.md ("Your account by mail"); the parser decides what each line
may hold (:mod:`turnproc.orders.commands`), this module what it may do.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..accounts.passwords import (
    chosen_password_weakness,
    generate_password,
    hash_chosen_password,
    hash_code,
    verify_password,
)
from ..config import Config
from ..mail.identity import cap_key, valid_address
from ..orders.commands import MIN_PASSWORD_LENGTH, MIN_PASSWORD_SYMBOLS
from ..orders.orders import CommandLine, MailCommand, ParsedOrders
from ..outgoing.accountmails import (
    empire_tag,
    queue_address_changed,
    queue_address_confirm,
    queue_help,
    queue_player_quit,
)
from ..outgoing.mails import queue_bulletin, queue_report
from ..outgoing.messageids import id_tag_pattern
from ..reports.context import position_context
from ..rules.serialize import state_from_dict
from ..rules.state import GameState
from ..storage import models as m
from ..storage.mailkinds import MailKind
from ..storage.queries import GameView, current_deadline_or_none
from .cache import EmpireRow, IntakeCache

log = logging.getLogger(__name__)

__all__ = ["ADDRESS_CODE_HOURS", "ADDRESS_CODES_PER_HOUR", "Account", "Mailer", "help_mail"]

#: How long the code an ADDRESS request mails to the new address works.
ADDRESS_CODE_HOURS = 48
#: Confirmation codes an hour, at most, for one empire, and to one address
#: however it is spelled (case, a +tag): each goes to a third party.
ADDRESS_CODES_PER_HOUR = 3


class Mailer(Protocol):
    """The intake's guard on answers: whether one more of ``kind`` may go to
    ``recipient`` this hour (a refusal is recorded for the GM)."""

    def may_send(self, recipient: str, kind: MailKind, game_id: int | None) -> bool: ...


def help_mail(
    session: Session, config: Config, now: dt.datetime, recipient: str, game: m.Game | None, kind: MailKind
) -> bool:
    """Queue the HELP guide to ``recipient`` (about ``game`` when known)."""
    return queue_help(
        session,
        config,
        now,
        recipient=recipient,
        game_id=game.id if game else None,
        vacation_limit=game.vacation_limit if game else None,
        min_password=MIN_PASSWORD_LENGTH,
        min_symbols=MIN_PASSWORD_SYMBOLS,
        kind=kind,
        game=game.name if game else None,
    )


@dataclass
class Account:
    """One authenticated mail's account commands, for one empire."""

    session: Session
    config: Config
    now: dt.datetime
    cache: IntakeCache
    game: GameView
    empire: EmpireRow
    sender: str
    mailer: Mailer

    def run(self, parsed: ParsedOrders) -> tuple[list[str], str]:
        """Do each command; (what each did, the address the answer goes to now)."""
        done: list[str] = []
        self.address = self.empire.email
        for line in parsed.command_lines:
            handler = _HANDLERS.get(line.command)
            if handler is not None:
                said = handler(self, line)
                if said:
                    done.append(f"{line.command.value}: {said}")
        return done, self.address

    # -- the rows ------------------------------------------------------------------

    def row(self) -> m.Empire:
        return self.session.get_one(m.Empire, self.empire.id)

    def game_row(self) -> m.Game:
        return self.session.get_one(m.Game, self.game.id)

    # -- the commands --------------------------------------------------------------

    def help(self, line: CommandLine) -> str:
        if not self.mailer.may_send(self.address, MailKind.HELP, self.game.id):
            return "too many guides to this address in the last hour; none sent"
        help_mail(self.session, self.config, self.now, self.address, self.game_row(), MailKind.HELP)
        return "a short guide is on its way in a separate mail"

    def report(self, line: CommandLine) -> str:
        found = self._report(line.number)
        if isinstance(found, str):
            return found
        if not self.mailer.may_send(self.address, MailKind.REPORT_COPY, self.game.id):
            return "too many reports sent to this address in the last hour; try again later"
        queue_report(
            self.session,
            self.config,
            self.game.id,
            self.game.name,
            self.empire.code,
            self.address,
            found,
            self.now,
            kind=MailKind.REPORT_COPY,
        )
        bulletin = (
            self.session.scalar(
                select(m.Bulletin).where(m.Bulletin.game_id == self.game.id, m.Bulletin.turn == found.turn)
            )
            if found.id is not None
            else None
        )
        if bulletin is not None:
            queue_bulletin(self.session, self.config, bulletin, [], self.now, copy_to=self.address)
            return f"the report and the bulletin of turn {found.turn} are on their way in separate mails"
        return f"the report of turn {found.turn} is on its way in a separate mail"

    def _report(self, turn: int | None) -> m.Report | str:
        """The report asked for (unsaved for the start of the game), or why there is none."""
        session = self.session
        staged = select(m.TurnRecord.number).where(
            m.TurnRecord.game_id == self.game.id, m.TurnRecord.staged.is_(True)
        )
        query = select(m.Report).where(m.Report.empire_id == self.empire.id, m.Report.turn.not_in(staged))
        if turn is None:
            latest = session.scalar(query.order_by(m.Report.turn.desc()).limit(1))
            return latest if latest is not None else self._position()
        if turn == 0:
            if self.game.turn == 1:
                return self._start(self.cache.state(session, self.game))
            first = session.scalar(
                select(m.TurnRecord.state_before).where(
                    m.TurnRecord.game_id == self.game.id, m.TurnRecord.number == 1
                )
            )
            if first is None:
                return "the start of the game is no longer on record; ask the GM"
            return self._start(state_from_dict(first))
        found = session.scalar(query.where(m.Report.turn == turn))
        if found is not None:
            return found
        # A staged turn's reports are kept back until the GM releases it: not named as there.
        have = session.execute(
            select(func.min(m.Report.turn), func.max(m.Report.turn)).where(
                m.Report.empire_id == self.empire.id, m.Report.turn.not_in(staged)
            )
        ).one()
        span = (
            f"you have reports for turns {have[0]} to {have[1]}"
            if have[0] is not None
            else "no turn has run yet"
        )
        if turn in session.scalars(staged):
            return (
                f"turn {turn} has run, and its report waits for the GM's release ({span}, and REPORT 0 "
                "for the start)"
            )
        if turn >= self.game.turn:
            return f"turn {turn} has not run yet ({span}, and REPORT 0 for the start)"
        return f"there is no report of turn {turn} for you ({span}, and REPORT 0 for the start)"

    def _position(self) -> m.Report | str:
        """No report yet: the position now (before turn 1, the start), or, while a
        turn waits for the GM's release, the position before it."""
        staged = self.session.scalar(
            select(m.TurnRecord).where(m.TurnRecord.game_id == self.game.id, m.TurnRecord.staged.is_(True))
        )
        if staged is not None:
            return self._start(state_from_dict(staged.state_before))
        return self._start(self.cache.state(self.session, self.game))

    def _start(self, state: GameState) -> m.Report | str:
        """The report of ``state`` before its turn ran (turn ``state.turn - 1``)."""
        if self.empire.code not in state.empires:
            return "your empire joined later: there is no report of that turn for it"
        # The report wants the time itself (its JSON gives it in ISO 8601); asked rarely, so not cached.
        deadline = current_deadline_or_none(self.game, self.now)
        context = position_context(state, self.empire.code, game_name=self.game.name, deadline=deadline)
        # Not stored: the start is rendered again whenever asked for.
        return m.Report(game_id=self.game.id, empire_id=self.empire.id, turn=state.turn - 1, data=context)

    def password(self, line: CommandLine) -> str:
        new = line.text or ""
        row = self.row()
        # The parser refused what is too short; the estimator judges the rest
        # (the game's and empire's own words are the first an attacker tries).
        why = chosen_password_weakness(new, self.game.name, row.code, row.name, row.email)
        if why:
            return f"not changed, the password is too easy to guess: {why}"
        if verify_password(new, row.password_hash):
            return "that is your password already; nothing changed"
        row.password_hash = hash_chosen_password(new)
        row.password_tag = (
            self.cache.key.tag(row.id, row.password_hash, new) if self.cache.key is not None else None
        )
        self.cache.forget_empire(self.game.id, self.empire.code)
        log.info("game %s: %s changed its password", self.game.name, self.empire.code)
        return (
            f"changed. The new password starts with {new[:2]} and has {len(new)} characters; "
            "the old one no longer works, from this mail on"
        )

    def address_request(self, line: CommandLine) -> str:
        new = valid_address(line.text or "")
        if new is None:
            return f"{line.text!r} is not an address mail can go to; nothing changed"
        row = self.row()
        if new.lower() == row.email.lower():
            return f"{new} is your address already; nothing changed"
        if self._taken(new):
            return f"{new} is the address of another empire in game {self.game.name}; nothing changed"
        capped = self._codes_capped(new)
        if capped:
            self.session.add(
                m.SuppressedReply(
                    game_id=self.game.id,
                    recipient=new[:254],
                    kind=MailKind.ADDRESS_CONFIRM,
                    reason=capped[:200],
                    at=self.now,
                )
            )
            return f"{capped}; nothing changed, try again later"
        if not self.mailer.may_send(new, MailKind.ADDRESS_CONFIRM, self.game.id):
            return (
                f"too many confirmation codes went to {new} in the last hour; nothing changed, try "
                "again later"
            )
        code = generate_password(8)
        expires = self.now + dt.timedelta(hours=ADDRESS_CODE_HOURS)
        change = self.session.get(m.AddressChange, row.id) or m.AddressChange(empire_id=row.id)
        change.new_email, change.code_hash = new, hash_code(code)
        change.requested_at, change.expires_at = self.now, expires
        self.session.add(change)
        queue_address_confirm(
            self.session,
            self.config,
            self.now,
            game=self.game.name,
            game_id=self.game.id,
            empire=row.code,
            recipient=new,
            code=code,
            expires=expires,
            empire_id=row.id,
        )
        # Intake does not flush on its own: a pending row is neither in the
        # identity map nor counted. Without this, a second ADDRESS in the same
        # poll added a second row for the empire, and the caps missed the mail.
        self.session.flush()
        return (
            f"a confirmation code went to {new}. Your address changes when a mail from there with your "
            f"header and CONFIRM <code> arrives, before {expires:%Y-%m-%d %H:%M} UTC; until then all mail "
            f"still goes to {row.email}"
        )

    def _codes_capped(self, new: str) -> str:
        """Why no code may go now: the hour's codes for this empire, or to
        ``new`` however spelled, reached the cap ("" when one may go)."""
        hour = self.now - dt.timedelta(hours=1)
        mine = (
            self.session.scalar(
                select(func.count())
                .select_from(m.OutboxMail)
                .where(
                    m.OutboxMail.kind == MailKind.ADDRESS_CONFIRM,
                    m.OutboxMail.created_at >= hour,
                    m.OutboxMail.message_id.like(
                        id_tag_pattern(empire_tag("address_confirm", self.empire.id))
                    ),
                )
            )
            or 0
        )
        if mine >= ADDRESS_CODES_PER_HOUR:
            return f"{mine} confirmation codes went out for your empire in the last hour"
        sent = self.session.scalars(
            select(m.OutboxMail.recipient).where(
                m.OutboxMail.kind == MailKind.ADDRESS_CONFIRM, m.OutboxMail.created_at >= hour
            )
        )
        key = cap_key(new)
        if sum(1 for recipient in sent if cap_key(recipient) == key) >= ADDRESS_CODES_PER_HOUR:
            return f"too many confirmation codes went to {new} (in any spelling) in the last hour"
        return ""

    def _taken(self, address: str) -> bool:
        return (
            self.session.scalar(
                select(m.Empire.id).where(
                    m.Empire.game_id == self.game.id,
                    func.lower(m.Empire.email) == address.lower(),
                    m.Empire.id != self.empire.id,
                )
            )
            is not None
        )

    def confirm(self, line: CommandLine) -> str:
        row = self.row()
        change = self.session.get(m.AddressChange, row.id)
        if change is None:
            return "no address change is waiting for your empire (send ADDRESS <new address> first)"
        if change.expires_at <= self.now:
            self.session.delete(change)
            return (
                f"the code expired at {change.expires_at:%Y-%m-%d %H:%M} UTC; send ADDRESS again for a "
                "new one"
            )
        if self.sender.lower() != change.new_email.lower():
            return (
                f"the code must come back from {change.new_email}, the address it went to; this mail "
                f"came from {self.sender}"
            )
        if not verify_password((line.text or "").lower(), change.code_hash):
            return f"that is not the code sent to {change.new_email}; nothing changed"
        if self._taken(change.new_email):
            self.session.delete(change)
            return f"{change.new_email} became the address of another empire meanwhile; nothing changed"
        old, row.email = row.email, change.new_email
        self.session.delete(change)
        self.session.flush()
        self.cache.forget_empire(self.game.id, row.code, old, row.email)
        queue_address_changed(
            self.session,
            self.config,
            self.now,
            game=self.game.name,
            game_id=self.game.id,
            empire=row.code,
            old=old,
            new=row.email,
        )
        self.address = row.email
        log.info("game %s: %s moved from %s to %s", self.game.name, row.code, old, row.email)
        return (
            f"your empire's address is now {row.email}; every answer and report goes there (a notice "
            f"went to {old})"
        )

    def vacation(self, line: CommandLine) -> str:
        turns = line.number or 0
        limit = self.game_row().vacation_limit
        if limit == 0:
            return f"game {self.game.name} allows no vacations; nothing changed"
        if turns > limit:
            return f"the longest leave in game {self.game.name} is {limit} turns; nothing changed"
        row = self.row()
        row.vacation_until = self.game.turn + turns - 1
        span = f"turn {self.game.turn}" if turns == 1 else f"turns {self.game.turn} to {row.vacation_until}"
        return (
            f"you are on leave for {span}: missing orders then count neither for the missed-orders guard "
            "nor towards inactivity. Orders you send still count; BACK ends the leave early"
        )

    def back(self, line: CommandLine) -> str:
        row = self.row()
        said = []
        if row.vacation_until is not None and row.vacation_until >= self.game.turn:
            row.vacation_until = None
            said.append("your leave is over")
        if row.quit_at is not None:
            row.quit_at = None
            said.append("your QUIT is withdrawn")
        return "; ".join(said) if said else "you were neither on leave nor leaving; nothing changed"

    def quit(self, line: CommandLine) -> str:
        row = self.row()
        if row.quit_at is None:
            row.quit_at = self.now
            if self._quit_told_within_hour():
                # QUIT, BACK, QUIT...: the GM heard of the first within the
                # hour; `game show` says who is leaving now.
                log.info(
                    "game %s: %s sent QUIT again within the hour; the GM is not told again",
                    self.game.name,
                    row.code,
                )
                return self._leaving()
            queue_player_quit(
                self.session,
                self.config,
                self.now,
                game=self.game.name,
                game_id=self.game.id,
                turn=self.game.turn,
                empire=row.code,
                empire_name=row.name,
                email=row.email,
                empire_id=row.id,
            )
            self.session.flush()  # for the next QUIT of this poll to see (intake does not flush on its own)
        return self._leaving()

    def _leaving(self) -> str:
        return (
            f"you leave the game when turn {self.game.turn} runs: your empire then goes inactive. "
            "The GM is told. Changed your mind? Send BACK before the turn runs"
        )

    def _quit_told_within_hour(self) -> bool:
        return (
            self.session.scalar(
                select(m.OutboxMail.id)
                .where(
                    m.OutboxMail.kind == MailKind.NOTICE,
                    m.OutboxMail.created_at >= self.now - dt.timedelta(hours=1),
                    m.OutboxMail.message_id.like(id_tag_pattern(empire_tag("player_quit", self.empire.id))),
                )
                .limit(1)
            )
            is not None
        )


def _join(account: Account, line: CommandLine) -> str:
    return (
        "you play here already: JOIN is for a mail without a header, from an address that plays nowhere yet"
    )


_HANDLERS = {
    MailCommand.HELP: Account.help,
    MailCommand.REPORT: Account.report,
    MailCommand.PASSWORD: Account.password,
    MailCommand.ADDRESS: Account.address_request,
    MailCommand.CONFIRM: Account.confirm,
    MailCommand.VACATION: Account.vacation,
    MailCommand.BACK: Account.back,
    MailCommand.QUIT: Account.quit,
    MailCommand.JOIN: _join,
}
