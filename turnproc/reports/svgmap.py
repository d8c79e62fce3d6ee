"""The map an empire has seen, as an SVG picture and as a compact ASCII grid.

Both are drawn from the report context only (never from the state), so they
show exactly what the report may show. The SVG is one drawing with two uses:
the attachment (full size, every label) and, rendered by :mod:`.mapimage`,
the PNG a mail program shows inline. For the PNG the drawing is scaled to fit
:data:`MAX_PNG_SIDE` pixels; where that would make labels too small to read
(below :data:`MIN_LABEL_SCALE`) it leaves them out, which also bounds the
rendering time of a map of the whole galaxy. The legend is never scaled.

For big games the PNG is made at send time, so it must be cheap: the
*compact* picture (:func:`compact_layout`, drawn into pixels by
:mod:`.pixelmap` from this module's symbols, labels and arrows) fits
:data:`COMPACT_SIDE` pixels, and when that leaves no labels its symbols are
drawn bigger (up to :data:`MAX_BOOST` times) so they stay visible, and its
legend explains only what the map shows. docs/rules.md §5.1 tells players
these limits.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TypedDict
from xml.sax.saxutils import escape as _xml_escape
from xml.sax.saxutils import quoteattr as _xml_quoteattr

from .schema import MapSystem, ReportContext, SystemRow

__all__ = [
    "svg_map",
    "ascii_map",
    "owner_colour",
    "MAX_PNG_SIDE",
    "MIN_LABEL_SCALE",
    "CELL",
    "MARGIN",
    "label_limit",
    "static_legend",
    "LEGEND_WIDTH",
    "compact_legend",
    "compact_layout",
    "CompactLayout",
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
    "COMPACT_SIDE",
    "COMPACT_OWNERS",
    "MIN_STAR_PX",
    "MAX_BOOST",
]

#: One grid square, in SVG units (pixels at full size).

#: Characters XML 1.0 does not allow at all (C0 controls but tab and line
#: ends, U+FFFE/U+FFFF, lone surrogates): a player's empire name holding one
#: would make the whole drawing unreadable to every SVG renderer.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def escape(text: str) -> str:
    return _xml_escape(_NOT_XML.sub("\ufffd", text))


def quoteattr(text: str) -> str:
    return _xml_quoteattr(_NOT_XML.sub("\ufffd", text))


CELL = 140
MARGIN = 30
#: The PNG is at most this many pixels on its longer side (the legend's height aside).
MAX_PNG_SIDE = 2000
#: Below this scale labels would be smaller than about 7 pixels: they are left out.
MIN_LABEL_SCALE = 0.6
#: The compact PNG is at most this many pixels on its longer side (the legend's height aside).
COMPACT_SIDE = 200
#: The compact legend names at most this many other empires.
COMPACT_OWNERS = 2
#: Without labels, the compact picture draws a star at least this many pixels in radius ...
MIN_STAR_PX = 3.0
#: ... by drawing symbols up to this many times their size: more would push a
#: star's third satellite (at 22 units below it) out of its grid square.
MAX_BOOST = 2.3
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


def label_limit() -> int:
    """Grid squares across up to which the PNG keeps every label."""
    return int(MAX_PNG_SIDE / (CELL * MIN_LABEL_SCALE))


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
        f'<line x1="{sx:.1f}" y1="{sy:.1f}" x2="{hx:.1f}" y2="{hy:.1f}" stroke="{colour}" stroke-width="{ARROW_WIDTH * k:g}"{dash}/>'
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
        return f'<path d="M{x - d:.1f},{y - d:.1f} l{s:g},{s:g} m0,-{s:g} l-{s:g},{s:g}" stroke="{colour}" stroke-width="{ARROW_WIDTH * k:g}"/>'
    if kind == "capture":  # a ring round the target: it changed hands
        r, w = CAPTURE_RING
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r * k:g}" fill="none" stroke="{colour}" stroke-width="{w * k:g}"/>'
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
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{sym.radius:g}" fill="{sym.fill}" stroke="{sym.ring}" stroke-width="{sym.width:g}"/>'
        )
    else:
        # A planet is a circle, a belt a diamond: told apart without colour.
        shape = (
            f'<rect x="{x - 5:.1f}" y="{y - 5:.1f}" width="10" height="10" transform="rotate(45 {x:.1f} {y:.1f})"'
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


#: The legend's part that is the same on every map is this wide, whatever the map's width.
LEGEND_WIDTH = 560
_LEGEND_LINE = 22


def _flow(
    items: list[tuple[str, str]], width: float, y: float, size: int = 12, line: float = _LEGEND_LINE
) -> tuple[list[str], float]:
    """Legend entries (symbol SVG at 0,0, words) in rows ``width`` wide and
    ``line`` apart from ``y``; returns them and the baseline of the last row."""
    out = []
    x = MARGIN / 2
    for symbol, words in items:
        pad = (48 if "polygon" in symbol else 30) * size / 12  # an arrow is wider than a dot
        w = (pad if symbol else 0) + size * 7 / 12 * len(words) + 18 * size / 12
        if x + w > width - MARGIN / 2 and x > MARGIN / 2:
            x, y = MARGIN / 2, y + line
        out.append(
            f'<g transform="translate({x:.1f},{y:.1f})">{symbol}'
            f'<text x="{pad if symbol else 0:g}" y="0" font-size="{size}" fill="{INK}">{escape(words)}</text></g>'
        )
        x += w
    return out, y


@lru_cache(maxsize=1)
def _legend_entries() -> tuple[tuple[str, str, str], ...]:
    """Every entry of the full legend as (what it explains, symbol, words); the
    compact legend keeps those whose key the map shows."""
    items: list[tuple[str, str, str]] = []
    for t in ("YD", "WD", "RD", "BD", "RG", "SG"):
        items.append(
            (
                t,
                f'<circle cx="8" cy="-4" r="7" fill="{STAR_FILL[t]}" stroke="{NOBODY}"/>',
                f"{t} {STAR_NAMES[t]}",
            )
        )
    items.append(
        ("PL", f'<circle cx="8" cy="-4" r="5" fill="{PLANET_FILL}" stroke="{NOBODY}"/>', "PL planet")
    )
    items.append(
        (
            "AB",
            f'<rect x="4" y="-8" width="8" height="8" transform="rotate(45 8 -4)" fill="{BELT_FILL}" stroke="{NOBODY}"/>',
            "AB asteroid belt",
        )
    )
    items.append(("nobody", f'<circle cx="8" cy="-4" r="7" fill="none" stroke="{NOBODY}"/>', "nobody's"))
    items.append(
        (
            "faded",
            f'<circle cx="8" cy="-4" r="7" fill="{NOBODY}" fill-opacity="0.5" stroke="{NOBODY}" stroke-opacity="0.5"/>',
            "faded: not in scanner range now",
        )
    )
    items.append(
        (
            "capture",
            f'<circle cx="8" cy="-4" r="7" fill="none" stroke="{ARROW_COLOUR["capture"]}" stroke-width="2.5"/>',
            "captured this turn",
        )
    )
    items.append(
        (
            "attack",
            f'<path d="M3,-9 l10,10 m0,-10 l-10,10" stroke="{ARROW_COLOUR["attack"]}" stroke-width="3"/>',
            "battle this turn",
        )
    )
    items.append(("labels", "", "5c 2f 1k: cruisers, fighters, colony ships"))
    items.append(("labels", "", "H your HOME, B your BASE"))
    for kind in ("move", "attack", "capture", "lost"):
        items.append(
            (
                f"{kind} arrow",
                _arrow(-10, -4, 40, -4, ARROW_COLOUR[kind], kind == "lost"),
                f"this turn: {ARROW_WORDS[kind]}",
            )
        )
    return tuple(items)


@lru_cache(maxsize=1)
def static_legend() -> tuple[str, float]:
    """What every map's legend says (star types, marks, arrows), as SVG at
    (0, 0) and :data:`LEGEND_WIDTH` wide, and its height: the same for every
    empire, so it is built once a process."""
    out = [f'<text x="{MARGIN / 2:.1f}" y="18" font-size="13" font-weight="bold" fill="{INK}">Legend</text>']
    rows, y = _flow([(symbol, words) for _, symbol, words in _legend_entries()], LEGEND_WIDTH, 40.0)
    return "\n".join(out + rows), y + 8


def _shown(context: ReportContext, rows: dict[int, SystemRow], with_labels: bool) -> set[str]:
    """The keys of the legend entries that explain something this map shows."""
    systems = context["map"]["systems"]
    # Star types only where labels are drawn (rules.md §5.1): without them the
    # symbols are specks whose colours the legend would promise in vain.
    keys = {s["type"] for s in systems} if with_labels else set()
    if any(s["owner"] is None for s in systems):
        keys.add("nobody")
    if any(not (s["visible"] or s["code"] in rows) for s in systems):
        keys.add("faded")
    for arrow in context["map"].get("arrows", []):
        keys.update((arrow["kind"], f"{arrow['kind']} arrow"))
    if with_labels:
        keys.add("labels")
    return keys


def _owner_items(viewer: str, owners: list[str], most: int) -> list[tuple[str, str]]:
    """The legend's owners: the reader's colour and up to ``most`` other empires' on the map."""
    items = [
        (f'<circle cx="8" cy="-4" r="7" fill="none" stroke="{OWN}" stroke-width="4"/>', f"yours ({viewer})")
    ]
    for code in owners[:most]:
        items.append(
            (
                f'<circle cx="8" cy="-4" r="7" fill="none" stroke="{owner_colour(code, viewer)}" stroke-width="3"/>',
                code,
            )
        )
    if len(owners) > most:
        items.append(("", f"and {len(owners) - most} more empires"))
    return items


@dataclass(frozen=True)
class CompactLayout:
    """The compact picture of big games (rules.md §5.1): the map fitted to
    :data:`COMPACT_SIDE` pixels (``scale`` pixels a unit, ``width`` x
    ``height``), labels only at ``scale`` :data:`MIN_LABEL_SCALE` or more,
    and without them symbols ``boost`` times their size, links ``link``
    units wide (at least a pixel). No title line and no legend inside: the
    report prints the legend beside it (:func:`compact_legend`)."""

    frame: _Frame
    scale: float
    labels: bool
    boost: float
    link: float
    width: int
    height: int


def compact_layout(context: ReportContext) -> CompactLayout:
    systems = context["map"]["systems"]
    frame = _frame(systems)
    scale = min(1.0, COMPACT_SIDE / max(frame.width, frame.height))
    with_labels = scale >= MIN_LABEL_SCALE
    # Without labels nothing else keeps a symbol from shrinking to a speck.
    boost = 1.0 if with_labels else min(MAX_BOOST, max(1.0, MIN_STAR_PX / (9 * scale)))
    if boost != 1.0:
        frame = _frame(systems, boost)
    # Unsmoothed, a link thinner than a pixel would vanish.
    link = max(1.5 * boost, 1.0 / scale)
    return CompactLayout(
        frame, scale, with_labels, boost, link, round(frame.width * scale), round(frame.height * scale)
    )


def svg_map(context: ReportContext, max_side: int | None = None) -> str:
    """The map as SVG: full size when ``max_side`` is None, else scaled to fit
    ``max_side`` pixels (labels left out below :data:`MIN_LABEL_SCALE`)."""
    viewer = context["empire"]["code"]
    systems = context["map"]["systems"]
    rows = forces(context)
    frame = _frame(systems)
    scale = 1.0 if max_side is None else min(1.0, max_side / max(frame.width, frame.height))
    with_labels = scale >= MIN_LABEL_SCALE
    owners = sorted({s["owner"] for s in systems if s["owner"] and s["owner"] != viewer})
    width = max(frame.width * scale, float(LEGEND_WIDTH))
    static, static_height = static_legend()
    owners_part, last = _flow(_owner_items(viewer, owners, 12), width, static_height + 14)
    legend, legend_height = [static, *owners_part], last + 14
    top = 30.0
    height = top + frame.height * scale + legend_height
    caption = f"{context['game']} turn {context['turn']}: the map of {viewer}"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}" height="{height:.0f}" '
        f'font-family="DejaVu Sans, Helvetica, Arial, sans-serif" role="img" aria-label={quoteattr(caption)}>',
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="{BACKGROUND}"/>',
        f'<text x="{MARGIN / 2:.1f}" y="20" font-size="14" font-weight="bold" fill="{INK}">{escape(caption)}</text>',
        f'<g transform="translate(0,{top:.1f}) scale({scale:.4f})">',
        f'<g stroke="{LINK}" stroke-width="1.5">',
    ]
    pos = frame.pos
    ends = [(pos[a], pos[b]) for a, b in context["map"]["links"] if a in pos and b in pos]
    out.extend(
        f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"/>' for (x1, y1), (x2, y2) in ends
    )
    out.append("</g>")
    for s in systems:
        out.extend(_system(s, frame, rows.get(s["code"]), context, with_labels))
    for arrow in context["map"].get("arrows", []):
        a, b = arrow["from"], arrow["to"]
        if a in pos and b in pos and a != b:
            (x1, y1), (x2, y2) = pos[a], pos[b]
            out.append(_arrow(x1, y1, x2, y2, ARROW_COLOUR[arrow["kind"]], arrow["kind"] == "lost"))
            out.append(_mark(x2, y2, arrow["kind"]))
    out.append("</g>")
    out.append(f'<g transform="translate(0,{top + frame.height * scale:.1f})">')
    out.append(f'<line x1="0" y1="0" x2="{width:.0f}" y2="0" stroke="{LINK}"/>')
    out.extend(legend)
    out.append("</g></svg>")
    return "\n".join(out)


def _legend_colour(key: str) -> str | None:
    """The colour a compact-legend entry stands for (None: words only)."""
    if key in STAR_FILL:
        return STAR_FILL[key]
    if key == "PL":
        return PLANET_FILL
    if key == "AB":
        return BELT_FILL
    if key in ("nobody", "faded"):
        return NOBODY
    kind = key.removesuffix(" arrow")
    return ARROW_COLOUR.get(kind)


class LegendEntry(TypedDict):
    colour: str | None
    """A CSS colour, or None for words alone."""
    words: str


def compact_legend(context: ReportContext) -> list[LegendEntry]:
    """The compact picture's legend, as the report prints it beside the
    picture: ``{"colour": CSS colour or None, "words": ...}`` for your
    colour, at most :data:`COMPACT_OWNERS` other empires' and what this map
    shows (nobody's, faded, this turn's arrows; star types where labelled)."""
    viewer = context["empire"]["code"]
    systems = context["map"]["systems"]
    rows = forces(context)
    with_labels = compact_layout(context).labels
    owners = sorted({s["owner"] for s in systems if s["owner"] and s["owner"] != viewer})
    out: list[LegendEntry] = [{"colour": OWN, "words": f"yours ({viewer})"}]
    out += [{"colour": owner_colour(code, viewer), "words": code} for code in owners[:COMPACT_OWNERS]]
    if len(owners) > COMPACT_OWNERS:
        out.append({"colour": None, "words": f"and {len(owners) - COMPACT_OWNERS} more empires"})
    keys = _shown(context, rows, with_labels)
    seen: set[str] = set()
    for key, _, words in _legend_entries():
        if key in keys and words not in seen:
            seen.add(words)
            out.append({"colour": _legend_colour(key), "words": words})
    return out


def ascii_map(context: ReportContext, max_width: int = 100) -> str:
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
