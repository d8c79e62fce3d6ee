"""A synthetic Star Chase game for benchmarks: N empires on a generated galaxy
(30 systems each), every empire with 16 plausible actions for turn 1.

The state is built directly as a :class:`GameState` (``generate_galaxy`` +
``place_empire``) and written through the real code path: Game and Empire rows
as ``turnproc.games.game`` makes them, then ``save_state``; orders are parsed by the one
parser and stored as ``OrderSet`` rows the way intake stores them. Only the
per-empire cost of ``gm.add_empire`` is skipped (it loads the whole game and
runs scrypt once per empire, which is setup, not the turn).

    .venv/bin/python -m benchmarks.synthetic 100 /tmp/game.db    # writes a ready game
"""

from __future__ import annotations

import datetime as dt
import random
import sys
from pathlib import Path

from sqlalchemy import insert
from sqlalchemy.orm import Session

from turnproc.accounts.passwords import hash_password
from turnproc.orders.orders import Severity
from turnproc.orders.parser import parse_orders
from turnproc.rules.generate import generate_galaxy, home_planet, place_empire
from turnproc.rules.state import MODULES, GameSettings, GameState, SystemType
from turnproc.storage import models as m
from turnproc.storage.convert import new_game_row, order_set_values, save_state
from turnproc.storage.db import make_engine, make_sessionmaker, transaction
from turnproc.storage.migrate import ensure_schema

__all__ = ["GAME", "empire_code", "synthetic_state", "synthetic_orders", "write_game"]

GAME = "bench"
SYSTEMS_PER_EMPIRE = 30
ACTIONS = 16


def empire_code(i: int) -> str:
    """AAA, AAB, ... (17,576 codes)."""
    return "".join(chr(65 + (i // 26**k) % 26) for k in (2, 1, 0))


def synthetic_state(n: int, seed: str = "bench", ruleset: int = 1) -> GameState:
    """Turn 1 of an ``n``-empire game with every module on, all homes claimed; in
    rule set 2 each empire also has 2 cruisers in the reserve and 2 lost in space."""
    state = generate_galaxy(seed, n, SYSTEMS_PER_EMPIRE, GameSettings(modules=MODULES, ruleset=ruleset))
    for i in range(n):
        place_empire(state, empire_code(i), f"Empire {empire_code(i)}")
        if ruleset >= 2:
            emp = state.empires[empire_code(i)]
            emp.reserve = emp.lost_in_space = 2
    return state


def synthetic_orders(state: GameState, code: str, rng: random.Random) -> str:
    """16 slot-using actions a player might send on turn 1, plus NAME and
    MESSAGE (no slot). Every line parses without error; some may still fail
    in the engine (money runs out), as real orders do."""
    emp = state.empires[code]
    base = emp.base
    assert base is not None
    planet = home_planet(state, base)
    assert planet is not None
    stars = [n for n in state.neighbours(base) if state.systems[n].type is not SystemType.PL]
    rng.shuffle(stars)
    out = stars + [None] * 3
    a, b, c = out[0], out[1], out[2]
    seen = sorted(x for x in state.seen[code] if state.systems[x].is_star and x != base)
    lines = [
        f"MOVE {base} {a} 2" if a else "TAX",
        f"MOVE {base} {b} 1" if b else "TAX",
        f"DISTSQ {base} {rng.choice(seen)}" if seen else "TAX",
        f"NEWCRS {base} 1",
        f"NEWFTR {planet} 2",
        f"BUILD {base} 1",
        f"GROW {base} 1",
        "TAX",
        "STASH 1",
        f"TECH {rng.choice(['DRIVE', 'WEAPONS', 'SCANNER', 'EXPO'])}",
        f"MOVEF {planet} {base} 2",
        f"COLONISE {base} {c}" if c else f"COLONISE {base}",
        rng.choice([f"STANDOFF {planet}", f"DEFEND {base}", f"AMBUSH {base} {a}" if a else "TAX"]),
        f"HOME {planet}",
        "CASH 1",
        f"MOVE {base} {planet} 1",
        f"NAME {base} Capital {code}",
    ]
    if rng.random() < 0.2:
        lines.append(f"MESSAGE ALL Greetings from {code}")
    if state.v2:
        lines = _v2_mix(state, code, lines, base, planet, a)
    return "\n".join(lines)


def _v2_mix(
    state: GameState, code: str, lines: list[str], base: int, planet: int, a: int | None
) -> list[str]:
    """Rule set 2's order mix (rules.md §19): the reserve, recovery, a trade offer
    and a TAKE in every empire's orders, and a probe; still 16 slots."""
    codes = sorted(state.empires)
    i = codes.index(code)
    after, before = codes[(i + 1) % len(codes)], codes[i - 1]
    swaps = {
        7: f"TRADE WEAPONS {after}" if after != code else "TAX",  # was TAX
        8: f"LAYUP {base} 1",  # was STASH 1
        13: f"RESERVE {planet} 1",  # was HOME
        14: f"TAKE WEAPONS {before}" if before != code else "TAX",  # was CASH 1
        15: f"RECOVER {base} 1",  # was MOVE base planet 1
    }
    out = [swaps.get(k, line) for k, line in enumerate(lines)]
    out.append(f"PROBE {a}" if a else f"PROBE {base}")
    return out


def write_game(url: str, state: GameState, seed: str = "bench") -> dict[str, str]:
    """Write ``state`` and every empire's orders to a fresh database at ``url``;
    returns the order texts by empire code."""
    engine = make_engine(url)
    ensure_schema(engine)
    sessions = make_sessionmaker(engine)
    rng = random.Random(f"{seed}-orders")
    texts = {code: synthetic_orders(state, code, rng) for code in sorted(state.empires)}
    now = dt.datetime(2026, 1, 5, 18, 0, tzinfo=dt.timezone.utc)
    try:
        with transaction(sessions) as session:
            game = new_game_row(GAME, seed, state)
            session.add(game)
            session.flush()
            # One scrypt hash for all: gm.add_empire's hash per empire is setup cost.
            password_hash = hash_password("bench-password")
            for code, emp in sorted(state.empires.items()):
                session.add(
                    m.Empire(
                        game_id=game.id,
                        code=code,
                        name=emp.name,
                        email=f"{code.lower()}@bench.example",
                        password_hash=password_hash,
                    )
                )
            session.flush()
            save_state(session, game, state)
            _store_orders(session, game, state, texts, now)
    finally:
        engine.dispose()
    return texts


def _store_orders(
    session: Session, game: m.Game, state: GameState, texts: dict[str, str], now: dt.datetime
) -> None:
    """OrderSet rows as ``storage.convert.store_orders`` writes them (in bulk)."""
    ids = {e.code: e.id for e in game.empires}
    rows = []
    for code, text in sorted(texts.items()):
        parsed = parse_orders(text, state, code)
        errors = [p for p in parsed.problems if p.severity is Severity.ERROR]
        if errors:
            raise ValueError(f"synthetic orders of {code} do not parse: {errors}")
        rows.append(
            {
                "game_id": game.id,
                "empire_id": ids[code],
                "turn": game.turn,
                "raw_text": text,
                "message_id": None,
                "received_at": now,
                "active": True,
                **order_set_values(parsed),
            }
        )
    session.execute(insert(m.OrderSet), rows)


def main() -> None:
    n = int(sys.argv[1])
    path = Path(sys.argv[2])
    state = synthetic_state(n, ruleset=int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    write_game(f"sqlite:///{path}", state)
    print(f"{path}: {n} empires, {len(state.systems)} systems, {len(state.links)} links")


if __name__ == "__main__":
    main()
