"""The HTML report in a real browser: headless Chromium renders the demo's
report at phone width (390 px) and desktop width (1,200 px). At both the page
does not scroll sideways (``scrollWidth <= innerWidth``), every cell of every
table is on the screen (on a phone the tables become cards, each value with
its heading), and the page logs nothing to the console."""

from __future__ import annotations

import json
import re
from html import escape
from pathlib import Path

import pytest

from tests.browser import chromium_run, console_lines, render_page
from turnproc.reports.render import render_report_documents
from turnproc.service.demo import run_demo
from turnproc.storage import models as m

# The module's tests share a fixture made once per module (demo_page):
# on one worker it is made once.
# Slow: each test starts Chromium.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("browser")]

#: Added to the page for the test only (a report carries no script): measures
#: the layout once everything has loaded and logs it to the console, which
#: Chromium prints. The page is shown in an iframe exactly ``width`` pixels
#: wide: headless Chromium lays a window out at 500 pixels at least.
MEASURE = """<script>
window.addEventListener("load", () => {
  const root = document.documentElement;
  const out = {innerWidth: window.innerWidth, scrollWidth: Math.max(root.scrollWidth, \
document.body.scrollWidth),
               tables: 0, cells: 0, offscreen: [], unlabelled: [], columns: []};
  document.querySelectorAll("table").forEach((table, t) => {
    out.tables += 1;
    const heads = table.querySelectorAll("thead th").length;
    const cards = table.classList.contains("cards");
    table.querySelectorAll("tbody tr").forEach((tr) => {
      const cells = [...tr.children];
      if (heads && !tr.querySelector(".empty") && cells.length !== heads) out.columns.push([t, cells.length, \
heads]);
      cells.forEach((td, i) => {
        out.cells += 1;
        const r = td.getBoundingClientRect();
        const style = getComputedStyle(td);
        if (style.display === "none" || style.visibility === "hidden" || r.width < 1 || r.height < 1
            || r.left < -0.5 || r.right > window.innerWidth + 0.5) out.offscreen.push([t, i, \
td.textContent.slice(0, 40)]);
        if (cards && !td.classList.contains("empty") && !td.dataset.label) out.unlabelled.push([t, i]);
      });
    });
  });
  console.log("turnproc-layout " + JSON.stringify(out));
});
</script>"""


def layout(html: str, folder: Path, width: int) -> dict:
    """What MEASURE finds in ``html`` in a viewport ``width`` pixels wide."""
    page = folder / f"measure-{width}.html"
    inner = escape(html.replace("</body>", MEASURE + "</body>", 1), quote=True)
    page.write_text(
        '<!DOCTYPE html><html><body style="margin:0">'
        f'<iframe style="border:0;width:{width}px;height:1600px" srcdoc="{inner}"></iframe></body></html>',
        encoding="utf-8",
    )
    log = chromium_run(page, max(width, 600), f"--screenshot={folder / f'measure-{width}.png'}").stderr
    found = re.search(r'"turnproc-layout (\{.*?\})", source', log)
    assert found is not None, log[-2000:]
    return json.loads(found.group(1).encode().decode("unicode_escape"))


def test_console_errors_are_caught_by_this_harness(tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><html><body><script>console.error('broken page')</script></body></html>")
    assert any("broken page" in line for line in console_lines(render_page(page, tmp_path / "bad.png")))


def test_the_layout_check_sees_a_page_that_scrolls_sideways(tmp_path: Path) -> None:
    wide = (
        "<!DOCTYPE html><html><body><table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr>"
        '<td data-label="a">x</td><td data-label="b" '
        'style="padding-left:900px">y</td></tr></tbody></table></body></html>'
    )
    found = layout(wide, tmp_path, 390)
    assert found["innerWidth"] == 390
    assert found["scrollWidth"] > found["innerWidth"] and found["offscreen"]


@pytest.fixture(scope="module")
def demo_page(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("browser")
    run_demo(folder / "demo", turns=2)
    from sqlalchemy import create_engine, select
    from sqlalchemy.orm import Session

    engine = create_engine(f"sqlite:///{folder / 'demo' / 'turnproc.db'}")
    with Session(engine) as session:
        report = session.scalars(select(m.Report).order_by(m.Report.turn.desc(), m.Report.id)).first()
        assert report is not None
        page = render_report_documents(report.data).page()
    engine.dispose()
    return page


@pytest.mark.parametrize("width", [390, 1200])
def test_demo_report_fits_the_screen_without_console_errors(
    demo_page: str, tmp_path: Path, width: int
) -> None:
    found = layout(demo_page, tmp_path, width)
    assert found["innerWidth"] == width
    assert found["scrollWidth"] <= found["innerWidth"], found
    assert found["tables"] >= 4 and found["cells"] > 40
    assert found["offscreen"] == [] and found["columns"] == [] and found["unlabelled"] == []
    page = tmp_path / "report.html"
    page.write_text(demo_page, encoding="utf-8")
    png = tmp_path / "report.png"
    assert console_lines(render_page(page, png, width)) == []
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
