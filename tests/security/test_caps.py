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


def test_two_address_mails_in_one_poll_are_both_answered(host: Host, caplog: pytest.LogCaptureFixture) -> None:
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
