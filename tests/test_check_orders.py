"""The offline order checker (``turnproc check-orders``, docs/orders.md "Check your
orders before you send them") says what the acknowledgement says.

The property test plays a generated game on SQLite for a turn, then for
generated order mails compares, line for line, the acknowledgement the real
intake queues with what the checker prints from the empire's JSON report
attachment alone: the problems of every line, the orders that would be on
file and their cost (rules.md §4.2, ruling O7).
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import random
import re
from collections.abc import Iterator
from email import message_from_bytes, policy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from tests.factories import PASSWORD, make_game, make_generated_game, order_mail, password_hash
from turnproc.app import App, open_app
from turnproc.cli import main
from turnproc.config import Config
from turnproc.intake import handle_mail
from turnproc.mail.mime import message_text, parse_message
from turnproc.orders.orders import Action
from turnproc.orders.parser import parse_orders
from turnproc.outgoing.reportmail import mail_bytes
from turnproc.reports.checker import CheckError, check_orders_offline, read_report
from turnproc.reports.narrative import REASONS, narrate
from turnproc.reports.render import render_report_documents
from turnproc.rules.turn import resolve
from turnproc.storage import models as m
from turnproc.storage.convert import load_state
from turnproc.storage.db import transaction
from turnproc.storage.queries import get_empire, get_game, withdraw_orders
from turnproc.turns.run import report_for, run_turn

START = dt.datetime(2026, 3, 2, 9, 0, tzinfo=dt.timezone.utc)
CODES = ("RIG", "VEG", "ZAP")


class Game:
    """A generated three-empire game after one turn (or of ``codes``, with
    new_game's ``options``), and RIG's JSON report."""

    def __init__(
        self,
        app: App,
        name: str = "prop",
        codes: tuple[str, ...] = CODES,
        seed: str = "checker-property",
        **options: object,
    ) -> None:
        self.app, self.name = app, name
        with transaction(app.sessions) as session:
            game = make_generated_game(session, name, list(codes), seed=seed, **options)
            for empire in game.empires:
                empire.email = f"{empire.code.lower()}@players.example"
                empire.password_hash = password_hash()
            session.flush()
            run_turn(session, game, app.config, START)
            rig = next(e for e in game.empires if e.code == "RIG")
            self.empire_id, self.turn = rig.id, game.turn
            report = session.scalar(
                select(m.Report).where(m.Report.empire_id == rig.id).order_by(m.Report.turn.desc())
            )
            assert report is not None
            # The attachment exactly as the report mail carries it.
            self.json = render_report_documents(report.data).json
        self.data: dict[str, Any] = json.loads(self.json)
        self.clock = itertools.count(1)

    def ack(self, body: str) -> tuple[str, str]:
        """Mail ``body`` as RIG's orders through the real intake: (the mail's
        text as the player wrote it, the acknowledgement's text)."""
        raw = order_mail(
            body,
            game=self.name,
            empire="RIG",
            password=PASSWORD,
            sender="rig@players.example",
            message_id=f"<{self.name}-{next(self.clock)}@players.example>",
        )
        written = (
            message_from_bytes(raw, policy=policy.default).get_body(preferencelist=("plain",)).get_content()
        )  # type: ignore[union-attr]
        return written, self.answer(raw)

    def answer(self, raw: bytes) -> str:
        """The acknowledgement's text of the mail ``raw`` through the real intake."""
        # Two hours apart: no reply cap counts an earlier example.
        now = START + dt.timedelta(hours=2 * next(self.clock))
        with transaction(self.app.sessions) as session:
            # Every example starts from no orders on file, as the checker does.
            withdraw_orders(session, self.empire_id, self.turn)
            before = session.scalar(select(m.OutboxMail.id).order_by(m.OutboxMail.id.desc()).limit(1)) or 0
            handle_mail(session, raw, self.app.config, now)
            mail = session.scalar(
                select(m.OutboxMail).where(m.OutboxMail.id > before, m.OutboxMail.kind == "ack")
            )
            assert mail is not None, "no acknowledgement was queued"
            answer = message_from_bytes(
                mail_bytes(session, mail, self.app.config.from_address), policy=policy.default
            )
            text: str = answer.get_body(preferencelist=("plain",)).get_content()  # type: ignore[union-attr]
        return text


@pytest.fixture
def game(sqlite_url: str, tmp_path: Path) -> Iterator[Game]:
    config = Config(
        database_url=sqlite_url,
        maildir_in=tmp_path / "in",
        maildir_out=tmp_path / "out",
        from_address="Host <turns@turnproc.example>",
    )
    app = open_app(config)
    try:
        yield Game(app)
    finally:
        app.close()


_ROW = re.compile(r"^ {0,3}\d+  ")


def said(text: str) -> dict[str, list[str]]:
    """What an answer says about the orders: the table's rows, the orders on
    file, the cost line, and the first sentence of each cost warning."""
    lines = text.splitlines()
    rows = [line for line in lines if _ROW.match(line)]
    on_file: list[str] = []
    for i, line in enumerate(lines):
        if line.startswith("Orders ") and "/16 slots" in line:
            on_file = [line.split("(")[1]] + [
                x for x in itertools.takewhile(lambda x: x.startswith("  "), lines[i + 1 :])
            ]
    cost = [line for line in lines if line.startswith("Cost as written:")]
    warnings = [line.split(". ")[0].split(";")[0] for line in lines if line.startswith("WARNING [over_")]
    return {"rows": rows, "on_file": on_file, "cost": cost, "warnings": warnings}


def system_codes(data: dict[str, Any]) -> list[int]:
    return sorted({s["code"] for s in data["map"]["systems"]})


def order_lines(data: dict[str, Any]) -> st.SearchStrategy[str]:
    """Order lines a player might write against this report: right and wrong."""
    own = [s["code"] for s in data["systems"]]
    known = system_codes(data)
    code = st.one_of(st.sampled_from(own), st.sampled_from(known), st.integers(100, 999), st.just(1000))
    number = st.one_of(st.integers(0, 60).map(str), st.sampled_from(["ALL", "AB-1", "AB-3", "three", "-"]))
    empire = st.sampled_from(["RIG", "VEG", "ZAP", "VGE", "XYZ"])
    tech = st.sampled_from(["WEAPONS", "LIFE SUPPORT", "scanner", "WEPONS", "bp-income"])
    word = st.sampled_from([a.value for a in Action] + ["COLONIZE", "MOVEE", "ORDERS", "WAIT"])
    field = st.one_of(code.map(str), number, empire, tech, st.sampled_from(["Hope", "New Rigel", ""]))
    anything = st.builds(lambda w, fs: " ".join([w, *fs]).strip(), word, st.lists(field, max_size=4))
    # Lines as the report invites: from a system of one's own along one of
    # its links (or to any system seen), with a count.
    pairs = [(s["code"], n) for s in data["systems"] for n in s["links"]] + [
        (a, b) for a in own for b in known
    ]
    two = st.sampled_from(
        ["MOVE", "ASSAULT", "DEEP", "MOVEF", "MOVECOL", "COLONISE", "RETREAT", "AMBUSH", "DISTSQ"]
    )
    moves = st.builds(lambda w, p, n: f"{w} {p[0]} {p[1]} {n}", two, st.sampled_from(pairs), number)
    one = st.sampled_from(
        ["NEWCRS", "NEWFTR", "NEWCOL", "BUILD", "GROW", "SCRAPC", "SCRAPF", "COLONISE", "BASE", "STANDOFF"]
    )
    builds = st.builds(lambda w, c, n: f"{w} {c} {n}", one, st.sampled_from(own), number)
    money = st.builds(
        lambda w, n: f"{w} {n}",
        st.sampled_from(["STASH", "CASH", "GIFT VEG", "TECH WEAPONS", "TECH DRIVE"]),
        number,
    )
    # Rule set 2's orders the checks judge against the report (rules.md §17.1).
    v2 = st.builds(
        lambda w, p: f"{w} {p[0]} {p[1]}", st.sampled_from(["BOMBARD", "LINK"]), st.sampled_from(pairs)
    )
    v2 |= st.builds(lambda c, n: f"RESERVE {c} {n}", st.sampled_from(own), number)
    v2 |= st.builds(
        lambda t, n: f"TRADE {t} VEG {n}", st.sampled_from(["JUMP", "HYPERSPACE", "DRIVE"]), st.integers(0, 3)
    )
    return st.one_of(anything, moves, builds, money, v2)


@pytest.mark.slow
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_the_checker_says_what_the_acknowledgement_says(game: Game, data: st.DataObject) -> None:
    body = "\n".join(data.draw(st.lists(order_lines(game.data), min_size=1, max_size=18), label="orders"))
    written, ack = game.ack(body + "\nEND")
    checked = check_orders_offline(read_report(game.json), written)
    assert said(checked.text)["rows"] == said(ack)["rows"]
    if checked.outcome == "accepted":
        assert said(checked.text) == said(ack), f"ack:\n{ack}\nchecker:\n{checked.text}"


CORPUS = sorted((Path(__file__).parent / "mail" / "corpus").glob("*.eml"))


@pytest.mark.parametrize("eml", CORPUS, ids=lambda p: p.stem)
def test_the_checker_agrees_on_the_mail_corpus(eml: Path, sqlite_url: str, tmp_path: Path) -> None:
    """The mails real clients send (tests/mail/corpus): where the host answers
    with the orders, the checker, given the mail's text and the turn-0 JSON
    report, says the same of every line."""
    config = Config(
        database_url=sqlite_url,
        maildir_in=tmp_path / "in",
        maildir_out=tmp_path / "out",
        from_address="Host <turns@turnproc.example>",
    )
    app = open_app(config)
    try:
        raw = eml.read_bytes()
        with transaction(app.sessions) as session:
            game = make_game(session)
            _, data = report_for(session, game, get_empire(session, get_game(session, "corpus"), "RIG"), None)
            handle_mail(session, raw, config, START)
            acks = [
                mail_bytes(session, mail, config.from_address)
                for mail in session.scalars(select(m.OutboxMail).where(m.OutboxMail.kind == "ack"))
            ]
    finally:
        app.close()
    if not acks:
        return  # refused or not answered: no orders to compare (tests/mail covers those)
    answer = (
        message_from_bytes(acks[0], policy=policy.default).get_body(preferencelist=("plain",)).get_content()
    )  # type: ignore[union-attr]
    checked = check_orders_offline(
        read_report(render_report_documents(data).json), message_text(parse_message(raw))
    )
    assert said(checked.text)["rows"] == said(answer)["rows"]
    if checked.outcome == "accepted":
        assert said(checked.text) == said(answer)
        assert "Not read:" not in answer or answer.split("Not read:")[1].split("\n\n")[0] in checked.text


def test_an_overspending_mail_is_warned_in_both(game: Game) -> None:
    """rules.md §4.2 (ruling O7): orders costing more than the balance are
    stored, with a warning, by the acknowledgement and the checker alike."""
    base = game.data["empire"]["base"]
    body = f"NEWCRS {base} 40\nNEWCOL {base} 40\nGROW {base} ALL\nEND"
    written, ack = game.ack(body)
    checked = check_orders_offline(read_report(game.json), written)
    assert "Orders received" in ack and "WARNING [over_balance] These orders cost" in ack
    assert said(checked.text) == said(ack) and said(ack)["warnings"]
    assert "They are stored as written" in ack and "They would be stored as written" in checked.text


def test_orders_within_the_balance_get_no_warning(game: Game) -> None:
    written, ack = game.ack("TAX\nEND")
    assert "Cost as written: 0 BP of your balance" in ack and "over_balance" not in ack
    assert said(check_orders_offline(read_report(game.json), written).text) == said(ack)


# -- what the checker refuses, and the command line --------------------------------------


def test_bad_json_is_one_clear_error() -> None:
    with pytest.raises(CheckError, match=r"not JSON: .* line 1"):
        read_report("{not json")


@pytest.mark.parametrize(
    "data, words",
    [
        ([1, 2], 'no "schema" field'),
        ({"schema": "urn:turnproc:schema:report:3", "game": "g"}, "empire is missing"),
        (
            {
                "schema": "urn:turnproc:schema:report:3",
                "game": "g",
                "empire": {"code": "RIG"},
                "next_turn": 2,
                "map": {"systems": [{"code": "a"}], "links": []},
            },
            "code is missing",
        ),
    ],
)
def test_json_that_is_no_report_is_refused(data: object, words: str) -> None:
    with pytest.raises(CheckError, match=words):
        read_report(json.dumps(data))


def test_orders_for_another_game_or_empire_are_refused(game: Game) -> None:
    view = read_report(game.json)
    with pytest.raises(CheckError, match="for game spring, but the report is of game prop"):
        check_orders_offline(view, "GAME spring\nEMPIRE RIG x\nTAX\n")
    with pytest.raises(CheckError, match="for empire VEG, but the report is RIG's"):
        check_orders_offline(view, "GAME prop\nEMPIRE VEG x\nTAX\n")


def test_a_mail_the_host_would_refuse_says_why(game: Game) -> None:
    view = read_report(game.json)
    wrong_turn = check_orders_offline(view, f"GAME prop\nEMPIRE RIG x\nTURN {view.state.turn + 1}\nTAX\n")
    assert wrong_turn.outcome == "refused" and "but game prop is taking orders for turn" in wrong_turn.text
    placeholder = check_orders_offline(view, "GAME prop\nEMPIRE RIG <password>\nTAX\n")
    assert placeholder.outcome == "refused" and "placeholder" in placeholder.text


def test_the_command(game: Game, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "prop-RIG.json"
    report.write_text(game.json, encoding="utf-8")
    orders = tmp_path / "orders.txt"
    own = game.data["systems"][0]["code"]
    orders.write_text(f"GAME prop\nEMPIRE RIG sesame\nMOVE {own} {own} 1\nEND\n", encoding="utf-8")
    assert main(["check-orders", str(report), str(orders)]) == 3
    assert "ERROR [same_system]" in capsys.readouterr().out
    orders.write_text("GAME prop\nEMPIRE RIG sesame\nTAX\nEND\n", encoding="utf-8")
    assert main(["check-orders", str(report), str(orders)]) == 0
    assert "The host would accept these orders" in capsys.readouterr().out
    assert main(["check-orders", str(tmp_path / "missing.json"), str(orders)]) == 1
    err = capsys.readouterr().err
    assert "cannot read" in err and "missing.json" in err
    (tmp_path / "bad.json").write_text("[]", encoding="utf-8")
    assert main(["check-orders", str(tmp_path / "bad.json"), str(orders)]) == 1
    assert "not a turnproc JSON report" in capsys.readouterr().err
    other = tmp_path / "other.txt"
    other.write_text("GAME spring\nEMPIRE RIG sesame\nTAX\n", encoding="utf-8")
    assert main(["check-orders", str(report), str(other)]) == 1
    assert "the report is of game prop" in capsys.readouterr().err


def test_the_command_needs_no_config_and_no_database(
    game: Game, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player's machine has no turnproc.toml and no database: the command
    reads only its two files and creates nothing."""
    here = tmp_path / "player"
    here.mkdir()
    (here / "r.json").write_text(game.json, encoding="utf-8")
    (here / "o.txt").write_text("GAME prop\nEMPIRE RIG pw\nTAX\n", encoding="utf-8")
    monkeypatch.chdir(here)
    monkeypatch.setenv("TURNPROC_CONFIG", str(here / "no-such-config.toml"))
    monkeypatch.setenv("TURNPROC_DATABASE_URL", "postgresql+psycopg://nobody@127.0.0.1:1/none")
    assert main(["check-orders", "r.json", "o.txt"]) == 0
    assert sorted(p.name for p in here.iterdir()) == ["o.txt", "r.json"]


def test_the_orders_on_file_are_written_out_as_format_order_writes_them() -> None:
    """order_check writes each order of the parse once and reuses it for the
    orders on file when they are the same objects: the same words as writing
    every one out, for the parse's own orders, for others, and for a mix."""
    from turnproc.orders.orders import format_order
    from turnproc.orders.parser import parse_orders
    from turnproc.outgoing.mails import order_check

    parsed = parse_orders("TAX\nMOVE 101 103 2\nNAME 101 New Haven\nMESSAGE ALL hello")
    other = parse_orders("STASH 2\nMOVE 101 103 2").orders
    for on_file in (list(parsed.orders), other, [*other, parsed.orders[1]], []):
        check = order_check(parsed, on_file, None, "RIG")
        assert check["on_file"] == [format_order(o) for o in on_file]
        assert [row["text"] for row in check["lines"]] == [format_order(o) for o in parsed.orders]
    assert order_check(parsed, None, None, "RIG")["on_file"] is None


def test_each_row_of_the_orders_table_is_what_the_template_wrote() -> None:
    """order_check writes each row of the acknowledgement's table itself, as
    the template used to: the same text, for orders, errors, warnings, long
    lines and lines with more than one problem."""
    from turnproc.orders.parser import parse_orders
    from turnproc.outgoing.mails import order_check
    from turnproc.reports.render import environment

    row = environment().from_string(
        '{{ "%4d" | format(l.line) }}  {{ "%-30s" | format(l.text[:30]) }} {{ l.result }}'
    )
    text = (
        "TAX\nMOVE 999 1000 1\nBOGUS 1\n"
        "NAME 101 A name far longer than the thirty characters\nCASH\nTAX\nSTASH 2 3"
    )
    lines = order_check(parse_orders(text), [], None, "RIG")["lines"]
    assert len(lines) == 7 and any("; " in line["result"] for line in lines)
    for line in lines:
        assert line["row"] == row.render(l=line)


def _refused_lines(game: Game) -> dict[str, str]:
    """Order lines RIG's report shows must fail (rules.md §17.1), by the code each
    is refused with: from its home star at its own planet, and to known stars."""
    data = game.data
    own = {s["code"]: s for s in data["systems"]}
    systems = {s["code"]: s for s in data["map"]["systems"]}
    planet = next(c for c, s in own.items() if s["type"] == "PL" and s.get("star") in own)
    star = systems[planet]["star"]
    techs = data["empire"]["techs"]

    def d2(code: int) -> int:
        return (systems[code]["row"] - systems[star]["row"]) ** 2 + (
            systems[code]["col"] - systems[star]["col"]
        ) ** 2

    stars = [c for c, s in systems.items() if s["type"] not in ("PL", "AB") and c != star]
    far = next(c for c in stars if d2(c) > techs["JUMP"])
    near = next(c for c in stars if d2(c) in (1, 2, 4, 9))
    assert techs["HYPERSPACE"] == 0
    lines = {
        "not_enemy": f"BOMBARD {star} {planet}",
        "not_star_from": f"BOMBARD {planet} {star}",
        "own_system": f"ASSAULT {star} {planet} 1",
        "no_reserve": f"RESERVE {star} 1",
        "too_far": f"DEEP {star} {far} 1",
        "beyond_hyperspace": f"LINK {star} {near}",
        "level_too_high": f"TRADE JUMP VEG {techs['JUMP'] + 1}",
    }
    odd = [c for c in stars if d2(c) not in (1, 2, 4, 9)]
    if odd:
        lines["bad_distance"] = f"LINK {star} {odd[0]}"
    return lines


def test_r17_1_the_acknowledgement_the_checker_and_the_turn_refuse_alike(game: Game) -> None:
    """rules.md §17.1: the acknowledgement (through the real intake) and
    check-orders refuse each order RIG's report shows must fail, with the
    reason's code in the report's words; the turn fails the same order for
    that reason, and its report says so in those words."""
    assert game.data["ruleset"] == 2 and game.data["empire"]["reserve"] == 0
    lines = _refused_lines(game)
    written, ack = game.ack("\n".join(lines.values()) + "\nEND")
    checked = check_orders_offline(read_report(game.json), written)
    assert said(checked.text)["rows"] == said(ack)["rows"]
    for code, line in lines.items():
        row = f"ERROR [{code}] The turn would fail this order: {REASONS[code]}"
        assert row in ack and row in checked.text, (code, line, ack)
    assert checked.outcome == "unchanged" and checked.errors == len(lines)
    with transaction(game.app.sessions) as session:
        state = load_state(session, get_game(session, "prop"))
    orders = parse_orders("\n".join(lines.values())).orders
    _, events = resolve(state, {"RIG": orders}, random.Random(3))
    failed = {e.data["line"]: e for e in events if e.kind == "order" and e.empire == "RIG"}
    for n, code in enumerate(lines, start=1):
        assert failed[n].data["reason"] == code, (code, failed[n].data)
        assert REASONS[code] in narrate(failed[n], "RIG")
