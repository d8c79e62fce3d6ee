"""``turnproc demo``: a whole game cycle on the embedded default, no servers.

It creates a game in a directory (SQLite file + local Maildir), writes a turn
of order mails into the inbox in the shapes real mail clients send, and then
runs exactly what production runs: intake, the turn, the reports, the outbox.
With ``turns`` > 1 simple scripted players read their JSON report and write
the next turn's orders, so a newcomer can watch a game unfold.
"""

from __future__ import annotations

import datetime as dt
import logging
import shutil
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path

from ..app import App, open_app
from ..config import Config
from ..games.game import add_empire, new_game
from ..intake import Outcome, poll
from ..mail.maildir import MaildirInbox
from ..outgoing.reportmail import send_outbox
from ..reports.schema import ReportContext, upgrade_report
from ..storage.db import transaction
from ..storage.queries import get_empire, get_game
from ..turns.run import report_for, run_turn

log = logging.getLogger(__name__)

__all__ = ["run_demo", "DEMO_PLAYERS", "demo_config"]

MARKER = ".turnproc-demo"
GAME = "demo"

DEMO_PLAYERS: list[tuple[str, str, str, str]] = [
    # code, empire name, player, mail client the player uses
    ("RIG", "Rigel League", "Ann Rigg <ann@example.org>", "thunderbird"),
    ("VEG", "Vegan Collective", "Bo Vega <bo.vega@gmail.example>", "gmail"),
    ("ORI", "Orion Syndicate", "Céline Orion <celine@outlook.example>", "outlook"),
    ("SOL", "Sol Commonwealth", "Dev Solanki <dev@icloud.example>", "applemail"),
    ("DEN", "Deneb Dominion", "Eve Denby <eve@example.net>", "thunderbird"),
    ("ALT", "Altair Assembly", "Fox Alto <fox@gmail.example>", "gmail"),
]


@dataclass(frozen=True)
class Player:
    code: str
    name: str
    address: str
    client: str
    password: str


def demo_config(directory: Path) -> Config:
    return Config(
        database_url=f"sqlite:///{directory / 'turnproc.db'}",
        maildir_in=directory / "mail" / "in",
        maildir_out=directory / "mail" / "out",
        from_address="Star Chase host <turns@turnproc.example>",
        source="<demo>",
    )


def _prepare(directory: Path) -> None:
    if directory.exists() and any(directory.iterdir()):
        if not (directory / MARKER).exists():
            raise FileExistsError(
                f"{directory} is not empty and is not a turnproc demo; choose another --dir"
            )
        shutil.rmtree(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / MARKER).write_text("made by `turnproc demo`; the next demo run replaces this folder\n")


# -- order mails as real clients send them -----------------------------------------------


def order_mail(player: Player, text: str, when: dt.datetime, turn: int) -> bytes:
    """The orders ``text`` wrapped the way ``player.client`` would send it."""
    msg = EmailMessage()
    msg["From"] = player.address
    msg["To"] = "turns@turnproc.example"
    msg["Subject"] = f"Orders {GAME} turn {turn}"
    msg["Date"] = format_datetime(when)
    msg["Message-ID"] = make_msgid(domain=player.address.rpartition("@")[2].rstrip(">"))
    if player.client == "gmail":
        # multipart/alternative with an HTML twin, as the Gmail web client sends.
        msg.set_content(text)
        html = '<div dir="ltr">' + "<br>".join(line for line in text.splitlines()) + "</div>"
        msg.add_alternative(html, subtype="html")
    elif player.client == "outlook":
        # HTML only, in windows-1252: the shape that most often goes unanswered elsewhere.
        body = (
            "<html><head><style>p{margin:0}</style></head><body>"
            + "".join(f"<p class=MsoNormal>{line or '&nbsp;'}</p>" for line in text.splitlines())
            + "<p>Regards – Céline</p></body></html>"
        )
        msg.set_content(body.encode("windows-1252"), maintype="text", subtype="html", cte="quoted-printable")
        msg.replace_header("Content-Type", 'text/html; charset="windows-1252"')
    elif player.client == "applemail":
        msg.set_content(text + "\nSent from my iPad\n", cte="quoted-printable")
    else:
        msg.set_content("Hi GM, my orders:\n\n" + text + "\n-- \nAnn\n")
    return bytes(msg)


# -- the scripted players ------------------------------------------------------------------


def scripted_orders(report: ReportContext) -> list[str]:
    """A simple, plausible player that reads only its own JSON report: expand into
    unowned neighbours, attack a weaker visible neighbour, build cruisers at
    BASE with spare BP, grow the home planet, ask a distance, chat now and then."""
    lines: list[str] = []
    owned = {s["code"]: s for s in report["systems"]}
    scouted = {s["code"]: s for s in report["scouting"]}
    balance = report["empire"]["balance"]
    taken: set[int] = set()
    for s in sorted(owned.values(), key=lambda s: (-s["cruisers"], s["code"])):
        spare = s["cruisers"] - (2 if s["pop"] else 0)
        for n in s["links"]:
            target = scouted.get(n)
            if spare < 1 or len(lines) >= 10 or target is None or n in taken:
                continue
            if target["owner"] is None:
                send = min(spare, 2)
            elif target["cruisers"] + target["fighters"] + target["pop"] * 2 + 3 < spare:
                send = spare  # a weak enemy system: go in with everything spare
            else:
                continue
            lines.append(f"MOVE {s['code']} {n} {send}")
            taken.add(n)
            spare -= send
            balance -= 1
    home = report["empire"]["home"]
    if home in owned and owned[home]["pop"] < owned[home]["limit"] and balance >= 8:
        lines.append(f"GROW {home} 2")
        balance -= 8
    base = report["empire"]["base"]
    if base in owned and balance >= 10:
        lines.append(
            f"NEWCRS {base} {min(balance // 10, max(1, min(owned[base]['industry'], owned[base]['pop'])))}"
        )
    stars = sorted(c for c, s in scouted.items() if s["type"] not in ("PL", "AB"))
    if owned and stars and report["turn"] % 2 == 0:
        lines.append(f"DISTSQ {min(owned)} {stars[-1]}")
    if report["turn"] % 3 == 1:
        lines.append("MESSAGE ALL Greetings from the " + report["empire"]["name"])
    return lines


# -- the run ----------------------------------------------------------------------------------


def _player_report(app: App, player: Player) -> ReportContext:
    with app.sessions() as session:
        game = get_game(session, GAME)
        _, data = report_for(session, game, get_empire(session, game, player.code), None)
        return upgrade_report(data)


def run_demo(directory: Path, *, turns: int = 1, players: int = 4, seed: str = "demo") -> str:
    """Play ``turns`` turns of a ``players``-empire demo game in ``directory``;
    returns a short summary naming each empire's report file."""
    if not 1 <= players <= len(DEMO_PLAYERS):
        raise ValueError(f"the demo has 1 to {len(DEMO_PLAYERS)} players")
    directory = directory.resolve()
    _prepare(directory)
    app = open_app(demo_config(directory))
    roster: list[Player] = []
    with transaction(app.sessions) as session:
        game, _ = new_game(session, GAME, players=players, seed=seed)
        for code, name, address, client in DEMO_PLAYERS[:players]:
            email = address.rpartition("<")[2].rstrip(">")
            _, password = add_empire(session, game, code, name, email)
            roster.append(Player(code, name, address, client, password))

    inbox = MaildirInbox(app.config.maildir_in).box
    clock = dt.datetime(2026, 1, 5, 18, 0, tzinfo=dt.timezone.utc)
    lines_out: list[str] = [f"demo game in {directory}"]
    reports_dir = directory / "reports"
    reports_dir.mkdir(exist_ok=True)
    for _ in range(turns):
        with app.sessions() as session:
            game = get_game(session, GAME)
            turn, finished = game.turn, game.status == "finished"
        if finished:
            lines_out.append("the game is over")
            break
        for i, player in enumerate(roster):
            orders = scripted_orders(_player_report(app, player))
            text = "\n".join(
                [f"GAME {GAME}", f"EMPIRE {player.code} {player.password}", f"TURN {turn}", *orders, "END"]
            )
            inbox.add(order_mail(player, text, clock + dt.timedelta(minutes=i), turn))
        results = poll(app, clock + dt.timedelta(hours=1))
        with transaction(app.sessions) as session:
            result = run_turn(session, get_game(session, GAME), app.config, clock + dt.timedelta(hours=2))
        sent, failed = send_outbox(app.sessions, app.config, clock + dt.timedelta(hours=2))
        accepted = sum(1 for r in results if r.outcome is Outcome.ACCEPTED)
        lines_out.append(
            f"turn {result.turn}: {accepted}/{len(roster)} order mails accepted, "
            f"{result.events} events, {sent} mails sent"
        )
        for code in sorted(result.reports):
            text = result.report_text(code)
            (reports_dir / f"turn{result.turn:02d}-{code}.txt").write_text(text, encoding="utf-8")
        clock += dt.timedelta(days=1)

    with app.sessions() as session:
        game = get_game(session, GAME)
        standings = sorted(game.empires, key=lambda e: (-e.vp, e.code))
        last = game.turn - 1
    lines_out.append("standings: " + ", ".join(f"{e.code} {e.vp} VP" for e in standings))
    lines_out.append("reports:")
    for player in roster:
        lines_out.append(
            f"  {player.code} {player.name}: {reports_dir / f'turn{last:02d}-{player.code}.txt'}"
        )
    lines_out.append(f"mail sent to players: {app.config.maildir_out}/new/")
    lines_out.append(f"look around: turnproc --config {directory / 'turnproc.toml'} game show {GAME}")
    (directory / "turnproc.toml").write_text(
        f'database_url = "sqlite:///{directory / "turnproc.db"}"\n'
        f'maildir_in = "mail/in"\nmaildir_out = "mail/out"\n'
        f'from_address = "{app.config.from_address}"\n',
        encoding="utf-8",
    )
    app.close()
    return "\n".join(lines_out)
