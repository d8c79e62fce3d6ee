"""What the order desk's benchmark and its tests both need: Pyodide's release
files, a static site served on loopback that counts what it sends, and a
headless Chromium driven by Playwright. Where something is missing these
raise :class:`Missing`; the tests turn that into a skip (or a failure in CI)."""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from turnproc.reports.desk import PYODIDE_VERSION

ROOT = Path(__file__).resolve().parent.parent
#: Chromium's flags that work on the test machines.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class Missing(RuntimeError):
    """Something the desk needs is not installed here."""


def chromium() -> str:
    """Debian's Chromium (Playwright downloads no browser of its own here)."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        raise Missing("Chromium is not installed (apt-get install chromium)")
    return path


def pyodide_dir() -> Path:
    """The unpacked ``pyodide`` package of the pinned version: ``$TURNPROC_PYODIDE_DIR``,
    else the folder tests/run.sh installs it in."""
    folder = Path(
        os.environ.get("TURNPROC_PYODIDE_DIR") or ROOT / ".cache" / "pyodide-npm" / "node_modules" / "pyodide"
    )
    try:
        version = json.loads((folder / "package.json").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        raise Missing(
            f"no pyodide package in {folder} "
            f"(tests/run.sh installs it: npm install pyodide@{PYODIDE_VERSION})"
        ) from None
    if version != PYODIDE_VERSION:
        raise Missing(f"{folder} holds pyodide {version}, not {PYODIDE_VERSION}")
    return folder


@dataclass
class Served:
    """A static site on loopback, and every request it was asked."""

    origin: str
    requests: list[tuple[str, str, int]] = field(default_factory=list)
    """(method, path, bytes of body) of each request."""
    sent: int = 0
    """Bytes of the files served (bodies only)."""


@contextmanager
def serve(folder: Path) -> Iterator[Served]:
    served = Served("")

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _note(self) -> None:
            served.requests.append((self.command, self.path, int(self.headers.get("Content-Length") or 0)))

        def do_GET(self) -> None:
            self._note()
            super().do_GET()

        def copyfile(self, source: Any, outputfile: Any) -> None:
            data = source.read()
            served.sent += len(data)
            outputfile.write(data)

        def do_POST(self) -> None:
            self._note()
            self.send_error(405)

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(folder))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    served.origin = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def chromium_browser(executable: str) -> Iterator[Any]:
    """A fresh headless Chromium (a Playwright browser): one per thread, as
    Playwright's synchronous driver runs once per thread."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser: Any, width: int, height: int, **context: Any) -> tuple[Any, Any]:
    """(browser context, page) of a fresh profile in ``browser``."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, **context)
    return ctx, ctx.new_page()
