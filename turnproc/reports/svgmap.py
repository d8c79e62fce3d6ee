"""The map an empire has seen, as an SVG picture and as a compact ASCII grid.

Both are drawn from the report context only (never from the state), so they
show exactly what the report may show.
"""

from __future__ import annotations

import math
from typing import Any
from xml.sax.saxutils import escape, quoteattr

__all__ = ["svg_map", "ascii_map", "owner_colour"]

CELL = 64
PALETTE = (
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
    "#ff7f0e", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d",
)  # fmt: skip
STAR_FILL = {"YD": "#ffd92f", "WD": "#f0f0f0", "RD": "#e45756", "BD": "#555555", "RG": "#f58518", "SG": "#72b7f2"}


def owner_colour(code: str | None, viewer: str) -> str:
    if code is None:
        return "#9aa0a6"
    if code == viewer:
        return "#2b8a3e"
    return PALETTE[sum(ord(ch) * (i + 1) for i, ch in enumerate(code)) % len(PALETTE)]


def _forces(context: dict[str, Any]) -> dict[int, dict[str, Any]]:
    rows = {r["code"]: r for r in context["scouting"]}
    rows.update({r["code"]: r for r in context["systems"]})
    return rows


def _positions(systems: list[dict[str, Any]]) -> tuple[dict[int, tuple[float, float]], int, int, int, int]:
    stars = [s for s in systems if s["star"] is None] or systems
    min_r = min((s["row"] for s in stars), default=0)
    min_c = min((s["col"] for s in stars), default=0)
    max_r = max((s["row"] for s in stars), default=0)
    max_c = max((s["col"] for s in stars), default=0)
    pos: dict[int, tuple[float, float]] = {}
    satellites: dict[int, list[int]] = {}
    for s in systems:
        x = (s["col"] - min_c) * CELL + CELL
        y = (s["row"] - min_r) * CELL + CELL
        if s["star"] is None:
            pos[s["code"]] = (x, y)
        else:
            satellites.setdefault(s["star"], []).append(s["code"])
            pos[s["code"]] = (x, y)
    for star, codes in satellites.items():
        for i, code in enumerate(sorted(codes)):
            x, y = pos[code]
            angle = math.pi / 4 + i * math.pi / 2
            pos[code] = (x + 20 * math.cos(angle), y + 20 * math.sin(angle))
    return pos, min_r, min_c, max_r, max_c


def svg_map(context: dict[str, Any]) -> str:
    viewer = context["empire"]["code"]
    systems = context["map"]["systems"]
    forces = _forces(context)
    pos, min_r, min_c, max_r, max_c = _positions(systems)
    width = (max_c - min_c) * CELL + 2 * CELL
    height = (max_r - min_r) * CELL + 2 * CELL + 24
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'font-family="Helvetica, Arial, sans-serif" role="img" aria-label={quoteattr(f"Map seen by {viewer}")}>',
        f'<rect width="{width}" height="{height}" fill="#0b1021"/>',
        f'<text x="8" y="{height - 8}" fill="#c8cdd8" font-size="12">{escape(context["game"])} turn {context["turn"]} - map of {escape(viewer)}</text>',
    ]
    for a, b in context["map"]["links"]:
        if a in pos and b in pos:
            (x1, y1), (x2, y2) = pos[a], pos[b]
            out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#4a5578" stroke-width="1.5"/>')
    for s in systems:
        x, y = pos[s["code"]]
        ring = owner_colour(s["owner"], viewer)
        star = s["star"] is None
        radius = 9 if star else 5
        fill = STAR_FILL.get(s["type"], "#cccccc") if star else ("#8d6e63" if s["type"] == "AB" else "#4fc3f7")
        opacity = "1" if s["visible"] else "0.45"
        title = f'{s["code"]} {s["type"]}' + (f' ({s["owner"]})' if s["owner"] else "")
        out.append(
            f'<g opacity="{opacity}"><title>{escape(title)}</title>'
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{radius}" fill="{fill}" stroke="{ring}" stroke-width="{3 if s["owner"] else 1}"/>'
        )
        if star:
            out.append(f'<text x="{x:.1f}" y="{y + 22:.1f}" fill="#e8eaf0" font-size="11" text-anchor="middle">{s["code"]}</text>')
        f = forces.get(s["code"])
        if f and (f["cruisers"] or f["fighters"] or f["colony_ships"]):
            label = f'{f["cruisers"]}c {f["fighters"]}f' + (f' {f["colony_ships"]}k' if f["colony_ships"] else "")
            out.append(
                f'<text x="{x + 11:.1f}" y="{y - 9:.1f}" fill="{ring}" font-size="10">{escape(label)}</text>'
            )
        if s["code"] == context["empire"]["home"]:
            out.append(f'<text x="{x - 4:.1f}" y="{y + 4:.1f}" fill="#ffffff" font-size="9">H</text>')
        if s["code"] == context["empire"]["base"]:
            out.append(f'<text x="{x - 4:.1f}" y="{y + 4:.1f}" fill="#000000" font-size="9">B</text>')
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)


def ascii_map(context: dict[str, Any], max_width: int = 100) -> str:
    """Known stars on their grid squares: ``143*`` yours, ``161+`` another
    empire's, ``175`` unowned or not seen now. Planets share their star's square."""
    viewer = context["empire"]["code"]
    stars = [s for s in context["map"]["systems"] if s["star"] is None]
    if not stars:
        return "(nothing seen)"
    width = max(len(str(s["code"])) for s in stars) + 2
    min_r = min(s["row"] for s in stars)
    min_c = min(s["col"] for s in stars)
    max_r = max(s["row"] for s in stars)
    max_c = max(s["col"] for s in stars)
    cols = min(max_c - min_c + 1, max(1, max_width // width))
    grid: dict[tuple[int, int], str] = {}
    for s in stars:
        mark = "*" if s["owner"] == viewer else ("+" if s["owner"] else " ")
        grid[(s["row"], s["col"])] = f"{s['code']}{mark}".ljust(width)
    lines = []
    for r in range(min_r, max_r + 1):
        line = "".join(grid.get((r, c), "." + " " * (width - 1)) for c in range(min_c, min_c + cols))
        lines.append(line.rstrip())
    if max_c - min_c + 1 > cols:
        lines.append(f"(map cut at {cols} columns)")
    return "\n".join(lines)
