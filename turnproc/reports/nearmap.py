"""The neighbourhood map: the part of the galaxy around the reader's own
systems, drawn small enough for a phone to show it at full size.

The whole map (:mod:`.svgmap`) is up to 2,000 pixels wide: a phone fits it
into some 370 CSS pixels, and its labels shrink to specks. This picture is
at most :data:`NEAR_WIDTH` pixels wide and is shown at 1:1, so its labels,
none smaller than :data:`MIN_LABEL_PX`, are as big on a phone as on a
desktop. Few grid squares fit that width (:data:`NEAR_COLS` across,
:data:`NEAR_ROWS` down), so the picture shows the window of that size
holding the most of the reader's systems (then the most systems they see
now), with a square of margin where there is room; a link or an arrow to a
system outside the window runs to the picture's edge. Names are left out
(the tables have them); codes, HOME/BASE marks and ships are drawn.

:func:`near_layout` places it; it is drawn as SVG (the report page shows
that) and, for the mail, straight into a PNG by :mod:`.pixelmap`: rendering
the SVG cost some 45 ms of CPU a picture, a thousand times a night.
"""

from __future__ import annotations

from dataclasses import dataclass

from .mapsymbols import (
    ARROW_COLOUR,
    BACKGROUND,
    INK,
    LINK,
    Label,
    Symbol,
    _arrow,
    _Frame,
    _mark,
    _ships,
    escape,
    forces,
    quoteattr,
    symbol,
)
from .schema import ArrowKind, MapSystem, ReportContext

__all__ = [
    "NEAR_WIDTH",
    "NEAR_COLS",
    "NEAR_ROWS",
    "NEAR_CELL",
    "MIN_LABEL_PX",
    "Window",
    "near_window",
    "NearLayout",
    "near_layout",
    "near_svg",
]

#: One grid square of the neighbourhood map, in pixels (width, height).
NEAR_CELL = (90, 100)
#: Grid squares across and down: NEAR_COLS squares are NEAR_WIDTH pixels.
NEAR_COLS, NEAR_ROWS = 4, 5
NEAR_WIDTH = NEAR_COLS * NEAR_CELL[0]
#: The smallest label's size in pixels: 11 CSS pixels at least on a phone,
#: where the picture is shown at 1:1 (a 390-pixel screen has room for it).
MIN_LABEL_PX = 12
#: Where a star stands in its square (left of the middle: its planets and
#: belts stand in a column to its right, their labels right of them).
_STAR = (32, 40)
_SAT_DX, _SAT_TOP, _SAT_DY = 20, -28, 28


@dataclass(frozen=True)
class Window:
    """The grid squares the picture shows: columns ``col`` .. ``col + cols - 1``,
    rows ``row`` .. ``row + rows - 1``."""

    col: int
    row: int
    cols: int
    rows: int

    def __contains__(self, square: tuple[int, int]) -> bool:
        row, col = square
        return self.col <= col < self.col + self.cols and self.row <= row < self.row + self.rows


def _span(values: list[int], known: list[int], most: int) -> tuple[int, int]:
    """First square and count along one axis: the values and a square of
    margin each side (within the squares ``known``), at most ``most`` squares."""
    low, high = max(min(values) - 1, min(known)), min(max(values) + 1, max(known))
    return low, min(most, high - low + 1)


def near_window(context: ReportContext) -> Window | None:
    """The squares the neighbourhood map shows, or None when the reader knows no system."""
    viewer = context["empire"]["code"]
    systems = context["map"]["systems"]
    if not systems:
        return None
    seen = {row["code"] for row in context["scouting"]}
    own = [(s["row"], s["col"]) for s in systems if s["owner"] == viewer]
    near = own + [(s["row"], s["col"]) for s in systems if s["code"] in seen]
    squares = near or [(s["row"], s["col"]) for s in systems]
    known_rows, known_cols = [s["row"] for s in systems], [s["col"] for s in systems]
    row0, rows = _span([r for r, _ in squares], known_rows, NEAR_ROWS)
    col0, cols = _span([c for _, c in squares], known_cols, NEAR_COLS)
    home = next(((s["row"], s["col"]) for s in systems if s["code"] == context["empire"]["home"]), squares[0])
    best: tuple[tuple[int, int, int], Window] | None = None
    # A few hundred windows at most: the span of what one empire sees.
    last_row = min(max(r for r, _ in squares) + 1, max(known_rows)) - rows + 1
    last_col = min(max(c for _, c in squares) + 1, max(known_cols)) - cols + 1
    for r in range(row0, max(row0, last_row) + 1):
        for c in range(col0, max(col0, last_col) + 1):
            window = Window(c, r, cols, rows)
            centre_r, centre_c = r + (rows - 1) / 2, c + (cols - 1) / 2
            score = (
                sum(sq in window for sq in own),
                sum(sq in window for sq in near),
                -round(abs(home[0] - centre_r) + abs(home[1] - centre_c)),
            )
            if best is None or score > best[0]:
                best = (score, window)
    assert best is not None
    return best[1]


def _positions(systems: list[MapSystem], window: Window) -> dict[int, tuple[float, float]]:
    """Every known system's place in the picture (outside it too: links and arrows run there)."""
    width, height = NEAR_CELL
    pos: dict[int, tuple[float, float]] = {}
    satellites: dict[int, list[int]] = {}
    for s in systems:
        pos[s["code"]] = (
            (s["col"] - window.col) * width + _STAR[0],
            (s["row"] - window.row) * height + _STAR[1],
        )
        if s["star"] is not None:
            satellites.setdefault(s["star"], []).append(s["code"])
    for codes in satellites.values():
        for i, code in enumerate(sorted(codes)):
            x, y = pos[code]
            pos[code] = (x + _SAT_DX, y + _SAT_TOP + i * _SAT_DY)
    return pos


@dataclass(frozen=True)
class NearLayout:
    """What the neighbourhood map draws, in pixels: the links (segments,
    clipped by the picture's edge), each system in the window with its
    labels, and this turn's arrows (kind, from, to)."""

    caption: str
    width: int
    height: int
    links: list[tuple[float, float, float, float]]
    systems: list[tuple[Symbol, list[Label]]]
    arrows: list[tuple[ArrowKind, float, float, float, float]]


def near_layout(context: ReportContext) -> NearLayout | None:
    """The neighbourhood map of a report context, or None when the reader knows no system."""
    viewer = context["empire"]["code"]
    systems = context["map"]["systems"]
    window = near_window(context)
    if window is None:
        return None
    width, height = window.cols * NEAR_CELL[0], window.rows * NEAR_CELL[1]
    pos = _positions(systems, window)
    frame = _Frame(pos, width, height)
    rows = forces(context)
    home, base = context["empire"]["home"], context["empire"]["base"]
    links = [(*pos[a], *pos[b]) for a, b in context["map"]["links"] if a in pos and b in pos]
    drawn = []
    for s in systems:
        if (s["row"], s["col"]) not in window:
            continue
        row = rows.get(s["code"])
        sym = symbol(s, frame, row, viewer)
        x, y = sym.x, sym.y
        marks = ("H" if s["code"] == home else "") + ("B" if s["code"] == base else "")
        ships = _ships(row)
        ship_ink = sym.ring if s["owner"] else INK
        if sym.star:
            out = [Label(x, y + 26, str(s["code"]), 13, bold=True)]
            if marks:
                out.append(Label(x - 13, y + 5, marks, MIN_LABEL_PX, anchor="end", bold=True))
            if ships:
                out.append(Label(x, y + 40, ships, MIN_LABEL_PX, fill=ship_ink))
        else:
            # Right of a capture's ring (radius 14), which would cross them.
            out = [
                Label(
                    x + 16,
                    y + 4,
                    " ".join(p for p in (str(s["code"]), marks) if p),
                    MIN_LABEL_PX,
                    anchor="start",
                )
            ]
            if ships:
                out.append(Label(x + 16, y + 17, ships, MIN_LABEL_PX, anchor="start", fill=ship_ink))
        drawn.append((sym, out))
    arrows = [
        (a["kind"], *pos[a["from"]], *pos[a["to"]])
        for a in context["map"].get("arrows", [])
        if a["from"] in pos and a["to"] in pos and a["from"] != a["to"]
    ]
    caption = f"{context['game']} turn {context['turn']}: the neighbourhood of {viewer}"
    return NearLayout(caption, width, height, links, drawn, arrows)


def _text(label: Label) -> str:
    weight = ' font-weight="bold"' if label.bold else ""
    return (
        f'<text x="{label.x:.1f}" y="{label.y:.1f}" font-size="{label.size}" text-anchor="{label.anchor}" '
        f'fill="{label.fill}"{weight} stroke="{BACKGROUND}" stroke-width="3" paint-order="stroke">'
        f"{escape(label.text)}</text>"
    )


def near_svg(layout: NearLayout) -> str:
    """The neighbourhood map as SVG, at most :data:`NEAR_WIDTH` pixels wide,
    drawn at 1:1 (no scaling: a label's font size is its size in pixels).
    The mail's PNG (:func:`.pixelmap.near_png`) draws the same layout."""
    width, height, caption = layout.width, layout.height, layout.caption
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" role="img" '
        f"aria-label={quoteattr(caption)}>",
        f'<rect width="{width}" height="{height}" fill="{BACKGROUND}"/>',
        f'<g stroke="{LINK}" stroke-width="1.5">',
    ]
    out.extend(
        f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"/>' for x1, y1, x2, y2 in layout.links
    )
    out.append("</g>")
    for sym, labels in layout.systems:
        x, y = sym.x, sym.y
        out.append('<g fill-opacity="0.5" stroke-opacity="0.5">' if sym.faded else "<g>")
        if sym.belt:
            out.append(
                f'<rect x="{x - 5:.1f}" y="{y - 5:.1f}" width="10" height="10" '
                f'transform="rotate(45 {x:.1f} {y:.1f})" '
                f'fill="{sym.fill}" stroke="{sym.ring}" stroke-width="{sym.width:g}"/>'
            )
        else:
            out.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{sym.radius:g}" fill="{sym.fill}" '
                f'stroke="{sym.ring}" stroke-width="{sym.width:g}"/>'
            )
        out.extend(_text(label) for label in labels)
        out.append("</g>")
    for kind, x1, y1, x2, y2 in layout.arrows:
        out.append(_arrow(x1, y1, x2, y2, ARROW_COLOUR[kind], kind == "lost"))
        out.append(_mark(x2, y2, kind))
    out.append("</svg>")
    return "\n".join(out)
