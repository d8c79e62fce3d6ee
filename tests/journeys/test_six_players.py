"""A scripted six-player game on real servers: the GM sets it up with
the command line, ``turnproc worker`` runs as a process against Dovecot,
aiosmtpd and PostgreSQL, the players mail their orders over IMAP the way their
mail programs write them, and every mail a player receives is checked against
the game's state: the welcome's figures, each acknowledgement's verdicts
against the turn's outcomes, the pasted welcome and pasted report, the phone's
signature, the subjects, WAIT, the reminder's wording and the GM's notices.

Time is not faked: deadlines pass the way tests/service/test_worker_process.py
makes them pass (a yearly schedule, ``last_deadline_at`` moved back), or by a
hand-set deadline (``deadline_override``), or by ``turn run --yes``.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from imapclient import IMAPClient
from sqlalchemy import Engine, func, select, update

from tests.conftest import IMAP_PASSWORD, IMAP_USER, SmtpSink
from tests.journeys.mailbag import (
    Mail,
    Mailbag,
    gmail,
    iphone,
    on_file,
    outlook,
    plain,
    subject_has,
    subject_is,
    table,
)
from tests.servers import DovecotServer
from tests.service.test_worker_process import Worker, engine  # noqa: F401 - engine is a fixture
from turnproc.app import open_app
from turnproc.config import load_config
from turnproc.service.demo import scripted_orders
from turnproc.storage import models as m
from turnproc.storage.queries import get_empire, get_game
from turnproc.turns.run import report_for

UTC = dt.timezone.utc
GAME = "journey"
GM = "gm@example.org"
HOST = "Star Chase host <turns@turnproc.example>"
YEARLY = "0 3 1 1 *"

#: code, empire name, address, mail program
PLAYERS = [
    ("ALF", "Alfheim Concord", "ann@players.example", plain),
    ("BET", "Betelgeuse League", "bo@gmail.example", gmail),
    ("CAS", "Castor Union", "cy@outlook.example", outlook),
    ("DEN", "Deneb Dominion", "dee@icloud.example", iphone),
    ("ERI", "Eridani Free State", "eve@players.example", plain),
    ("FOX", "Fomalhaut Syndicate", "fox@players.example", plain),
]
CODES = [p[0] for p in PLAYERS]
#: What the player's own report already shows must fail (docs/orders.md,
#: "Orders your report already shows must fail"): the acknowledgement refuses these.
PROVABLE = {
    "not_enemy",
    "not_planet",
    "not_star_from",
    "too_far",
    "bad_distance",
    "beyond_hyperspace",
    "target_owned",
    "own_system",
    "no_reserve",
    "level_too_high",
    "blocked",
    "already_linked",
    "too_many_links",
}


def cli(config: Path, *args: str, stdin: str | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNPROC_")}
    done = subprocess.run(
        [sys.executable, "-m", "turnproc", "--config", str(config), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, f"turnproc {' '.join(args)}: {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def write_config(path: Path, db_url: str, imap_port: int, smtp_port: int) -> Path:
    path.write_text(
        "\n".join(
            [
                f'database_url = "{db_url}"',
                f'from_address = "{HOST}"',
                f'gm_address = "{GM}"',
                "min_turn_interval = 0",
                'transport = "imap"',
                "[imap]",
                'host = "127.0.0.1"',
                f"port = {imap_port}",
                'security = "plain"',
                f'user = "{IMAP_USER}"',
                f'password = "{IMAP_PASSWORD}"',
                "timeout = 5",
                "[smtp]",
                'host = "127.0.0.1"',
                f"port = {smtp_port}",
                'security = "plain"',
                "timeout = 5",
            ]
        )
        + "\n"
    )
    return path


def imap_append(server: DovecotServer, *raws: bytes) -> None:
    client = IMAPClient("127.0.0.1", port=server.port, ssl=False)
    client.login(IMAP_USER, IMAP_PASSWORD)
    for raw in raws:
        client.append("INBOX", raw)
    client.logout()


def distsq(a: dict[str, Any], b: dict[str, Any]) -> int:
    return int((a["row"] - b["row"]) ** 2 + (a["col"] - b["col"]) ** 2)


def must_fail(report: dict[str, Any]) -> list[tuple[str, set[str]]]:
    """Orders the player's own report shows must fail, with the codes the
    acknowledgement may refuse them with: BOMBARD of one's own planet, a DEEP
    beyond Jump, a LINK beyond Hyperspace."""
    emp = report["empire"]
    jump = emp["techs"]["JUMP"]
    stars = {s["code"]: s for s in report["map"]["systems"] if s["type"] not in ("PL", "AB")}
    base = stars[emp["base"]]
    far = sorted(
        (distsq(base, s), c) for c, s in stars.items() if distsq(base, s) > jump and s["owner"] is None
    )
    linkable = sorted(
        (distsq(base, s), c)
        for c, s in stars.items()
        if distsq(base, s) in (1, 2, 4, 9) and s["owner"] is None
    )
    orders = [(f"BOMBARD {emp['base']} {emp['home']}", {"not_enemy"})]
    if far:
        orders.append((f"DEEP {emp['base']} {far[0][1]} 1", {"too_far"}))
    if linkable:
        orders.append(
            (
                f"LINK {emp['base']} {linkable[0][1]}",
                {"beyond_hyperspace", "blocked", "already_linked", "too_many_links"},
            )
        )
    return orders


class Journey:
    def __init__(
        self, config: Path, engine: Engine, imap: DovecotServer, sink: SmtpSink, worker: Worker
    ) -> None:
        self.config, self.engine, self.imap, self.worker = config, engine, imap, worker
        self.bag = Mailbag(sink)
        self.address = {code: addr for code, _, addr, _ in PLAYERS}
        self.name = {code: name for code, name, _, _ in PLAYERS}
        self.client = {code: client for code, _, _, client in PLAYERS}
        self.password: dict[str, str] = {}
        self.welcome: dict[str, str] = {}
        self.reports: dict[tuple[str, int], Mail] = {}
        self.found: list[str] = []  # what the test found wrong, reported at the end

    def alive(self) -> str | None:
        return None if self.worker.alive() else f"the worker died:\n{self.worker.log()[-4000:]}"

    def take(self, code: str, what: str, match: Any, timeout: float = 60) -> Mail:
        return self.bag.take(self.address[code], what, match, self.alive, timeout)

    def turns_run(self) -> int:
        with self.engine.connect() as conn:
            return conn.scalar(select(func.count()).select_from(m.TurnRecord)) or 0

    def wait_turns(self, n: int, timeout: float = 90) -> None:
        end = time.monotonic() + timeout
        while self.turns_run() < n:
            assert time.monotonic() < end, f"turn {n} did not run:\n{self.worker.log()[-4000:]}"
            assert self.alive() is None, self.alive()
            time.sleep(0.2)

    def game_update(self, **values: object) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(m.Game).where(m.Game.name == GAME).values(**values))

    # -- orders ----------------------------------------------------------------

    def header(self, code: str, turn: int) -> str:
        return f"GAME {GAME}\nEMPIRE {code} {self.password[code]}\nTURN {turn}\n"

    def send(self, code: str, subject: str, text: str, client: Any = None) -> Mail:
        """Mail ``text`` as ``code``'s player does; the acknowledgement."""
        raw = (client or self.client[code])(self.address[code], subject, text)
        imap_append(self.imap, raw)
        expected = "Re: " + re.sub(r"^((Re|AW|Fwd|FW):\s*)+", "", subject, flags=re.I)
        ack = self.take(code, f"the answer to {subject!r}", lambda mail: mail.subject.startswith("Re: "))
        assert not ack.subject.startswith("Re: Re:"), ack.subject
        if ack.subject != expected and not subject.lower().startswith("fwd"):
            self.found.append(f"answer to {subject!r} has subject {ack.subject!r}, not {expected!r}")
        return ack

    def report(self, code: str, turn: int, corrected: bool = False) -> Mail:
        subject = f"[{GAME}] Turn {turn} report for {self.name[code]} ({code})" + (
            " (corrected)" if corrected else ""
        )
        mail = self.take(code, f"the turn {turn} report", subject_is(subject))
        assert mail.json is not None and mail.json["turn"] == turn and mail.json["empire"]["code"] == code
        assert f"game {GAME}" in mail.text and f"turn {turn}" in mail.text and f"({code})" in mail.text
        self.reports[(code, turn)] = mail
        return mail


def check_verdicts(code: str, ack: Mail, report: dict[str, Any], refused: dict[int, set[str]]) -> None:
    """The acknowledgement of the mail that is on file, against the report of
    the turn that carried it out: every order the report carried out was OK
    (or a WARNING) in the acknowledgement, no order that failed for a reason
    the player's report already showed was OK, and every line the
    acknowledgement refused is not in the report."""
    rows = table(ack.text)
    assert rows, f"{code}: no table in the acknowledgement:\n{ack.text}"
    accepted = [
        (line, order, verdict)
        for line, (order, verdict) in sorted(rows.items())
        if not verdict.startswith("ERROR")
    ]
    carried = report["orders"]
    assert len(accepted) == len(carried), (
        f"{code}: the acknowledgement accepted {[a[1] for a in accepted]}, the report carried out "
        f"{[o['text'] for o in carried]}"
    )
    for (line, order, verdict), done in zip(accepted, carried):
        assert done["text"].startswith(order), (
            f"{code} line {line}: acknowledged {order!r}, the report carried out {done['text']!r}"
        )
        assert verdict.startswith(("OK", "WARNING")), f"{code} line {line} {order!r}: {verdict!r}"
        if not done["ok"]:
            assert done["reason"] not in PROVABLE, (
                f"{code} line {line} {order!r}: acknowledged {verdict!r}, "
                f"but the turn failed it for {done['reason']!r}, which the player's report already showed"
            )
    for line, codes in refused.items():
        verdict = rows.get(line, ("", ""))[1]
        found = re.match(r"ERROR \[(\w+)\]", verdict)
        assert found and found.group(1) in codes, (
            f"{code} line {line}: expected ERROR {sorted(codes)}, got {verdict!r}\n{ack.text}"
        )
        assert "The turn would fail this order" in verdict


def numbered(text: str) -> dict[str, int]:
    """Each line's number in the mail as its player wrote it (first line 1)."""
    return {line: i for i, line in enumerate(text.splitlines(), 1) if line.strip()}


@pytest.mark.slow
def test_six_players_four_turns(
    db_url: str, engine: Engine, imap: DovecotServer, smtp_server: SmtpSink, tmp_path: Path
) -> None:
    began = time.monotonic()
    config = write_config(tmp_path / "turnproc.toml", db_url, imap.port, smtp_server.port)

    # -- the GM sets the game up -----------------------------------------------
    out = cli(config, "game", "new", GAME, "--players", "6", "--seed", "journey-seed")
    assert f"game {GAME}:" in out
    cli(config, "game", "schedule", GAME, "--cron", YEARLY, "--tz", "UTC", "--reminder-hours", "1")
    for code, name, address, _ in PLAYERS:
        out = cli(config, "empire", "add", GAME, "--code", code, "--name", name, "--email", address)
        assert f"empire {code} added to {GAME} for {address}" in out
    print(f"set up after {time.monotonic() - began:.0f}s")
    worker = Worker(config)
    j = Journey(config, engine, imap, smtp_server, worker)
    try:
        play(j)
    finally:
        status = worker.stop()
    log = worker.log()
    assert status == 0, log
    assert "Traceback" not in log, log
    assert not j.found, "\n".join(j.found)


def play(j: Journey) -> None:
    start: dict[str, dict[str, Any]] = {}
    # -- the welcomes: the password, and figures that are the turn-0 report's --
    for code in CODES:
        welcome = j.take(
            code,
            "the welcome",
            subject_is(f"[{GAME}] Welcome to Star Chase: you play {j.name[code]} ({code})"),
        )
        found = re.search(r"Your password: +(\S+)", welcome.text)
        assert found, welcome.text
        j.password[code] = found.group(1)
        assert welcome.text.count(j.password[code]) == 1, "the password must be written once, in its line"
        start[code] = turn0_report(j.config, code)
        balance, treasury = start[code]["empire"]["balance"], start[code]["empire"]["treasury"]
        assert balance > 0 and treasury > 0
        assert re.search(rf"Balance for turn 1: +{balance} BP", welcome.text), welcome.text
        assert re.search(rf"Treasury: +{treasury} BP", welcome.text), welcome.text
        assert f"# Balance {balance} BP, treasury {treasury} BP" in welcome.text
        assert f"EMPIRE {code} <password>" in welcome.text
        j.welcome[code] = welcome.text

    # Ann asks for the start of the game by mail: REPORT 0 has the welcome's figures.
    answer = j.send("ALF", "report please", f"GAME {GAME}\nEMPIRE ALF {j.password['ALF']}\nREPORT 0\n")
    assert "the report of turn 0 is on its way" in answer.text, answer.text
    copy = j.take("ALF", "REPORT 0", subject_is(f"[{GAME}] Turn 0 report for {j.name['ALF']} (ALF)"))
    assert copy.json is not None
    assert (copy.json["empire"]["balance"], copy.json["empire"]["treasury"]) == (
        start["ALF"]["empire"]["balance"],
        start["ALF"]["empire"]["treasury"],
    )
    figures = f"Balance for turn 1:  {copy.json['empire']['balance']} BP"
    assert figures in j.welcome["ALF"] and figures in copy.text, copy.text

    t0 = time.monotonic()
    turn1(j, start)
    print(f"turn 1 done after {time.monotonic() - t0:.0f}s")
    turn2(j)
    print(f"turn 2 done after {time.monotonic() - t0:.0f}s")
    turn3(j)
    print(f"turn 3 done after {time.monotonic() - t0:.0f}s")
    turn4(j)
    print(f"turn 4 done after {time.monotonic() - t0:.0f}s")
    everyone = [address for _, _, address, _ in PLAYERS] + ["cy@new.example", "gil@players.example"]
    assert j.bag.unclaimed(everyone) == [], "mails to players that no check looked at"


def turn0_report(config: Path, code: str) -> dict[str, Any]:
    """What ``turnproc report GAME CODE --turn 0 --format json`` prints, in-process."""
    app = open_app(load_config(config), migrate=False)
    try:
        with app.sessions() as session:
            game = get_game(session, GAME)
            _, data = report_for(session, game, get_empire(session, game, code), 0)
            loaded: dict[str, Any] = json.loads(json.dumps(data))
            return loaded
    finally:
        app.close()


def first_orders(
    j: Journey, code: str, report: dict[str, Any], turn: int
) -> tuple[str, list[str], dict[int, set[str]]]:
    """The mail text: header, orders the report shows must fail, then the
    scripted player's orders; with the line numbers of the failing ones."""
    bad = must_fail(report)
    good = [line for line in scripted_orders(report) if not line.startswith("MESSAGE")]
    lines = [line for line, _ in bad] + good
    text = j.header(code, turn) + "\n".join(lines) + "\nEND\n"
    numbers = numbered(text)
    return text, good, {numbers[line]: codes for line, codes in bad}


def turn1(j: Journey, start: dict[str, dict[str, Any]]) -> None:
    acks: dict[str, Mail] = {}
    refused: dict[str, dict[int, set[str]]] = {}
    # Ann (plain), Bo (Gmail), Cy (Outlook): orders with some that must fail; Ann writes to everyone.
    for code in ("ALF", "BET", "CAS"):
        text, good, refused[code] = first_orders(j, code, start[code], 1)
        if code == "ALF":
            text = text.replace("\nEND\n", "\nMESSAGE ALL Hello from Alfheim\nEND\n")
        acks[code] = j.send(code, f"Orders turn 1 {code}", text)
    # Dee, on her iPhone: orders, no END, the phone's signature under them.
    good = [line for line in scripted_orders(start["DEN"]) if not line.startswith("MESSAGE")] or ["TAX"]
    acks["DEN"] = j.send("DEN", "Orders turn 1", j.header("DEN", 1) + "\n".join(good) + "\n")
    ack = acks["DEN"].text
    assert "ERROR" not in ack and "Sent" not in ack.split("Orders now on file")[0], ack
    assert "send the whole set again" not in ack, ack
    assert on_file(ack) == good, ack
    refused["DEN"] = {}

    # The first acknowledgement's figures are the welcome's and the turn-0 report's.
    for code in ("ALF", "BET", "CAS", "DEN"):
        e = start[code]["empire"]
        assert (
            f"your balance of {e['balance']} BP" in acks[code].text
            and f"your treasury of {e['treasury']} BP" in acks[code].text
        ), acks[code].text
        assert f"Orders received for game {GAME}, empire {code}, turn 1." in acks[code].text

    # Eve forwards her welcome with her password and orders written into its form.
    welcome = j.welcome["ERI"]
    form = welcome.index("EMPIRE ERI <password>\nTURN 1\n# Put")
    end = welcome.index("\nEND\n", form)
    mine = [line for line in scripted_orders(start["ERI"]) if not line.startswith("MESSAGE")][:3] or ["TAX"]
    filled = (
        welcome[:form]
        + f"EMPIRE ERI {j.password['ERI']}"
        + welcome[form + len("EMPIRE ERI <password>") : end]
        + "\n"
        + "\n".join(mine)
        + welcome[end:]
    )
    forwarded = (
        "My orders are in the form below.\n\n---------- Forwarded message ---------\n"
        f"From: {HOST}\nDate: Wed, 2 Dec 2026 at 05:30\nSubject: [{GAME}] Welcome to Star Chase\n"
        f"To: <{j.address['ERI']}>\n\n" + filled
    )
    acks["ERI"] = j.send(
        "ERI", f"Fwd: [{GAME}] Welcome to Star Chase: you play {j.name['ERI']} (ERI)", forwarded
    )
    assert on_file(acks["ERI"].text) == mine, acks["ERI"].text
    assert (
        "Greetings" not in acks["ERI"].text.split("Orders now on file")[1] and "ERROR" not in acks["ERI"].text
    )
    refused["ERI"] = {}

    # The reminder, close to a hand-set deadline, says the real time left (FOX has no orders).
    now = dt.datetime.now(UTC)
    j.game_update(created_at=now - dt.timedelta(days=1), deadline_override=now + dt.timedelta(minutes=3))
    reminder = j.take("FOX", "the reminder", subject_has("no orders from FOX for turn 1"))
    assert re.search(r"in about [23] minutes\.", reminder.text), reminder.text
    assert "hour" not in reminder.text.split("The deadline is", 1)[1].split("\n")[0], reminder.text
    # Fox answers the reminder from a client that stacks "Re:".
    text, _, refused["FOX"] = first_orders(j, "FOX", start["FOX"], 1)
    acks["FOX"] = j.send("FOX", "Re: Re: turn 1", text)
    assert acks["FOX"].subject == "Re: turn 1"

    # The hand-set deadline passes: the worker runs turn 1.
    j.game_update(deadline_override=dt.datetime.now(UTC) - dt.timedelta(seconds=1))
    j.wait_turns(1)
    for code in CODES:
        report = j.report(code, 1).json
        assert report is not None
        check_verdicts(code, acks[code], report, refused[code])
    eri = j.reports[("ERI", 1)].json
    assert eri is not None and [o["text"] for o in eri["orders"]] == mine
    for code in CODES:
        press = (j.reports[(code, 1)].json or {})["press"]
        assert [p["text"] for p in press if p["from"] == "ALF"] == ["Hello from Alfheim"], press
        assert not [p for p in press if p["from"] == "ERI"], (
            f"press in Eve's name from her pasted welcome: {press}"
        )


def turn2(j: Journey) -> None:
    # Early runs on; Bo asks to WAIT with his orders.
    cli(j.config, "game", "schedule", GAME, "--early-run", "on", "--early-run-delay", "0")
    acks: dict[str, Mail] = {}
    for code in CODES:
        report = j.reports[(code, 1)].json
        assert report is not None
        lines = [line for line in scripted_orders(report) if not line.startswith("MESSAGE")] or ["TAX"]
        if code == "BET":
            acks[code] = j.send(code, "Orders turn 2", j.header(code, 2) + "\n".join(lines) + "\nWAIT\nEND\n")
            assert "WAIT: the turn does not run early; it waits for the deadline." in acks[code].text, acks[
                code
            ].text
        elif code == "ERI":
            # A reply with the whole report pasted below the orders, no END, no quoting.
            text = j.header(code, 2) + "\n".join(lines) + "\n\n" + j.reports[(code, 1)].text
            acks[code] = j.send(code, "Re: " + j.reports[(code, 1)].subject, text)
            assert on_file(acks[code].text) == lines, acks[code].text
            assert "ERROR" not in acks[code].text, acks[code].text
        else:
            acks[code] = j.send(
                code, f"Orders turn 2 {code}", j.header(code, 2) + "\n".join(lines) + "\nEND\n"
            )
    # Everyone is in, but Bo's WAIT holds the early run.
    time.sleep(3)
    assert j.turns_run() == 1, "the early run did not wait for BET's WAIT"
    answer = j.send("BET", "what have you got", j.header("BET", 2) + "ORDERS\n")
    assert "WAIT: the turn does not run early; it waits for the deadline." in answer.text, answer.text
    # The deadline passes.
    j.game_update(last_deadline_at=dt.datetime.now(UTC) - dt.timedelta(days=400))
    j.wait_turns(2)
    for code in CODES:
        report = j.report(code, 2).json
        assert report is not None
        check_verdicts(code, acks[code], report, {})
    cli(j.config, "game", "schedule", GAME, "--early-run", "off")


def turn3(j: Journey) -> None:
    acks: dict[str, Mail] = {}
    for code in ("ALF", "BET", "ERI", "FOX"):
        report = j.reports[(code, 2)].json
        assert report is not None
        lines = [line for line in scripted_orders(report) if not line.startswith("MESSAGE")] or ["TAX"]
        acks[code] = j.send(code, f"Orders turn 3 {code}", j.header(code, 3) + "\n".join(lines) + "\nEND\n")
    # The GM enters Dee's orders, given by phone: Dee is told what is on file now.
    orders_file = j.config.with_name("den.txt")
    orders_file.write_text("TAX\n")
    cli(j.config, "orders", "submit", GAME, "DEN", str(orders_file))
    told = j.take(
        "DEN", "the GM-entered orders notice", subject_is(f"{GAME}: the GM entered orders for DEN, turn 3")
    )
    assert "  TAX" in told.text, told.text
    # The GM moves Cy to a new address: both addresses are told.
    cli(j.config, "empire", "set-email", GAME, "CAS", "cy@new.example")
    for address in ("cy@outlook.example", "cy@new.example"):
        mail = j.bag.take(
            address,
            "the address notice",
            subject_is(f"{GAME}: the GM moved empire CAS to a new address"),
            j.alive,
        )
        assert "from cy@outlook.example to cy@new.example" in mail.text, mail.text
    j.address["CAS"] = "cy@new.example"
    acks["CAS"] = j.send("CAS", "Orders turn 3 CAS", j.header("CAS", 3) + "TAX\nEND\n")

    # The GM runs turn 3 by hand, then takes it back and runs it again.
    cli(j.config, "turn", "run", GAME, "--yes")
    j.wait_turns(3)
    first = {code: j.report(code, 3) for code in CODES}
    for code, ack in acks.items():
        check_verdicts(code, ack, first[code].json or {}, {})
    cli(j.config, "turn", "rollback", GAME, "--to", "3", "--reason", "a host error lost orders")
    for code in CODES:
        told = j.take(
            code, "the rollback notice", subject_is(f"[{GAME}] the GM took the game back to turn 3")
        )
        assert "Why: a host error lost orders" in told.text and "turn 3 no longer holds" in told.text, (
            told.text
        )
    cli(j.config, "turn", "run", GAME, "--yes")
    j.wait_turns(3)
    for code in CODES:
        again = j.report(code, 3, corrected=True)
        assert again.json is not None and again.json["corrected"]
        assert [o["outcome"] for o in again.json["orders"]] == [
            o["outcome"] for o in (first[code].json or {})["orders"]
        ]


def turn4(j: Journey) -> None:
    # Fox leaves; the GM hands his empire to a new player.
    cli(j.config, "empire", "replace", GAME, "FOX", "--email", "gil@players.example", "--force")
    told = j.take("FOX", "the hand-over notice", subject_is(f"{GAME}: empire FOX has a new player"))
    assert "your password no longer works" in told.text
    j.address["FOX"] = "gil@players.example"
    welcome = j.take("FOX", "the new player's welcome", subject_has(f"you play {j.name['FOX']} (FOX)"))
    found = re.search(r"Your password: +(\S+)", welcome.text)
    assert found and found.group(1) != j.password["FOX"]
    j.password["FOX"] = found.group(1)
    assert f"STAR CHASE - game {GAME} - turn 3 report" in welcome.text, welcome.text
    acks: dict[str, Mail] = {}
    for code in CODES:
        report = j.reports[(code, 3)].json
        assert report is not None
        text, _, refused = first_orders(j, code, report, 4)
        acks[code] = j.send(code, f"Orders turn 4 {code}", text)
        acks[code].refused = refused  # type: ignore[attr-defined]
    j.game_update(last_deadline_at=dt.datetime.now(UTC) - dt.timedelta(days=400))
    j.wait_turns(4)
    for code in CODES:
        report = j.report(code, 4).json
        assert report is not None
        check_verdicts(code, acks[code], report, acks[code].refused)  # type: ignore[attr-defined]
