"""What the GM tells every player, end to end over SMTP on SQLite and
PostgreSQL: announcements (mailed now, printed in the turn's report), the
reason of a rerun in the corrected reports, and every deadline change."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.admin.gmcli import GM, body, make_gm
from tests.conftest import SmtpSink


@pytest.fixture
def gm(tmp_path: Path, db_url: str, smtp_server: SmtpSink) -> GM:
    return make_gm(tmp_path, db_url, smtp_server)


def _html(message: object) -> str:
    part = message.get_body(("html",))  # type: ignore[attr-defined]
    assert part is not None
    return str(part.get_content())


def test_announce_mails_every_active_player_and_the_report_prints_it(gm: GM, tmp_path: Path) -> None:
    gm.ok("empire", "deactivate", "spring26", "VEG")
    message = tmp_path / "message.txt"
    message.write_text("The server moves on Sunday.\nOrders sent then may wait an hour.\n", encoding="utf-8")
    out = gm.ok("announce", "spring26", "--subject", "Server move", str(message))
    assert "1 active players" in out
    [mail] = gm.send()
    assert mail["To"] == "ann@example.org" and mail["Subject"] == "[spring26] Server move"
    assert "The server moves on Sunday." in body(mail)

    gm.ok("turn", "run", "spring26", "--yes", "--force")
    reports = {str(m["To"]): m for m in gm.send()}
    report = reports["ann@example.org"]
    assert (
        "== From the GM: Server move ==\nThe server moves on Sunday.\nOrders sent then may wait an hour."
        in body(report)
    )
    assert "From the GM: Server move" in _html(report) and "The server moves on Sunday." in _html(report)
    data = json.loads(gm.ok("report", "spring26", "RIG", "--format", "json"))
    assert data["announcements"] == [
        {"subject": "Server move", "text": "The server moves on Sunday.\nOrders sent then may wait an hour."}
    ]
    # The next turn's report has no announcement left.
    gm.ok("turn", "run", "spring26", "--yes", "--force")
    gm.send()
    assert "announcements" not in json.loads(gm.ok("report", "spring26", "RIG", "--format", "json"))


def test_announce_refuses_an_empty_message_or_subject(gm: GM, tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n", encoding="utf-8")
    assert "empty" in gm.fails("announce", "spring26", "--subject", "Hi", str(empty))
    full = tmp_path / "full.txt"
    full.write_text("hello\n", encoding="utf-8")
    assert "--subject is empty" in gm.fails("announce", "spring26", "--subject", "  ", str(full))
    assert "no game named" in gm.fails("announce", "nosuch", "--subject", "Hi", str(full))
    assert gm.send() == []


def test_rerun_reason_is_in_every_corrected_report(gm: GM) -> None:
    gm.ok("turn", "run", "spring26", "--yes", "--force")
    gm.send()
    gm.ok("turn", "rerun", "spring26", "1", "--reason", "a battle was resolved with the wrong fleets")
    mails = gm.send()
    assert len(mails) == 2
    for mail in mails:
        assert "(corrected)" in mail["Subject"]
        assert "Why: a battle was resolved with the wrong fleets" in body(mail)
        assert "Why: a battle was resolved with the wrong fleets" in _html(mail)
    data = json.loads(gm.ok("report", "spring26", "VEG", "--format", "json"))
    assert (
        data["corrected"] is True
        and data["correction_reason"] == "a battle was resolved with the wrong fleets"
    )
    assert "wrong fleets" in gm.ok("audit", "spring26", "--full")


def test_every_deadline_change_is_mailed_to_every_active_player_once(gm: GM) -> None:
    gm.ok("empire", "deactivate", "spring26", "VEG")
    gm.ok("game", "schedule", "spring26", "--cron", "0 20 * * 4", "--tz", "Europe/London")  # was Fridays
    [changed] = gm.send()
    assert changed["To"] == "ann@example.org" and "changed the game's schedule" in body(changed)
    assert "20:00" in changed["Subject"] and "UTC)" in body(changed)
    gm.ok("game", "schedule", "spring26", "--early-run", "on")  # no deadline change: no mail
    assert gm.send() == []
    gm.ok("game", "pause", "spring26")
    [paused] = gm.send()
    assert "no deadline for now" in paused["Subject"] and "paused" in body(paused)
    gm.ok("game", "resume", "spring26")
    [resumed] = gm.send()
    assert "resumed" in body(resumed)
    out = gm.ok("game", "extend", "spring26", "--hours", "24")
    assert "mailed the new deadline" in out
    [extended] = gm.send()
    assert "new deadline for this turn" in body(extended)
    shown = json.loads(gm.ok("game", "show", "spring26", "--json"))
    assert shown["deadline_set_by_gm"] is True
    gm.ok("game", "extend", "spring26", "--to", "2099-01-02 18:30")
    [moved] = gm.send()
    assert "Friday 02 January 2099, 18:30 GMT" in moved["Subject"]
    gm.ok("game", "schedule", "spring26", "--cron", "0 20 * * 4")  # the same schedule: no change, no mail
    assert gm.send() == []
    assert "18:30 UTC" in gm.ok("game", "show", "spring26")


def test_extend_refusals(gm: GM) -> None:
    assert "already passed" in gm.fails("game", "extend", "spring26", "--to", "2001-01-01 00:00")
    assert "YYYY-MM-DD HH:MM" in gm.fails("game", "extend", "spring26", "--to", "tomorrow")
    assert "--hours" in gm.fails("game", "extend", "spring26", "--hours", "-3")
    assert gm.fails("game", "extend", "spring26", status=2)  # neither --hours nor --to: a usage error
    gm.ok("game", "pause", "spring26")
    gm.send()
    assert "resume it first" in gm.fails("game", "extend", "spring26", "--hours", "2")
    assert gm.send() == []


def test_game_show_tells_the_whole_state(gm: GM, tmp_path: Path) -> None:
    orders = tmp_path / "orders.txt"
    orders.write_text("WAIT\nNAME 201 Vega Prime\n", encoding="utf-8")
    gm.ok("orders", "submit", "spring26", "VEG", str(orders))
    out = gm.ok("game", "show", "spring26")
    assert "turn 1 of at most 30" in out and "victory: 100 VP, or the most VP after turn 30" in out
    assert (
        "WAIT sent by: VEG (no early run)" in out and "orders in: 1 of 2 active empires; missing: RIG" in out
    )
    assert "(Europe/London)" in out and "GMT = " in out and " UTC" in out
    shown = json.loads(gm.ok("game", "show", "spring26", "--json"))
    assert shown["waiting"] == ["VEG"] and shown["missing"] == ["RIG"] and shown["hold"] is False
    gm.ok("turn", "hold", "spring26")
    gm.ok("turn", "run", "spring26", "--yes", "--force")
    out = gm.ok("game", "show", "spring26")
    assert "turn 1 is staged, waiting for you: turnproc turn release spring26" in out
    assert "on hold: each turn is staged for you to release" in out
    shown = json.loads(gm.ok("game", "show", "spring26", "--json"))
    assert shown["staged_turn"] == 1 and shown["hold"] is True and shown["turn"] == 2
