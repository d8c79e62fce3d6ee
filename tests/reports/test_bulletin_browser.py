"""The turn bulletin and a bulletin game's report in a real browser, as
tests/reports/test_browser.py checks the demo's report: at phone and desktop
width nothing scrolls sideways, every table cell is on the screen, and the
page logs nothing to the console."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser import console_lines, render_page
from tests.reports.test_browser import layout
from tests.reports.test_bulletin import big_bulletin, big_game, bulletin_report
from turnproc.reports.render import render, render_report_documents


def pages() -> dict[str, str]:
    state, events = big_game()
    bulletin = render(
        "bulletin", big_bulletin(announcements=[{"subject": "Break", "text": "No turn next week"}])
    )
    assert bulletin.html is not None
    return {
        "bulletin": bulletin.html,
        "report": render_report_documents(bulletin_report(state, events, "EPP")).page(),
    }


@pytest.mark.slow
@pytest.mark.parametrize("width", [390, 1200])
@pytest.mark.parametrize("name", ["bulletin", "report"])
def test_bulletin_pages_fit_the_screen_without_console_errors(name: str, tmp_path: Path, width: int) -> None:
    html = pages()[name]
    found = layout(html, tmp_path, width)
    assert found["innerWidth"] == width
    assert found["scrollWidth"] <= found["innerWidth"], found
    assert found["offscreen"] == [] and found["columns"] == [] and found["unlabelled"] == []
    page = tmp_path / f"{name}.html"
    page.write_text(html, encoding="utf-8")
    assert console_lines(render_page(page, tmp_path / f"{name}.png", width)) == []
