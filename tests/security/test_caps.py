"""Mail to third parties a forger or a careless player could multiply:
ADDRESS confirmations counted per empire and per address however it is
spelled, commands stopping with the acknowledgement cap, QUIT/BACK notices to
the GM, and two ADDRESS mails in one poll. Real Dovecot and SMTP, SQLite and
PostgreSQL (docs/orders.md, "Your account by mail"; docs/gm-handbook.md)."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import select

from tests.mail.test_player_commands import GM, Host, host, player, to  # noqa: F401 (the fixture)
from turnproc.storage import models as m


def test_two_address_mails_in_one_poll_are_both_answered(
    host: Host, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        sent = host.mail(player("ADDRESS ann@first.example"), player("ADDRESS ann@second.example"))
    assert [r.outcome for r in host.results] == ["commands", "commands"]
    assert "mail by mail" not in caplog.text
    acks = to(sent, "ann@example.org")
    assert len(acks) == 2 and all("a confirmation code went to" in a.text for a in acks)
    assert len(to(sent, "ann@first.example")) == 1 and len(to(sent, "ann@second.example")) == 1
    with host.app.sessions() as session:
        (change,) = session.scalars(select(m.AddressChange)).all()
        assert change.new_email == "ann@second.example"


def confirmations(sent: list, domain: str = "third.example") -> list:
    return [s for s in sent if s.to.lower().endswith("@" + domain)]


def test_no_spelling_of_one_address_escapes_the_confirmation_cap(host: Host) -> None:
    """Two empires, six spellings of one address: three codes in all (each
    spelling got three before: the cap counted exact spellings)."""
    rig = ["victim@third.example", "Victim@third.example", "vIctim@THIRD.example"]
    veg = ["victim+1@third.example", "victim+2@third.example", "VICTIM+x@third.example"]
    sent = host.mail(
        *(player(f"ADDRESS {s}", subject=f"move {i}") for i, s in enumerate(rig)),
        *(player(f"ADDRESS {s}", empire="VEG", subject=f"move {i}") for i, s in enumerate(veg)),
    )
    assert len(confirmations(sent)) == 3
    acks = to(sent, "bo@example.org")
    assert len(acks) == 3 and all("(in any spelling)" in a.text for a in acks)
    with host.app.sessions() as session:
        assert session.scalar(select(m.SuppressedReply.kind)) == "address_confirm"


def test_one_empire_mails_at_most_three_confirmation_codes_an_hour(host: Host) -> None:
    sent = host.mail(*(player(f"ADDRESS victim{i}@third.example", subject=f"move {i}") for i in range(6)))
    assert len(confirmations(sent)) == 3
    assert (
        sum("confirmation codes went out for your empire" in a.text for a in to(sent, "ann@example.org")) == 3
    )


def test_commands_stop_with_the_acknowledgement_cap(host: Host) -> None:
    host.mail(*(player("WAIT", subject=f"wait {i}") for i in range(30)))
    sent = host.mail(player("TAX\nQUIT"))
    assert sent == []  # no acknowledgement can go, so nothing else does either
    assert host.empire().quit_at is None
    assert host.outcome() == "accepted"  # the orders still count


def test_quit_and_back_alternating_tell_the_gm_once_an_hour(host: Host) -> None:
    mails = [player("QUIT" if i % 2 == 0 else "BACK", subject=f"leave {i}") for i in range(20)]
    sent = host.mail(*mails)
    assert len(to(sent, GM)) == 1
    assert len(to(sent, "ann@example.org")) == 20
    assert host.empire().quit_at is None  # the last mail was BACK
