"""The one place the tests build games, empires and order mails.

Everything here that touches the application goes through the few imports at
the top, so a rename in ``turnproc`` is one edit in this file.

- :func:`two_empire_state` / :func:`make_game`: the small fixed game with known
  codes and password: RIG holds 101 (BASE, 5 cruisers) with planet 102 (HOME)
  and 103 (3 cruisers); VEG holds 201 with planet 202; 104 is free. The example
  scripts in deploy/admin/ name these codes, so they run on it unchanged.
- :func:`make_generated_game`: a generated galaxy with empires added the GM's way.
- :func:`migrate_database`: the schema, the way ``turnproc db upgrade`` makes it.
- :func:`order_mail`: a player's mail as raw bytes, the way a mail client sends it.
"""

from __future__ import annotations

import functools
from email.message import EmailMessage
from email.utils import make_msgid

from sqlalchemy.orm import Session

from turnproc.accounts.passwords import hash_password
from turnproc.app import App, open_app
from turnproc.config import Config, ImapConfig, SmtpConfig
from turnproc.games.game import add_empire, new_game
from turnproc.rules.state import Empire, GameSettings, GameState, System, SystemType, link_key
from turnproc.storage import migrate
from turnproc.storage import models as m
from turnproc.storage.convert import save_state
from turnproc.storage.db import make_engine, transaction

PASSWORD = "sesame"
EMAILS = {"RIG": "ann@example.org", "VEG": "bo@example.org"}
HOST_ADDRESS = "turns@turnproc.example"


def migrate_database(url: str) -> None:
    """Bring the database at ``url`` to the newest migration (conftest's templates)."""
    engine = make_engine(url)
    try:
        migrate.upgrade(engine)
    finally:
        engine.dispose()


@functools.cache
def password_hash(password: str = PASSWORD) -> str:
    """A real scrypt hash of ``password``, made once per test session: building a
    game then costs no key derivation, while every login still verifies one."""
    return hash_password(password)


def two_empire_state() -> GameState:
    """RIG and VEG on the chain 102-101-103-104-201-202 (turn 1)."""
    Y, R, P = SystemType.YD, SystemType.RD, SystemType.PL
    systems = [
        System(
            101,
            Y,
            0,
            0,
            owner="RIG",
            pop=2,
            industry=2,
            cruisers=5,
            fighters=2,
            colony_ships=1,
            ever_owned=True,
            home_slot=True,
        ),
        System(102, P, 0, 0, star=101, owner="RIG", pop=20, industry=10, fighters=2, ever_owned=True),
        System(103, R, 0, 2, owner="RIG", cruisers=3, ever_owned=True),
        System(104, Y, 2, 2),
        System(
            201,
            Y,
            3,
            4,
            owner="VEG",
            pop=2,
            industry=2,
            cruisers=5,
            fighters=2,
            colony_ships=1,
            ever_owned=True,
            home_slot=True,
        ),
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


def make_game(
    session: Session, name: str = "corpus", emails: dict[str, str] | None = None, **columns: object
) -> m.Game:
    """The two-empire game stored under ``name``; both empires' password is
    :data:`PASSWORD`; ``columns`` set other ``games`` columns (schedule, ...)."""
    state = two_empire_state()
    values: dict[str, object] = {
        "seed": f"{name}-seed",
        "timezone": "Europe/London",
        "schedule": "0 20 * * 5",
    }
    values.update(columns)
    game = m.Game(name=name, **values)
    session.add(game)
    session.flush()
    for code, e in state.empires.items():
        email = (emails or EMAILS)[code]
        session.add(
            m.Empire(game_id=game.id, code=code, name=e.name, email=email, password_hash=password_hash())
        )
    session.flush()
    save_state(session, game, state)
    for key, value in columns.items():  # after the converter, which also writes some columns
        setattr(game, key, value)
    return game


def make_generated_game(
    session: Session, name: str, codes: tuple[str, ...] | list[str], seed: str, **options: object
) -> m.Game:
    """A generated galaxy for ``len(codes)`` players, each code added as an
    empire ``Empire CODE`` of player ``p<i>@example.org``."""
    game, _ = new_game(session, name, players=len(codes), seed=seed, **options)
    for i, code in enumerate(codes):
        add_empire(session, game, code, f"Empire {code}", f"p{i}@example.org")
    return game


def imap_app(
    database_url: str, imap_port: int, smtp_port: int, user: str, password: str, **settings: object
) -> App:
    """The host as it runs in production, on loopback: IMAP in from the test's
    Dovecot, SMTP out to its sink, with the two-empire game in the database."""
    config = Config(
        database_url=database_url,
        transport="imap",
        from_address=f"Host <{HOST_ADDRESS}>",
        imap=ImapConfig(host="127.0.0.1", port=imap_port, security="plain", user=user, password=password),
        smtp=SmtpConfig(host="127.0.0.1", port=smtp_port, security="plain"),
        **settings,  # type: ignore[arg-type]
    )
    app = open_app(config)
    with transaction(app.sessions) as session:
        make_game(session)
    return app


def order_mail(
    body: str,
    *,
    game: str = "corpus",
    empire: str = "RIG",
    password: str = PASSWORD,
    turn: int | None = None,
    sender: str | None = None,
    subject: str | None = None,
    message_id: str | None = None,
) -> bytes:
    """A plain-text mail ``GAME game / EMPIRE empire password [/ TURN turn] / body``
    from the empire's player to the host; a fresh Message-ID unless given."""
    msg = EmailMessage()
    msg["From"] = sender or EMAILS[empire]
    msg["To"] = HOST_ADDRESS
    msg["Subject"] = subject or f"orders {empire}"
    msg["Message-ID"] = message_id or make_msgid(domain="players.example")
    header = f"GAME {game}\nEMPIRE {empire} {password}\n" + (f"TURN {turn}\n" if turn is not None else "")
    msg.set_content(f"{header}{body}\n")
    return msg.as_bytes()
