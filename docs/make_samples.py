"""Regenerate the samples in docs/samples/ from the demo game, and the copies of
them embedded in the docs.

    python docs/make_samples.py            # rewrite docs/samples/ and the embedded copies
    python docs/make_samples.py --check    # exit 1 if anything differs

``tests/docs/test_samples.py`` runs the same code and compares; with
``pytest tests/docs --update-golden`` it rewrites like this script does.

What is made, and how it stays the same from run to run:

* The demo game (``turnproc.service.demo.run_demo``, seed ``demo``) plays ``TURNS``
  turns; its dice come from the seed, so every run plays the same game.
* ``report.txt`` and ``report.html`` are Rigel League's (RIG) report of the last
  turn (the HTML as a page of its own: the map is the SVG drawing, where the mail
  has the PNG); ``report.png`` and ``report-phone.png`` are headless-Chromium
  screenshots of ``report.html`` at 1,200 and 390 pixels wide. PNG bytes differ
  between machines, so each screenshot carries the sha256 of the HTML it shows
  in a PNG text chunk, and the test compares that instead.
* ``site-phone.png`` is a screenshot at 390 pixels of the demo's public
  standings page (``turnproc site``), carrying the sha256 of that page and its
  style sheet the same way.
* The demo's passwords are random. To send order mails of our own, this script
  then gives RIG a fixed password (``SAMPLE_PASSWORD``), as a GM resetting a
  password would, and gives the game a deadline schedule; then it sends the
  mails in ``MAILS`` through the real intake and keeps each answer. Order lines
  are built from RIG's own JSON report, so they name systems RIG really has.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent
SAMPLES = DOCS / "samples"

TURNS = 3
EMPIRE = "RIG"
SAMPLE_PASSWORD = "mq7hv3kaxp2e"
SCHEDULE = ("0 20 * * 1,4", "Europe/London")  # Mondays and Thursdays, 20:00 London time
PNG_KEY = "turnproc-html-sha256"
#: Screenshots of report.html: file name -> window width in pixels (desktop, phone).
SCREENSHOTS = {"report.png": 1200, "report-phone.png": 390}

#: Screenshots of the demo's public site: file name -> (page, window width).
SITE_SCREENSHOTS = {"site-phone.png": ("index.html", 390)}
#: The site's files a screenshot needs (the samples hold them as "site/NAME").
SITE_FILES = ("index.html", "site.css")
SITE_NOW = dt.datetime(2026, 1, 5, 18, 0, tzinfo=dt.UTC)

#: Files in docs/samples/ this script writes (report.png separately).
TEXT_SAMPLES = (
    "report.txt",
    "report.html",
    "order-mail.txt",
    "ack.txt",
    "ack-orders-other-address.txt",
    "guessing-digest.txt",
    "ack-wrong-turn.txt",
    "ack-cleared.txt",
    "ack-no-game-line.txt",
    "ack-unknown-game.txt",
)

#: ``<!-- sample: NAME -->`` + a fenced block + ``<!-- /sample -->`` in a doc is
#: a copy of docs/samples/NAME.
EMBED = re.compile(
    r"(<!-- sample: (?P<name>[\w.-]+) -->\n```(?P<info>[^\n]*)\n)(?P<body>.*?)(```\n<!-- /sample -->)",
    re.DOTALL,
)


# -- the demo and the mails ---------------------------------------------------------


@dataclass(frozen=True)
class Mail:
    name: str
    """The sample file the answer goes to."""
    sender: str
    text: str


def _orders_for(report: dict[str, Any], turn: int) -> str:
    """An order mail with a few typical mistakes, from RIG's own report."""
    systems = {s["code"]: s for s in report["systems"]}
    scouting = {s["code"]: s for s in report["scouting"]}
    base, home = report["empire"]["base"], report["empire"]["home"]
    linked = systems[base]["links"]
    # An unowned neighbour when there is one; else any neighbour (a move there is still an order).
    target = next((c for c in linked if c in scouting and scouting[c]["owner"] is None), linked[0])
    far = next(c for c in sorted(systems | scouting) if c != base and c not in linked)
    lines = [
        "GAME demo",
        f"EMPIRE {EMPIRE} {SAMPLE_PASSWORD}",
        f"TURN {turn}",
        "",
        "# expand, and keep the home guard",
        f"MOVE {base} {target} 2",
        f"MOVE {base} {far} 1",
        f"NEWCRS {base}",
        f"GROW {home} 2",
        "TECH WEPONS",
        "MESSAGE ALL Rigel League seeks friends. Write to RIG.",
        "END",
    ]
    return "\n".join(lines)


def _mails(report: dict[str, Any], turn: int) -> list[Mail]:
    ann = "Ann Rigg <ann@example.org>"
    header = f"GAME demo\nEMPIRE {EMPIRE} {SAMPLE_PASSWORD}\nTURN {turn}\n"
    return [
        Mail("ack.txt", ann, "Hi GM, my orders:\n\n" + _orders_for(report, turn) + "\n-- \nAnn\n"),
        Mail("ack-orders-other-address.txt", "Ann Rigg <ann.rigg@work.example>", header + "ORDERS\n"),
        Mail(
            "guessing-digest.txt",
            "Someone <someone@elsewhere.example>",
            f"GAME demo\nEMPIRE {EMPIRE} letmein\nTAX\n",
        ),
        Mail(
            "ack-wrong-turn.txt", ann, f"GAME demo\nEMPIRE {EMPIRE} {SAMPLE_PASSWORD}\nTURN {turn - 1}\nTAX\n"
        ),
        Mail("ack-cleared.txt", ann, header + "CLEAR\n"),
        Mail("ack-no-game-line.txt", ann, f"EMPIRE {EMPIRE} {SAMPLE_PASSWORD}\nTAX\n"),
        Mail("ack-unknown-game.txt", "Bo Vega <bo.vega@gmail.example>", "GAME dmeo\nEMPIRE VEG xxxx\nTAX\n"),
    ]


def _message(mail: Mail, subject: str, when: dt.datetime, number: int) -> bytes:
    msg = EmailMessage()
    msg["From"] = mail.sender
    msg["To"] = "turns@turnproc.example"
    msg["Subject"] = subject
    msg["Date"] = format_datetime(when)
    msg["Message-ID"] = f"<sample-{number}@example.org>"
    msg.set_content(mail.text)
    return bytes(msg)


def _reply_text(raw: bytes) -> str:
    msg = message_from_bytes(raw, policy=policy.default)
    body = msg.get_body(preferencelist=("plain",))
    assert body is not None
    text = body.get_content().replace("\r\n", "\n")
    return f"To: {msg['To']}\nSubject: {msg['Subject']}\n\n{text}"


def make_samples(workdir: Path) -> dict[str, str]:
    """Play the demo in ``workdir`` and return every text sample, name → text,
    and the site's files a screenshot needs, as ``site/NAME``."""
    from sqlalchemy import select

    from turnproc.accounts.passwords import hash_password
    from turnproc.app import open_app
    from turnproc.games.publish import write_site
    from turnproc.intake import handle_mail
    from turnproc.intake.guessing import tell_of_guessing
    from turnproc.outgoing.reportmail import mail_bytes
    from turnproc.reports.render import render_report_documents
    from turnproc.service.demo import GAME, demo_config, run_demo
    from turnproc.storage import models as m
    from turnproc.storage.db import transaction
    from turnproc.storage.queries import get_empire, get_game

    directory = workdir / "demo"
    run_demo(directory, turns=TURNS, players=4, seed="demo")
    app = open_app(demo_config(directory))
    out: dict[str, str] = {}
    try:
        with transaction(app.sessions) as session:
            game = get_game(session, GAME)
            empire = get_empire(session, game, EMPIRE)
            report = session.scalars(
                select(m.Report).where(m.Report.empire_id == empire.id).order_by(m.Report.turn.desc())
            ).first()
            assert report is not None
            docs = render_report_documents(report.data)
            out["report.txt"] = docs.text
            out["report.html"] = docs.page()
            write_site(session, GAME, workdir / "site", SITE_NOW)
            for name in SITE_FILES:
                out[f"site/{name}"] = (workdir / "site" / name).read_text(encoding="utf-8")
            data, turn = dict(report.data), game.turn
            empire.password_hash = hash_password(SAMPLE_PASSWORD)
            game.schedule, game.timezone = SCHEDULE
        when = dt.datetime(2026, 1, 5, 18, 0, tzinfo=dt.UTC) + dt.timedelta(days=TURNS, hours=2)
        for number, mail in enumerate(_mails(data, turn), start=1):
            if mail.name == "ack.txt":
                out["order-mail.txt"] = mail.text
            raw = _message(mail, f"Orders {GAME} turn {turn}", when, number)
            with transaction(app.sessions) as session:
                result = handle_mail(session, raw, app.config, when + dt.timedelta(minutes=number))
            if result.outcome == "wrong_password":
                # Not answered: told to the owner (and the GM) in the day's digest.
                tell_of_guessing(app, [empire.id], when + dt.timedelta(minutes=number))
                with app.sessions() as session:
                    row = session.scalars(
                        select(m.OutboxMail).where(
                            m.OutboxMail.kind == "guessing", m.OutboxMail.recipient == empire.email
                        )
                    ).one()
                    out[mail.name] = _reply_text(mail_bytes(session, row, app.config.from_address))
                continue
            with transaction(app.sessions) as session:
                assert len(result.replies) == 1, (mail.name, result)
                row = session.scalars(
                    select(m.OutboxMail).where(m.OutboxMail.message_id == result.replies[0])
                ).one()
                out[mail.name] = _reply_text(mail_bytes(session, row, app.config.from_address))
    finally:
        app.close()
    return out


# -- the screenshot -------------------------------------------------------------------------


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    )


def png_text(png: bytes) -> dict[str, str]:
    """The tEXt chunks of a PNG, keyword → text."""
    found: dict[str, str] = {}
    pos = 8
    while pos + 8 <= len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind = png[pos + 4 : pos + 8]
        data = png[pos + 8 : pos + 8 + length]
        if kind == b"tEXt":
            key, _, value = data.partition(b"\0")
            found[key.decode("latin-1")] = value.decode("latin-1")
        pos += 12 + length
    return found


def png_with_text(png: bytes, key: str, value: str) -> bytes:
    """``png`` with one more tEXt chunk, placed before IEND."""
    end = png.rindex(b"IEND") - 4
    return png[:end] + _chunk(b"tEXt", key.encode("latin-1") + b"\0" + value.encode("latin-1")) + png[end:]


def html_digest(html: str) -> str:
    return hashlib.sha256(html.encode("utf-8")).hexdigest()


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def screenshot(
    html: str,
    browser: str,
    width: int = 1200,
    beside: dict[str, str] | None = None,
    digest: str | None = None,
) -> bytes:
    """``html`` rendered by headless Chromium in a window ``width`` pixels wide,
    with the HTML's digest (or ``digest``) inside; ``beside``: files the page
    loads (a style sheet), name → text."""
    with tempfile.TemporaryDirectory(prefix="turnproc-samples-") as tmp:
        page, png, profile = Path(tmp, "report.html"), Path(tmp, "report.png"), Path(tmp, "profile")
        page.write_text(html, encoding="utf-8")
        for name, text in (beside or {}).items():
            Path(tmp, name).write_text(text, encoding="utf-8")
        subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--hide-scrollbars",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                f"--window-size={width},2400",
                f"--screenshot={png}",
                page.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        return png_with_text(png.read_bytes(), PNG_KEY, digest or html_digest(html))


def site_digest(samples: dict[str, str]) -> str:
    """What a site screenshot shows: its page and its style sheet."""
    return html_digest("".join(samples[f"site/{name}"] for name in SITE_FILES))


# -- comparing and writing -------------------------------------------------------------------


def embedded(text: str) -> list[tuple[str, str]]:
    """(sample name, embedded text) for every embedded sample in a doc."""
    return [(mt["name"], mt["body"]) for mt in EMBED.finditer(text)]


def embed(text: str, samples: dict[str, str]) -> str:
    """``text`` with every embedded sample replaced by the current one."""

    def replace(mt: re.Match[str]) -> str:
        body = samples[mt["name"]]
        return mt.group(1) + body + ("" if body.endswith("\n") else "\n") + mt.group(5)

    return EMBED.sub(replace, text)


def doc_files() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def differences(samples: dict[str, str]) -> list[str]:
    """What in docs/ does not match ``samples`` (empty when all is current)."""
    problems = []
    for name in TEXT_SAMPLES:
        path = SAMPLES / name
        if not path.exists() or path.read_text(encoding="utf-8") != samples[name]:
            problems.append(f"docs/samples/{name} differs from what the demo produces")
    for doc in doc_files():
        text = doc.read_text(encoding="utf-8")
        if embed(text, samples) != text:
            problems.append(f"docs/{doc.name}: an embedded sample differs from docs/samples/")
    for name in SCREENSHOTS:
        png = SAMPLES / name
        if not png.exists() or png_text(png.read_bytes()).get(PNG_KEY) != html_digest(samples["report.html"]):
            problems.append(f"docs/samples/{name} is not a screenshot of the current report.html")
    for name in SITE_SCREENSHOTS:
        png = SAMPLES / name
        if not png.exists() or png_text(png.read_bytes()).get(PNG_KEY) != site_digest(samples):
            problems.append(f"docs/samples/{name} is not a screenshot of the demo's current site")
    return problems


def write(samples: dict[str, str]) -> list[str]:
    """Bring docs/ up to date; returns what was changed."""
    changed = []
    SAMPLES.mkdir(exist_ok=True)
    for name in TEXT_SAMPLES:
        path = SAMPLES / name
        if not path.exists() or path.read_text(encoding="utf-8") != samples[name]:
            path.write_text(samples[name], encoding="utf-8")
            changed.append(f"docs/samples/{name}")
    for doc in doc_files():
        text = doc.read_text(encoding="utf-8")
        new = embed(text, samples)
        if new != text:
            doc.write_text(new, encoding="utf-8")
            changed.append(f"docs/{doc.name}")
    for name, width in SCREENSHOTS.items():
        png = SAMPLES / name
        if not png.exists() or png_text(png.read_bytes()).get(PNG_KEY) != html_digest(samples["report.html"]):
            browser = chromium()
            if browser is None:
                raise RuntimeError(
                    f"docs/samples/{name} is out of date and Chromium is not installed to redo it"
                )
            png.write_bytes(screenshot(samples["report.html"], browser, width))
            changed.append(f"docs/samples/{name}")
    for name, (page, width) in SITE_SCREENSHOTS.items():
        png = SAMPLES / name
        if not png.exists() or png_text(png.read_bytes()).get(PNG_KEY) != site_digest(samples):
            browser = chromium()
            if browser is None:
                raise RuntimeError(
                    f"docs/samples/{name} is out of date and Chromium is not installed to redo it"
                )
            beside = {n: samples[f"site/{n}"] for n in SITE_FILES if n != page}
            png.write_bytes(screenshot(samples[f"site/{page}"], browser, width, beside, site_digest(samples)))
            changed.append(f"docs/samples/{name}")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when something differs")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="turnproc-samples-") as tmp:
        samples = make_samples(Path(tmp))
    if args.check:
        problems = differences(samples)
        for p in problems:
            print(p)
        return 1 if problems else 0
    for path in write(samples) or ["nothing changed"]:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
