"""Is a game's data sound? The rules' invariants plus what only the rows show.

:func:`check_game` is what ``turnproc check`` prints and what a GM script must
pass before it is committed. It runs, in order:

1. row checks the rules' dataclasses cannot see, because the converter
   already folds them away: ships filed under an empire that does not own the
   system, rows of this game pointing at another game's rows, an e-mail
   address no reply could reach;
2. the game row's settings the engine and the worker take on trust (rule
   modules, time zone, cron schedule), and that every row reads back;
3. :func:`turnproc.rules.invariants.check_invariants` on the loaded state —
   the same checker the engine runs before and after every turn — plus an
   empire that was never placed on the map (:func:`state_checks`).

:class:`Fingerprint` is the other guard a script needs: a digest of every row
that does *not* belong to the game, taken before and after, so a script that
strays into another game (or the audit log) is caught whatever SQL it used.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import Connection, Table, text
from sqlalchemy.orm import Session

from ..mail.identity import valid_address
from ..rules.invariants import Violation, check_invariants
from ..rules.state import MODULES, RULESETS, GameState
from ..storage import models as m
from ..storage.convert import load_state
from ..timing import deadlines

log = logging.getLogger(__name__)

__all__ = [
    "Fingerprint",
    "check_game",
    "describe_rows",
    "format_violation",
    "game_checks",
    "row_checks",
    "state_checks",
]

# The shape gm.add_empire accepts; anything else cannot be mailed.

#: Tables a GM script may not change at all, whichever game: the audit log
#: must stay a true record, and the schema version belongs to migrations.
PROTECTED_TABLES = ("audit_log", "alembic_version")


# -- row checks -------------------------------------------------------------------------


def _rows(session: Session, sql: str, game_id: int) -> list[tuple[object, ...]]:
    return [tuple(r) for r in session.execute(text(sql), {"g": game_id})]


def row_checks(session: Session, game_id: int) -> list[Violation]:
    """Broken links between rows of game ``game_id`` that ``load_state`` would hide."""
    out: list[Violation] = []
    for code, empire, owner, cruisers, fighters, colony in _rows(
        session,
        """SELECT s.code, e.code, o.code, f.cruisers, f.fighters, f.colony_ships
           FROM forces f
           JOIN systems s ON s.id = f.system_id
           JOIN empires e ON e.id = f.empire_id
           LEFT JOIN empires o ON o.id = s.owner_id
           WHERE s.game_id = :g AND (s.owner_id IS NULL OR s.owner_id <> f.empire_id)
           ORDER BY s.code, e.code""",
        game_id,
    ):
        out.append(
            Violation(
                "ships_not_owners",
                f"system {code} holds ships of {empire} ({cruisers} cruisers, {fighters} fighters, "
                f"{colony} colony ships) but is owned by {owner or 'nobody'}; ships only stand "
                "in systems their empire owns",
                (int(str(code)),),
                tuple(str(x) for x in (empire, owner) if x),
            )
        )
    cross = {
        "systems.owner_id": """SELECT s.code, e.code FROM systems s JOIN empires e ON e.id = s.owner_id
                               WHERE s.game_id = :g AND e.game_id <> :g""",
        "forces (system)": """SELECT s.code, e.code FROM forces f JOIN systems s ON s.id = f.system_id
                              JOIN empires e ON e.id = f.empire_id
                              WHERE e.game_id = :g AND s.game_id <> :g""",
        "seen (system)": """SELECT s.code, e.code FROM seen x JOIN systems s ON s.id = x.system_id
                            JOIN empires e ON e.id = x.empire_id
                            WHERE (e.game_id = :g OR s.game_id = :g) AND e.game_id <> s.game_id""",
        "orders.empire_id": """SELECT NULL, e.code FROM orders o JOIN empires e ON e.id = o.empire_id
                               WHERE (o.game_id = :g OR e.game_id = :g) AND o.game_id <> e.game_id""",
        "reports.empire_id": """SELECT NULL, e.code FROM reports r JOIN empires e ON e.id = r.empire_id
                                WHERE (r.game_id = :g OR e.game_id = :g) AND r.game_id <> e.game_id""",
    }
    for where, sql in cross.items():
        rows = _rows(session, sql, game_id)
        if rows:
            systems = tuple(sorted({int(str(s)) for s, _ in rows if s is not None}))
            empires = tuple(sorted({str(e) for _, e in rows}))
            out.append(
                Violation(
                    "cross_game",
                    f"{len(rows)} row(s) in {where} join this game's rows to another game's",
                    systems,
                    empires,
                )
            )
    for code, email in _rows(
        session, "SELECT code, email FROM empires WHERE game_id = :g ORDER BY code", game_id
    ):
        if valid_address(str(email)) is None:
            # Mail to it could not go (a stray character, a control code
            # written in with SQL): the player would never hear from the host.
            out.append(
                Violation(
                    "email_invalid",
                    f"empire {code} has e-mail {email!r}, not an address mail can go to",
                    (),
                    (str(code),),
                )
            )
    return out


def state_checks(state: GameState) -> list[Violation]:
    """The rules' invariants, plus the one a GM's INSERT can break that play cannot:
    an empire that owns nothing and has never seen the map was never placed, so
    it has no home, no income and no report worth sending (an orphan empire).
    An eliminated empire owns nothing either, but has seen the map."""
    out = check_invariants(state)
    owners = {s.owner for s in state.systems.values()}
    for code in sorted(state.empires):
        if code not in owners and not state.seen.get(code):
            out.append(
                Violation(
                    "empire_unplaced",
                    f"empire {code} owns no system and has never seen the map: it was never "
                    "placed (add players with `turnproc empire add`, which gives them a home)",
                    (),
                    (code,),
                )
            )
    return out


def game_checks(game: m.Game) -> list[Violation]:
    """The game row's settings, which the engine and the worker trust as they are."""
    out: list[Violation] = []
    modules = {x.strip() for x in game.modules.split(",") if x.strip()}
    if modules - MODULES:
        unknown = ", ".join(sorted(modules - MODULES))
        out.append(
            Violation(
                "game_modules", f"unknown rule module(s) {unknown} (known: {', '.join(sorted(MODULES))})"
            )
        )
    if game.ruleset not in RULESETS:
        out.append(
            Violation(
                "game_ruleset", f"unknown rule set {game.ruleset} (known: {', '.join(map(str, RULESETS))})"
            )
        )
    try:
        ZoneInfo(game.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        out.append(
            Violation("game_timezone", f"time zone {game.timezone!r} is not an IANA name like Europe/London")
        )
    else:
        if game.schedule:
            try:
                deadlines.cron_trigger(game.schedule, game.timezone)
            except deadlines.DeadlineError as exc:
                out.append(Violation("game_schedule", str(exc)))
    return out


def check_game(session: Session, game_id: int) -> list[Violation]:
    """Every problem with game ``game_id``'s rows and state; empty when sound."""
    out = row_checks(session, game_id)
    try:
        game = session.get(m.Game, game_id)
        if game is None:
            return [Violation("game_missing", f"there is no game with id {game_id} any more")]
        out.extend(game_checks(game))
        state = load_state(session, game)
    except (ValueError, KeyError, TypeError) as exc:
        # A value the models cannot read back: SQLite stores whatever text it is
        # given, so a deadline of 'next friday' only fails here.
        out.append(Violation("unreadable", f"the game's rows cannot be read back: {exc}"))
        return out
    out.extend(state_checks(state))
    return out


def format_violation(v: Violation) -> str:
    where = []
    if v.systems:
        where.append(
            "systems " + ", ".join(map(str, v.systems[:20])) + (" ..." if len(v.systems) > 20 else "")
        )
    if v.empires:
        where.append("empires " + ", ".join(v.empires))
    return f"{v.code}: {v.message}" + (f" [{'; '.join(where)}]" if where else "")


def describe_rows(
    session: Session, game_id: int, violations: Iterable[Violation], limit: int = 20
) -> list[str]:
    """The current rows of the systems and empires the violations name, one line each,
    so a GM sees the values that broke the rule (read before any rollback)."""
    systems = sorted({c for v in violations for c in v.systems})[:limit]
    empires = sorted({c for v in violations for c in v.empires})[:limit]
    lines: list[str] = []
    if systems:
        forces: dict[int, list[str]] = {}
        for code, empire, c, f, col in session.execute(
            text(
                """SELECT s.code, e.code, f.cruisers, f.fighters, f.colony_ships FROM forces f
                   JOIN systems s ON s.id = f.system_id JOIN empires e ON e.id = f.empire_id
                   WHERE s.game_id = :g ORDER BY e.code"""
            ),
            {"g": game_id},
        ):
            forces.setdefault(int(code), []).append(f"{empire} {c}/{f}/{col}")
        links: dict[int, int] = {}
        for a, b in session.execute(text("SELECT a, b FROM links WHERE game_id = :g"), {"g": game_id}):
            links[int(a)] = links.get(int(a), 0) + 1
            links[int(b)] = links.get(int(b), 0) + 1
        rows = {
            int(r[0]): r
            for r in session.execute(
                text(
                    """SELECT s.code, s.type, o.code, s.pop, s.industry FROM systems s
                       LEFT JOIN empires o ON o.id = s.owner_id WHERE s.game_id = :g"""
                ),
                {"g": game_id},
            )
        }
        for code in systems:
            r = rows.get(code)
            if r is None:
                lines.append(f"system {code}: no such row")
                continue
            ships = ", ".join(forces.get(code, [])) or "none"
            lines.append(
                f"system {code}: type {r[1]}, owner {r[2] or '-'}, pop {r[3]}, industry {r[4]}, "
                f"ships (crs/ftr/col) {ships}, links {links.get(code, 0)}"
            )
    if empires:
        owned: dict[int, int] = dict(
            session.execute(
                text(
                    "SELECT owner_id, COUNT(*) FROM systems WHERE game_id = :g AND owner_id IS NOT NULL "
                    "GROUP BY owner_id"
                ),
                {"g": game_id},
            ).all()
        )
        found = {
            str(r[1]): r
            for r in session.execute(
                text(
                    """SELECT e.id, e.code, e.name, e.email, e.balance, e.treasury, e.vp, e.active,
                              e.base, e.home, g.name
                       FROM empires e JOIN games g ON g.id = e.game_id
                       WHERE e.game_id = :g OR e.id IN (SELECT owner_id FROM systems WHERE game_id = :g)
                          OR e.id IN (SELECT f.empire_id FROM forces f JOIN systems s ON s.id = f.system_id
                                      WHERE s.game_id = :g)"""
                ),
                {"g": game_id},
            )
        }
        for code in empires:
            r = found.get(code)
            if r is None:
                lines.append(f"empire {code}: no such row")
                continue
            lines.append(
                f"empire {code} ({r[2]}, game {r[10]}): e-mail {r[3]}, balance {r[4]}, treasury {r[5]}, "
                f"VP {r[6]}, active {bool(r[7])}, BASE {r[8]}, HOME {r[9]}, systems {owned.get(r[0], 0)}"
            )
    return lines


# -- other games' rows -------------------------------------------------------------------


@dataclass(frozen=True)
class _Scope:
    table: str
    key: tuple[str, ...]
    source: str
    """FROM ... WHERE selecting the rows outside the game (alias ``t``)."""
    owner: str
    """SQL for the game id a row belongs to (NULL: none)."""


def _scopes() -> list[_Scope]:
    scopes: list[_Scope] = []
    tables: list[Table] = list(m.Base.metadata.sorted_tables)
    for table in tables:
        name, key = table.name, tuple(c.name for c in table.primary_key.columns)
        if name in PROTECTED_TABLES:
            scopes.append(_Scope(name, key, f"FROM {name} t", "NULL"))
        elif name == "games":
            scopes.append(_Scope(name, key, "FROM games t WHERE t.id <> :g", "t.id"))
        elif name == "forces":
            scopes.append(
                _Scope(
                    name,
                    key,
                    "FROM forces t JOIN systems s ON s.id = t.system_id WHERE s.game_id <> :g",
                    "s.game_id",
                )
            )
        elif name == "seen":
            scopes.append(
                _Scope(
                    name,
                    key,
                    "FROM seen t JOIN empires e ON e.id = t.empire_id WHERE e.game_id <> :g",
                    "e.game_id",
                )
            )
        elif "game_id" in table.columns:
            scopes.append(
                _Scope(name, key, f"FROM {name} t WHERE t.game_id IS NULL OR t.game_id <> :g", "t.game_id")
            )
        else:
            # A table that names no game belongs to no game: nothing in it is the script's business.
            scopes.append(_Scope(name, key, f"FROM {name} t", "NULL"))
    scopes.append(_Scope("alembic_version", ("version_num",), "FROM alembic_version t", "NULL"))
    return scopes


@dataclass
class Fingerprint:
    """Digest of every row outside one game: table → primary key → (owner game id, digest)."""

    game_id: int
    rows: dict[str, dict[tuple[object, ...], tuple[object, bytes]]] = field(default_factory=dict)
    game_names: dict[int, str] = field(default_factory=dict)

    @classmethod
    def take(cls, conn: Connection, game_id: int) -> Fingerprint:
        fp = cls(game_id)
        fp.game_names = {int(i): str(n) for i, n in conn.execute(text("SELECT id, name FROM games"))}
        postgres = conn.dialect.name == "postgresql"
        for scope in _scopes():
            keys = ", ".join(f"t.{k}" for k in scope.key)
            # PostgreSQL hashes each row itself (JSON columns would cost a decode
            # here); SQLite hands over its text and the digest is made here.
            body = "md5(CAST(t AS text))" if postgres else "t.*"
            sql = f"SELECT {keys}, {scope.owner}, {body} {scope.source}"
            table: dict[tuple[object, ...], tuple[object, bytes]] = {}
            width = len(scope.key)
            for row in conn.execute(text(sql), {"g": game_id}):
                key = tuple(row[:width])
                digest = hashlib.blake2b(repr(tuple(row[width + 1 :])).encode(), digest_size=12).digest()
                table[key] = (row[width], digest)
            fp.rows[scope.table] = table
        return fp

    def changes(self, after: Fingerprint) -> list[Violation]:
        """What changed outside the game between ``self`` (before) and ``after``."""
        names = {**after.game_names, **self.game_names}
        out: list[Violation] = []
        for table in sorted(set(self.rows) | set(after.rows)):
            old, new = self.rows.get(table, {}), after.rows.get(table, {})
            verbs: dict[str, list[tuple[object, ...]]] = {
                "added": sorted((k for k in new if k not in old), key=repr),
                "deleted": sorted((k for k in old if k not in new), key=repr),
                "changed": sorted((k for k in old if k in new and old[k] != new[k]), key=repr),
            }
            touched = {k for keys in verbs.values() for k in keys}
            if not touched:
                continue
            owners = {(new.get(k) or old.get(k) or (None, b""))[0] for k in touched}
            whose = sorted("no game" if o is None else f"game {names.get(int(str(o)), o)!r}" for o in owners)
            parts = []
            for verb, keys in verbs.items():
                if keys:
                    shown = ", ".join(_key_text(k) for k in keys[:5]) + (" ..." if len(keys) > 5 else "")
                    parts.append(f"{len(keys)} {verb} ({shown})")
            what = (
                "the audit log may not be edited"
                if table == "audit_log"
                else (
                    "the schema version belongs to migrations"
                    if table == "alembic_version"
                    else f"rows of {', '.join(whose)}"
                )
            )
            out.append(
                Violation(
                    "other_game_changed",
                    f"table {table}: {'; '.join(parts)} - {what}; a script may change only the game it is "
                    "run for",
                )
            )
        return out


def _key_text(key: tuple[object, ...]) -> str:
    return "id " + "/".join(str(k) for k in key)
