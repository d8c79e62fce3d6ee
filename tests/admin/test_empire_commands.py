"""``turnproc empire ...``: the GM's commands for players, end to end on
SQLite and PostgreSQL, with every mail delivered over real SMTP.

The database holds the admin games (``spring26``: RIG and VEG, password
``sesame``); each test that adds players makes its own generated galaxy.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.admin.gmcli import GM, body, make_gm
from tests.conftest import SmtpSink
from tests.factories import PASSWORD
from turnproc.accounts.passwords import verify_password
from turnproc.orders.parser import parse_mail
from turnproc.storage import models as m
from turnproc.storage.db import make_engine, make_sessionmaker


@pytest.fixture
def gm(tmp_path: Path, db_url: str, smtp_server: SmtpSink) -> GM:
    return make_gm(tmp_path, db_url, smtp_server)


def _hash(db_url: str, game: str, code: str) -> tuple[str, str, bool, int]:
    """(address, password hash, active, missed turns) of an empire, read afresh."""
    engine = make_engine(db_url)
    try:
        with make_sessionmaker(engine)() as session:
            row = session.execute(
                select(m.Empire.email, m.Empire.password_hash, m.Empire.active, m.Empire.missed_turns)
                .join(m.Game)
                .where(m.Game.name == game, m.Empire.code == code)
            ).one()
            return row[0], row[1], bool(row[2]), row[3]
    finally:
        engine.dispose()


def _password_in(text: str) -> str:
    found = re.search(r"Your password:\s+(\S+)", text)
    assert found, text
    return found.group(1)


def _example(text: str) -> str:
    """The example order mail of a welcome mail (the indented block after 'for example:')."""
    block = text.split("for example:\n\n", 1)[1].split("\n\n", 2)
    return "\n".join(line.strip() for line in (block[0] + "\n\n" + block[1]).splitlines())


def test_add_mails_the_welcome_and_prints_no_password(gm: GM, db_url: str) -> None:
    gm.ok("game", "new", "g4", "--players", "4", "--seed", "s")
    out = gm.ok(
        "empire", "add", "g4", "--code", "RIG", "--name", "Rigel League", "--email", "ann@example.org"
    )
    assert "welcome mail" in out and "password:" not in out
    [mail] = gm.send()
    assert mail["To"] == "ann@example.org" and "Welcome" in mail["Subject"]
    text = body(mail)
    password = _password_in(text)
    assert password not in out
    assert verify_password(password, _hash(db_url, "g4", "RIG")[1])
    assert "turn 0 report" in text and "For Rigel League (RIG)" in text
    # The example order mail holds <password>, never the password itself; with the
    # password in its place the host accepts it as it stands (docs/gm-handbook.md).
    example = _example(text)
    assert "EMPIRE RIG <password>" in example and password not in example
    parsed = parse_mail(example.replace("<password>", password))
    assert parsed.header.game == "g4" and parsed.header.empire == "RIG" and parsed.header.password == password
    assert len(parsed.orders) == 2 and not [p for p in parsed.problems if p.severity.value == "error"]
    # The empire's figures are the start's (balance = income, treasury 50), as
    # REPORT 0 and the acknowledgement give them (docs/gm-handbook.md).
    assert "Balance for turn 1:  34 BP" in text and "Treasury:            50 BP" in text
    assert "# Balance 34 BP, treasury 50 BP" in text


def test_print_password_shows_the_mailed_password(gm: GM) -> None:
    gm.ok("game", "new", "g4", "--players", "4", "--seed", "s")
    out = gm.ok(
        "empire",
        "add",
        "g4",
        "--code",
        "RIG",
        "--name",
        "Rigel",
        "--email",
        "ann@example.org",
        "--print-password",
    )
    [mail] = gm.send()
    assert f"password: {_password_in(body(mail))}" in out


def test_list_and_show(gm: GM) -> None:
    rows = json.loads(gm.ok("empire", "list", "spring26", "--json"))
    assert [r["code"] for r in rows] == ["RIG", "VEG"]
    assert set(rows[0]) == {"code", "name", "email", "active", "vp", "orders_in", "wait"}
    assert "RIG" in gm.ok("empire", "list", "spring26")
    shown = json.loads(gm.ok("empire", "show", "spring26", "rig", "--json"))
    assert shown["code"] == "RIG" and shown["email"] == "ann@example.org" and shown["active"] is True
    assert shown["orders"] is None and shown["reports"] == [] and shown["systems"] == 3
    assert "address: ann@example.org" in gm.ok("empire", "show", "spring26", "RIG")


def test_unknown_empire_or_game_is_one_line_and_status_1(gm: GM) -> None:
    for argv in (
        ("empire", "show", "spring26", "ZZZ"),
        ("empire", "set-email", "spring26", "ZZZ", "x@example.org"),
        ("empire", "reset-password", "spring26", "ZZZ"),
        ("empire", "deactivate", "spring26", "ZZZ"),
        ("empire", "replace", "spring26", "ZZZ", "--email", "x@example.org"),
        ("empire", "list", "nosuch"),
    ):
        err = gm.fails(*argv)
        assert err.startswith("turnproc: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
        assert "ZZZ" in err or "nosuch" in err


def test_set_email(gm: GM, db_url: str) -> None:
    assert "ann@example.org -> ann@new.example.org" in gm.ok(
        "empire", "set-email", "spring26", "RIG", "ann@new.example.org"
    )
    assert _hash(db_url, "spring26", "RIG")[0] == "ann@new.example.org"
    assert "does not look like" in gm.fails("empire", "set-email", "spring26", "RIG", "not-an-address")
    assert "already plays VEG" in gm.fails("empire", "set-email", "spring26", "RIG", "bo@example.org")
    assert _hash(db_url, "spring26", "RIG")[0] == "ann@new.example.org"


def test_reset_password_mails_a_new_one_and_the_old_stops_working(gm: GM, db_url: str) -> None:
    out = gm.ok("empire", "reset-password", "spring26", "RIG")
    assert "password:" not in out
    [mail] = gm.send()
    assert mail["To"] == "ann@example.org" and "new password" in mail["Subject"]
    new = _password_in(body(mail))
    stored = _hash(db_url, "spring26", "RIG")[1]
    assert verify_password(new, stored) and not verify_password(PASSWORD, stored)


def test_deactivate_and_reactivate(gm: GM, db_url: str) -> None:
    gm.ok("empire", "deactivate", "spring26", "VEG")
    assert _hash(db_url, "spring26", "VEG")[2] is False
    assert "already inactive" in gm.fails("empire", "deactivate", "spring26", "VEG")
    gm.ok("empire", "reactivate", "spring26", "VEG")
    assert _hash(db_url, "spring26", "VEG")[2:] == (True, 0)
    assert "already active" in gm.fails("empire", "reactivate", "spring26", "VEG")


def test_replace_refuses_an_active_empire_then_hands_it_over(gm: GM, db_url: str) -> None:
    gm.ok("turn", "run", "spring26", "--yes", "--force")
    gm.send()
    before = _hash(db_url, "spring26", "RIG")
    err = gm.fails("empire", "replace", "spring26", "RIG", "--email", "cy@example.org")
    assert "still active" in err and "--force" in err
    assert _hash(db_url, "spring26", "RIG") == before  # nothing changed
    assert "does not look like" in gm.fails(
        "empire", "replace", "spring26", "RIG", "--email", "nope", "--force"
    )
    assert "already plays VEG" in gm.fails(
        "empire", "replace", "spring26", "RIG", "--email", "bo@example.org", "--force"
    )

    gm.ok("empire", "deactivate", "spring26", "RIG")
    out = gm.ok("empire", "replace", "spring26", "RIG", "--email", "cy@example.org", "--name", "New Rigel")
    assert "cy@example.org" in out and "password:" not in out
    mails = {m["To"]: m for m in gm.send()}
    assert sorted(mails) == ["ann@example.org", "cy@example.org"]  # the old player is told too
    mail = mails["cy@example.org"]
    assert "handed you" in body(mail)
    # The history stays: the turn-1 report is the empire's, and the welcome mail carries it.
    assert "turn 1 report" in body(mail)
    shown = json.loads(gm.ok("empire", "show", "spring26", "RIG", "--json"))
    assert shown["reports"] == [1] and shown["email"] == "cy@example.org" and shown["active"] is True
    assert shown["name"] == "New Rigel"
    address, stored, active, missed = _hash(db_url, "spring26", "RIG")
    assert verify_password(_password_in(body(mail)), stored) and not verify_password(PASSWORD, stored)


def test_replace_force_takes_an_active_empire_and_withdraws_its_orders(
    gm: GM, db_url: str, tmp_path: Path
) -> None:
    orders = tmp_path / "orders.txt"
    orders.write_text("NAME 201 Vega Prime\n", encoding="utf-8")
    gm.ok("orders", "submit", "spring26", "VEG", str(orders))
    assert json.loads(gm.ok("empire", "show", "spring26", "VEG", "--json"))["orders"] == 1
    out = gm.ok(
        "empire", "replace", "spring26", "VEG", "--email", "di@example.org", "--force", "--print-password"
    )
    mails = {m["To"]: m for m in gm.send()}
    assert sorted(mails) == ["bo@example.org", "di@example.org"]  # the old player is told too
    mail = mails["di@example.org"]
    assert f"password: {_password_in(body(mail))}" in out
    assert _hash(db_url, "spring26", "VEG")[0] == "di@example.org"
    assert json.loads(gm.ok("empire", "show", "spring26", "VEG", "--json"))["orders"] is None


def test_every_player_command_is_audited(gm: GM, tmp_path: Path) -> None:
    gm.ok("empire", "set-email", "spring26", "RIG", "ann@new.example.org")
    gm.ok("empire", "reset-password", "spring26", "RIG")
    gm.ok("empire", "deactivate", "spring26", "RIG")
    gm.ok("empire", "reactivate", "spring26", "RIG")
    gm.ok("empire", "replace", "spring26", "RIG", "--email", "cy@example.org", "--force")
    gm.ok("game", "new", "big", "--players", "2", "--seed", "s")
    players = tmp_path / "p.csv"
    players.write_text("code,name,email\nAAA,A,a@example.org\n", encoding="utf-8")
    gm.ok("empire", "import", "big", str(players))
    entries = json.loads(gm.ok("audit", "--json"))
    assert [e["action"] for e in reversed(entries)] == [
        "set-email",
        "new-password",
        "deactivate",
        "reactivate",
        "replace",
        "import",
    ]
    assert all(e["outcome"] == "committed" and e["os_user"] for e in entries)
    assert entries[1]["detail"] == "ann@new.example.org -> cy@example.org"


def test_import_names_every_bad_row_and_imports_nothing(gm: GM, tmp_path: Path) -> None:
    gm.ok("game", "new", "big", "--players", "6", "--seed", "s")
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "code,name,email\nAAA,Alpha,a@example.org\nBB,Beta,b@example.org\nCCC,,c@example.org\n"
        "DDD,Delta,not-an-address\nAAA,Again,e@example.org\nFFF,Foxtrot,a@example.org\nGGG,Golf\n",
        encoding="utf-8",
    )
    err = gm.fails("empire", "import", "big", str(bad))
    for line in (3, 4, 5, 6, 7, 8):
        assert f"line {line}:" in err, err
    assert "line 2:" not in err and "6 bad row(s), nothing imported" in err
    assert json.loads(gm.ok("empire", "list", "big", "--json")) == []
    header = tmp_path / "header.csv"
    header.write_text("who,what\nAAA,Alpha\n", encoding="utf-8")
    assert "line 1:" in gm.fails("empire", "import", "big", str(header))
    many = tmp_path / "many.csv"
    many.write_text(
        "code,name,email\n" + "".join(f"{c * 3},E{c},{c}@example.org\n" for c in "ABCDEFG"), encoding="utf-8"
    )
    assert "7 players" in gm.fails("empire", "import", "big", str(many)) and "6 free homes" in gm.fails(
        "empire", "import", "big", str(many)
    )


def test_import_adds_everyone_and_welcomes_each(gm: GM, tmp_path: Path, db_url: str) -> None:
    gm.ok("game", "new", "big", "--players", "6", "--seed", "s")
    csv_file = tmp_path / "players.csv"
    csv_file.write_text(
        'email,code,name\r\nann@example.org,RIG,"Rigel, League"\r\n\r\n'
        "bo@example.org,veg,Vega\r\ncy@example.org,ALT,Altair\r\n",
        encoding="utf-8",
    )
    result = gm("empire", "import", "big", str(csv_file))
    assert result.status == 0, result.err
    assert "3 players imported" in result.out and "placed 3/3" in result.err and "mailed 3/3" in result.err
    mails = gm.send()
    assert sorted(str(x["To"]) for x in mails) == ["ann@example.org", "bo@example.org", "cy@example.org"]
    for mail in mails:
        code = (
            "RIG" if mail["To"] == "ann@example.org" else "VEG" if mail["To"] == "bo@example.org" else "ALT"
        )
        assert verify_password(_password_in(body(mail)), _hash(db_url, "big", code)[1])
        assert "Treasury:            50 BP" in body(mail) and "treasury 50 BP" in body(mail)
    rows = json.loads(gm.ok("empire", "list", "big", "--json"))
    assert {r["code"]: r["name"] for r in rows} == {"ALT": "Altair", "RIG": "Rigel, League", "VEG": "Vega"}
