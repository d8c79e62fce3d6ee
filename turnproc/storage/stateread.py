"""A game's state read into the rules' dataclasses over the DB-API alone.

The one reader of the state's tables (empires, systems, forces, links,
seen): ``convert.load_state`` hands it the session's own connection in its
transaction (:func:`turnproc.storage.queries.plain_reader`), and ``report``
before turn 1 hands it :mod:`.plainread`'s read-only connection, so the GM's
prompt builds a start-of-game report without loading SQLAlchemy (most of a
second in a cold process, ``benchmarks/cli.py``). The columns that hold the
rules' fields are named once, in :mod:`.columns`, for this reader, for
``convert``'s writer and for the model's constraints.

Each value is read as the ORM's column types read it: SQLite holds a
boolean as 0 or 1 and JSON as text, which are turned into ``bool`` and a
list here, as SQLAlchemy's ``Boolean`` and ``JSON`` would.
"""

from __future__ import annotations

from ..rules.state import Empire, GameSettings, GameState, Stance, System, SystemType, Tech
from .columns import EMPIRE_FIELDS, SYSTEM_FIELDS, TECH_COLUMNS
from .plainread import Reader

__all__ = [
    "settings_from",
    "read_state",
]

_BOOLEAN_EMPIRE_FIELDS = frozenset({"active"})
# Enum members by stored value: a dict lookup is much cheaper than calling
# the enum, which counts when reading tens of thousands of systems.
_TYPES = {t.value: t for t in SystemType}
_STANCES = {t.value: t for t in Stance}
_NO_FORCES = (0, 0, 0)
_TECHS = tuple((Tech(t), col) for t, col in TECH_COLUMNS.items())


def settings_from(modules: str | None, turn_limit: int, vp_target: int, ruleset: int) -> GameSettings:
    """A game's settings from its row's columns (``modules`` comma-separated)."""
    chosen = frozenset(x.strip() for x in (modules or "").split(",") if x.strip())
    return GameSettings(modules=chosen, turn_limit=turn_limit, vp_target=vp_target, ruleset=ruleset)


def read_state(
    reader: Reader, game_id: int, *, turn: int, settings: GameSettings, finished: bool
) -> GameState:
    """The game as the rules see it, one statement a table, each fetched whole.
    The game row's own fields come from the caller, who has read it."""
    empires: dict[str, Empire] = {}
    code_of: dict[int, str] = {}
    tech_columns = ", ".join(col for _, col in _TECHS)
    for eid, code, probes, *rest in reader.rows(
        f"SELECT id, code, inactive_probes, {', '.join(EMPIRE_FIELDS)}, {tech_columns} "
        "FROM empires WHERE game_id = ? ORDER BY code",
        game_id,
    ):
        fields = dict(zip(EMPIRE_FIELDS, rest))
        for name in _BOOLEAN_EMPIRE_FIELDS:
            fields[name] = bool(fields[name])
        techs = {tech: level for (tech, _), level in zip(_TECHS, rest[len(EMPIRE_FIELDS) :])}
        empires[code] = Empire(
            code=code,
            techs=techs,
            inactive_probes=tuple(int(c) for c in reader.json(probes) or ()),
            **fields,
        )
        code_of[eid] = code

    forces: dict[int, tuple[int, int, int]] = {
        system_id: (cruisers, fighters, colony)
        for system_id, cruisers, fighters, colony in reader.rows(
            "SELECT f.system_id, f.cruisers, f.fighters, f.colony_ships FROM forces f "
            "JOIN systems s ON s.id = f.system_id WHERE s.game_id = ?",
            game_id,
        )
    }

    systems: dict[int, System] = {}
    code_of_system: dict[int, int] = {}
    # Unpacked in the order of SYSTEM_FIELDS (a field added there and not
    # here fails loudly) and passed by position in the order of System's
    # fields: a dict per row and ** cost three times the System itself, and
    # names twice what positions do (at 30,000 systems, 80 ms against 30).
    for (
        sid,
        code,
        owner_id,
        type_,
        row,
        col,
        star,
        name,
        pop,
        industry,
        stance,
        stance_target,
        retreat_parts,
        ever_owned,
        home_slot,
    ) in reader.rows(
        f"SELECT id, code, owner_id, {', '.join(SYSTEM_FIELDS)} FROM systems WHERE game_id = ?", game_id
    ):
        cruisers, fighters, colony = forces.get(sid, _NO_FORCES)
        systems[code] = System(
            code,
            _TYPES[type_],
            row,
            col,
            star,
            name,
            code_of.get(owner_id) if owner_id is not None else None,
            pop,
            industry,
            cruisers,
            fighters,
            colony,
            _STANCES[stance],
            stance_target,
            retreat_parts,
            bool(ever_owned),
            bool(home_slot),
        )
        code_of_system[sid] = code

    # Both drivers give each row as a tuple: the (a, b) the rules keep.
    links = frozenset(reader.rows("SELECT a, b FROM links WHERE game_id = ?", game_id))
    seen: dict[str, set[int]] = {code: set() for code in empires}
    for empire_id, system_id in reader.rows(
        "SELECT v.empire_id, v.system_id FROM seen v JOIN empires e ON e.id = v.empire_id "
        "WHERE e.game_id = ?",
        game_id,
    ):
        seen[code_of[empire_id]].add(code_of_system[system_id])

    return GameState(
        turn=turn,
        systems=systems,
        links=links,
        empires=empires,
        settings=settings,
        seen=seen,
        finished=finished,
    )
