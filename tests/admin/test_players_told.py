"""What players are told when the GM acts on the game or on their empire,
end to end over SMTP on SQLite and PostgreSQL: a rollback (and the corrected
reports after it), a new address, a hand-over, orders the GM entered, and an
announcement on the public site once it has been mailed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.admin.gmcli import GM, body, make_gm
from tests.conftest import SmtpSink


@pytest.fixture
def gm(tmp_path: Path, db_url: str, smtp_server: SmtpSink) -> GM:
    return make_gm(tmp_path, db_url, smtp_server)


def test_a_rollback_is_told_to_every_active_player_and_the_turn_again_says_corrected(gm: GM) -> None:
    gm.ok("empire", "deactivate", "spring26", "VEG")
    gm.ok("turn", "run", "spring26", "--yes", "--force")
    first = [m for m in gm.send() if m["To"] == "ann@example.org"]
    assert [m["Subject"] for m in first] == ["[spring26] Turn 1 report for Rigel League (RIG)"]
    gm.ok("turn", "rollback", "spring26", "--to", "1", "--reason", "a battle used the wrong fleets")
    [told] = gm.send()  # VEG is inactive: only RIG's player
    assert told["To"] == "ann@example.org"
    assert told["Subject"] == "[spring26] the GM took the game back to turn 1"
    text = body(told)
    assert "Why: a battle used the wrong fleets" in text
    assert "The report of turn 1 no longer holds" in text and 'its report\'s subject says "corrected"' in text
    # Run again by hand (not `turn rerun`): the new reports replace ones the players have.
    gm.ok("turn", "run", "spring26", "--yes", "--force")
    again = [m for m in gm.send() if m["To"] == "ann@example.org"]
    assert [m["Subject"] for m in again] == ["[spring26] Turn 1 report for Rigel League (RIG) (corrected)"]


def test_a_discarded_staged_turn_run_again_is_not_a_correction(gm: GM) -> None:
    gm.ok("turn", "hold", "spring26")
    gm.ok("turn", "run", "spring26", "--yes", "--force")
    gm.ok("turn", "discard", "spring26")
    gm.ok("turn", "hold", "spring26", "--off")
    gm.ok("turn", "run", "spring26", "--yes", "--force")
    subjects = [m["Subject"] for m in gm.send() if "report" in m["Subject"]]
    assert subjects and not any("corrected" in s for s in subjects)


def test_set_email_tells_the_old_address_and_the_new(gm: GM) -> None:
    gm.ok("empire", "set-email", "spring26", "RIG", "ann@new.example.org")
    mails = {m["To"]: m for m in gm.send()}
    assert sorted(mails) == ["ann@example.org", "ann@new.example.org"]
    for mail in mails.values():
        assert mail["Subject"] == "spring26: the GM moved empire RIG to a new address"
        assert "from ann@example.org to ann@new.example.org" in body(mail)


def test_replace_tells_the_old_player(gm: GM) -> None:
    gm.ok("empire", "deactivate", "spring26", "VEG")
    gm.ok("empire", "replace", "spring26", "VEG", "--email", "cy@example.org")
    mails = {m["To"]: m for m in gm.send()}
    assert sorted(mails) == ["bo@example.org", "cy@example.org"]  # the old player, the new one's welcome
    old = mails["bo@example.org"]
    assert old["Subject"] == "spring26: empire VEG has a new player"
    assert "your password no longer works" in body(old)


def test_orders_the_gm_entered_are_told_to_the_player(gm: GM, tmp_path: Path) -> None:
    orders = tmp_path / "orders.txt"
    orders.write_text("NAME 101 Rigel Prime\n", encoding="utf-8")
    gm.ok("orders", "submit", "spring26", "RIG", str(orders))
    [told] = gm.send()
    assert (
        told["To"] == "ann@example.org"
        and told["Subject"] == "spring26: the GM entered orders for RIG, turn 1"
    )
    assert "  NAME 101 Rigel Prime\n" in body(told)
    orders.write_text("CLEAR\n", encoding="utf-8")
    gm.ok("orders", "submit", "spring26", "RIG", str(orders))
    [cleared] = gm.send()
    assert "(none: the GM withdrew them)" in body(cleared)
    orders.write_text("BOGUS 1 2\n", encoding="utf-8")  # nothing accepted: nothing changed, nothing told
    gm.ok("orders", "submit", "spring26", "RIG", str(orders))
    assert gm.send() == []


def test_an_announcement_is_on_the_site_once_it_has_been_mailed(gm: GM, tmp_path: Path) -> None:
    message = tmp_path / "message.txt"
    message.write_text("The server moves on Sunday.\n", encoding="utf-8")
    site = tmp_path / "site"
    gm.ok("announce", "spring26", "--subject", "Server move", str(message))
    gm.ok("site", "spring26", str(site))
    assert "No announcements yet." in (site / "announcements.html").read_text(
        encoding="utf-8"
    )  # not mailed yet
    assert len(gm.send()) == 2
    gm.ok("site", "spring26", str(site))
    page = (site / "announcements.html").read_text(encoding="utf-8")
    assert (
        "Server move" in page
        and "The server moves on Sunday." in page
        and "No announcements yet." not in page
    )
