"""What the six players of the journey receive and send: the SMTP sink's
mails read as a player reads them, and order mails in the shapes their mail
programs write."""

from __future__ import annotations

import email
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

from tests.conftest import SmtpSink

HOST_ADDRESS = "turns@turnproc.example"


@dataclass
class Mail:
    index: int
    to: list[str]
    subject: str
    text: str
    json: dict[str, Any] | None
    claimed_by: str = ""


@dataclass
class Mailbag:
    """Every mail the SMTP sink received, in order; each check claims the mails
    it looked at, so that at the end no mail to a player went unchecked."""

    sink: SmtpSink
    mails: list[Mail] = field(default_factory=list)

    def refresh(self) -> None:
        for i in range(len(self.mails), len(self.sink.messages)):
            _, rcpts, raw = self.sink.messages[i]
            msg = email.message_from_bytes(raw, policy=policy.default)
            body = msg.get_body(preferencelist=("plain",))
            text = str(body.get_content()).replace("\r\n", "\n") if body is not None else ""
            data = None
            for part in msg.iter_attachments():
                if (part.get_filename() or "").endswith(".json"):
                    data = json.loads(
                        part.get_content()
                        if isinstance(part.get_content(), str)
                        else part.get_content().decode()
                    )
            self.mails.append(
                Mail(i, [r.lower() for r in rcpts], " ".join(str(msg["Subject"]).split()), text, data)
            )

    def waiting(self, to: str, match: Callable[[Mail], bool]) -> list[Mail]:
        self.refresh()
        return [m for m in self.mails if not m.claimed_by and to.lower() in m.to and match(m)]

    def take(
        self,
        to: str,
        what: str,
        match: Callable[[Mail], bool],
        alive: Callable[[], str | None],
        timeout: float = 60,
    ) -> Mail:
        """Wait for the one unclaimed mail to ``to`` that ``match`` accepts; claim it."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = self.waiting(to, match)
            if found:
                assert len(found) == 1, f"{len(found)} mails to {to} for {what}: {[m.subject for m in found]}"
                found[0].claimed_by = what
                return found[0]
            problem = alive()
            if problem:
                raise AssertionError(f"while waiting for {what} to {to}: {problem}")
            time.sleep(0.1)
        self.refresh()
        mine = [(m.subject, m.claimed_by) for m in self.mails if to.lower() in m.to]
        raise AssertionError(f"no {what} for {to} within {timeout}s; mails to {to}: {mine}")

    def unclaimed(self, addresses: list[str]) -> list[tuple[list[str], str]]:
        self.refresh()
        wanted = {a.lower() for a in addresses}
        return [(m.to, m.subject) for m in self.mails if not m.claimed_by and wanted & set(m.to)]


def subject_is(subject: str) -> Callable[[Mail], bool]:
    return lambda m: m.subject == subject


def subject_has(part: str) -> Callable[[Mail], bool]:
    return lambda m: part in m.subject


# -- order mails as the players' programs write them ---------------------------------


def _envelope(sender: str, subject: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = HOST_ADDRESS
    msg["Subject"] = subject
    msg["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2])
    msg["Date"] = email.utils.formatdate(localtime=False)
    return msg


def plain(sender: str, subject: str, text: str) -> bytes:
    """Thunderbird: text/plain, UTF-8."""
    msg = _envelope(sender, subject)
    msg.set_content(text)
    return bytes(msg)


def gmail(sender: str, subject: str, text: str) -> bytes:
    """The Gmail web client: multipart/alternative, the HTML twin in <div>s."""
    msg = _envelope(sender, subject)
    msg.set_content(text)
    html = (
        '<div dir="ltr">' + "".join(f"<div>{line or '<br>'}</div>" for line in text.splitlines()) + "</div>"
    )
    msg.add_alternative(html, subtype="html")
    return bytes(msg)


def outlook(sender: str, subject: str, text: str) -> bytes:
    """Outlook: HTML only, windows-1252, one <p class=MsoNormal> a line with a
    line break between the paragraphs in the source, as real Outlook writes."""
    msg = _envelope(sender, subject)
    paras = "\r\n".join(f"<p class=MsoNormal>{line or '<o:p>&nbsp;</o:p>'}</p>" for line in text.splitlines())
    body = (
        '<html><head><meta http-equiv=Content-Type content="text/html; charset=windows-1252">'
        "<style>p.MsoNormal{margin:0cm}</style></head>\r\n<body lang=EN-GB>\r\n<div class=WordSection1>\r\n"
        + paras
        + "\r\n</div>\r\n</body></html>"
    )
    msg.set_content(body.encode("windows-1252"), maintype="text", subtype="html", cte="quoted-printable")
    msg.replace_header("Content-Type", 'text/html; charset="windows-1252"')
    return bytes(msg)


def iphone(sender: str, subject: str, text: str) -> bytes:
    """Mail on an iPhone: quoted-printable, the phone's signature after the orders, no END."""
    msg = _envelope(sender, subject)
    msg.set_content(text.rstrip("\n") + "\n\nSent from my iPhone\n", cte="quoted-printable")
    return bytes(msg)


# -- the acknowledgement as a player reads it ---------------------------------------------

ACK_ROW = re.compile(r"^ {0,3}(\d{1,4})  (.{1,30}?)\s+((?:OK|ERROR|WARNING).*)$")


def verdicts(ack: str) -> dict[int, str]:
    """Line number -> the result column of the acknowledgement's table."""
    return {line: result for line, (_, result) in table(ack).items()}


def table(ack: str) -> dict[int, tuple[str, str]]:
    """Line number -> (the order as the host read it, the result column)."""
    rows: dict[int, tuple[str, str]] = {}
    table = ack.split("Line  Order", 1)
    if len(table) < 2:
        return rows
    for line in table[1].split("\n\n", 1)[0].splitlines()[1:]:
        found = ACK_ROW.match(line)
        if found:
            number = int(found.group(1))
            order, result = rows.get(number, (found.group(2).strip(), ""))
            rows[number] = (order, (result + " " + found.group(3)).strip())
    return rows


def on_file(ack: str) -> list[str]:
    """The "Orders now on file" list of an acknowledgement or an ORDERS answer."""
    if "Orders now on file" not in ack:
        return []
    block = ack.split("Orders now on file", 1)[1].split("\n", 1)[1]
    lines = []
    for line in block.splitlines():
        if not line.startswith("  ") or line.startswith("  WAIT:"):
            break
        lines.append(line.strip())
    return lines
