"""Hand-built game states for the engine tests (no galaxy generator).

``Builder`` makes tiny galaxies: a few stars on a grid, their planets and
belts (linked to their star automatically), links and empires. ``o()`` makes
typed orders the way the parser would.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from turnproc.orders.orders import Action, Order, Quantity
from turnproc.rules.events import Event
from turnproc.rules.state import (
    MODULES,
    Empire,
    GameSettings,
    GameState,
    System,
    SystemType,
    Tech,
    link_key,
)
from turnproc.rules.turn import resolve

A = Action
T = SystemType


class Builder:
    def __init__(self, modules: Iterable[str] = MODULES, turn: int = 1, **settings: Any) -> None:
        self.systems: dict[int, System] = {}
        self.links: set[tuple[int, int]] = set()
        self.empires: dict[str, Empire] = {}
        self.settings = GameSettings(modules=frozenset(modules), **settings)
        self.turn = turn

    def star(self, code: int, row: int, col: int, type: SystemType = T.YD, **fields: Any) -> System:
        fields.setdefault("ever_owned", fields.get("owner") is not None)
        s = System(code, type, row, col, **fields)
        self.systems[code] = s
        return s

    def planet(self, code: int, star: int, type: SystemType = T.PL, **fields: Any) -> System:
        fields.setdefault("ever_owned", fields.get("owner") is not None)
        st = self.systems[star]
        s = System(code, type, st.row, st.col, star=star, **fields)
        self.systems[code] = s
        self.links.add(link_key(code, star))
        return s

    def link(self, *codes: int) -> Builder:
        """Link consecutive codes: ``link(101, 102, 103)`` is a chain."""
        for a, b in itertools.pairwise(codes):
            self.links.add(link_key(a, b))
        return self

    def empire(self, code: str, balance: int = 100, treasury: int = 0, **techs: int) -> Empire:
        e = Empire(code, f"Empire {code}", balance=balance, treasury=treasury)
        for name, level in techs.items():
            e.techs[Tech[name.upper()]] = level
        self.empires[code] = e
        return e

    def build(self) -> GameState:
        return GameState(
            turn=self.turn,
            systems=self.systems,
            links=frozenset(self.links),
            empires=self.empires,
            settings=self.settings,
        )


def o(
    action: Action,
    where: int | None = None,
    to: int | None = None,
    n: int | str | None = None,
    *,
    line: int = 1,
    empire: str | None = None,
    tech: Tech | None = None,
    text: str | None = None,
) -> Order:
    """An order as the parser would make it; ``n`` may be an int, "ALL" or "AB-k"."""
    number: Quantity | None
    if n is None:
        number = None
    elif isinstance(n, int):
        number = Quantity(count=n)
    elif n.upper() == "ALL":
        number = Quantity.all()
    else:
        number = Quantity(all_but=int(n.upper().removeprefix("AB-")))
    return Order(line, action, where, to, number, empire, tech, text)


def numbered(*orders: Order) -> list[Order]:
    """Give orders consecutive line numbers, as in a mail."""
    return [Order(i + 1, *_fields(order)) for i, order in enumerate(orders)]


def _fields(order: Order) -> tuple[Any, ...]:
    return (order.action, order.where, order.to, order.number, order.empire, order.tech, order.text)


def run(
    state: GameState, orders: Mapping[str, Sequence[Order]] | None = None, seed: int = 1
) -> tuple[GameState, list[Event]]:
    """Resolve one turn with a fixed seed; orders get line numbers."""
    given = {code: numbered(*os) for code, os in (orders or {}).items()}
    return resolve(state, given, random.Random(seed))


def kinds(events: Iterable[Event], kind: str, empire: str | None = None) -> list[Event]:
    return [e for e in events if e.kind == kind and (empire is None or e.empire == empire)]


def order_events(events: Iterable[Event], empire: str | None = None) -> list[dict[str, Any]]:
    return [e.data for e in kinds(events, "order", empire)]


def one(events: Iterable[Event], kind: str, empire: str | None = None) -> dict[str, Any]:
    found = kinds(events, kind, empire)
    assert len(found) == 1, f"expected one {kind} event, got {found}"
    return found[0].data


def duel(modules: Iterable[str] = (), **kw: Any) -> Builder:
    """Two empires on a chain 101–102–103–104–105 of yellow dwarfs.

    ABC owns 101 and 102, XYZ owns 104 and 105; 103 is unowned. Each owned
    system has pop 5, industry 5. Modules off unless given.
    """
    b = Builder(modules=modules, **kw)
    b.empire("ABC")
    b.empire("XYZ")
    for i, code in enumerate((101, 102, 103, 104, 105)):
        owner = "ABC" if code < 103 else "XYZ" if code > 103 else None
        pop = 5 if owner else 0
        b.star(code, 0, i * 2, owner=owner, pop=pop, industry=pop)
    b.link(101, 102, 103, 104, 105)
    return b


def rng(seed: int = 1) -> random.Random:
    return random.Random(seed)


class Dice(random.Random):
    """A Random whose ``randint`` calls return scripted values (d6 rolls, d100
    rolls ...). Strict: a ``randint`` beyond the script fails the test, so a
    test also proves how many dice were drawn; otherwise it falls back to the
    seeded generator."""

    def __init__(
        self, rolls: Sequence[int], seed: int = 1, strict: bool = True, choices: Sequence[Any] = ()
    ) -> None:
        super().__init__(seed)
        self.script = list(rolls)
        self.strict = strict
        self.picks = list(choices)

    def choice(self, seq: Any) -> Any:
        if self.picks:
            value = self.picks.pop(0)
            assert value in seq, f"scripted choice {value} not among {seq}"
            return value
        assert not self.strict, "unscripted choice()"
        return super().choice(seq)

    def randint(self, a: int, b: int) -> int:
        if self.script:
            value = self.script.pop(0)
            assert a <= value <= b, f"scripted {value} outside {a}..{b}"
            return value
        assert not self.strict, f"unscripted randint({a}, {b})"
        return super().randint(a, b)


def run_with(
    state: GameState,
    orders: Mapping[str, Sequence[Order]],
    rolls: Sequence[int],
    seed: int = 1,
    strict: bool = True,
) -> tuple[GameState, list[Event]]:
    """Resolve one turn with scripted ``randint`` results; all must be used."""
    given = {code: numbered(*os) for code, os in orders.items()}
    dice = Dice(rolls, seed, strict)
    result = resolve(state, given, dice)
    assert not dice.script, f"scripted rolls not used: {dice.script}"
    return result
