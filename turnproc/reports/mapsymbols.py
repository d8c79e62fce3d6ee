"""How the map draws one system and one arrow: the palette, the grid in map
units, a system's symbol and labels, and an arrow with the mark at its head.

:mod:`.svgmap` puts these together into the whole map and its legend;
:mod:`.nearmap` and :mod:`.pixelmap` draw the same shapes in their pictures.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .schema import MapSystem, ReportContext, SystemRow

__all__ = [
    "escape",
    "quoteattr",
    "owner_colour",
    "CELL",
    "MARGIN",
    "forces",
    "symbol",
    "Symbol",
    "labels",
    "Label",
    "arrow_shape",
    "ArrowShape",
    "attack_cross",
    "CAPTURE_RING",
    "ARROW_WIDTH",
]

#: Characters XML 1.0 does not allow at all (C0 controls but tab and line
#: ends, U+FFFE/U+FFFF, lone surrogates): a player's empire name holding one
#: would make the whole drawing unreadable to every SVG renderer.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def escape(text: str) -> str:
    # Here, not at the top: xml.sax.saxutils loads urllib.request and
    # http.client (20 ms), and `turnproc report` loads this module for the
    # text report alone.
    from xml.sax.saxutils import escape as xml_escape

    return xml_escape(_NOT_XML.sub("\ufffd", text))


def quoteattr(text: str) -> str:
    from xml.sax.saxutils import quoteattr as xml_quoteattr  # (as above)

    return xml_quoteattr(_NOT_XML.sub("\ufffd", text))


#: One grid square, in SVG units (pixels at full size).
CELL = 140
MARGIN = 30
#: Planets and belts stand in a column right of their star, this far apart:
#: the star's labels go under it, theirs to their right.
SATELLITE_DX, SATELLITE_TOP, SATELLITE_DY = 28, -30, 26
NAME_CHARS = 12

BACKGROUND = "#fbfbf8"
INK = "#15181d"
LINK = "#a3aab8"
OWN = "#1b7f3b"
NOBODY = "#8a8f98"
PALETTE = (
    "#1f77b4",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#7f7f00",
    "#ff7f0e",
    "#393b79",
    "#637939",
    "#8c6d31",
    "#843c39",
    "#7b4173",
    "#3182bd",
    "#e6550d",
    "#31a354",
)
STAR_FILL = {
    "YD": "#ffd92f",
    "WD": "#e8e8e8",
    "RD": "#e45756",
    "BD": "#3b3b3b",
    "RG": "#f58518",
    "SG": "#72b7f2",
}
STAR_NAMES = {
    "YD": "yellow dwarf",
    "WD": "white dwarf",
    "RD": "red dwarf",
    "BD": "black dwarf",
    "RG": "red giant",
    "SG": "super giant",
}
PLANET_FILL = "#4f8fcf"
BELT_FILL = "#8d6e63"
ARROW_COLOUR = {"move": "#1f5fbf", "attack": "#c62828", "capture": "#e67700", "lost": "#6d6d6d"}
#: A capture's ring round the target: radius and stroke width (times the symbols' size).
CAPTURE_RING = (14.0, 2.5)
#: Arrows and the battle cross are this wide (times the symbols' size).
ARROW_WIDTH = 3.0
ARROW_WORDS = {"move": "moved", "attack": "attack", "capture": "captured", "lost": "lost in space"}


def owner_colour(code: str | None, viewer: str) -> str:
    if code is None:
        return NOBODY
    if code == viewer:
        return OWN
    return PALETTE[sum(ord(ch) * (i + 1) for i, ch in enumerate(code)) % len(PALETTE)]


def forces(context: ReportContext) -> dict[int, SystemRow]:
    """System code -> what the report says of its forces: the scouting rows, then the empire's own."""
    rows: dict[int, SystemRow] = {r["code"]: r for r in context["scouting"]}
    rows.update({r["code"]: r for r in context["systems"]})
    return rows


def _name(row: SystemRow | None) -> str:
    name = " ".join(row["name"].split()) if row else ""
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "\u2026"


def _ships(row: SystemRow | None) -> str:
    if not row or not (row["cruisers"] or row["fighters"] or row["colony_ships"]):
        return ""
    return f"{row['cruisers']}c {row['fighters']}f" + (
        f" {row['colony_ships']}k" if row["colony_ships"] else ""
    )


@dataclass
class _Frame:
    pos: dict[int, tuple[float, float]]
    width: float
    height: float


def _frame(systems: list[MapSystem], boost: float = 1.0) -> _Frame:
    stars = [s for s in systems if s["star"] is None] or systems
    min_r = min((s["row"] for s in stars), default=0)
    min_c = min((s["col"] for s in stars), default=0)
    max_r = max((s["row"] for s in stars), default=0)
    max_c = max((s["col"] for s in stars), default=0)
    pos: dict[int, tuple[float, float]] = {}
    satellites: dict[int, list[int]] = {}
    for s in systems:
        pos[s["code"]] = ((s["col"] - min_c + 0.5) * CELL + MARGIN, (s["row"] - min_r + 0.5) * CELL + MARGIN)
        if s["star"] is not None:
            satellites.setdefault(s["star"], []).append(s["code"])
    for codes in satellites.values():
        for i, code in enumerate(sorted(codes)):
            x, y = pos[code]
            pos[code] = (x + SATELLITE_DX * boost, y + (SATELLITE_TOP + i * SATELLITE_DY) * boost)
    return _Frame(pos, (max_c - min_c + 1) * CELL + 2 * MARGIN, (max_r - min_r + 1) * CELL + 2 * MARGIN)


def _text(
    x: float, y: float, text: str, size: int, *, anchor: str = "middle", bold: bool = False, fill: str = INK
) -> str:
    # The white outline (painted under the letters) keeps a label readable where it crosses a link.
    weight = ' font-weight="bold"' if bold else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{fill}"{weight} '
        f'stroke="{BACKGROUND}" stroke-width="3" paint-order="stroke">{escape(text)}</text>'
    )


@dataclass(frozen=True)
class ArrowShape:
    """An arrow from one system to another: its shaft (stopping short of both
    circles) and the three corners of its head."""

    shaft: tuple[float, float, float, float]
    head: tuple[tuple[float, float], tuple[float, float], tuple[float, float]]


def arrow_shape(x1: float, y1: float, x2: float, y2: float, k: float = 1.0) -> ArrowShape:
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    # Stop short of the target's circle, and draw the head as a polygon (no
    # markers: not every renderer draws them the same).
    ex, ey = x2 - ux * 12 * k, y2 - uy * 12 * k
    sx, sy = x1 + ux * 10 * k, y1 + uy * 10 * k
    hx, hy = ex - ux * 10 * k, ey - uy * 10 * k
    px, py = -uy * 5 * k, ux * 5 * k
    return ArrowShape((sx, sy, hx, hy), ((ex, ey), (hx + px, hy + py), (hx - px, hy - py)))


def _arrow(x1: float, y1: float, x2: float, y2: float, colour: str, dashed: bool, k: float = 1.0) -> str:
    shape = arrow_shape(x1, y1, x2, y2, k)
    sx, sy, hx, hy = shape.shaft
    head = " ".join(f"{x:.1f},{y:.1f}" for x, y in shape.head)
    dash = ' stroke-dasharray="6 4"' if dashed else ""
    return (
        f'<line x1="{sx:.1f}" y1="{sy:.1f}" x2="{hx:.1f}" y2="{hy:.1f}"'
        f' stroke="{colour}" stroke-width="{ARROW_WIDTH * k:g}"{dash}/>'
        f'<polygon points="{head}" fill="{colour}"/>'
    )


def attack_cross(x: float, y: float, k: float = 1.0) -> tuple[tuple[float, float, float, float], ...]:
    """The two strokes of the cross beside a target where a battle was fought."""
    d, s = 20 * k, 10 * k
    return ((x - d, y - d, x - d + s, y - d + s), (x - d + s, y - d, x - d, y - d + s))


def _mark(x: float, y: float, kind: str, k: float = 1.0) -> str:
    colour = ARROW_COLOUR[kind]
    if kind == "attack":  # a cross beside the target: a battle was fought there
        d, s = 20 * k, 10 * k
        return (
            f'<path d="M{x - d:.1f},{y - d:.1f} l{s:g},{s:g} m0,-{s:g} l-{s:g},{s:g}"'
            f' stroke="{colour}" stroke-width="{ARROW_WIDTH * k:g}"/>'
        )
    if kind == "capture":  # a ring round the target: it changed hands
        r, w = CAPTURE_RING
        return (
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r * k:g}" fill="none"'
            f' stroke="{colour}" stroke-width="{w * k:g}"/>'
        )
    return ""


@dataclass(frozen=True)
class Symbol:
    """How one system is drawn: a star or planet a circle of ``radius``, a
    belt a diamond; ``ring`` is its owner's colour, ``width`` wide; a faded
    one (remembered, not seen now) at half strength."""

    x: float
    y: float
    star: bool
    belt: bool
    fill: str
    ring: str
    width: float
    radius: float
    faded: bool


def symbol(s: MapSystem, frame: _Frame, row: SystemRow | None, viewer: str, k: float = 1.0) -> Symbol:
    x, y = frame.pos[s["code"]]
    star = s["star"] is None
    fill = STAR_FILL.get(s["type"], "#cccccc") if star else (BELT_FILL if s["type"] == "AB" else PLANET_FILL)
    width = (4 if s["owner"] == viewer else (3 if s["owner"] else 1)) * k
    return Symbol(
        x,
        y,
        star,
        not star and s["type"] == "AB",
        fill,
        owner_colour(s["owner"], viewer),
        width,
        (9 if star else 6) * k,
        not (s["visible"] or row),
    )


@dataclass(frozen=True)
class Label:
    """A line of text by a system, at its baseline (x, y), anchored ``start``, ``middle`` or ``end``."""

    x: float
    y: float
    text: str
    size: int
    anchor: str = "middle"
    bold: bool = False
    fill: str = INK


def labels(s: MapSystem, sym: Symbol, row: SystemRow | None, context: ReportContext) -> list[Label]:
    """A system's labels: its code, HOME/BASE marks, name and ships."""
    x, y = sym.x, sym.y
    ships = _ships(row)
    name = _name(row)
    marks = ("H" if s["code"] == context["empire"]["home"] else "") + (
        "B" if s["code"] == context["empire"]["base"] else ""
    )
    out = []
    if sym.star:
        out.append(Label(x, y + 30, str(s["code"]), 13, bold=True))
        if marks:
            out.append(Label(x - 14, y + 5, marks, 12, anchor="end", bold=True))
        if name:
            out.append(Label(x, y + 42, name, 10))
        if ships:
            out.append(Label(x, y + 54 if name else y + 42, ships, 10, fill=sym.ring if s["owner"] else INK))
    else:
        out.append(
            Label(x + 16, y + 4, " ".join(p for p in (str(s["code"]), marks, ships) if p), 11, anchor="start")
        )
        if name:
            out.append(Label(x + 16, y + 15, name, 9, anchor="start"))
    return out


def _system(
    s: MapSystem, frame: _Frame, row: SystemRow | None, context: ReportContext, with_labels: bool
) -> list[str]:
    """One system's symbol, its tooltip and, with ``with_labels``, its labels."""
    sym = symbol(s, frame, row, context["empire"]["code"])
    x, y = sym.x, sym.y
    # Faded by fill and stroke opacity, which the group's children inherit, not
    # by the group's opacity: that makes the renderer paint the group on a
    # layer of its own, a cost per system.
    faded = ' fill-opacity="0.5" stroke-opacity="0.5"' if sym.faded else ""
    title = f"{s['code']} {s['type']}" + (f" ({s['owner']})" if s["owner"] else "")
    out = [f"<g{faded}><title>{escape(title)}</title>"]
    if sym.star:
        out.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{sym.radius:g}" fill="{sym.fill}"'
            f' stroke="{sym.ring}" stroke-width="{sym.width:g}"/>'
        )
    else:
        # A planet is a circle, a belt a diamond: told apart without colour.
        shape = (
            f'<rect x="{x - 5:.1f}" y="{y - 5:.1f}" width="10" height="10"'
            f' transform="rotate(45 {x:.1f} {y:.1f})"'
            if sym.belt
            else f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{sym.radius:g}"'
        )
        out.append(f'{shape} fill="{sym.fill}" stroke="{sym.ring}" stroke-width="{sym.width:g}"/>')
    if with_labels:
        out.extend(
            _text(lb.x, lb.y, lb.text, lb.size, anchor=lb.anchor, bold=lb.bold, fill=lb.fill)
            for lb in labels(s, sym, row, context)
        )
    out.append("</g>")
    return out
