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

from dataclasses import dataclass
from functools import lru_cache
from typing import TypedDict

from .mapsymbols import (
    ARROW_COLOUR,
    ARROW_WORDS,
    BACKGROUND,
    BELT_FILL,
    CELL,
    INK,
    LINK,
    MARGIN,
    NOBODY,
    OWN,
    PLANET_FILL,
    STAR_FILL,
    STAR_NAMES,
    _arrow,
    _Frame,
    _frame,
    _mark,
    _system,
    escape,
    forces,
    owner_colour,
    quoteattr,
)
from .schema import ReportContext, SystemRow

__all__ = [
    "svg_map",
    "ascii_map",
    "MAX_PNG_SIDE",
    "MIN_LABEL_SCALE",
    "label_limit",
    "static_legend",
    "LEGEND_WIDTH",
    "compact_legend",
    "compact_layout",
    "CompactLayout",
    "COMPACT_SIDE",
    "COMPACT_OWNERS",
    "MIN_STAR_PX",
    "MAX_BOOST",
]

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


def label_limit() -> int:
    """Grid squares across up to which the PNG keeps every label."""
    return int(MAX_PNG_SIDE / (CELL * MIN_LABEL_SCALE))


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
            f'<text x="{pad if symbol else 0:g}" y="0" font-size="{size}"'
            f' fill="{INK}">{escape(words)}</text></g>'
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
            f'<rect x="4" y="-8" width="8" height="8" transform="rotate(45 8 -4)"'
            f' fill="{BELT_FILL}" stroke="{NOBODY}"/>',
            "AB asteroid belt",
        )
    )
    items.append(("nobody", f'<circle cx="8" cy="-4" r="7" fill="none" stroke="{NOBODY}"/>', "nobody's"))
    items.append(
        (
            "faded",
            f'<circle cx="8" cy="-4" r="7" fill="{NOBODY}" fill-opacity="0.5"'
            f' stroke="{NOBODY}" stroke-opacity="0.5"/>',
            "faded: not in scanner range now",
        )
    )
    items.append(
        (
            "capture",
            f'<circle cx="8" cy="-4" r="7" fill="none" stroke="{ARROW_COLOUR["capture"]}"'
            f' stroke-width="2.5"/>',
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
                f'<circle cx="8" cy="-4" r="7" fill="none" stroke="{owner_colour(code, viewer)}"'
                f' stroke-width="3"/>',
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
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}"'
        f' width="{width:.0f}" height="{height:.0f}" '
        f'font-family="DejaVu Sans, Helvetica, Arial, sans-serif"'
        f' role="img" aria-label={quoteattr(caption)}>',
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="{BACKGROUND}"/>',
        f'<text x="{MARGIN / 2:.1f}" y="20" font-size="14" font-weight="bold"'
        f' fill="{INK}">{escape(caption)}</text>',
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
