"""The SQL game state: typed SQLAlchemy 2 models.

The database refuses what the rules never allow — negative counts, unknown
types, orphan rows — through foreign keys, NOT NULL and CHECK constraints, so
a GM's hand-written SQL cannot quietly corrupt a game. Invariants that span
rows (ships only in owned systems, every system reachable) are checked by
``turnproc.rules.invariants`` on top.

Only ``turnproc.storage.convert`` maps these rows to the rules' dataclasses.

The annotations are evaluated as the classes are made (no ``from __future__
import annotations``): SQLAlchemy reads each ``Mapped[...]`` to map its
column, and given strings it evaluates two hundred of them again in every
process; only the references to a class defined further down are quoted.
"""

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from .base import NAMING_CONVENTION, Base, UTCDateTime, count, intpk, timestamp, utcnow
from .columns import TECH_COLUMNS
from .mailtables import InboundFailure, InboundMessage, OutboxMail, SuppressedReply

__all__ = [
    "Base",
    "Game",
    "Empire",
    "System",
    "Link",
    "Force",
    "Seen",
    "OrderSet",
    "TurnRecord",
    "Report",
    "InboundMessage",
    "InboundFailure",
    "SuppressedReply",
    "OutboxMail",
    "AuditEntry",
    "ArchivedTurn",
    "AddressChange",
    "SignupRequest",
    "Announcement",
    "TECH_COLUMNS",
    "utcnow",
    "Bulletin",
    "NAMING_CONVENTION",
    "UTCDateTime",
]

SYSTEM_TYPES = ("YD", "WD", "RD", "BD", "RG", "SG", "PL", "AB")
STANCES = ("DEFEND", "RETREAT", "AMBUSH", "STANDOFF")
GAME_STATUSES = ("active", "paused", "finished")
SIGNUP_STATUSES = ("pending", "approved", "refused")

#: Rule-set versions a game row may hold (rules.md §19).
RULESET_VERSIONS = (1, 2)


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Game(Base):
    __tablename__ = "games"
    __table_args__ = (
        CheckConstraint("turn >= 1", "turn_positive"),
        CheckConstraint(_in("status", GAME_STATUSES), "status_valid"),
        CheckConstraint("turn_limit >= 1", "turn_limit_positive"),
        CheckConstraint("vp_target >= 1", "vp_target_positive"),
        CheckConstraint("early_run_delay >= 0", "early_run_delay_not_negative"),
        CheckConstraint("reminder_hours >= 0", "reminder_hours_not_negative"),
        CheckConstraint("inactive_after >= 1", "inactive_after_positive"),
        CheckConstraint("nmr_limit BETWEEN 0 AND 100", "nmr_limit_percentage"),
        CheckConstraint("vacation_limit BETWEEN 0 AND 100", "vacation_limit_range"),
        CheckConstraint("signup_limit >= 1", "signup_limit_positive"),
        CheckConstraint(f"ruleset IN {RULESET_VERSIONS}", "ruleset_known"),
    )

    id: Mapped[intpk]
    name: Mapped[str] = mapped_column(String(64), unique=True)
    seed: Mapped[str] = mapped_column(String(128))
    """The game's secret: the galaxy and every turn's dice derive from it."""
    modules: Mapped[str] = mapped_column(String(64), default="zoc,pinning,engage")
    """Comma-separated rule modules switched on."""
    ruleset: Mapped[int] = mapped_column(default=2)
    """Rule-set version the game was created with (rules.md §19); games from
    before version 2 were marked 1 by migration 0009."""
    turn: Mapped[int] = mapped_column(default=1)
    status: Mapped[str] = mapped_column(String(16), default="active")
    turn_limit: Mapped[int] = mapped_column(default=30)
    vp_target: Mapped[int] = mapped_column(default=100)
    schedule: Mapped[str | None] = mapped_column(String(64))
    """Cron expression of the turn deadline, in ``timezone``."""
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    early_run: Mapped[bool] = mapped_column(Boolean, default=False)
    """Run as soon as every active empire has orders in (after a delay), unless one sent WAIT."""
    early_run_delay: Mapped[int] = mapped_column(default=30)
    """Minutes to wait after the last empire's orders before an early run."""
    reminder_hours: Mapped[int] = mapped_column(default=24)
    """Remind empires with no orders this many hours before the deadline (0: never)."""
    inactive_after: Mapped[int] = mapped_column(default=5)
    """Missed turns in a row after which an empire is marked inactive."""
    nmr_limit: Mapped[int] = mapped_column(default=50)
    """Hold the turn when more than this percentage of active empires have no orders."""
    hold: Mapped[bool] = mapped_column(Boolean, default=False)
    """Stage each resolved turn for the GM to release instead of sending it at once."""
    last_deadline_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    """The last deadline the worker acted on (catch-up after downtime runs it once)."""
    guessing_told_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    """When the GM was last sent the game's digest of wrong-password mails
    (intake/guessing.py): at most one a day."""
    deadline_override: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    """A deadline the GM set by hand for the current turn (``turnproc game extend``);
    it replaces the schedule's next deadline until the turn runs, which clears it."""
    created_at: Mapped[timestamp]
    vacation_limit: Mapped[int] = mapped_column(default=3, server_default="3")
    """The longest VACATION a player may take, in turns (0: none allowed)."""
    signup_open: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Strangers may ask to join by mail (JOIN); the GM approves each request."""
    signup_limit: Mapped[int | None]
    """At most this many empires, pending requests included, while sign-up is open."""

    empires: Mapped[list["Empire"]] = relationship(
        back_populates="game", cascade="all, delete-orphan", order_by="Empire.code"
    )


class Empire(Base):
    __tablename__ = "empires"
    __table_args__ = (
        UniqueConstraint("game_id", "code"),
        UniqueConstraint("game_id", "email"),
        CheckConstraint("length(code) = 3 AND upper(code) = code", "code_three_capitals"),
        CheckConstraint("balance >= 0", "balance_not_negative"),
        CheckConstraint("treasury >= 0", "treasury_not_negative"),
        CheckConstraint("lost_in_space >= 0", "lost_in_space_not_negative"),
        CheckConstraint("missed_turns >= 0", "missed_turns_not_negative"),
        CheckConstraint("reserve >= 0", "reserve_not_negative"),
        *(CheckConstraint(f"{col} >= 0", f"{col}_not_negative") for col in TECH_COLUMNS.values()),
    )

    id: Mapped[intpk]
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    code: Mapped[str] = mapped_column(String(3))
    name: Mapped[str] = mapped_column(String(64))
    email: Mapped[str] = mapped_column(String(254))
    password_hash: Mapped[str] = mapped_column(String(255))
    password_tag: Mapped[str | None] = mapped_column(String(32))
    """A short keyed tag of the password (turnproc/accounts/passwordkey.py): intake runs
    scrypt only for a password that matches it. None until the password is
    next set or checked correct."""
    guessing_told_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    """When the owner and the GM were last sent the digest of wrong-password
    mails for this empire (intake/guessing.py): at most one a day."""
    balance: Mapped[count]
    treasury: Mapped[count]
    vp: Mapped[count]
    base: Mapped[int | None]
    """System code where leftover BPs become cruisers."""
    home: Mapped[int | None]
    """System code where leftover BPs become fighters."""
    lost_in_space: Mapped[count]
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    missed_turns: Mapped[count]
    tech_weapons: Mapped[int] = mapped_column(default=0)
    tech_defence: Mapped[int] = mapped_column(default=0)
    tech_marines: Mapped[int] = mapped_column(default=0)
    tech_jump: Mapped[int] = mapped_column(default=1)
    tech_expo: Mapped[int] = mapped_column(default=1)
    tech_fighter: Mapped[int] = mapped_column(default=2)
    tech_supply: Mapped[int] = mapped_column(default=0)
    tech_life_support: Mapped[int] = mapped_column(default=5)
    tech_bp_income: Mapped[int] = mapped_column(default=0)
    tech_treasury: Mapped[int] = mapped_column(default=0)
    tech_cultural: Mapped[int] = mapped_column(default=0)
    tech_drive: Mapped[int] = mapped_column(default=1)
    tech_scanner: Mapped[int] = mapped_column(default=1)
    vacation_until: Mapped[int | None]
    """Last turn of the empire's leave (VACATION): until it has run, missing
    orders count for neither the missed-orders guard nor inactivity."""
    quit_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    """When the player asked to leave (QUIT): the next turn makes the empire inactive."""
    tech_probe: Mapped[int] = mapped_column(default=1)
    tech_hyperspace: Mapped[int] = mapped_column(default=0)
    tech_recovery: Mapped[int] = mapped_column(default=0)
    reserve: Mapped[count]
    """Cruisers in the fleet reserve (rule set 2)."""
    active_probe: Mapped[int | None]
    """System code of the active probe (rule set 2)."""
    inactive_probes: Mapped[list[Any]] = mapped_column(JSON, default=list, server_default="[]")
    """System codes of the inactive probes, oldest first (rule set 2)."""

    game: Mapped[Game] = relationship(back_populates="empires")


class AddressChange(Base):
    """A player's ADDRESS request waiting for its confirmation code to come
    back from the new address. One per empire: a new request replaces it."""

    __tablename__ = "address_changes"

    empire_id: Mapped[int] = mapped_column(ForeignKey("empires.id", ondelete="CASCADE"), primary_key=True)
    new_email: Mapped[str] = mapped_column(String(254))
    code_hash: Mapped[str] = mapped_column(String(255))
    """The confirmation code, hashed like a password: it is a secret until used."""
    requested_at: Mapped[timestamp]
    expires_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)


class SignupRequest(Base):
    """A stranger's JOIN: pending until the GM approves or refuses it."""

    __tablename__ = "signup_requests"
    __table_args__ = (
        CheckConstraint(_in("status", SIGNUP_STATUSES), "status_valid"),
        CheckConstraint("length(code) = 3 AND upper(code) = code", "code_three_capitals"),
        Index("ix_signup_requests_game_status", "game_id", "status"),
    )

    id: Mapped[intpk]
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    code: Mapped[str] = mapped_column(String(3))
    name: Mapped[str] = mapped_column(String(64))
    email: Mapped[str] = mapped_column(String(254))
    status: Mapped[str] = mapped_column(String(16), default="pending")
    reason: Mapped[str] = mapped_column(Text, default="")
    """The GM's reason for a refusal, told to the applicant."""
    requested_at: Mapped[timestamp]
    decided_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    code_hash: Mapped[str | None] = mapped_column(String(255))
    """The code mailed to the applicant's address, hashed like a password;
    None once it came back."""
    confirmed_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    """When the code came back from the address: only then is the request the
    GM's to decide (before, it holds no code and no home, and nobody is told)."""


class System(Base):
    __tablename__ = "systems"
    __table_args__ = (
        UniqueConstraint("game_id", "code"),
        UniqueConstraint("game_id", "id"),
        CheckConstraint(_in("type", SYSTEM_TYPES), "type_valid"),
        CheckConstraint(_in("stance", STANCES), "stance_valid"),
        CheckConstraint("code >= 100", "code_at_least_three_digits"),
        CheckConstraint("pop >= 0", "pop_not_negative"),
        CheckConstraint("industry >= 0", "industry_not_negative"),
        CheckConstraint("retreat_parts BETWEEN 1 AND 3", "retreat_parts_1_to_3"),
        CheckConstraint("(type IN ('PL', 'AB')) = (star IS NOT NULL)", "planets_and_belts_have_a_star"),
        CheckConstraint("owner_id IS NOT NULL OR pop = 0", "unowned_has_no_population"),
        ForeignKeyConstraint(
            ["game_id", "star"], ["systems.game_id", "systems.code"], name="fk_systems_star_systems"
        ),
        Index("ix_systems_game_owner", "game_id", "owner_id"),
    )

    id: Mapped[intpk]
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    code: Mapped[int]
    type: Mapped[str] = mapped_column(String(2))
    row: Mapped[int]
    col: Mapped[int]
    star: Mapped[int | None]
    """Code of the star a planet or belt belongs to."""
    name: Mapped[str] = mapped_column(String(24), default="")
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("empires.id", ondelete="SET NULL"))
    pop: Mapped[count]
    industry: Mapped[count]
    stance: Mapped[str] = mapped_column(String(8), default="DEFEND")
    stance_target: Mapped[int | None]
    retreat_parts: Mapped[int] = mapped_column(default=1)
    ever_owned: Mapped[bool] = mapped_column(Boolean, default=False)
    home_slot: Mapped[bool] = mapped_column(Boolean, default=False)

    owner: Mapped["Empire | None"] = relationship()


class Link(Base):
    __tablename__ = "links"
    __table_args__ = (
        CheckConstraint("a < b", "stored_once_smaller_first"),
        ForeignKeyConstraint(["game_id", "a"], ["systems.game_id", "systems.code"], ondelete="CASCADE"),
        ForeignKeyConstraint(["game_id", "b"], ["systems.game_id", "systems.code"], ondelete="CASCADE"),
    )

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    a: Mapped[int] = mapped_column(primary_key=True)
    b: Mapped[int] = mapped_column(primary_key=True)


class Force(Base):
    """An empire's ships in one system."""

    __tablename__ = "forces"
    __table_args__ = (
        CheckConstraint("cruisers >= 0", "cruisers_not_negative"),
        CheckConstraint("fighters >= 0", "fighters_not_negative"),
        CheckConstraint("colony_ships >= 0", "colony_ships_not_negative"),
    )

    system_id: Mapped[int] = mapped_column(ForeignKey("systems.id", ondelete="CASCADE"), primary_key=True)
    empire_id: Mapped[int] = mapped_column(
        ForeignKey("empires.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    cruisers: Mapped[count]
    fighters: Mapped[count]
    colony_ships: Mapped[count]


class Seen(Base):
    """Systems whose position an empire has ever seen (rules.md §14)."""

    __tablename__ = "seen"

    empire_id: Mapped[int] = mapped_column(ForeignKey("empires.id", ondelete="CASCADE"), primary_key=True)
    system_id: Mapped[int] = mapped_column(ForeignKey("systems.id", ondelete="CASCADE"), primary_key=True)


class OrderSet(Base):
    """One submission of orders; the newest active one per (empire, turn) counts."""

    __tablename__ = "orders"
    __table_args__ = (
        Index("ix_orders_empire_turn", "empire_id", "turn"),
        # The turn's orders, read by every turn run: by game alone, every
        # turn's orders of the game were read (100,000 rows on turn 100).
        Index("ix_orders_game_turn", "game_id", "turn"),
        CheckConstraint("turn >= 1", "turn_positive"),
    )

    id: Mapped[intpk]
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    empire_id: Mapped[int] = mapped_column(ForeignKey("empires.id", ondelete="CASCADE"))
    turn: Mapped[int]
    raw_text: Mapped[str] = mapped_column(Text)
    """The mail's text as the player wrote it."""
    lines: Mapped[list[Any]] = mapped_column(JSON)
    """The valid order lines, canonical form, in the order written."""
    orders: Mapped[list[Any]] = mapped_column(JSON, server_default="[]")
    """The same orders as the engine reads them (``Order.to_dict``), numbered
    by their place in ``lines``: the turn never parses text again."""
    problems: Mapped[list[Any]] = mapped_column(JSON, default=list)
    message_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_messages.id"))
    received_at: Mapped[timestamp]
    sent_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    """The mail's Date (never later than its arrival): of two mails for one
    turn, the one written later counts, whichever arrives first."""
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    """False once replaced by a later submission or withdrawn with CLEAR."""
    wait: Mapped[bool] = mapped_column(Boolean, default=False)

    message: Mapped["InboundMessage | None"] = relationship()


class TurnRecord(Base):
    """One resolved turn: enough to replay it (state before, orders, seed) and
    to report it (events). At most one per (game, turn)."""

    __tablename__ = "turns"
    __table_args__ = (
        UniqueConstraint("game_id", "number"),
        # Every turn run looks for a staged turn: by game alone SQLite read each
        # of the game's records, through its saved state, to reach ``staged``.
        Index("ix_turns_game_staged", "game_id", "staged"),
        # Each turn's marks, read from the index alone: the public pages'
        # refresh and ``game show`` read them for every turn of the game, and
        # SQLite keeps them after the saved state, so reading them from the
        # rows read every turn's whole galaxy (a 100-turn game's refresh took
        # twice turn 5's).
        Index("ix_turns_game_marks", "game_id", "number", "staged", "ran_at"),
    )

    id: Mapped[intpk]
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    number: Mapped[int]
    rng_seed: Mapped[str] = mapped_column(String(160))
    state_before: Mapped[dict[str, Any]] = mapped_column(JSON)
    orders: Mapped[dict[str, Any]] = mapped_column(JSON)
    events: Mapped[list[Any]] = mapped_column(JSON)
    ran_at: Mapped[timestamp]
    staged: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    """Resolved for a game on hold and not yet released by the GM: its state is
    saved, its report mails wait in the outbox as held (``turnproc turn release``)."""


class Report(Base):
    """A turn report's data (its JSON), stored once: the text, HTML, map and
    mail are rendered from it when the mail goes and when a player asks again."""

    __tablename__ = "reports"
    __table_args__ = (
        UniqueConstraint("empire_id", "turn"),
        # A rollback's and a rerun's reports of the turns taken back (not every report of the game).
        Index("ix_reports_game_turn", "game_id", "turn"),
    )

    id: Mapped[intpk]
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    empire_id: Mapped[int] = mapped_column(ForeignKey("empires.id", ondelete="CASCADE"))
    turn: Mapped[int]
    """The turn the report describes (the one just resolved)."""
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[timestamp]


class Bulletin(Base):
    """A big game's turn bulletin (roundup, public press, announcements): one per
    turn for all players, rendered when mailed, like a report."""

    __tablename__ = "bulletins"
    __table_args__ = (UniqueConstraint("game_id", "turn"),)

    id: Mapped[intpk]
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    turn: Mapped[int]
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[timestamp]


class AuditEntry(Base):
    """One GM action on a game's data: a SQL script (whatever its outcome) or a
    turn rollback, rerun, release or discard. Never edited, never deleted by
    turnproc; a GM script that touches it is refused."""

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_log_game_at", "game_name", "at"),)

    id: Mapped[intpk]
    at: Mapped[timestamp]
    os_user: Mapped[str] = mapped_column(String(64))
    """The operating-system account that ran the command."""
    action: Mapped[str] = mapped_column(String(16))
    """``sql``, ``rollback``, ``rerun``, ``release``, ``discard`` or ``hold``; the
    GM's commands on players: ``set-email``, ``new-password``, ``deactivate``,
    ``reactivate``, ``replace``, ``import``; and ``extend``, ``announce``."""
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"))
    game_name: Mapped[str] = mapped_column(String(64))
    """Kept as text so the entry outlives the game."""
    script: Mapped[str] = mapped_column(Text, default="")
    """The SQL script as given, or the command line of a turn action."""
    sha256: Mapped[str] = mapped_column(String(64), default="")
    """sha256 of ``script``'s UTF-8 bytes."""
    outcome: Mapped[str] = mapped_column(String(16))
    """``committed``, ``dry-run``, ``rejected`` (checks failed), ``no-change`` (a
    statement changed no rows), ``failed`` (a statement failed) or ``refused``
    (not run at all)."""
    detail: Mapped[str] = mapped_column(Text, default="")
    """What was wrong, statement by statement or invariant by invariant."""


class ArchivedTurn(Base):
    """A turn record taken out of play by a rollback, rerun or discard, kept
    with the reports it produced and the state it led to."""

    __tablename__ = "turn_archive"
    __table_args__ = (Index("ix_turn_archive_game_number", "game_id", "number"),)

    id: Mapped[intpk]
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    number: Mapped[int]
    rng_seed: Mapped[str] = mapped_column(String(160))
    state_before: Mapped[dict[str, Any]] = mapped_column(JSON)
    orders: Mapped[dict[str, Any]] = mapped_column(JSON)
    events: Mapped[list[Any]] = mapped_column(JSON)
    ran_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    state_after: Mapped[dict[str, Any]] = mapped_column(JSON)
    """The state this turn led to as the game held it when archived (GM edits
    included): the next turn's state before, or the game's state at the time."""
    reports: Mapped[dict[str, Any]] = mapped_column(JSON)
    """Empire code → the data (JSON) of the report this turn produced."""
    archived_at: Mapped[timestamp]
    reason: Mapped[str] = mapped_column(String(64))
    """e.g. ``rollback to 4``, ``rerun of 4``, ``discarded``."""


class Announcement(Base):
    """A GM's message to every player of a game (``turnproc announce``): mailed
    at once, and printed again in the report of the turn it was made in."""

    __tablename__ = "announcements"
    __table_args__ = (Index("ix_announcements_game_turn", "game_id", "turn"),)

    id: Mapped[intpk]
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    turn: Mapped[int]
    """The turn being collected when it was made: its report carries it."""
    subject: Mapped[str] = mapped_column(String(200))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[timestamp]
