"""What one poll may reuse between mails.

Game states (orders never change the state, so it is fixed for the poll),
the systems each empire knows of, and passwords verified or being verified
(scrypt is slow on purpose; a player's second mail need not pay it again:
see prepare.py). Everything a batch's transaction reads or counts (game and
empire rows, order sets, the replies and wrong passwords counted) is in its
own :class:`Batch`, made afresh for each attempt: a turn may have run between
two batches, and a rolled-back attempt must leave no count behind.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from ..accounts.passwordkey import PasswordKey
from ..mail.mime import MailLimits
from ..rules.checks import KnownSystems, known_systems_all
from ..rules.state import GameState
from ..storage import models as m
from ..storage.convert import load_state
from ..storage.mailkinds import MailKind
from ..storage.pending import NewOrderSet, PendingRows, write_added
from ..storage.queries import (
    GameView,
    current_deadline_text,
    load_game_view,
    replies_last_hour,
    replies_last_hour_to,
)
from .prepare import MAX_TEXT, Parsed, PasswordChecks, parse_raw

__all__ = ["Batch", "EmpireRow", "IntakeCache"]

# A Message-ID header as it stands in the raw header block (unfolded ones only;
# any other mail is looked up on its own).
_MESSAGE_ID = re.compile(rb"^message-id:[ \t]*(<[^\r\n]*>)[ \t]*\r?$", re.IGNORECASE | re.MULTILINE)


def _raw_message_id(raw: bytes) -> str:
    head = raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    found = _MESSAGE_ID.search(head)
    return found.group(1).decode("ascii", "replace").strip()[:998] if found else ""


@dataclass(frozen=True)
class EmpireRow:
    """An empire as intake checks a mail against it: who may send for it."""

    id: int
    code: str
    email: str
    password_hash: str
    password_tag: str | None


_EMPIRE_COLUMNS = (m.Empire.id, m.Empire.code, m.Empire.email, m.Empire.password_hash, m.Empire.password_tag)


@dataclass
class Batch:
    """What one batch's transaction has read and counted. Made afresh for each
    attempt at a batch (:meth:`IntakeCache.new_batch`): when the transaction
    rolls back, all of it goes with it, and the mail-by-mail retry counts
    from what the database holds, as a fresh run would."""

    parsed: dict[str, Parsed] = field(default_factory=dict)
    """This batch's mails as the pre-pass parsed them, by digest (taken by the handler)."""
    games: dict[str, GameView | None] = field(default_factory=dict)
    empires: dict[tuple[int, str], EmpireRow | None] = field(default_factory=dict)
    order_sets: dict[tuple[int, int], m.OrderSet | NewOrderSet | None] = field(default_factory=dict)
    senders: dict[str, bool] = field(default_factory=dict)
    """Whether an address plays anywhere (an address change in the batch changes it)."""
    recent_replies: dict[tuple[str, str], int] = field(default_factory=dict)
    recent_asked: set[str] = field(default_factory=set)
    """Recipients whose replies of the last hour (``recent_replies``) were read
    for the whole batch at once; the first reply to each counts from there."""
    reply_counts: dict[tuple[str, str], int] = field(default_factory=dict)
    """Replies of the last hour per (recipient, kind), this batch's own counted."""
    strangers_answered: int | None = None
    """Answers to unregistered addresses in the last hour, this batch's own counted."""
    wrong_passwords: dict[int, int] = field(default_factory=dict)
    """Mails with a wrong password in this batch, per empire id (for the digest)."""
    asked: set[str] = field(default_factory=set)
    """Digests of this batch's mails, looked up together."""
    handled: set[str] = field(default_factory=set)
    """Of those (and of any handled since), the ones already in the log."""
    asked_ids: set[str] = field(default_factory=set)
    """Message-IDs of this batch's mails (as their raw headers give them), looked up together."""
    seen_ids: set[str] = field(default_factory=set)
    """Of those (and of any handled since in this batch), the ones already in the log."""
    rows: PendingRows = field(default_factory=PendingRows)
    """The rows this batch's mails added, not written yet (:meth:`IntakeCache.write_rows`)."""


@dataclass
class IntakeCache:
    """What one poll may reuse between its batches (nothing a transaction
    wrote: that is in :attr:`batch`)."""

    key: PasswordKey | None = None
    """The password key: a password its tag rules out costs no scrypt. None: no tags (scrypt decides)."""
    trusted_authserv_id: str = ""
    """The receiving server whose DMARC verdicts count (config ``trusted_authserv_id``)."""
    limits: MailLimits = field(default_factory=MailLimits)
    """The shape and reading time a mail may have (the config's ``mail_*`` keys)."""
    states: dict[tuple[int, int], GameState] = field(default_factory=dict)
    passwords: PasswordChecks = field(default_factory=PasswordChecks)
    ahead: dict[str, Parsed] = field(default_factory=dict)
    """The next batch's mails, parsed while this one is handled (:meth:`read_ahead`)."""
    deadlines: dict[tuple[int, tuple[object, ...]], str | None] = field(default_factory=dict)
    known_systems: dict[tuple[int, int], dict[str, KnownSystems]] = field(default_factory=dict)
    """Per (game, turn): what each empire owns and knows, from one walk over the
    galaxy for all of them (a walk per empire is quadratic on a big night)."""
    ruled_out: int = 0
    """Passwords the tags showed wrong without scrypt (for tests and the benchmark)."""
    batch: Batch = field(default_factory=Batch)

    @property
    def rows(self) -> PendingRows:
        return self.batch.rows

    def new_batch(self, session: Session | None = None, raws: Sequence[bytes] = ()) -> None:
        """A fresh :class:`Batch`; with the batch's mails, which of them were
        handled before is asked once."""
        self.batch = batch = Batch()
        if session is not None and raws:
            batch.asked = {hashlib.sha256(raw).hexdigest() for raw in raws}
            batch.handled = set(
                session.scalars(
                    select(m.InboundMessage.sha256).where(m.InboundMessage.sha256.in_(sorted(batch.asked)))
                )
            )
            batch.asked_ids = {mid for mid in map(_raw_message_id, raws) if mid}
            if batch.asked_ids:
                batch.seen_ids = set(
                    session.scalars(
                        select(m.InboundMessage.message_id).where(
                            m.InboundMessage.message_id.in_(sorted(batch.asked_ids))
                        )
                    )
                )

    def prepare(self, session: Session, raws: Sequence[bytes], now: dt.datetime) -> None:
        """Parse the batch's new mails, read the empires they name in one query
        per game, and start verifying their passwords (the mails read ahead
        while the batch before was handled are parsed and handed over already)."""
        fresh = [(d, p) for d, p in self._parse(raws) if d not in self.batch.handled]
        self.batch.parsed = dict(fresh)
        self.ahead = {}
        named = self._named(session, fresh)
        self._verify(named)
        recipients: set[str] = set()
        empire_ids: dict[int, tuple[GameView, set[int]]] = {}
        for _, parsed, game, empire in named:
            empire_ids.setdefault(game.id, (game, set()))[1].add(empire.id)
            recipients.update((empire.email, parsed.sender))
        self.prefetch_reply_counts(session, recipients, now)
        for game, ids in empire_ids.values():
            self.prefetch_order_sets(session, game, ids)

    def read_ahead(self, session: Session, raws: Sequence[bytes]) -> None:
        """The next batch's mails parsed and their passwords handed to the
        pool while this batch is handled, as soon as the next one is fetched:
        the pool verifies on while this batch ends and commits and the next
        begins, and stays ahead of the poll. Handed over only at the start of
        each batch, the passwords were verified at about the pace the mails
        were handled (1.75 ms a password, a little more than the rest of a
        mail), so the poll waited on 83-87 mails in a hundred, and the pool
        sat idle between batches."""
        self.ahead = dict(self._parse(raws))
        self._verify(self._named(session, list(self.ahead.items())))

    def _parse(self, raws: Sequence[bytes]) -> list[tuple[str, Parsed]]:
        """``raws`` parsed (or taken as :meth:`read_ahead` parsed them), each
        with its digest; a mail that cannot be is left out."""
        out: list[tuple[str, Parsed]] = []
        for raw in raws:
            digest = hashlib.sha256(raw).hexdigest()
            try:
                parsed = self.ahead.get(digest) or parse_raw(raw, self.limits, self.trusted_authserv_id)
            except Exception:  # noqa: BLE001 - the handler meets it again, in the mail's own savepoint
                continue
            out.append((digest, parsed))
        return out

    def _named(
        self, session: Session, mails: list[tuple[str, Parsed]]
    ) -> list[tuple[str, Parsed, GameView, EmpireRow]]:
        """The mails that name a game and an empire there, come from an
        address and can be read, with those; the empires read in one query
        per game."""
        named = [
            (d, p)
            for d, p in mails
            if p.header.game
            and p.header.empire
            and p.sender
            and not p.unreadable
            and len(p.text) <= MAX_TEXT
            and not p.forged  # a forgery costs no password check
        ]
        codes: dict[str, set[str]] = {}
        for _, parsed in named:
            codes.setdefault(parsed.header.game or "", set()).add((parsed.header.empire or "").upper())
        for name, wanted in codes.items():
            game = self.game(session, name)
            if game is not None:
                self.prefetch_empires(session, game, wanted)
        out = []
        for digest, parsed in named:
            game = self.game(session, parsed.header.game or "")
            empire = self.empire(session, game, parsed.header.empire or "") if game is not None else None
            if game is not None and empire is not None:
                out.append((digest, parsed, game, empire))
        return out

    def _verify(self, mails: list[tuple[str, Parsed, GameView, EmpireRow]]) -> None:
        """Start verifying the passwords of ``mails`` (:meth:`_named`) that
        their empire's tag does not rule out already: a flood of wrong
        passwords costs the pool nothing, whoever it claims to come from."""
        for _, parsed, _, empire in mails:
            password = parsed.header.password or ""
            if not self._ruled_out(empire, password):
                self.passwords.submit(empire.id, empire.password_hash, password)

    def _ruled_out(self, empire: EmpireRow, password: str) -> bool:
        return self.key is not None and self.key.rules_out(
            empire.id, empire.password_hash, empire.password_tag, password
        )

    def handling(self, digest: str) -> Parsed | None:
        """The mail as the pre-pass parsed it, if it did, as its handling starts."""
        return self.batch.parsed.pop(digest, None)

    def already_handled(self, session: Session, digest: str) -> bool:
        if digest in self.batch.handled:
            return True
        if digest in self.batch.asked:
            return False
        return (
            session.scalar(select(m.InboundMessage.id).where(m.InboundMessage.sha256 == digest)) is not None
        )

    def forget(self, raw: bytes) -> None:
        """Undo what a mail whose savepoint was rolled back left here."""
        self.batch.seen_ids.discard(_raw_message_id(raw))
        self.batch.handled.discard(hashlib.sha256(raw).hexdigest())
        self.batch.rows.clear()  # only its own: the mails before it wrote theirs (write_rows)
        self.batch.order_sets.clear()  # its rows are gone; the others are written and read again

    def write_rows(self, session: Session) -> None:
        """Write the rows the mails handled since the last call added, and the
        answers they queued (outbox rows no one reads again: written with one
        INSERT, not flushed one by one). An order set written is read again by
        a later mail that changes it (as a row: the unwritten one would change
        nothing)."""
        write_added(session, m.OutboxMail)
        batch = self.batch
        if not batch.rows:
            return
        batch.rows.write(session)
        batch.order_sets = {k: v for k, v in batch.order_sets.items() if not isinstance(v, NewOrderSet)}

    def message_id_seen(self, session: Session, message_id: str) -> bool:
        message_id = message_id[:998]
        if message_id in self.batch.seen_ids:
            return True
        if message_id in self.batch.asked_ids:
            return False
        # The session autoflushes: mails handled earlier in this batch are seen too.
        found = session.scalar(
            select(m.InboundMessage.id).where(m.InboundMessage.message_id == message_id[:998]).limit(1)
        )
        return found is not None

    def game_names(self, session: Session) -> list[str]:
        return list(
            session.scalars(select(m.Game.name).where(m.Game.status != "finished").order_by(m.Game.name))
        )

    def empire_codes(self, session: Session, game: GameView) -> list[str]:
        return list(
            session.scalars(select(m.Empire.code).where(m.Empire.game_id == game.id).order_by(m.Empire.code))
        )

    def game(self, session: Session, name: str) -> GameView | None:
        key, games = name.lower(), self.batch.games
        if key not in games:
            # FOR SHARE (PostgreSQL): a turn run, which locks the game row for
            # update, waits for this batch, and this batch waits for it.
            loaded = load_game_view(session, name=name, lock="share", empires=False)
            games[key] = loaded[1] if loaded is not None else None
        return games[key]

    def registered(self, session: Session, address: str) -> bool:
        """Whether ``address`` plays an empire in any game."""
        key, senders = address.lower(), self.batch.senders
        if key not in senders:
            found = session.scalar(select(m.Empire.id).where(func.lower(m.Empire.email) == key).limit(1))
            senders[key] = found is not None
        return senders[key]

    def stranger_replies(self, session: Session, now: dt.datetime) -> int:
        """Answers to unregistered addresses in the last hour, all together."""
        batch = self.batch
        if batch.strangers_answered is None:
            batch.strangers_answered = (
                session.scalar(
                    select(func.count())
                    .select_from(m.OutboxMail)
                    .where(
                        # A JOIN's code is an answer to a stranger too (its own kind: its body is a secret).
                        m.OutboxMail.kind.in_((MailKind.STRANGER, MailKind.SIGNUP_CONFIRM)),
                        m.OutboxMail.created_at >= now - dt.timedelta(hours=1),
                    )
                )
                or 0
            )
        return batch.strangers_answered

    def count_stranger_reply(self) -> None:
        self.batch.strangers_answered = (self.batch.strangers_answered or 0) + 1

    def count_wrong_password(self, empire_id: int) -> None:
        self.batch.wrong_passwords[empire_id] = self.batch.wrong_passwords.get(empire_id, 0) + 1

    def order_set(self, session: Session, game: GameView, empire_id: int) -> m.OrderSet | NewOrderSet | None:
        """The empire's order set on file, as this batch left it (the batch's
        own rows are written only at its end). The pre-pass reads those of
        the batch's empires in one query; any other is read on its own."""
        key = (empire_id, game.turn)
        if key not in self.batch.order_sets:
            self.prefetch_order_sets(session, game, {empire_id})
        return self.batch.order_sets[key]

    def prefetch_order_sets(self, session: Session, game: GameView, empire_ids: set[int]) -> None:
        """The order sets on file of ``empire_ids`` (read once a batch: a
        game's every set, read per batch, made a big night quadratic)."""
        order_sets = self.batch.order_sets
        wanted = sorted(e for e in empire_ids if (e, game.turn) not in order_sets)
        if not wanted:
            return
        for empire_id in wanted:
            order_sets[(empire_id, game.turn)] = None
        found: set[int] = set()
        for row in session.scalars(
            select(m.OrderSet)
            .where(
                m.OrderSet.game_id == game.id,
                m.OrderSet.turn == game.turn,
                m.OrderSet.active.is_(True),
                m.OrderSet.empire_id.in_(wanted),
            )
            .order_by(m.OrderSet.id)
        ):
            if row.empire_id not in found:  # never more than one; the first if so
                found.add(row.empire_id)
                order_sets[(row.empire_id, game.turn)] = row

    def remember_order_set(self, empire_id: int, turn: int, row: m.OrderSet | NewOrderSet | None) -> None:
        self.batch.order_sets[(empire_id, turn)] = row

    def empire(self, session: Session, game: GameView, code: str) -> EmpireRow | None:
        key, empires = (game.id, code.upper()), self.batch.empires
        if key not in empires:
            row = session.execute(
                select(*_EMPIRE_COLUMNS).where(m.Empire.game_id == game.id, m.Empire.code == key[1])
            ).first()
            empires[key] = EmpireRow(*row) if row is not None else None
        return empires[key]

    def prefetch_empires(self, session: Session, game: GameView, codes: set[str]) -> None:
        """The empires ``codes`` name in ``game``, in one query (the batch's mails)."""
        empires = self.batch.empires
        wanted = sorted({code.upper() for code in codes} - {code for gid, code in empires if gid == game.id})
        if not wanted:
            return
        for code in wanted:
            empires[(game.id, code)] = None
        for row in session.execute(
            select(*_EMPIRE_COLUMNS).where(m.Empire.game_id == game.id, m.Empire.code.in_(wanted))
        ):
            empires[(game.id, row.code.upper())] = EmpireRow(*row)

    def forget_empire(self, game_id: int, code: str, *addresses: str) -> None:
        """After a password or address change: read the empire (and whether
        ``addresses`` play anywhere) again on the next mail."""
        self.batch.empires.pop((game_id, code.upper()), None)
        for address in addresses:
            self.batch.senders.pop(address.lower(), None)

    def deadline(self, game: GameView, now: dt.datetime) -> str | None:
        key = (game.id, (*game.signature, game.last_deadline_at))
        if key not in self.deadlines:
            self.deadlines[key] = current_deadline_text(game, now)
        return self.deadlines[key]

    def replies_sent(self, session: Session, recipient: str, kind: MailKind, now: dt.datetime) -> int:
        key, batch = (recipient, kind), self.batch
        if key not in batch.reply_counts:
            if recipient in batch.recent_asked:
                batch.reply_counts[key] = batch.recent_replies.get(key, 0)
            else:
                batch.reply_counts[key] = replies_last_hour(session, recipient, kind, now)
        return batch.reply_counts[key]

    def prefetch_reply_counts(self, session: Session, recipients: set[str], now: dt.datetime) -> None:
        """The last hour's replies to the batch's likely recipients, in one
        query (earlier batches' are committed, so counted there)."""
        batch = self.batch
        wanted = sorted(recipients - batch.recent_asked)
        if wanted:
            batch.recent_replies.update(replies_last_hour_to(session, wanted, now))
            batch.recent_asked.update(wanted)

    def count_reply(self, recipient: str, kind: MailKind) -> None:
        counts = self.batch.reply_counts
        counts[(recipient, kind)] = counts.get((recipient, kind), 0) + 1

    def systems_known_to(self, session: Session, game: GameView, empire: str) -> KnownSystems | None:
        key = (game.id, game.turn)
        if key not in self.known_systems:
            self.known_systems[key] = known_systems_all(self.state(session, game))
        return self.known_systems[key].get(empire)

    def state(self, session: Session, game: GameView) -> GameState:
        key = (game.id, game.turn)
        if key not in self.states:
            self.states[key] = load_state(session, session.get_one(m.Game, game.id))
        return self.states[key]

    def check_password(self, empire: EmpireRow, password: str) -> bool:
        if self._ruled_out(empire, password):
            self.ruled_out += 1
            return False
        return self.passwords.check(empire.id, empire.password_hash, password)

    def tag_if_untagged(self, session: Session, game: GameView, empire: EmpireRow, password: str) -> None:
        """After ``password`` checked correct: an empire without a valid tag
        (made before tags, or under another key) gets one, in the batch's
        transaction."""
        if self.key is None or self.key.valid(empire.password_hash, empire.password_tag):
            return
        tag = self.key.tag(empire.id, empire.password_hash, password)
        session.execute(update(m.Empire).where(m.Empire.id == empire.id).values(password_tag=tag))
        self.batch.empires[(game.id, empire.code.upper())] = replace(empire, password_tag=tag)

    def close(self) -> None:
        """The poll is over: its verified passwords go with it."""
        self.passwords.close()
