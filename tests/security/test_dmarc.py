"""The receiving server's DMARC verdict (docs/gm-handbook.md, "Forged
senders and DMARC"): with ``trusted_authserv_id`` set, a mail whose From
domain fails DMARC by that server's word is filed unanswered and its
password is never checked; a pass goes through; a header from any other
server is ignored. Real Dovecot and SMTP, SQLite and PostgreSQL."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.conftest import IMAP_PASSWORD, IMAP_USER
from tests.factories import PASSWORD, imap_app, order_mail
from tests.mail.test_player_commands import GM, Host
from turnproc.config import load_config
from turnproc.intake import prepare
from turnproc.storage import models as m

TRUSTED = "mx.example.org"
DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


@pytest.fixture
def host(db_url: str, imap, smtp_server):
    app = imap_app(
        db_url,
        imap.port,
        smtp_server.port,
        IMAP_USER,
        IMAP_PASSWORD,
        gm_address=GM,
        trusted_authserv_id=TRUSTED,
    )
    yield Host(app, smtp_server)
    app.close()


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every password intake verifies (on the pool or on the poll's thread)."""
    seen: list[str] = []
    real = prepare.verify_password

    def counted(password: str, stored: str) -> bool:
        seen.append(password)
        return real(password, stored)

    monkeypatch.setattr(prepare, "verify_password", counted)
    return seen


def stamped(verdict: str, authserv_id: str = TRUSTED, password: str = PASSWORD) -> bytes:
    """An order mail from ann@example.org as the receiving server hands it on."""
    header = (
        f"Authentication-Results: {authserv_id}; spf=fail smtp.mailfrom=evil.example;"
        f" dmarc={verdict} header.from=example.org\n"
    )
    return header.encode() + order_mail("TAX", password=password)


def test_a_mail_failing_dmarc_is_filed_unanswered_and_no_password_is_checked(
    host: Host, checks: list[str]
) -> None:
    sent = host.mail(stamped("fail"), stamped("fail", password="guess-1"))
    assert [r.outcome for r in host.results] == ["forged", "forged"]
    assert sent == [] and checks == []
    with host.app.sessions() as session:
        rows = session.scalars(select(m.InboundMessage)).all()
        assert [r.outcome for r in rows] == ["forged", "forged"]
        assert "DMARC fails for example.org" in rows[0].detail
        assert session.scalars(select(m.OrderSet)).all() == []


def test_a_mail_passing_dmarc_goes_through(host: Host, checks: list[str]) -> None:
    (ack,) = host.mail(stamped("pass"))
    assert host.outcome() == "accepted" and ack.to == "ann@example.org"
    assert checks == [PASSWORD]


def test_a_verdict_from_another_server_is_ignored(host: Host, checks: list[str]) -> None:
    (ack,) = host.mail(stamped("fail", authserv_id="mx.attacker.example"))
    assert host.outcome() == "accepted" and ack.to == "ann@example.org"
    assert checks == [PASSWORD]


def test_without_a_trusted_server_no_verdict_counts(
    db_url: str, imap, smtp_server, checks: list[str]
) -> None:
    app = imap_app(db_url, imap.port, smtp_server.port, IMAP_USER, IMAP_PASSWORD, gm_address=GM)
    try:
        host = Host(app, smtp_server)
        (ack,) = host.mail(stamped("fail"))
        assert host.outcome() == "accepted" and checks == [PASSWORD]
    finally:
        app.close()


def test_the_operator_finds_the_setting_and_the_server_setup(tmp_path: Path) -> None:
    """deploy/OPERATIONS.md links the server setup, and the example config
    names the trusted server (tests/service/test_deploy.py loads it whole)."""
    operations = (DEPLOY / "OPERATIONS.md").read_text(encoding="utf-8")
    assert "## Sender authentication (DMARC)" in operations and "(dmarc.md)" in operations
    setup = (DEPLOY / "dmarc.md").read_text(encoding="utf-8")
    assert "OpenDMARC" in setup and "rspamd" in setup and "removes" in setup
    shutil.copy(DEPLOY / "turnproc.example.toml", tmp_path / "turnproc.toml")
    for secret in ("imap-password", "smtp-password"):
        (tmp_path / secret).write_text("x\n")
    assert load_config(tmp_path / "turnproc.toml", env={}).trusted_authserv_id == "mx.example.org"
