"""The host's own mails sent back to it: a welcome forwarded with the orders
written into its form, a welcome, a report or an acknowledgement pasted above,
below or between the player's lines. Only the player's lines are read; a copy of
the host's mail gives no orders, no press and no password (docs/orders.md,
"Copies of the host's mails"). Through the real intake, on SQLite and PostgreSQL;
every copy is a mail the host really made.
"""

from __future__ import annotations

import datetime as dt
import mailbox
import re
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.mailrows import with_bodies
from turnproc.accounts.passwordkey import load_key
from turnproc.app import App, open_app
from turnproc.config import Config
from turnproc.games.game import add_empire, new_game
from turnproc.intake import poll_maildir
from turnproc.outgoing.welcome import Welcome, send_welcomes
from turnproc.storage import models as m
from turnproc.storage.db import transaction

NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.timezone.utc)
ANN = "ann@example.org"
HOST = "turns@host.example"


@pytest.fixture
def app(db_url: str, tmp_path: Path) -> Iterator[App]:
    config = Config(
        database_url=db_url,
        maildir_in=tmp_path / "in",
        maildir_out=tmp_path / "out",
        from_address=f"Star Chase host <{HOST}>",
        site_url="https://games.example.org/starchase/",
    )
    app = open_app(config)
    yield app
    app.close()


def _welcome(app: App) -> tuple[str, str]:
    """A new game with Ann's empire RIG: (the welcome mail's text, her password)."""
    with transaction(app.sessions) as session:
        game, _ = new_game(session, "g4", players=4, seed="s")
        empire, password = add_empire(session, game, "RIG", "Rigel League", ANN)
        send_welcomes(session, app.config, game, [Welcome(empire, password)], NOW)
    [mail] = _outbox(app)
    return _text(mail), password


def _outbox(app: App, since: int = 0) -> list[m.OutboxMail]:
    with app.sessions() as session:
        rows = list(
            session.scalars(select(m.OutboxMail).where(m.OutboxMail.id > since).order_by(m.OutboxMail.id))
        )
        return with_bodies(session, rows, app.config.from_address, app.config.site_url, load_key(app.config))


def _last_id(app: App) -> int:
    with app.sessions() as session:
        return session.scalar(select(m.OutboxMail.id).order_by(m.OutboxMail.id.desc()).limit(1)) or 0


def _text(mail: m.OutboxMail) -> str:
    msg = message_from_bytes(mail.body, policy=policy.default)
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def _send(app: App, text: str, subject: str = "orders") -> str:
    """Ann's mail through the intake; the text of the acknowledgement."""
    before = _last_id(app)
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = ANN, HOST, subject
    msg["Message-ID"] = make_msgid(domain="players.example")
    msg.set_content(text)
    mailbox.Maildir(app.config.maildir_in, create=True).add(msg.as_bytes())
    poll_maildir(app, NOW)
    acks = [mail for mail in _outbox(app, before) if mail.kind == "ack"]
    assert len(acks) == 1, [mail.kind for mail in _outbox(app, before)]
    return _text(acks[0])


def _on_file(app: App) -> list[str]:
    with app.sessions() as session:
        row = session.scalar(
            select(m.OrderSet).where(m.OrderSet.active.is_(True)).order_by(m.OrderSet.id.desc())
        )
        return [] if row is None else list(row.lines)


def _fill_form(text: str, password: str, orders: list[str]) -> str:
    """The player writes her password and orders into the form of the copy."""
    filled = text.replace("EMPIRE RIG <password>\nTURN 1\n# Put", f"EMPIRE RIG {password}\nTURN 1\n# Put", 1)
    filled = re.sub(r"\nEND\n", "\n" + "\n".join(orders) + "\nEND\n", filled, count=1)
    assert filled != text
    return filled


def test_the_welcome_example_holds_no_password_and_its_figures_are_the_empires(app: App) -> None:
    welcome, password = _welcome(app)
    assert password not in welcome.split("Your password:", 1)[1].split("\n", 1)[1]
    assert "EMPIRE RIG <password>" in welcome and "MESSAGE ALL Greetings from the Rigel League!" in welcome
    # The figures the acknowledgement works with (the empire's purses) are the welcome's.
    ack = _send(app, f"GAME g4\nEMPIRE RIG {password}\nTAX\nEND\n")
    assert "your balance of 34 BP" in ack and "your treasury of 50 BP" in ack
    assert "Balance for turn 1:  34 BP" in welcome and "Treasury:            50 BP" in welcome
    assert "# Balance 34 BP, treasury 50 BP" in welcome
    # Where the rules are: the game's pages under site_url.
    assert "The rulebook:        https://games.example.org/starchase/g4/rules.html" in welcome


def test_a_forwarded_welcome_with_the_form_filled_in_gives_only_her_orders(app: App) -> None:
    """The case a player met: the welcome forwarded with her password and three
    orders written into its order form. The welcome's example (a build and a
    greeting to everyone) is the host's, never her orders or her press."""
    welcome, password = _welcome(app)
    mine = ["NEWCRS 118 2", "MOVE 117 105 2", "TAX"]
    mail = (
        "My orders, in the form.\n\n---------- Forwarded message ---------\n"
        f"From: Star Chase host <{HOST}>\nDate: Mon, 30 Nov 2026 at 12:00\nSubject: Welcome\nTo: <{ANN}>\n\n"
        + _fill_form(welcome, password, mine)
    )
    ack = _send(app, mail, subject="Fwd: [g4] Welcome to Star Chase")
    assert _on_file(app) == mine
    assert "Greetings" not in "".join(_on_file(app)) and "ERROR" not in ack
    assert "Orders received for game g4, empire RIG, turn 1." in ack


@pytest.mark.parametrize("where", ["above", "below", "between"])
def test_a_pasted_welcome_gives_nothing_wherever_it_sits(app: App, where: str) -> None:
    welcome, password = _welcome(app)
    header = f"GAME g4\nEMPIRE RIG {password}\n"
    if where == "above":
        mail = welcome + "\n" + header + "TAX\nEND\n"
        expected = ["TAX"]
    elif where == "below":
        mail = header + "TAX\n\n" + welcome
        expected = ["TAX"]
    else:
        mail = header + "TAX\n\n" + welcome + "\nBUILD 118 1\nEND\n"
        expected = ["TAX", "BUILD 118 1"]
    ack = _send(app, mail)
    assert _on_file(app) == expected
    assert "ERROR" not in ack and "a copy of a mail from the host" in ack


def test_a_pasted_report_and_a_pasted_acknowledgement_give_nothing(app: App) -> None:
    _, password = _welcome(app)
    header = f"GAME g4\nEMPIRE RIG {password}\n"
    first = _send(app, header + "NEWCRS 118 1\nMESSAGE ALL hello from Ann\nEND\n")
    before = _last_id(app)
    _send(app, header + "REPORT 0\n")
    [report] = [mail for mail in _outbox(app, before) if mail.kind == "report_copy"]
    report_text = _text(report)
    assert "The rulebook:        https://games.example.org/starchase/g4/rules.html" in report_text

    # The acknowledgement pasted between her lines: its table and "Orders now on
    # file" list (NEWCRS, MESSAGE) are the host's words, not orders.
    ack = _send(app, header + "TAX\n\n" + first + "\nBUILD 118 1\nEND\n")
    assert _on_file(app) == ["TAX", "BUILD 118 1"] and "ERROR" not in ack
    # The report pasted above her lines, and (Outlook) below them.
    ack = _send(app, report_text + "\n" + header + "GROW 118 1\nEND\n")
    assert _on_file(app) == ["GROW 118 1"] and "ERROR" not in ack
    ack = _send(app, header + "GROW 117 1\n\n" + report_text)
    assert _on_file(app) == ["GROW 117 1"] and "ERROR" not in ack
    # Her orders written into the pasted report's form, with her password there.
    ack = _send(app, "see below\n\n" + _fill_form(report_text, password, ["BUILD 117 1"]))
    assert _on_file(app) == ["BUILD 117 1"] and "ERROR" not in ack


def test_a_quoted_welcome_and_an_outlook_copy_give_nothing(app: App) -> None:
    welcome, password = _welcome(app)
    header = f"GAME g4\nEMPIRE RIG {password}\n"
    quoted = "\n".join("> " + line for line in welcome.splitlines())
    ack = _send(app, header + "TAX\n\nOn Mon, 30 Nov 2026 at 12:00, Star Chase host wrote:\n" + quoted + "\n")
    assert _on_file(app) == ["TAX"] and "ERROR" not in ack
    outlook = (
        f"-----Original Message-----\nFrom: {HOST}\nSent: Monday, 30 November 2026 12:00\n"
        "Subject: Welcome\n\n"
    )
    ack = _send(app, header + "BUILD 118 1\n\n" + outlook + welcome)
    assert _on_file(app) == ["BUILD 118 1"] and "ERROR" not in ack


# -- every mail the host writes a player starts a copy -------------------------------

_FIRST_LINES = [
    ("welcome", {"why": "new"}),
    ("welcome", {"why": "password"}),
    ("welcome", {"why": "replace"}),
    (
        "welcome",
        {
            "why": "new",
            "report": "STAR CHASE - game g4 - turn 0 report\n\n== Order form for turn 1 ==\nGAME g4\n"
            "EMPIRE RIG <password>\nTURN 1\n# Put your password in place of <password>\n\nEND\n",
        },
    ),
    ("ack", {"outcome": "accepted"}),
    ("ack", {"outcome": "cleared"}),
    ("ack", {"outcome": "commands"}),
    ("ack", {"outcome": "unchanged"}),
    ("ack", {"outcome": "older"}),
    ("ack", {"outcome": "rejected", "reason": "no"}),
    ("help", {}),
    ("reminder", {}),
    ("deadline_changed", {}),
    ("announcement", {}),
    ("address_confirm", {}),
    ("address_changed", {}),
    ("signup_received", {"code": "RIG"}),
    ("signup_refused", {"code": "RIG"}),
    ("bulletin", {}),
]


@pytest.mark.parametrize(
    "kind, context", _FIRST_LINES, ids=lambda v: v if isinstance(v, str) else "-".join(map(str, v.values()))
)
def test_every_mail_to_a_player_is_known_by_its_first_line(kind: str, context: dict[str, str]) -> None:
    """mailshape's patterns of the host's first lines, held to the templates: each
    mail, pasted above a player's orders, is skipped whole and the orders are read."""
    import jinja2

    from turnproc.orders.parser import parse_mail
    from turnproc.reports.render import environment
    from turnproc.runtime.resources import templates_dir

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(templates_dir() / "mail"), str(templates_dir())]),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    links = {
        "site": "https://example.org/g4/",
        "rules": "https://example.org/g4/rules.html",
        "orders": "o",
        "gm": "",
    }
    example = (
        "GAME g4\nEMPIRE RIG <password>\nTURN 3\n\nNEWCRS 101 1\nMESSAGE ALL Greetings from the Rigel League!"
    )
    values = {
        "example": example,
        "report": "",
        "game": "g4",
        "empire": "RIG",
        "empire_name": "Rigel League",
        "turn": 3,
        "links": links,
        **context,
    }
    env.filters.update(environment().filters)
    text = env.get_template(f"{kind}/body.txt").render(values)
    # Right under the copy, without a blank line between.
    parsed = parse_mail(text + "GAME g4\nEMPIRE RIG sesame\nTAX\nEND\n")
    assert [o.action.value for o in parsed.orders] == ["TAX"] and parsed.header.password == "sesame"
    first = next(i for i, line in enumerate(text.splitlines(), 1) if line.strip())
    assert parsed.skipped[0].first_line == first and parsed.skipped[0].reason.value == "host_report", (
        parsed.skipped
    )


def test_the_html_report_read_as_text_gives_nothing(app: App) -> None:
    """A mail program that turns the HTML report into text (its title and rank
    line, the form in its <pre>, the links under it) pasted between her lines."""
    from turnproc.mail.mime import html_to_text

    _, password = _welcome(app)
    header = f"GAME g4\nEMPIRE RIG {password}\n"
    before = _last_id(app)
    _send(app, header + "REPORT 0\n")
    [report] = [mail for mail in _outbox(app, before) if mail.kind == "report_copy"]
    part = message_from_bytes(report.body, policy=policy.default).get_body(preferencelist=("html",))
    assert part is not None
    shown = html_to_text(str(part.get_content()))
    assert shown.splitlines()[-2] == "The game's site: https://games.example.org/starchase/g4/"
    assert shown.splitlines()[-1].startswith("The order desk (your orders on a map")
    ack = _send(app, header + "TAX\n\n" + shown + "\n\nBUILD 118 1\nEND\n")
    assert _on_file(app) == ["TAX", "BUILD 118 1"] and "ERROR" not in ack
