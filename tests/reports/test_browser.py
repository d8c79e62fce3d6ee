"""The HTML report in a real browser: headless Chromium renders the demo's
report to a screenshot, and the page logs nothing to the console."""

from __future__ import annotations

from pathlib import Path

from tests.browser import console_lines, render_page
from turnproc.demo import run_demo
from turnproc.reports.render import render_report_documents
from turnproc.storage import models as m


def test_console_errors_are_caught_by_this_harness(tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><html><body><script>console.error('broken page')</script></body></html>")
    assert any("broken page" in line for line in console_lines(render_page(page, tmp_path / "bad.png")))


def test_demo_report_renders_in_chromium_without_console_errors(tmp_path: Path) -> None:
    run_demo(tmp_path / "demo", turns=2)
    from sqlalchemy import create_engine, select
    from sqlalchemy.orm import Session

    engine = create_engine(f"sqlite:///{tmp_path / 'demo' / 'turnproc.db'}")
    with Session(engine) as session:
        report = session.scalars(select(m.Report).order_by(m.Report.turn.desc(), m.Report.id)).first()
        assert report is not None
        html = render_report_documents(report.data).html
    engine.dispose()
    page = tmp_path / "report.html"
    page.write_text(html, encoding="utf-8")
    png = tmp_path / "report.png"
    log = render_page(page, png)
    assert console_lines(log) == []
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
