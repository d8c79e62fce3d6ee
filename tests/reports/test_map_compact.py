"""The compact map picture of big games: its limits, and that they are the rulebook's."""

from __future__ import annotations

import io
import itertools
import math
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.reports.test_report_mail import whole_galaxy_context
from turnproc.config import Config
from turnproc.reports.mapimage import png_map, png_size
from turnproc.reports.mapsymbols import (
    ARROW_COLOUR,
    BACKGROUND,
    CELL,
    INK,
    LINK,
    MARGIN,
    OWN,
    PLANET_FILL,
    STAR_FILL,
    owner_colour,
)
from turnproc.reports.pixelmap import DASH_PX
from turnproc.reports.render import render_report_documents
from turnproc.reports.svgmap import (
    COMPACT_OWNERS,
    COMPACT_SIDE,
    MAX_BOOST,
    MIN_LABEL_SCALE,
    MIN_STAR_PX,
    compact_layout,
    compact_legend,
)


@pytest.fixture(scope="module")
def galaxy() -> dict:
    """A report that has seen every system of a 20-empire galaxy (600 systems)."""
    return whole_galaxy_context(20)


def _pixels(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _half(colour: str) -> tuple[int, int, int]:
    """A colour at half strength on the background, as a faded system shows it."""
    r, g, b = ((a + b + 1) // 2 for a, b in zip(_rgb(colour), _rgb(BACKGROUND), strict=True))
    return r, g, b


def _system(
    code: int,
    row: int,
    col: int,
    *,
    type_: str = "YD",
    owner: str | None = None,
    visible: bool = True,
    star: int | None = None,
) -> dict:
    return {
        "code": code,
        "row": row,
        "col": col,
        "star": star,
        "type": type_,
        "owner": owner,
        "visible": visible,
    }


def _context(
    systems: list[dict], links: list[list[int]], arrows: list[dict] | None = None, viewer: str = "ME"
) -> dict[str, Any]:
    return {
        "game": "g",
        "turn": 3,
        "empire": {"code": viewer, "home": systems[0]["code"], "base": systems[0]["code"]},
        "map": {"systems": systems, "links": links, "arrows": arrows or []},
        "scouting": [],
        "systems": [],
    }


def _centre(context: dict, code: int) -> tuple[int, int]:
    layout = compact_layout(context)
    x, y = layout.frame.pos[code]
    return math.floor(x * layout.scale), math.floor(y * layout.scale)


def test_the_rulebook_states_the_compact_limits() -> None:
    """rules.md §5.1 states the compact picture's limits in numbers: they are these."""
    text = (Path(__file__).parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    section = text.split("### 5.1 The map picture")[1].split("\n## ")[0]
    assert (
        "Ruling, big games: in a game whose reports come with a turn bulletin (more than 50\nempires"
        in section
    )
    assert Config().bulletin_threshold == 50
    assert f"at most {COMPACT_SIDE} pixels wide and high, because" in section
    assert "no\nlegend inside it: the legend is printed under the picture as text" in section
    assert f"below {round(MIN_LABEL_SCALE * 100)} %" in section
    across = int((COMPACT_SIDE / MIN_LABEL_SCALE - 2 * MARGIN) / CELL)
    assert f"at most {across} grid square{'s' if across != 1 else ''} across keeps its labels" in section
    assert f"up to {MAX_BOOST} times bigger, so a star is at least {MIN_STAR_PX:g}" in section
    assert f"at most {COMPACT_OWNERS} other empires' colours" in section


def test_the_compact_picture_fits_its_side_and_its_legend_is_text(galaxy: dict) -> None:
    """rules.md §5.1: at most COMPACT_SIDE pixels a side, no title line and no
    legend inside; the legend printed as text beside it names what the map shows."""
    png = png_map(galaxy, compact=True)
    layout = compact_layout(galaxy)
    # No title line, no labels, no legend: the picture is the map's frame, no more.
    assert png_size(png) == (layout.width, layout.height)
    assert layout.width <= COMPACT_SIDE and layout.height <= COMPACT_SIDE
    assert not layout.labels
    assert _rgb(INK) not in {rgb for _, rgb in _pixels(png).getcolors(1 << 16)}
    legend = [e["words"] for e in compact_legend(galaxy)]
    assert legend[0] == "yours (EAA)"
    # Other empires' colours: at most COMPACT_OWNERS, then how many more.
    context = {**galaxy, "map": {**galaxy["map"], "systems": [dict(s) for s in galaxy["map"]["systems"]]}}
    for i, s in enumerate(context["map"]["systems"][:10]):
        s["owner"] = f"O{i:02d}"
    legend = [e["words"] for e in compact_legend(context)]
    assert "O00" in legend and f"O{COMPACT_OWNERS:02d}" not in legend
    assert f"and {10 - COMPACT_OWNERS} more empires" in legend
    assert not any("yellow dwarf" in w or "cruisers, fighters" in w for w in legend)


def test_a_big_games_report_prints_the_legend_under_the_picture(galaxy: dict) -> None:
    """rules.md §5.1: the report's HTML carries the compact legend as text with
    each colour; a small game's report is as before (no such line)."""
    big = {**galaxy, "bulletin": {"subject": "[big] Turn 0 bulletin", "turn": 0, "empires": 60, "top": 10}}
    html = render_report_documents(big).html
    assert "yours (EAA)</span>" in html and f"border:3px solid {OWN}" in html
    assert "yours (EAA)</span>" not in render_report_documents(galaxy).html


def test_without_labels_the_symbols_are_drawn_bigger_to_stay_visible(galaxy: dict) -> None:
    """rules.md §5.1: a star at least MIN_STAR_PX pixels in radius (or MAX_BOOST times
    its size), a link at least a pixel wide."""
    layout = compact_layout(galaxy)
    assert layout.scale < MIN_LABEL_SCALE
    assert 9 * layout.boost * layout.scale >= MIN_STAR_PX - 1e-6 or layout.boost == pytest.approx(MAX_BOOST)
    assert layout.link * layout.scale >= 1 - 1e-6
    stars = [s for s in galaxy["map"]["systems"] if s["star"] is None]
    assert len(stars) > 100  # a big map, where the full picture would be specks
    # In the pixels: each kind of star's colour (seen now or faded), a couple of pixels a star at least.
    pixels = _pixels(png_map(galaxy, compact=True))
    counts = {rgb: n for n, rgb in pixels.getcolors(1 << 16)}
    for kind in {s["type"] for s in stars}:
        shown = sum(1 for s in stars if s["type"] == kind)
        assert counts.get(_rgb(STAR_FILL[kind]), 0) + counts.get(_half(STAR_FILL[kind]), 0) >= 2 * shown, kind


def test_a_map_of_one_grid_square_keeps_its_labels_and_star_types() -> None:
    """rules.md §5.1: scaled no lower than 60 %, the compact picture has labels."""
    context = whole_galaxy_context(2)
    home = context["empire"]["home"]
    star = next(s for s in context["map"]["systems"] if s["code"] == home)["star"] or home
    context["map"]["systems"] = [s for s in context["map"]["systems"] if star in (s["code"], s["star"])]
    layout = compact_layout(context)
    assert layout.scale >= MIN_LABEL_SCALE and layout.labels
    pixels = _pixels(png_map(context, compact=True))
    # The star's code under it, in ink: dark pixels in the band below the symbol.
    x, y = _centre(context, star)
    band = pixels.crop((x - 20, y + round(14 * layout.scale), x + 20, y + round(34 * layout.scale)))
    assert any(rgb == _rgb(INK) for _, rgb in band.getcolors(1 << 16))
    without = {**context, "empire": {**context["empire"], "code": "ZZZ"}}
    assert png_map(without, compact=True) != png_map(context, compact=True)
    assert any("dwarf" in e["words"] or "giant" in e["words"] for e in compact_legend(context))


def test_the_full_picture_is_unchanged_by_the_compact_one(galaxy: dict) -> None:
    assert png_size(png_map(galaxy, compact=False)) == png_size(png_map(galaxy))
    assert png_size(png_map(galaxy))[0] > COMPACT_SIDE


@pytest.mark.slow
def test_the_compact_picture_costs_a_small_part_of_the_full_one(galaxy: dict) -> None:
    # A ratio, not milliseconds: CI machines differ; benchmarks/mapimage.py has the numbers.
    def cpu(compact: bool) -> float:
        png_map(galaxy, compact=compact)
        start = time.process_time()
        for _ in range(3):
            png_map(galaxy, compact=compact)
        return time.process_time() - start

    assert cpu(True) * 5 < cpu(False)


def _drawn() -> dict:
    """Six stars in a row of grid squares, far enough apart to look at one by
    one: the reader's, another empire's, nobody's, a faded one, a planet."""
    systems = [
        _system(10, 0, 0, owner="ME"),
        _system(11, 0, 2, type_="RD", owner="OTH"),
        _system(12, 0, 4, type_="SG"),
        _system(13, 0, 6, type_="RG", visible=False),
        _system(14, 0, 8, type_="WD"),
        _system(15, 0, 9, type_="BD"),
        _system(16, 0, 0, type_="PL", star=10),
        _system(17, 3, 0),
        _system(18, 3, 4),
        _system(19, 3, 8),
        _system(20, 6, 0),
        _system(21, 6, 4),
    ]
    arrows = [
        {"from": 17, "to": 18, "kind": "lost"},
        {"from": 18, "to": 19, "kind": "capture"},
        {"from": 20, "to": 21, "kind": "attack"},
    ]
    return _context(systems, [[10, 11], [11, 12]], arrows)


def test_the_compact_picture_shows_each_symbol_in_its_colours() -> None:
    """The pixels hold what the map says: each star's colour at its centre (half
    strength when faded), the reader's ring green, links, the background."""
    context = _drawn()
    pixels = _pixels(png_map(context, compact=True))
    at = {s["code"]: pixels.getpixel(_centre(context, s["code"])) for s in context["map"]["systems"]}
    assert (
        at[10] == _rgb(STAR_FILL["YD"])
        and at[11] == _rgb(STAR_FILL["RD"])
        and at[12] == _rgb(STAR_FILL["SG"])
    )
    assert at[13] == _half(STAR_FILL["RG"])  # not seen now: faded
    assert at[14] == _rgb(STAR_FILL["WD"]) and at[15] == _rgb(STAR_FILL["BD"]) and at[16] == _rgb(PLANET_FILL)
    layout = compact_layout(context)
    x, y = _centre(context, 10)
    reach = math.ceil((9 * layout.boost + 4 * layout.boost / 2) * layout.scale) + 1
    ring = {
        rgb for _, rgb in pixels.crop((x - reach, y - reach, x + reach + 1, y + reach + 1)).getcolors(1 << 16)
    }
    assert _rgb(OWN) in ring
    # Half way between stars 10 and 11, on the link between them.
    (x1, _), (x2, _) = _centre(context, 10), _centre(context, 11)
    assert pixels.getpixel(((x1 + x2) // 2, y)) == _rgb(LINK)
    assert pixels.getpixel((0, pixels.height - 1)) == _rgb(BACKGROUND)
    assert owner_colour("OTH", "ME") != OWN


def test_this_turns_arrows_are_drawn_and_a_lost_ships_is_dashed() -> None:
    """rules.md §5.1: moves, attacks (a cross at the target), captures (a ring)
    and ships lost in hyperspace, grey dashed."""
    context = _drawn()
    pixels = _pixels(png_map(context, compact=True))
    counts = {rgb: n for n, rgb in pixels.getcolors(1 << 16)}
    for kind in ("lost", "capture", "attack"):
        assert counts.get(_rgb(ARROW_COLOUR[kind]), 0) > 0, kind
    # Along the lost arrow's row, between the two stars: dashes and gaps, each a few pixels.
    (x1, y), (x2, _) = _centre(context, 17), _centre(context, 18)
    row = [pixels.getpixel((x, y)) for x in range(x1 + 8, x2 - 8)]
    runs = [(rgb, len(list(group))) for rgb, group in itertools.groupby(row)]
    dashes = [n for rgb, n in runs if rgb == _rgb(ARROW_COLOUR["lost"])]
    gaps = [n for rgb, n in runs if rgb == _rgb(BACKGROUND)]
    assert len(dashes) >= 3 and len(gaps) >= 3
    assert max(dashes) <= DASH_PX[0] + 1 and min(gaps) >= DASH_PX[1] - 1


def test_the_same_report_gives_the_same_picture_byte_for_byte(galaxy: dict) -> None:
    """A report mail built again (a retried delivery, a REPORT copy) carries the same picture."""
    assert png_map(galaxy, compact=True) == png_map(galaxy, compact=True)
    assert png_map(_drawn(), compact=True) == png_map(_drawn(), compact=True)


def test_without_the_dejavu_fonts_the_labels_are_still_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """A host without fonts-dejavu-core: the compact picture sets its labels in
    Pillow's own font instead of failing."""
    from turnproc.reports import pixelmap

    context = whole_galaxy_context(2)
    home = context["empire"]["home"]
    star = next(s for s in context["map"]["systems"] if s["code"] == home)["star"] or home
    context["map"]["systems"] = [s for s in context["map"]["systems"] if star in (s["code"], s["star"])]
    monkeypatch.setattr(pixelmap, "font_files", lambda: None)
    pixelmap._font.cache_clear()
    try:
        pixels = _pixels(png_map(context, compact=True))
    finally:
        pixelmap._font.cache_clear()
    assert _rgb(INK) in {rgb for _, rgb in pixels.getcolors(1 << 16)}
