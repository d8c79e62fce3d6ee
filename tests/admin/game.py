"""The games the GM-tool tests edit: ``spring26`` with the codes the example
scripts in deploy/admin/ name (so they run there unchanged), ``autumn`` as
the other game a stray script must not touch, and helpers to dump a database."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Engine, inspect, text
from sqlalchemy.orm import Session

from turnproc.passwords import hash_password
from turnproc.rules.state import (
    Empire,
    GameSettings,
    GameState,
    System,
    SystemType,
    link_key,
)
from turnproc.storage import models as m
from turnproc.storage.convert import save_state

NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.timezone.utc)
EMAILS = {"RIG": "ann@example.org", "VEG": "bo@example.org"}


def spring_state() -> GameState:
    """RIG holds 101 (BASE, 5 cruisers) with planet 102 (HOME) and 103 (3 cruisers);
    VEG holds 201 with planet 202; 104 is free. Chain 102-101-103-104-201-202."""
    Y, R, P = SystemType.YD, SystemType.RD, SystemType.PL
    systems = [
        System(101, Y, 0, 0, owner="RIG", pop=2, industry=2, cruisers=5, fighters=2, colony_ships=1, ever_owned=True, home_slot=True),
        System(102, P, 0, 0, star=101, owner="RIG", pop=20, industry=10, fighters=2, ever_owned=True),
        System(103, R, 0, 2, owner="RIG", cruisers=3, ever_owned=True),
        System(104, Y, 2, 2),
        System(201, Y, 3, 4, owner="VEG", pop=2, industry=2, cruisers=5, fighters=2, colony_ships=1, ever_owned=True, home_slot=True),
        System(202, P, 3, 4, star=201, owner="VEG", pop=20, industry=10, fighters=2, ever_owned=True),
    ]
    links = frozenset(link_key(a, b) for a, b in [(101, 102), (101, 103), (103, 104), (104, 201), (201, 202)])
    empires = {
        "RIG": Empire(code="RIG", name="Rigel League", balance=34, treasury=50, base=101, home=102),
        "VEG": Empire(code="VEG", name="Vegan Collective", balance=34, treasury=50, base=201, home=202),
    }
    return GameState(
        turn=1,
        systems={s.code: s for s in systems},
        links=links,
        empires=empires,
        settings=GameSettings(),
        seen={"RIG": {101, 102, 103, 104}, "VEG": {201, 202, 104, 103}},
    )


def make_game(session: Session, name: str = "spring26", emails: dict[str, str] | None = None) -> m.Game:
    state = spring_state()
    game = m.Game(name=name, seed=f"{name}-seed", timezone="Europe/London", schedule="0 20 * * 5")
    session.add(game)
    session.flush()
    hashed = hash_password("sesame")
    for code, e in state.empires.items():
        email = (emails or EMAILS)[code]
        session.add(m.Empire(game_id=game.id, code=code, name=e.name, email=email, password_hash=hashed))
    session.flush()
    save_state(session, game, state)
    return game


def dump(engine: Engine, *, skip: tuple[str, ...] = ()) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, in primary-key order: two equal dumps mean an
    unchanged database (as far as data goes)."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    names = sorted(set(inspect(engine).get_table_names()) - set(skip))
    with engine.connect() as conn:
        for name in names:
            table = m.Base.metadata.tables.get(name)
            order = ", ".join(c.name for c in table.primary_key.columns) if table is not None else "1"
            out[name] = [tuple(r) for r in conn.execute(text(f"SELECT * FROM {name} ORDER BY {order}"))]
    return out
