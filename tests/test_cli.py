"""The GM's command line: each command end to end, and each GM mistake a
one-line error with a non-zero exit and nothing half-written."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, func, select

from turnproc.cli import build_parser, main
from turnproc.storage import models as m


@pytest.fixture
def run(run_cli):
    return run_cli


def _password(out: str) -> str:
    match = re.search(r"password: (\S+)", out)
    assert match, out
    return match.group(1)


def _count(tmp_path: Path, model: type) -> int:
    engine = create_engine(f"sqlite:///{tmp_path / 'turnproc.db'}")
    with engine.connect() as conn:
        n = conn.scalar(select(func.count()).select_from(model)) or 0
    engine.dispose()
    return n


def test_game_new_and_empires_and_show(run) -> None:
    code, out, _ = run("game", "new", "alpha", "--players", "3", "--seed", "s1")
    assert code == 0 and "90 systems, 3 free homes" in out
    code, out, _ = run(
        "empire",
        "add",
        "alpha",
        "--code",
        "rig",
        "--name",
        "Rigel League",
        "--email",
        "ann@example.org",
        "--print-password",
    )
    assert code == 0 and "empire RIG added" in out
    assert len(_password(out)) >= 10
    code, out, _ = run("game", "show", "alpha")
    assert code == 0
    assert "RIG Rigel League" in out and "ann@example.org" in out and "2 free homes" in out
    code, out, _ = run("game", "list")
    assert code == 0 and out.startswith("alpha")


def test_r19_game_new_records_the_rule_set(run) -> None:
    """rules.md §19: "New games play rule set 2 unless the GM asks for 1"; game show says
    which; an unknown rule set is refused."""
    code, out, _ = run("game", "new", "two", "--players", "2")
    assert code == 0 and "rule set 2" in out
    code, out, _ = run("game", "new", "one", "--players", "2", "--ruleset", "1")
    assert code == 0 and "rule set 1" in out
    code, out, _ = run("game", "show", "one")
    assert code == 0 and "rule set 1" in out
    with pytest.raises(SystemExit) as refused:  # argparse refuses it before the command runs
        run("game", "new", "three", "--players", "2", "--ruleset", "3")
    assert refused.value.code == 2


def test_only_a_salted_hash_of_the_password_is_stored(run, tmp_path: Path) -> None:
    run("game", "new", "alpha", "--players", "2")
    _, out, _ = run(
        "empire",
        "add",
        "alpha",
        "--code",
        "RIG",
        "--name",
        "R",
        "--email",
        "a@example.org",
        "--print-password",
    )
    password = _password(out)
    engine = create_engine(f"sqlite:///{tmp_path / 'turnproc.db'}")
    with engine.connect() as conn:
        rows = [tuple(str(v) for v in r) for r in conn.execute(select(m.Empire.__table__))]
    engine.dispose()
    stored = rows[0][[c.name for c in m.Empire.__table__.columns].index("password_hash")]
    assert stored.startswith("scrypt$")
    assert not any(password in value for row in rows for value in row)


def test_rules_option(run) -> None:
    code, out, _ = run("game", "new", "plain", "--rules", "none")
    assert code == 0 and "rules: none" in out
    code, out, _ = run("game", "new", "some", "--rules", "zoc,engage")
    assert "rules: engage,zoc" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (("game", "show", "nope"), "no game named 'nope'"),
        (
            ("empire", "add", "nope", "--code", "ABC", "--name", "x", "--email", "a@b.c"),
            "no game named 'nope'",
        ),
        (("report", "alpha", "ZZZ"), "has no empire 'ZZZ'"),
        (
            ("empire", "add", "alpha", "--code", "RIG", "--name", "x", "--email", "new@example.org"),
            "already has an empire RIG",
        ),
        (
            ("empire", "add", "alpha", "--code", "NEW", "--name", "x", "--email", "ANN@example.org"),
            "already plays RIG",
        ),
        (
            ("empire", "add", "alpha", "--code", "AB1", "--name", "x", "--email", "z@example.org"),
            "three letters",
        ),
        (
            ("empire", "add", "alpha", "--code", "XYZ", "--name", "x", "--email", "not-an-address"),
            "does not look like",
        ),
        (("game", "new", "alpha"), "already exists"),
        (("game", "new", "beta", "--rules", "zoc,magic"), "unknown rule module magic"),
        (("orders", "submit", "alpha", "RIG", "missing.txt"), "cannot read missing.txt"),
    ],
)
def test_gm_mistakes_are_one_line_errors(run, tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    run("game", "new", "alpha", "--players", "2")
    run("empire", "add", "alpha", "--code", "RIG", "--name", "Rigel", "--email", "ann@example.org")
    before = (_count(tmp_path, m.Game), _count(tmp_path, m.Empire), _count(tmp_path, m.System))
    code, out, err = run(*args)
    assert code == 1
    assert message in err
    assert err.count("\n") == 1 and err.startswith("turnproc: error: ")
    assert (_count(tmp_path, m.Game), _count(tmp_path, m.Empire), _count(tmp_path, m.System)) == before


def test_no_free_home_is_refused(run) -> None:
    run("game", "new", "solo", "--players", "1")
    run("empire", "add", "solo", "--code", "AAA", "--name", "A", "--email", "a@example.org")
    code, _, err = run("empire", "add", "solo", "--code", "BBB", "--name", "B", "--email", "b@example.org")
    assert code == 1 and "free home" in err


def test_malformed_scenario_names_the_key(run, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[[systems]]\ncode = 100\ntype = "XX"\nrow = 0\ncol = 0\n')
    code, _, err = run("game", "new", "custom", "--scenario", str(bad))
    assert code == 1
    assert "bad.toml" in err and "type" in err and "XX" in err


def test_database_that_cannot_connect(run) -> None:
    Path("c.toml").write_text('database_url = "postgresql+psycopg://nobody@127.0.0.1:1/none"\n')
    code, _, err = run("--config", "c.toml", "game", "list")
    assert code == 1
    assert err.startswith("turnproc: error: cannot connect to postgresql+psycopg://nobody@127.0.0.1:1/none")
    assert err.count("\n") == 1


def test_bad_database_url(run) -> None:
    Path("c.toml").write_text('database_url = "nosuchdb://x"\n')
    code, _, err = run("--config", "c.toml", "game", "list")
    assert code == 1 and "bad database URL" in err


def test_turn_run_orders_and_reports(run, tmp_path: Path) -> None:
    run("game", "new", "alpha", "--players", "2", "--seed", "cli")
    run("empire", "add", "alpha", "--code", "RIG", "--name", "Rigel", "--email", "ann@example.org")
    run("empire", "add", "alpha", "--code", "VEG", "--name", "Vega", "--email", "bo@example.org")
    code, out, _ = run("report", "alpha", "RIG", "--format", "json")
    start = json.loads(out)
    home_star = start["empire"]["base"]
    target = next(
        n
        for n in start["systems"][0]["links"] + start["systems"][1]["links"]
        if n not in (s["code"] for s in start["systems"])
    )
    orders = tmp_path / "orders.txt"
    orders.write_text(f"DISTSQ {home_star} {target}\nBOGUS 1 2\n")
    code, out, _ = run("orders", "submit", "alpha", "RIG", str(orders))
    assert code == 0
    assert "line 2: error [unknown_action]" in out
    assert "1 orders for RIG, turn 1" in out
    code, out, _ = run("turn", "run", "alpha", "--yes")
    assert code == 0 and "turn 1 resolved" in out and "2 reports queued" in out
    code, out, _ = run("report", "alpha", "RIG")
    assert code == 0 and "turn 1 report" in out and f"DISTSQ {home_star} {target}" in out
    code, out, _ = run("report", "alpha", "VEG", "--format", "json")
    data = json.loads(out)
    assert data["turn"] == 1 and data["empire"]["code"] == "VEG"
    assert _count(tmp_path, m.OutboxMail) == 5  # two welcome mails, RIG told of its orders, two reports
    code, out, _ = run("send")
    assert code == 0 and "5 mails sent" in out
    assert len(list((tmp_path / "mail" / "out" / "new").iterdir())) == 5


def test_turn_run_twice_is_refused_and_changes_nothing(run, tmp_path: Path) -> None:
    run("game", "new", "alpha", "--players", "1", "--seed", "x")
    run("empire", "add", "alpha", "--code", "RIG", "--name", "Rigel", "--email", "ann@example.org")
    assert run("turn", "run", "alpha", "--yes", "--force")[0] == 0
    engine = create_engine(f"sqlite:///{tmp_path / 'turnproc.db'}")
    with engine.begin() as conn:  # as if a second worker had not seen the first run
        conn.execute(m.Game.__table__.update().values(turn=1))
    engine.dispose()
    turns_before = _count(tmp_path, m.TurnRecord)
    code, _, err = run("turn", "run", "alpha", "--yes", "--force")
    assert code == 1 and "turn 1 of game alpha has already been run" in err
    assert _count(tmp_path, m.TurnRecord) == turns_before


def test_db_upgrade_then_check_is_clean(run) -> None:
    code, out, _ = run("db", "upgrade")
    assert code == 0 and "database at" in out
    code, out, _ = run("db", "check")
    assert code == 0 and "the database schema is current" in out


def test_db_check_on_an_empty_database_says_upgrade(run) -> None:
    code, _, err = run("db", "check")
    assert code == 1 and "turnproc db upgrade" in err


def _all_commands(parser=None, prefix=()):  # every leaf command of the CLI
    import argparse

    parser = parser or build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _all_commands(sub, (*prefix, name))
            return
    yield prefix


@pytest.mark.parametrize("command", list(_all_commands()), ids=" ".join)
def test_every_command_has_help_with_an_example(
    command: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main([*command, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "Example:" in out and "turnproc " in out


def test_python_dash_m_and_console_script() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "turnproc", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith("turnproc ")
    script = Path(sys.executable).parent / "turnproc"
    assert script.exists(), "the console script is installed with the package"
    out = subprocess.run([str(script), "--help"], capture_output=True, text=True, check=True)
    assert "turnproc demo" in out.stdout


def test_a_scenarios_empires_get_the_welcome_mail_or_their_password(run, tmp_path: Path) -> None:
    """The handbook, section 5: an empire the scenario gives an address is mailed its
    password (printed only with --print-password); one without is printed."""
    from tests.test_scenario import MINIMAL

    plain = tmp_path / "plain.toml"
    plain.write_text(MINIMAL)
    mailed = tmp_path / "mailed.toml"
    mailed.write_text(MINIMAL.replace('name = "Alfheim"\n', 'name = "Alfheim"\nemail = "ann@example.org"\n'))
    code, out, _ = run("game", "new", "m1", "--scenario", str(mailed))
    assert code == 0 and "empire ALF: welcome mail with its password queued for ann@example.org" in out
    assert "password: " not in out
    assert _count(tmp_path, m.OutboxMail) == 1
    code, out, _ = run("game", "new", "m2", "--scenario", str(plain))
    assert code == 0 and "empire ALF password: " in out and "(no address: pass it on yourself)" in out
    assert _count(tmp_path, m.OutboxMail) == 1
    code, out, _ = run("game", "new", "m3", "--scenario", str(mailed), "--print-password")
    assert code == 0 and "empire ALF password: " in out and _count(tmp_path, m.OutboxMail) == 2
