"""The host as the security tests attack it: the two-empire game, Maildir in,
the outbox read as mails (tests/security/conftest.py gives the ``app``)."""

from __future__ import annotations

import datetime as dt
import mailbox
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import make_msgid

from sqlalchemy import select

from tests.factories import EMAILS, HOST_ADDRESS, PASSWORD
from tests.mailrows import with_bodies
from turnproc.app import App
from turnproc.storage import models as m

NOW = dt.datetime(2026, 3, 2, 19, 0, tzinfo=dt.timezone.utc)
GM = "gm@example.org"
OWNER = EMAILS["RIG"]
#: From lines a forger writes for the owner: the address as it is, in other
#: cases, with display names, and with the address as the display name.
FORGED_FROMS = [
    OWNER,
    OWNER.upper(),
    "Ann <ann@example.org>",
    "ANN <Ann@Example.Org>",
    '"ann@example.org" <ann@example.org>',
    "Ann Example <ANN@example.org>",
]


def mail(text: str, *, sender: str = OWNER, password: str = PASSWORD, empire: str = "RIG") -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = HOST_ADDRESS
    msg["Subject"] = f"orders {empire}"
    msg["Message-ID"] = make_msgid(domain="players.example")
    msg.set_content(f"GAME corpus\nEMPIRE {empire} {password}\n{text}\n")
    return msg.as_bytes()


def deliver(app: App, *raws: bytes) -> None:
    box = mailbox.Maildir(app.config.maildir_in, create=True)
    for raw in raws:
        box.add(raw)


def outbox(app: App, kind: str | None = None) -> list[m.OutboxMail]:
    with app.sessions() as session:
        query = select(m.OutboxMail).order_by(m.OutboxMail.id)
        rows = list(session.scalars(query if kind is None else query.where(m.OutboxMail.kind == kind)))
        return with_bodies(session, rows, app.config.from_address)


def text_of(row: m.OutboxMail) -> str:
    part = message_from_bytes(row.body, policy=policy.default).get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def on_file(app: App) -> list[str]:
    with app.sessions() as session:
        row = session.scalars(
            select(m.OrderSet).join(m.Empire).where(m.Empire.code == "RIG", m.OrderSet.active.is_(True))
        ).one()
        return list(row.lines)
