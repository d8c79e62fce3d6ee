"""A small fixed game for the mail tests: codes and the password are known."""

from __future__ import annotations

from sqlalchemy.orm import Session

from turnproc.passwords import hash_password
from turnproc.rules.state import Empire, GameSettings, GameState, System, SystemType, link_key
from turnproc.storage import models as m
from turnproc.storage.convert import save_state

PASSWORD = "sesame"
EMAILS = {"RIG": "ann@example.org", "VEG": "bo@example.org"}


def corpus_state() -> GameState:
    def star(code: int, row: int, col: int, kind: SystemType = SystemType.YD, **kw: object) -> System:
        return System(code=code, type=kind, row=row, col=col, **kw)  # type: ignore[arg-type]

    systems = [
        star(101, 0, 0, owner="RIG", pop=2, industry=2, cruisers=5, fighters=2, colony_ships=1, ever_owned=True, home_slot=True),
        System(code=102, type=SystemType.PL, row=0, col=0, star=101, owner="RIG", pop=20, industry=10, fighters=2, ever_owned=True),
        star(103, 0, 1),
        star(104, 1, 2, SystemType.RD),
        star(201, 3, 3, owner="VEG", pop=2, industry=2, cruisers=5, fighters=2, colony_ships=1, ever_owned=True, home_slot=True),
        System(code=202, type=SystemType.PL, row=3, col=3, star=201, owner="VEG", pop=20, industry=10, fighters=2, ever_owned=True),
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


def make_corpus_game(session: Session, name: str = "corpus") -> m.Game:
    state = corpus_state()
    game = m.Game(name=name, seed="corpus-seed", timezone="Europe/London", schedule="0 20 * * 5")
    session.add(game)
    session.flush()
    hashed = hash_password(PASSWORD)
    for code, e in state.empires.items():
        session.add(m.Empire(game_id=game.id, code=code, name=e.name, email=EMAILS[code], password_hash=hashed))
    session.flush()
    save_state(session, game, state)
    return game
