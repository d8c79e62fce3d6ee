"""Headless Chromium for the tests that look at pages as a browser shows them
(the HTML report, a game's public pages): a screenshot, and what the page
logged to the console."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from benchmarks import desk
from tests.servers import unavailable

__all__ = ["chromium", "chromium_run", "render_page", "console_lines", "PHONE_MEASURE", "phone_layout"]


def chromium() -> str:
    try:
        return desk.chromium()
    except desk.Missing as exc:
        unavailable(str(exc))
        raise


def chromium_run(
    html_file: Path, width: int, *mode: str, height: int = 1800
) -> subprocess.CompletedProcess[str]:
    """Headless Chromium on ``html_file`` in a window ``width`` pixels wide, with
    ``mode`` (a screenshot, say); fails the test when Chromium does."""
    profile = tempfile.mkdtemp(prefix="turnproc-chromium-")
    try:
        result = subprocess.run(
            [
                chromium(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                f"--user-data-dir={profile}",
                "--enable-logging=stderr",
                "--v=0",
                "--virtual-time-budget=5000",
                f"--window-size={width},{height}",
                *mode,
                html_file.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert result.returncode == 0, result.stderr[-2000:]
    return result


def render_page(html_file: Path, png: Path, width: int = 1200, height: int = 1800) -> str:
    """Screenshot ``html_file``; returns what Chromium logged."""
    return chromium_run(html_file, width, f"--screenshot={png}", height=height).stderr


def console_lines(log: str) -> list[str]:
    return [line for line in log.splitlines() if "CONSOLE" in line or "Uncaught" in line]


#: Added to a page for the test only (a report or a site page carries no
#: script): once everything has loaded, what a phone test checks, logged to
#: the console (which Chromium prints). ``near``: the neighbourhood map's
#: place and its shown and own width; ``plot``: the VP plot's smallest number
#: as shown (font size times the drawing's scale); ``legend``: the plot
#: legend's smallest font size; ``boxes``: boxes that scroll sideways inside.
PHONE_MEASURE = """<script>
window.addEventListener("load", () => {
  const root = document.documentElement;
  const out = {innerWidth: window.innerWidth, scrollWidth: Math.max(root.scrollWidth, \
document.body.scrollWidth),
               near: null, plot: null, legend: null, boxes: []};
  const img = document.querySelector("img.near");
  if (img) {
    const r = img.getBoundingClientRect();
    out.near = {top: r.top + window.scrollY, width: img.clientWidth, natural: img.naturalWidth};
  }
  const svg = document.querySelector("svg.plot");
  if (svg) {
    const k = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    out.plot = Math.min(...[...svg.querySelectorAll("text")].map((t) => \
parseFloat(getComputedStyle(t).fontSize) * k));
  }
  const items = [...document.querySelectorAll("ul.legend li")];
  if (items.length) out.legend = Math.min(...items.map((li) => parseFloat(getComputedStyle(li).fontSize)));
  document.querySelectorAll(".scroll").forEach((el) => { if (el.scrollWidth > el.clientWidth + 1) \
out.boxes.push(el.scrollWidth); });
  console.log("turnproc-phone " + document.title.length + " " + JSON.stringify(out));
});
</script>"""


def phone_layout(pages: dict[str, Path], width: int = 390, height: int = 844) -> dict[str, dict[str, Any]]:
    """What PHONE_MEASURE finds in each page (name -> HTML file) shown in a
    ``width`` x ``height`` screen: each page is copied beside itself with the
    script added (so its style sheet still loads) and shown in an iframe of
    exactly that size (headless Chromium lays a window out at 500 pixels at
    least), all of them in one run of Chromium."""
    frames = []
    for i, (_name, path) in enumerate(pages.items()):
        copy = path.with_name(f"phone-measure-{i}.html")
        html = path.read_text(encoding="utf-8").replace(
            "</body>", PHONE_MEASURE.replace("turnproc-phone ", f"turnproc-phone {i} ") + "</body>", 1
        )
        copy.write_text(html, encoding="utf-8")
        frames.append(
            f'<iframe style="border:0;width:{width}px;height:{height}px" src="{copy.as_uri()}"></iframe>'
        )
    first = next(iter(pages.values()))
    wrapper = first.with_name("phone-measure.html")
    wrapper.write_text(
        '<!DOCTYPE html><html><body style="margin:0">' + "".join(frames) + "</body></html>", encoding="utf-8"
    )
    log = chromium_run(
        wrapper, max(width, 600), f"--screenshot={wrapper.with_suffix('.png')}", height=height
    ).stderr
    found: dict[str, dict[str, Any]] = {}
    for i, name in enumerate(pages):
        match = re.search(rf'"turnproc-phone {i} \d+ (\{{.*?\}})", source', log)
        assert match is not None, f"{name}: no measurement\n{log[-2000:]}"
        found[name] = json.loads(match.group(1).encode().decode("unicode_escape"))
    return found
