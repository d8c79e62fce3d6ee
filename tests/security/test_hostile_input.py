"""The hostile-input catalogue: what an attacker (a player, a stranger, a
careless GM's file) can hand turnproc, each answered in one clear line or
refused safely, never a traceback, on SQLite and PostgreSQL where a database
is involved. Each case failed before the change that holds it.

Mail goes through a real Maildir and the real intake; the CLI runs in this
process as the GM runs it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.factories import EMAILS, HOST_ADDRESS, PASSWORD, make_game, order_mail
from turnproc.admin import run_script
from turnproc.app import App, open_app
from turnproc.config import Config
from turnproc.intake import IntakeResult, poll
from turnproc.mail.maildir import MaildirInbox
from turnproc.storage import models as m
from turnproc.storage.db import transaction

NOW = dt.datetime(2026, 1, 5, 19, 0, tzinfo=dt.timezone.utc)


# -- mail of hostile shapes ---------------------------------------------------------------


def many_parts(parts: int, sender: str = EMAILS["RIG"], boundary: str = "b0undary") -> bytes:
    """A mail of ``parts`` one-line text parts (50,000: 2.2 MB), naming game corpus."""
    head = (
        f"From: {sender}\r\nTo: {HOST_ADDRESS}\r\nSubject: orders\r\nMIME-Version: 1.0\r\n"
        f'Content-Type: multipart/mixed; boundary="{boundary}"\r\n\r\n'
    ).encode()
    first = (
        f"--{boundary}\r\nContent-Type: text/plain\r\n\r\nGAME corpus\r\nEMPIRE RIG {PASSWORD}\r\nTAX\r\n"
    ).encode()
    part = f"--{boundary}\r\nContent-Type: text/plain\r\n\r\nx\r\n".encode()
    return head + first + part * (parts - 1) + f"--{boundary}--\r\n".encode()


def nested(depth: int, sender: str = EMAILS["RIG"]) -> bytes:
    """Orders at the bottom of ``depth`` multiparts, one inside the other."""
    body = f"Content-Type: text/plain\r\n\r\nGAME corpus\r\nEMPIRE RIG {PASSWORD}\r\nTAX\r\n"
    for level in range(depth):
        body = (
            f'Content-Type: multipart/mixed; boundary="n{level}"\r\n\r\n'
            f"--n{level}\r\n{body}\r\n--n{level}--\r\n"
        )
    return f"From: {sender}\r\nTo: {HOST_ADDRESS}\r\nSubject: orders\r\nMIME-Version: 1.0\r\n{body}".encode()


@dataclass
class Host:
    app: App
    inbox: MaildirInbox

    def deliver(self, *raws: bytes) -> None:
        for raw in raws:
            self.inbox.box.add(raw)

    def poll(self) -> list[IntakeResult]:
        return poll(self.app, NOW)

    def answers(self, recipient: str) -> list[m.OutboxMail]:
        with self.app.sessions() as session:
            return list(session.scalars(select(m.OutboxMail).where(m.OutboxMail.recipient == recipient)))

    def left_in_inbox(self) -> int:
        return len(list(self.inbox.pending()))


def host_for(db_url: str, tmp_path: Path, **settings: object) -> Host:
    config = Config(
        database_url=db_url,
        maildir_in=tmp_path / "in",
        maildir_out=tmp_path / "out",
        from_address=f"Host <{HOST_ADDRESS}>",
        gm_address="gm@example.org",
        **settings,  # type: ignore[arg-type]
    )
    app = open_app(config)
    with transaction(app.sessions) as session:
        make_game(session)
    return Host(app, MaildirInbox(config.maildir_in))


@pytest.fixture
def host(db_url: str, tmp_path: Path) -> Iterator[Host]:
    made = host_for(db_url, tmp_path)
    yield made
    made.app.close()


def test_ten_mails_of_50000_parts_are_refused_and_the_orders_beside_them_accepted(host: Host) -> None:
    """Ten 2.2 MB mails of 50,000 parts each held intake for 45 s; now each is
    refused before it is parsed, its sender told why, and the order mail in
    the same poll is accepted."""
    host.deliver(*(many_parts(50_000, boundary=f"b{i}") for i in range(10)), order_mail("TAX", empire="VEG"))
    results = host.poll()
    refused = [r for r in results if r.outcome == "rejected"]
    assert len(refused) == 10 and all("more than 200 MIME parts" in r.detail for r in refused)
    assert [r.outcome for r in results if r.empire == "VEG"] == ["accepted"]
    assert host.left_in_inbox() == 0
    answers = host.answers(EMAILS["RIG"])
    assert answers and all(a.kind == "unknown" for a in answers)  # answered, under the reply cap


def test_a_stranger_s_many_part_mail_is_filed_unanswered(host: Host) -> None:
    host.deliver(many_parts(5_000, sender="mallory@evil.example"))
    [result] = host.poll()
    assert result.outcome == "rejected" and "MIME parts" in result.detail
    assert host.answers("mallory@evil.example") == [] and host.left_in_inbox() == 0


def test_parts_nested_too_deep_are_refused_and_the_limit_is_a_setting(db_url: str, tmp_path: Path) -> None:
    made = host_for(db_url, tmp_path, mail_max_depth=5)
    try:
        made.deliver(nested(4), nested(8))
        shallow, deep = made.poll()
        assert shallow.outcome == "accepted"
        assert deep.outcome == "rejected" and "nested more than 5 deep" in deep.detail
    finally:
        made.app.close()


def test_a_mail_that_takes_too_long_to_read_is_refused(db_url: str, tmp_path: Path) -> None:
    """The per-mail reading budget: an HTML body of a million tags (a few
    seconds of the HTML reader) stops at mail_read_seconds."""
    made = host_for(db_url, tmp_path, mail_read_seconds=0.05)
    html = "<p>GAME corpus</p><p>EMPIRE RIG sesame</p>" + "<b></b>" * 1_000_000
    raw = (
        f"From: {EMAILS['RIG']}\r\nTo: {HOST_ADDRESS}\r\nSubject: orders\r\nMIME-Version: 1.0\r\n"
        f"Content-Type: text/html; charset=utf-8\r\n\r\n{html}\r\n"
    ).encode()
    try:
        made.deliver(raw)
        [result] = made.poll()
        assert result.outcome == "rejected" and "took more than 0.05 s to read" in result.detail
        assert made.left_in_inbox() == 0
    finally:
        made.app.close()


# -- a player's report and orders on the command line -----------------------------------------


@pytest.mark.parametrize(
    ("report", "said"),
    [
        ("[" * 100_000, "nested too deeply to read"),
        ('{"turn": ' + "9" * 5000 + "}", "holds a number too long to read"),
        ("/dev/zero", "larger than 64 MiB"),
    ],
    ids=["nested", "5000-digits", "dev-zero"],
)
def test_check_orders_gives_one_line_for_a_hostile_report(
    run_cli, tmp_path: Path, report: str, said: str
) -> None:
    orders = tmp_path / "orders.txt"
    orders.write_text("GAME corpus\nEMPIRE RIG x\nTAX\n", encoding="utf-8")
    path = report if report.startswith("/dev/") else str(tmp_path / "report.json")
    if path != report:
        Path(path).write_text(report, encoding="utf-8")
    status, out, err = run_cli("check-orders", path, str(orders))
    assert status == 1 and out == ""
    assert said in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_check_orders_reads_no_endless_orders(run_cli, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    report.write_text("{}", encoding="utf-8")
    status, _, err = run_cli("check-orders", str(report), "/dev/zero")
    assert status == 1 and "/dev/zero: it is larger than 1 MiB" in err


# -- the GM's command line ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ("report", "corpus", "RIG", "--turn", "99999999999999999999"),
        ("report", "corpus", "RIG", "--turn", "9" * 5000),
        ("audit", "--limit", "99999999999999999999"),
        ("turn", "rerun", "corpus", "99999999999999999999"),
        ("game", "extend", "corpus", "--hours", "inf"),
        ("game", "new", "g", "--players", "3", "--systems-per-player", "2147483647"),
    ],
    ids=["turn", "turn-5000-digits", "audit-limit", "rerun", "hours-inf", "systems-per-player"],
)
def test_numbers_beyond_any_game_are_one_line(
    run_cli, migrated_default_db: Path, argv: tuple[str, ...]
) -> None:
    try:
        status, out, err = run_cli(*argv)
    except SystemExit as exc:  # argparse's usage error
        status = int(exc.code or 0)
    assert status in (1, 2)


def test_a_numbers_usage_error_names_the_limit(run_cli, migrated_default_db: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        run_cli("report", "corpus", "RIG", "--turn", "99999999999999999999")
    err = capsys.readouterr().err
    assert (
        exited.value.code == 2
        and "argument --turn: 99999999999999999999 is too large (at most 2,147,483,647)" in err
    )


# -- admin SQL -----------------------------------------------------------------------------------


@pytest.fixture
def game_db(db_url: str) -> Iterator[App]:
    app = open_app(Config(database_url=db_url))
    with transaction(app.sessions) as session:
        make_game(session)
    yield app
    app.close()


def _audit(app: App) -> list[m.AuditEntry]:
    with app.sessions() as session:
        return list(session.scalars(select(m.AuditEntry).order_by(m.AuditEntry.id)))


def test_a_nul_byte_in_a_script_is_refused_and_audited(game_db: App) -> None:
    result = run_script(game_db.engine, "corpus", "SELECT 1;\x00\nSELECT 2;", now=NOW)
    assert result.outcome == "refused" and "NUL character (line 1)" in result.errors[0]
    [entry] = _audit(game_db)
    assert entry.outcome == "refused" and entry.script == "SELECT 1;\ufffd\nSELECT 2;"


def test_the_sql_command_with_a_nul_byte_is_one_line(tmp_path: Path, db_url: str) -> None:
    from turnproc.cli import main

    config = tmp_path / "turnproc.toml"
    config.write_text(f'database_url = "{db_url}"\n', encoding="utf-8")
    app = open_app(Config(database_url=db_url))
    with transaction(app.sessions) as session:
        make_game(session)
    app.close()
    script = tmp_path / "nul.sql"
    script.write_bytes(b"UPDATE empires SET vp = 1\x00 WHERE code = 'RIG';\n")
    assert main(["--config", str(config), "sql", "corpus", str(script)]) == 1


LONG_QUERY = (
    "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000000000)"
    " SELECT count(*) FROM c;"
)


def test_a_script_that_runs_too_long_is_stopped(game_db: App) -> None:
    result = run_script(game_db.engine, "corpus", "SELECT 1;\n" + LONG_QUERY, now=NOW, seconds=0.5)
    assert result.outcome == "failed"
    assert result.errors == [
        'statement 2 (line 2: "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c'
        ' WHERE ...") was stopped:'
        " the script ran longer than its time limit of 0.5 s (admin_sql_seconds in the config)"
    ]
    assert _audit(game_db)[-1].outcome == "failed"
    # The connection is usable again at once: the next script has its own time.
    assert run_script(game_db.engine, "corpus", "SELECT count(*) FROM empires;", now=NOW, seconds=0.5).ok


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize(
    "call", ["fts3_tokenizer('simple')", "sqlite_version()", "sqlite_compileoption_get(0)"]
)
def test_sqlite_functions_off_the_list_are_refused(game_db: App, call: str) -> None:
    result = run_script(game_db.engine, "corpus", f"SELECT {call};", now=NOW)
    assert result.outcome == "failed" and "is not allowed in a GM script" in result.errors[0]


@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
@pytest.mark.parametrize(
    "script",
    [
        "SELECT e.row_to_json FROM empires e;",
        "SELECT (e).row_to_json FROM empires e;",
        "SELECT e.pg_typeof FROM empires e;",
    ],
)
def test_postgres_functions_by_attribute_notation_are_refused(game_db: App, script: str) -> None:
    result = run_script(game_db.engine, "corpus", script, now=NOW)
    assert result.outcome == "refused" and "by attribute notation, which is not allowed" in result.errors[0]
    assert run_script(game_db.engine, "corpus", "SELECT e.code, e.name FROM empires e;", now=NOW).ok


# -- files and secrets ----------------------------------------------------------------------------


@pytest.mark.parametrize("umask", [0o000, 0o027], ids=["umask-000", "umask-027"])
def test_site_folders_are_0755_and_files_0644_whatever_the_umask(
    sqlite_url: str, tmp_path: Path, umask: int
) -> None:
    import os
    import stat

    from turnproc.games.publish import write_site

    app = open_app(Config(database_url=sqlite_url))
    with transaction(app.sessions) as session:
        make_game(session)
    old = os.umask(umask)
    try:
        with app.sessions() as session:
            write_site(session, "corpus", tmp_path / "www" / "games" / "corpus", NOW)
    finally:
        os.umask(old)
        app.close()
    made = [tmp_path / "www", *(tmp_path / "www").rglob("*")]
    assert {stat.S_IMODE(p.stat().st_mode) for p in made if p.is_dir()} == {0o755}
    assert {stat.S_IMODE(p.stat().st_mode) for p in made if p.is_file()} == {0o644}


def test_an_inline_password_and_a_world_readable_password_file_are_warned_of(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from turnproc.config import load_config

    secret = tmp_path / "smtp-password"
    secret.write_text("s3cret\n", encoding="utf-8")
    secret.chmod(0o644)
    config = tmp_path / "turnproc.toml"
    config.write_text(f'[imap]\npassword = "hunter2"\n[smtp]\npassword_file = "{secret}"\n', encoding="utf-8")
    with caplog.at_level("WARNING", logger="turnproc.config"):
        loaded = load_config(config, env={})
    assert loaded.imap.password == "hunter2" and loaded.smtp.password == "s3cret"
    said = [r.getMessage() for r in caplog.records]
    assert any("imap.password: a password written in the config file" in line for line in said)
    assert any(
        f"smtp.password_file: {secret} is readable by every user of this machine (mode 644)" in line
        for line in said
    )
    secret.chmod(0o600)
    config.write_text(f'[smtp]\npassword_file = "{secret}"\n', encoding="utf-8")
    caplog.clear()
    with caplog.at_level("WARNING", logger="turnproc.config"):
        load_config(config, env={})
    assert caplog.records == []


# -- a staged turn, and a database that goes away -----------------------------------------------


def test_report_of_a_staged_turn_says_what_is_really_there(host: Host) -> None:
    from tests.mailrows import with_bodies
    from turnproc.storage.queries import get_game
    from turnproc.turns.run import run_turn

    with transaction(host.app.sessions) as session:
        run_turn(session, get_game(session, "corpus"), host.app.config, NOW, stage=False)
    with transaction(host.app.sessions) as session:
        run_turn(session, get_game(session, "corpus"), host.app.config, NOW, stage=True)
    host.deliver(order_mail("REPORT 2"))
    [result] = host.poll()
    with host.app.sessions() as session:
        [ack] = with_bodies(
            session,
            [
                session.get(
                    m.OutboxMail,
                    session.scalar(
                        select(m.OutboxMail.id).where(m.OutboxMail.message_id == result.replies[0])
                    ),
                )
            ],
            host.app.config.from_address,
        )
    text = ack.body.decode("utf-8", "replace").replace("=\r\n", "").replace("\r\n", " ").replace("\n", " ")
    assert "turn 2 has run, and its report waits for the GM's release" in text
    assert "reports for turns 1 to 1" in text and "turns 1 to 2" not in text


def test_a_database_outage_is_one_line_and_blames_no_mail(
    sqlite_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The database file taken away under a running worker (SQLite made
    unreachable): the poll stops with one line saying so, no traceback, no
    mail-by-mail retry, no mail counted as failed; back, the mail is handled."""
    from turnproc.accounts.passwordkey import load_key
    from turnproc.service.worker import Service

    made = host_for(sqlite_url, tmp_path)
    service = Service(made.app, clock=lambda: NOW)
    database = Path(made.app.engine.url.database or "")
    made.deliver(order_mail("TAX"))
    load_key(made.app.config)  # made now: its own warning is not the outage's
    caplog.clear()
    try:
        database.rename(database.with_suffix(".away"))
        made.app.engine.dispose()
        with caplog.at_level("DEBUG"):
            assert service.poll() == 0
        warnings = [r for r in caplog.records if r.levelno >= 30]
        assert warnings and all(
            "inbox: the database cannot be reached or written" in r.getMessage() for r in warnings
        )
        assert all(r.exc_info is None for r in warnings)
        assert not any("mail by mail" in r.getMessage() for r in caplog.records)
        assert made.left_in_inbox() == 1
        made.app.engine.dispose()
        database.with_suffix(".away").replace(database)
        service.poll_backoff.succeeded()  # the clock stands still: the back-off would wait for ever
        assert service.poll() == 1 and made.left_in_inbox() == 0
        with made.app.sessions() as session:
            assert session.scalar(select(m.InboundFailure.sha256)) is None
    finally:
        made.app.close()


# -- what the documents promise ---------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


def _flat(path: str) -> str:
    return " ".join((ROOT / path).read_text(encoding="utf-8").split())


def test_the_documents_state_the_limits_the_code_has() -> None:
    """Each sentence the limits add to the documents, against the defaults;
    what each limit does is held by the tests above."""
    config = Config()
    orders, handbook, operations = (
        _flat("docs/orders.md"),
        _flat("docs/gm-handbook.md"),
        _flat("deploy/OPERATIONS.md"),
    )
    assert (
        config.mail_max_parts,
        config.mail_max_depth,
        config.mail_read_seconds,
        config.admin_sql_seconds,
    ) == (200, 20, 2.0, 30.0)
    assert (
        "A mail of more than 200 MIME parts (a mail program's mail has a handful), nested more than 20 "
        "deep, or that takes more than 2 seconds to read, is not read at all" in orders
    )
    assert "`the mail has more than 200 MIME parts; send the orders as plain text`" in orders
    for key, default in (
        ("mail_max_parts", "200"),
        ("mail_max_depth", "20"),
        ("mail_read_seconds", "2"),
        ("admin_sql_seconds", "30"),
    ):
        assert f"| `{key}` | `{default}` |" in handbook
        assert f"`{key}`" in operations
    assert "A script may run for `admin_sql_seconds` (default 30 seconds) in all" in handbook
    assert "A script holding a NUL character is refused before anything runs (and audited)" in handbook
    assert "mode 0644 and the folders turnproc creates 0755, whatever the umask" in handbook
    assert "their files are 0644 and the folders turnproc creates 0755, whatever the umask" in operations
    assert "warns at start of a `password` written in the file" in handbook
    assert "`inbox: the database cannot be reached or written: ...`" in operations
    # held by tests/mail/test_outbox_claims.py (a new send after the lease)
    assert (
        "so a new `turnproc send`, even after the time it named, records them first and sends none of those "
        "mails again" in operations
    )
