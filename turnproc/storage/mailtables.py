"""The tables of mail coming in and going out: every mail the intake has
looked at (``InboundMessage``), the ones whose handling failed through our
fault (``InboundFailure``), the answers the host chose not to send
(``SuppressedReply``) and the outbox (``OutboxMail``).

Part of the SQL game state: :mod:`.models` names them with the other tables,
and its notes on annotations hold here too.
"""

import datetime as dt

from sqlalchemy import (
    JSON,
    Boolean,
    ColumnElement,
    ForeignKey,
    Index,
    LargeBinary,
    String,
    Text,
    false,
    func,
    or_,
)
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.sql import literal_column

from .base import Base, UTCDateTime, count, intpk, timestamp

__all__ = ["InboundMessage", "InboundFailure", "SuppressedReply", "OutboxMail", "UNPURGED"]


class InboundMessage(Base):
    """Every mail the intake has looked at, so none is ever applied twice."""

    __tablename__ = "inbound_messages"
    # The hour's wrong passwords, read once per poll.
    __table_args__ = (Index("ix_inbound_outcome_received", "outcome", "received_at"),)

    id: Mapped[intpk]
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    message_id: Mapped[str | None] = mapped_column(String(998), index=True)
    sender: Mapped[str] = mapped_column(String(254), default="")
    subject: Mapped[str] = mapped_column(String(998), default="")
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"))
    empire_id: Mapped[int | None] = mapped_column(ForeignKey("empires.id", ondelete="SET NULL"))
    outcome: Mapped[str] = mapped_column(String(32))
    detail: Mapped[str] = mapped_column(Text, default="")
    received_at: Mapped[timestamp]


class InboundFailure(Base):
    """A mail whose handling failed through our fault: how often, and whether
    it has been set aside in the Failed folder for the GM."""

    __tablename__ = "inbound_failures"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    attempts: Mapped[count]
    first_at: Mapped[timestamp]
    last_at: Mapped[timestamp]
    error: Mapped[str] = mapped_column(Text, default="")
    set_aside_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)


class SuppressedReply(Base):
    """An answer the host decided not to send (a cap, or no address to send it
    to): the GM can see that a player was not answered, and why."""

    __tablename__ = "suppressed_replies"

    id: Mapped[intpk]
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"), index=True)
    recipient: Mapped[str] = mapped_column(String(254))
    kind: Mapped[str] = mapped_column(String(32))
    reason: Mapped[str] = mapped_column(String(200))
    at: Mapped[timestamp]


class OutboxMail(Base):
    """A mail waiting to go (or gone). Queued in the transaction that decided to
    send it; delivered only after that transaction committed."""

    __tablename__ = "outbox"
    __table_args__ = (
        # A flush claims the oldest unsent mails: this walks them in order and
        # stops at the batch, where (sent_at, next_attempt_at) made every
        # claim read and sort every unsent mail (2,000 on a big night, 27 ms).
        Index("ix_outbox_unsent", "sent_at", "id"),
        # The reply caps count a recipient's recent mails of a kind on every
        # mail a poll answers: without this, each count reads the whole outbox.
        Index("ix_outbox_recipient_kind_created", "recipient", "kind", "created_at"),
        # Who was reminded this turn, read for every game at every tick.
        Index("ix_outbox_game_kind_turn", "game_id", "kind", "turn"),
    )

    id: Mapped[intpk]
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"))
    kind: Mapped[str] = mapped_column(String(32))
    recipient: Mapped[str] = mapped_column(String(254))
    subject: Mapped[str] = mapped_column(String(998))
    message_id: Mapped[str] = mapped_column(String(998), unique=True)
    body: Mapped[bytes | None] = mapped_column(LargeBinary)
    """The complete RFC 5322 message; None: built when sent, from the report
    or bulletin, or from ``data``."""
    data: Mapped[str | None] = mapped_column(Text)
    """An answer to a player's mail, as what it says (JSON: the acknowledgement's
    context and threading headers); its bytes are built when it is sent."""
    report_id: Mapped[int | None] = mapped_column(ForeignKey("reports.id", ondelete="SET NULL"))
    bulletin_id: Mapped[int | None] = mapped_column(ForeignKey("bulletins.id", ondelete="SET NULL"))
    bcc: Mapped[list[str] | None] = mapped_column(JSON(none_as_null=True))
    """A bulletin's recipients, none of them named in the mail (one SMTP transaction)."""
    created_at: Mapped[timestamp]
    attempts: Mapped[count]
    next_attempt_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    sent_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    last_error: Mapped[str] = mapped_column(Text, default="")
    held: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Part of a staged turn: not delivered until the GM releases the turn."""
    turn: Mapped[int | None]
    """For a report mail, the turn it reports: a rollback cancels the unsent ones."""
    claimed_by: Mapped[str | None] = mapped_column(String(200))
    """The flush delivering this mail now (host, pid, a random tag): see mail/outbox.py."""
    claimed_until: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    """The claim's lease: until then no other flush touches the mail, even when
    the claimant died or could not record the delivery."""


#: A sent mail whose bytes or answer data are still kept: what
#: ``mail.outbox.purge_sent_bodies`` empties once the mail is old. Written
#: with a literal 0, not a bound value, so the query and the index below
#: read the same condition and the database sees the index serves it.
UNPURGED: ColumnElement[bool] = or_(
    func.length(OutboxMail.body) > literal_column("0"), OutboxMail.data.is_not(None)
)

# The purge after every flush looks for old mails still holding bytes. By
# sent_at alone it read every mail ever sent and long emptied (a 100-turn
# game's 200,000); this index holds only the ones it empties.
Index(
    "ix_outbox_unpurged",
    OutboxMail.sent_at,
    sqlite_where=UNPURGED,
    postgresql_where=UNPURGED,
)
