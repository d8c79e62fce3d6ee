"""The compact map picture of big games: its limits, and that they are the rulebook's."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.reports.test_report_mail import whole_galaxy_context
from turnproc.config import Config
from turnproc.reports.mapimage import png_map, png_size
from turnproc.reports.render import render_report_documents
from turnproc.reports.svgmap import (
    CELL, COMPACT_OWNERS, COMPACT_SIDE, MARGIN, MAX_BOOST, MAX_PNG_SIDE, MIN_LABEL_SCALE, MIN_STAR_PX, OWN, compact_legend,
    svg_map,
)  # fmt: skip


@pytest.fixture(scope="module")
def galaxy() -> dict:
    """A report that has seen every system of a 20-empire galaxy (600 systems)."""
    return whole_galaxy_context(20)


def _scale(svg: str) -> float:
    found = re.search(r'<g transform="translate\(0,[0-9.]+\) scale\(([0-9.]+)\)">', svg)
    assert found
    return float(found.group(1))


def test_the_rulebook_states_the_compact_limits() -> None:
    """rules.md §5.1 states the compact picture's limits in numbers: they are these."""
    text = (Path(__file__).parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    section = text.split("### 5.1 The map picture")[1].split("\n## ")[0]
    assert "Ruling, big games: in a game whose reports come with a turn bulletin (more than 50\nempires" in section
    assert Config().bulletin_threshold == 50
    assert f"at most {COMPACT_SIDE} pixels wide and high, because" in section
    assert "no\nlegend inside it: the legend is printed under the picture as text" in section
    assert f"below {round(MIN_LABEL_SCALE * 100)} %" in section
    across = int((COMPACT_SIDE / MIN_LABEL_SCALE - 2 * MARGIN) / CELL)
    assert f"at most {across} grid square{'s' if across != 1 else ''} across keeps its labels" in section
    assert f"up to {MAX_BOOST} times bigger, so a star is at least {MIN_STAR_PX:g}" in section
    assert f"at most {COMPACT_OWNERS} other empires' colours" in section


def test_the_compact_picture_fits_its_side_and_its_legend_is_text(galaxy: dict) -> None:
    """rules.md §5.1: at most COMPACT_SIDE pixels a side, no legend inside; the
    legend printed as text beside it names what the map shows."""
    png = png_map(galaxy, compact=True)
    width, height = png_size(png)
    assert width <= COMPACT_SIDE + 1 and height <= COMPACT_SIDE + 1
    svg = svg_map(galaxy, compact=True)
    # No title line, no labels, no legend: no text at all.
    assert "<text" not in svg
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
    svg = svg_map(galaxy, compact=True)
    scale = _scale(svg)
    assert scale < MIN_LABEL_SCALE
    stars = {s["code"] for s in galaxy["map"]["systems"] if s["star"] is None}
    radius = float(re.findall(r'<circle cx="[^"]+" cy="[^"]+" r="([0-9.]+)"', svg)[0])
    assert radius * scale >= MIN_STAR_PX - 1e-6 or radius == pytest.approx(9 * MAX_BOOST)
    link = re.search(r'<g stroke="#a3aab8" stroke-width="([0-9.]+)">', svg)
    assert link and float(link.group(1)) * scale >= 1 - 1e-6
    assert len(stars) > 100  # a big map, where the full picture would be specks


def test_a_map_of_one_grid_square_keeps_its_labels_and_star_types() -> None:
    """rules.md §5.1: scaled no lower than 60 %, the compact picture has labels."""
    context = whole_galaxy_context(2)
    home = context["empire"]["home"]
    star = next(s for s in context["map"]["systems"] if s["code"] == home)["star"] or home
    context["map"]["systems"] = [s for s in context["map"]["systems"] if star in (s["code"], s["star"])]
    svg = svg_map(context, compact=True)
    assert _scale(svg) >= MIN_LABEL_SCALE
    assert re.search(rf">{star}</text>", svg)
    assert any("dwarf" in e["words"] or "giant" in e["words"] for e in compact_legend(context))


def test_the_full_picture_is_unchanged_by_the_compact_one(galaxy: dict) -> None:
    assert svg_map(galaxy, max_side=MAX_PNG_SIDE) == svg_map(galaxy, max_side=MAX_PNG_SIDE, compact=False)
    assert png_size(png_map(galaxy, compact=False)) == png_size(png_map(galaxy))


def test_the_compact_picture_costs_a_small_part_of_the_full_one(galaxy: dict) -> None:
    # A ratio, not milliseconds: CI machines differ; benchmarks/mapimage.py has the numbers.
    def cpu(compact: bool) -> float:
        png_map(galaxy, compact=compact)
        start = time.process_time()
        for _ in range(3):
            png_map(galaxy, compact=compact)
        return time.process_time() - start

    assert cpu(True) * 5 < cpu(False)


def test_the_compact_picture_draws_its_links_as_one_path_with_the_same_pixels(galaxy: dict) -> None:
    """The compact SVG draws every link in one path and a system without a
    group (the renderer's cost is per shape); the PNG is byte for byte the one
    drawn from a line per link and a group per system."""
    from turnproc.reports.mapimage import _render

    svg = svg_map(galaxy, compact=True)
    assert "<line" not in svg and svg.count("<path ") == 1
    one_by_one = re.sub(
        r'<path fill="none" d="([^"]*)"/>',
        lambda found: "\n".join(
            f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"/>'
            for x1, y1, x2, y2 in re.findall(r"M([-0-9.]+),([-0-9.]+)L([-0-9.]+),([-0-9.]+)", found.group(1))
        ),
        svg,
    )
    one_by_one = re.sub(r"^(<(?:circle|rect) [^\n]*/>)$", r"<g>\n\1\n</g>", one_by_one, flags=re.M)
    assert one_by_one.count("<line") == len(galaxy["map"]["links"]) and one_by_one.count("<g>") >= 600
    assert _render(svg) == _render(one_by_one)
