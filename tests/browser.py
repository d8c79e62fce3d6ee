"""Headless Chromium for the tests that look at pages as a browser shows them
(the HTML report, a game's public pages): a screenshot, and what the page
logged to the console."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.servers import unavailable

__all__ = ["chromium", "chromium_run", "render_page", "console_lines"]


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        unavailable("Chromium is not installed (apt-get install chromium)")
    assert path is not None
    return path


def chromium_run(html_file: Path, width: int, *mode: str, height: int = 1800) -> subprocess.CompletedProcess[str]:
    """Headless Chromium on ``html_file`` in a window ``width`` pixels wide, with
    ``mode`` (a screenshot, say); fails the test when Chromium does."""
    profile = tempfile.mkdtemp(prefix="turnproc-chromium-")
    try:
        result = subprocess.run(
            [
                chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000",
                f"--window-size={width},{height}", *mode, html_file.as_uri(),
            ],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert result.returncode == 0, result.stderr[-2000:]
    return result


def render_page(html_file: Path, png: Path, width: int = 1200, height: int = 1800) -> str:
    """Screenshot ``html_file``; returns what Chromium logged."""
    return chromium_run(html_file, width, f"--screenshot={png}", height=height).stderr


def console_lines(log: str) -> list[str]:
    return [line for line in log.splitlines() if "CONSOLE" in line or "Uncaught" in line]
