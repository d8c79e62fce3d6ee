"""A phone is enough to read the report and the game's pages: headless
Chromium shows the demo's reports after turn 4 and every page of its public
site in a 390 x 844 screen. Nothing scrolls sideways (the document's
scrollWidth is at most the screen's width, and no table needs a box that
scrolls); the report's neighbourhood map starts within the first two screens
and its smallest label is 11 pixels at least as shown (its smallest font size
in the drawing, drawn at 1:1, times the width it is shown at over its own);
the site's VP plot numbers and its legend are 11 pixels at least."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from tests.browser import phone_layout
from tests.docs.mdblocks import DOCS
from turnproc.games.publish import write_site
from turnproc.reports.mapimage import png_size
from turnproc.reports.nearmap import (
    MIN_LABEL_PX,
    NEAR_CELL,
    NEAR_COLS,
    NEAR_ROWS,
    NEAR_WIDTH,
    near_svg,
    near_window,
)
from turnproc.reports.render import ReportDocuments, render_report_documents
from turnproc.service.demo import GAME, run_demo
from turnproc.storage import models as m

# The module's tests share a fixture made once per module (demo):
# on one worker it is made once.
pytestmark = pytest.mark.xdist_group("phone")

PHONE = (390, 844)
NOW = dt.datetime(2026, 1, 20, 12, 0, tzinfo=dt.timezone.utc)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, ReportDocuments], Path]:
    """Every empire's report after turn 4 of the demo, and the game's site."""
    folder = tmp_path_factory.mktemp("phone")
    run_demo(folder / "demo", turns=4)
    engine = create_engine(f"sqlite:///{folder / 'demo' / 'turnproc.db'}")
    with Session(engine) as session:
        last = session.scalar(select(m.Report.turn).order_by(m.Report.turn.desc()).limit(1))
        reports = session.scalars(select(m.Report).where(m.Report.turn == last).order_by(m.Report.id)).all()
        docs = {r.data["empire"]["code"]: render_report_documents(r.data) for r in reports}
        write_site(session, GAME, folder / "site", NOW)
    engine.dispose()
    return docs, folder / "site"


def _smallest_font(svg: str) -> float:
    return min(float(size) for size in re.findall(r'font-size="([\d.]+)"', svg))


@pytest.mark.slow
def test_the_neighbourhood_map_is_drawn_for_a_phone(demo: tuple[dict[str, ReportDocuments], Path]) -> None:
    docs, _ = demo
    assert len(docs) == 4
    for code, doc in docs.items():
        assert doc.near is not None and doc.near_png is not None, code
        svg = near_svg(doc.near)
        # Drawn at 1:1 (no scaling), so a font size is a size in pixels.
        assert "scale(" not in svg and _smallest_font(svg) == MIN_LABEL_PX >= 11
        # The mail's PNG is the drawing's size, and fits a phone at 1:1.
        assert png_size(doc.near_png) == (doc.near.width, doc.near.height)
        assert doc.near.width <= NEAR_WIDTH <= 366
        own = [s for s in doc.near.systems if s[0].ring == "#1b7f3b"]
        assert own, f"{code}'s neighbourhood shows none of its systems"
        assert f'width="{doc.near.width}"' in doc.html and 'src="cid:near@report.turnproc"' in doc.html


@pytest.mark.slow
def test_reports_and_site_pages_on_a_phone(demo: tuple[dict[str, ReportDocuments], Path]) -> None:
    docs, site = demo
    pages: dict[str, Path] = {}
    for code, doc in docs.items():
        path = site.parent / f"report-{code}.html"
        path.write_text(doc.page(), encoding="utf-8")
        pages[f"report {code}"] = path
    site_pages = sorted(site.glob("*.html"))
    assert {p.name for p in site_pages} >= {
        "index.html",
        "turns.html",
        "press.html",
        "announcements.html",
        "rules.html",
        "orders.html",
    }
    pages.update({p.name: p for p in site_pages})
    # Each turn's own page carries that turn's standings table.
    turn_pages = sorted(site.glob("turns/*.html"))
    assert turn_pages
    pages.update({f"turns/{p.name}": p for p in turn_pages})
    found = phone_layout(pages, *PHONE)
    for name, page in found.items():
        assert page["innerWidth"] == PHONE[0], (name, page)
        assert page["scrollWidth"] <= page["innerWidth"], f"{name} scrolls sideways: {page}"
        assert page["boxes"] == [], f"{name}: a table does not fit the screen: {page}"
    for code, doc in docs.items():
        near = found[f"report {code}"]["near"]
        assert near is not None, code
        assert near["top"] < 2 * PHONE[1], f"{code}: the neighbourhood map starts {near['top']} px down"
        assert near["natural"] == doc.near.width  # type: ignore[union-attr]
        shown = _smallest_font(near_svg(doc.near)) * near["width"] / near["natural"]  # type: ignore[arg-type]
        assert shown >= 11, f"{code}: labels {shown:.1f} px"
    index = found["index.html"]
    assert index["plot"] is not None and index["plot"] >= 11, index
    assert index["legend"] is not None and index["legend"] >= 11, index


def test_the_docs_say_what_a_phone_shows() -> None:
    """Each sentence is held by the tests above (and docs/samples' phone screenshots)."""
    orders = " ".join((DOCS / "orders.md").read_text(encoding="utf-8").split())
    handbook = " ".join((DOCS / "gm-handbook.md").read_text(encoding="utf-8").split())
    assert (
        "Under the heading comes a map of your neighbourhood: the grid squares around your systems (at most "
        "4 across and 5 down" in orders
    )
    assert "with each system's code, your HOME and BASE, and the ships you see there" in orders
    assert (
        "so its labels are at least 11 pixels on a 390-pixel screen; system names are left out of it"
        in orders
    )
    assert "After the map comes the order form, and then the tables" in orders
    assert "On a phone nothing scrolls sideways: each table row becomes a card" in orders
    assert "(samples/report-phone.png)" in orders
    assert (
        "The pages fit a phone: on a screen 390 pixels wide nothing scrolls sideways, every standings table "
        "fits the screen" in handbook
    )
    assert "the plot's numbers and its legend are at least 11 pixels" in handbook
    assert "(samples/site-phone.png)" in handbook


@pytest.mark.slow  # plays the demo first
def test_the_neighbourhood_shows_codes_marks_and_ships_but_no_names(
    demo: tuple[dict[str, ReportDocuments], Path],
) -> None:
    docs, _ = demo
    for code, doc in docs.items():
        assert doc.near is not None
        assert doc.near.width <= NEAR_COLS * NEAR_CELL[0] and doc.near.height <= NEAR_ROWS * NEAR_CELL[1]
        data = json.loads(doc.json)
        texts = [label.text for _, labels in doc.near.systems for label in labels]
        shown = " ".join(texts)
        home, base = data["empire"]["home"], data["empire"]["base"]
        windowed = {int(t.split()[0]) for t in texts if t.split()[0].isdigit()}
        if home in windowed:
            assert any(t in (f"{home} H", "H", "HB") for t in texts), (code, texts)
        if base in windowed:
            assert any("B" in t.split() or t in ("B", "HB") or t.endswith(" HB") for t in texts), (
                code,
                texts,
            )
        ships = [s for s in data["systems"] if s["code"] in windowed and (s["cruisers"] or s["fighters"])]
        assert ships and all(f"{s['cruisers']}c {s['fighters']}f" in shown for s in ships), code
        named = [s["name"] for s in data["systems"] + data["scouting"] if s["name"]]
        assert not any(name in shown for name in named), code


def _context(own: list[tuple[int, int]], others: list[tuple[int, int]]) -> dict:
    systems = [
        {"code": 100 + i, "row": r, "col": c, "type": "YD", "star": None, "owner": "RIG", "visible": True}
        for i, (r, c) in enumerate(own)
    ]
    systems += [
        {"code": 200 + i, "row": r, "col": c, "type": "RD", "star": None, "owner": None, "visible": False}
        for i, (r, c) in enumerate(others)
    ]
    return {
        "empire": {"code": "RIG", "home": 100, "base": 100},
        "map": {"systems": systems, "links": []},
        "scouting": [],
    }


def test_the_window_holds_the_most_own_systems_within_what_is_known() -> None:
    # Own systems in two clusters, columns 0-1 (three) and 9 (one): the window
    # of four columns takes the cluster of three; it reaches no farther than
    # the known map, and a margin square where there is room.
    context = _context([(0, 0), (1, 1), (2, 0), (2, 9)], [(6, 12)])
    window = near_window(context)
    assert window is not None
    assert (window.col, window.cols) == (0, NEAR_COLS) and (window.row, window.rows) == (0, 4)
    assert near_window({**context, "map": {"systems": [], "links": []}}) is None
