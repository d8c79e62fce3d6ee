"""The order desk as a player meets it, for the tests and the benchmark: a
generated six-empire game (rule set 2) after one turn, its public pages with
the desk written by the real ``write_site``, served over HTTP on loopback,
and a headless Chromium (driven by Playwright) working the page.

Pyodide's release files come from ``$TURNPROC_PYODIDE_DIR``, else from
``.cache/pyodide-npm/node_modules/pyodide`` (tests/run.sh installs them there).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import desk
from benchmarks.desk import new_page, serve
from tests.browser import chromium
from tests.factories import PASSWORD
from tests.servers import unavailable
from tests.test_check_orders import START, Game
from turnproc.app import App, open_app
from turnproc.config import Config
from turnproc.games.publish import write_site
from turnproc.storage.db import transaction

CODES = ("RIG", "VEG", "ZAP", "ORI", "LYR", "CYG")
HOST = "Star Chase host <turns@turnproc.example>"


def pyodide_dir() -> Path:
    """The unpacked ``pyodide`` package of the pinned version (skip locally, fail in CI)."""
    try:
        return desk.pyodide_dir()
    except desk.Missing as exc:
        unavailable(str(exc))
        raise


class DeskGame:
    """The six-empire game after turn 1, RIG's JSON report, and its site."""

    def __init__(self, folder: Path, pyodide: Path | None) -> None:
        self.config = Config(
            database_url=f"sqlite:///{folder / 'game.db'}",
            maildir_in=folder / "in",
            maildir_out=folder / "out",
            from_address=HOST,
        )
        self.app: App = open_app(self.config)
        # The checker's property test's game, of six empires and rule set 2.
        self.game = Game(self.app, "six", CODES, seed="order-desk", ruleset=2)
        self.json, self.data = self.game.json, self.game.data
        self.site = folder / "site"
        with transaction(self.app.sessions) as session:
            write_site(session, "six", self.site, START, host_address=HOST, pyodide=pyodide)
        self.report = folder / "RIG-turn-1.json"
        self.report.write_text(self.json, encoding="utf-8")

    def ack(self, raw: bytes) -> str:
        """Mail ``raw`` to the host through the real intake; the acknowledgement's text."""
        return self.game.answer(raw)

    def close(self) -> None:
        self.app.close()


@dataclass(frozen=True)
class Verdicts:
    rows: list[str]
    """The page's rows: the acknowledgement's table, a row per line, and any refusal or problem."""
    summary: str
    mail: str


class DeskPage:
    """One Chromium page on the order desk (``page``: a Playwright page)."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        # Starting Pyodide holds the page's thread for seconds (minutes on a loaded machine).
        page.set_default_timeout(240_000)
        page.on(
            "console", lambda msg: self.errors.append(msg.text) if msg.type in ("error", "warning") else None
        )
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))

    def open(self, url: str, report: Path | None = None, timeout: float = 240_000) -> None:
        """Open the desk at ``url``, read ``report`` from the file picker and
        wait until the checker has loaded (or failed to)."""
        self.page.goto(url)
        if report is not None:
            self.page.set_input_files("#file", str(report))
        self.page.wait_for_function(
            "window.orderDesk.judge !== null || window.orderDesk.failed === true", timeout=timeout
        )

    def type_orders(self, orders: str, password: str = PASSWORD) -> Verdicts:
        """Type the password and ``orders`` as a player does; what the page then says."""
        before = self.page.evaluate("window.orderDesk.checked")
        self.page.fill("#password", password)
        self.page.fill("#orders", orders)
        if self.page.evaluate("window.orderDesk.judge !== null"):
            self.page.wait_for_function(f"window.orderDesk.checked > {before}")
        # The last keystroke's check, not an earlier one's.
        self.page.wait_for_function("window.orderDesk.mailText() === document.getElementById('mail').value")
        rows = self.page.eval_on_selector_all("#verdicts pre.row", "nodes => nodes.map(n => n.textContent)")
        summary = self.page.eval_on_selector_all(
            "#verdicts p.sum", "nodes => nodes.map(n => n.textContent).join('')"
        )
        return Verdicts(rows, summary, self.page.input_value("#mail"))


@contextmanager
def chromium_browser() -> Iterator[Any]:
    """A fresh headless Chromium (a Playwright browser): one per test module."""
    with desk.chromium_browser(chromium()) as browser:
        yield browser


_COST = re.compile(
    r"Cost as written: (\d+) BP of your balance of (\d+) BP(?: \(TAX and CASH add (\d+) BP\))?; "
    r"(\d+) BP of your treasury of (\d+) BP(?: \(STASH adds (\d+) BP\))?"
)


def expected_page(checked: str) -> tuple[list[str], str]:
    """What the page must show for check-orders' text ``checked``: its rows
    (refusal first) and its summary, the purses left worked out from the cost line."""
    lines = checked.splitlines()
    rows = [line for line in lines if re.match(r"^ {0,3}\d+  ", line)]
    refused = [line for line in lines if line.startswith("The host would not accept this mail: ")]
    parts = []
    cost = _COST.search(checked)
    if cost:
        balance_cost, balance, to_balance, treasury_cost, treasury, to_treasury = (
            int(g or 0) for g in cost.groups()
        )
        parts += [
            f"Balance left {balance + to_balance - balance_cost} BP",
            f"treasury left {treasury + to_treasury - treasury_cost} BP",
        ]
    slots = re.search(r"\((\d+)/16 slots\)", checked)
    parts.append(f"{slots.group(1) if slots else 0}/16 slots used")
    errors = re.search(r"^(\d+) lines? ha(?:ve|s) errors and would not be stored", checked, re.MULTILINE)
    if errors:
        n = int(errors.group(1))
        parts.append(f"{n} line{'' if n == 1 else 's'} with errors")
    skipped = []
    if "\nNot read:\n" in checked:
        block = checked.split("\nNot read:\n", 1)[1].split("\n\n")[0]
        skipped = ["Not read: " + line.strip() for line in block.splitlines()]
    return refused + rows + skipped, "; ".join(parts) + "."


def mail_from_link(href: str, sender: str = "rig@players.example") -> bytes:
    """The mail a mail program writes from a ``mailto:`` link, sent as it is."""
    from email.message import EmailMessage
    from urllib.parse import parse_qs, unquote, urlsplit

    parts = urlsplit(href)
    assert parts.scheme == "mailto"
    query = parse_qs(parts.query)
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = unquote(parts.path)
    msg["Subject"] = query["subject"][0]
    msg["Message-ID"] = f"<desk-{abs(hash(href))}@players.example>"
    msg.set_content(query["body"][0].replace("\r\n", "\n"))
    return msg.as_bytes()


__all__ = [
    "DeskGame",
    "DeskPage",
    "Verdicts",
    "serve",
    "chromium_browser",
    "new_page",
    "pyodide_dir",
    "expected_page",
    "mail_from_link",
]
