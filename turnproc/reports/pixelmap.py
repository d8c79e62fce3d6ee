"""The compact map picture of big games, and the neighbourhood map, drawn
straight into pixels: a second renderer beside resvg, kept because the night
needs it.

A big game mails a thousand of each a night, each made as its mail goes out
(rules.md §5.1), so their cost is paid a thousand times. Drawn as SVG and
rendered by resvg, measured on the synthetic 1,000-empire game (CPU per
picture, a 2-core machine, load 14): the compact picture (the map's SVG fitted
to COMPACT_SIDE) 52.6 ms against 1.0 ms here, the neighbourhood map 37.0 ms
against 6.4 ms (2.6 ms once its lettering is cached). Rendered by resvg, the
two would add some 82 s of CPU to a night whose send is about 15 s of CPU on
two cores: the 20 s night could not hold. resvg's PNG holds four bytes a
pixel; Pillow draws the same shapes into a palette image, one byte a pixel of
the map's few colours.

The shapes, sizes and colours are :mod:`.svgmap`'s (:func:`~.svgmap.compact_layout`,
:func:`~.mapsymbols.symbol`, :func:`~.mapsymbols.labels`, :func:`~.mapsymbols.arrow_shape`),
drawn unsmoothed as the compact drawing always was. A faded system's colours
are mixed half and half with the background, as half-opaque paint on it
shows them.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from .fonts import font_files
from .mapsymbols import (
    ARROW_COLOUR,
    ARROW_WIDTH,
    BACKGROUND,
    CAPTURE_RING,
    LINK,
    OWN,
    Label,
    Symbol,
    arrow_shape,
    attack_cross,
    forces,
    labels,
    symbol,
)
from .nearmap import NearLayout
from .schema import ArrowKind, MapSystem, ReportContext
from .svgmap import compact_layout

__all__ = ["compact_png", "near_png", "DASH_PX"]

#: A lost ship's arrow is dashed, this many pixels on and off: the drawing's
#: dashes (6 and 4 units) scaled down would be specks.
DASH_PX = (3, 2)


class _Palette:
    """The picture's colours, numbered as it uses them (a PNG palette)."""

    def __init__(self) -> None:
        self.index: dict[tuple[int, int, int], int] = {}

    def __call__(self, colour: str, faded: bool = False) -> int:
        r, g, b = _rgb(colour)
        if faded:
            # Half-opaque paint on the background.
            br, bg, bb = _rgb(BACKGROUND)
            r, g, b = (r + br + 1) // 2, (g + bg + 1) // 2, (b + bb + 1) // 2
        return self.index.setdefault((r, g, b), len(self.index))

    def flat(self) -> list[int]:
        return [c for rgb in self.index for c in rgb]


@lru_cache(maxsize=64)
def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


@lru_cache(maxsize=16)
def _font(size: int, bold: bool) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    files = font_files()
    if files is None:
        return ImageFont.load_default(size)
    return ImageFont.truetype(files[bold], size)


_ANCHOR = {"start": "ls", "middle": "ms", "end": "rs"}


def _px(value: float) -> int:
    """A width in pixels: at least one."""
    return max(1, round(value))


def _ring_px(width: float, mine: bool) -> int:
    """A ring's width in whole pixels: under half a pixel it is not drawn, as
    unsmoothed drawing leaves it out, but the reader's own ring always is
    (rules.md §5.1: yours is ringed green)."""
    px = math.floor(width + 0.5)
    return max(px, 1) if mine else px


def _disc(
    draw: ImageDraw.ImageDraw, x: float, y: float, r: float, fill: int | None, ring: int, ring_px: int
) -> None:
    # SVG strokes straddle the outline: the ring reaches half its width past r.
    outer = max(0.5, r + ring_px / 2)
    draw.ellipse(
        (x - outer, y - outer, x + outer - 1, y + outer - 1),
        fill=fill,
        outline=ring if ring_px else None,
        width=ring_px,
    )


def _dashed(
    draw: ImageDraw.ImageDraw, x1: float, y1: float, x2: float, y2: float, ink: int, width: int
) -> None:
    length = math.hypot(x2 - x1, y2 - y1)
    if length == 0:
        return
    on, off = DASH_PX
    at = 0.0
    while at < length:
        end = min(at + on, length)
        draw.line(
            [
                (x1 + (x2 - x1) * at / length, y1 + (y2 - y1) * at / length),
                (x1 + (x2 - x1) * end / length, y1 + (y2 - y1) * end / length),
            ],
            fill=ink,
            width=width,
        )
        at = end + off


def _symbol(draw: ImageDraw.ImageDraw, sym: Symbol, scale: float, ink: _Palette) -> None:
    x, y = sym.x * scale, sym.y * scale
    fill, ring = ink(sym.fill, sym.faded), ink(sym.ring, sym.faded)
    ring_px = _ring_px(sym.width * scale, sym.ring == OWN)
    if sym.belt:
        # A square of 10 units turned 45°: a diamond, its ring straddling the edges.
        reach = 5 * math.sqrt(2) * scale + ring_px / 2 * math.sqrt(2)
        corners = [(x, y - reach), (x + reach, y), (x, y + reach), (x - reach, y)]
        draw.polygon(corners, fill=fill, outline=ring if ring_px else None, width=ring_px or 1)
    else:
        _disc(draw, x, y, sym.radius * scale, fill, ring, ring_px)


def _label(draw: ImageDraw.ImageDraw, label: Label, scale: float, ink: _Palette, faded: bool) -> None:
    font = _font(max(1, round(label.size * scale)), label.bold)
    # The background outline under the letters, as the SVG's, keeps a label readable where it crosses a link.
    draw.text(
        (label.x * scale, label.y * scale),
        label.text,
        fill=ink(label.fill, faded),
        font=font,
        anchor=_ANCHOR[label.anchor],
        stroke_width=_px(1.5 * scale),
        stroke_fill=ink(BACKGROUND),
    )


@lru_cache(maxsize=8192)
def _lettering(text: str, size: int, bold: bool, anchor: str) -> tuple[Any, int, int]:
    """A label's letters as the font renders them (a mask in Pillow's own
    storage, as ``ImageDraw.text`` draws it) and where its corner lies from
    the anchor point. Kept: the same HOME/BASE marks and ship counts recur
    in the neighbourhood maps of one night's reports. Rendered once by the
    font: measuring the box and then drawing the letters into a mask of that
    size cost 0.34 ms of CPU a label against 0.11 ms, the same pixels. A
    thousand-empire night sets some nine thousand labels, most of them a
    system's code seen once: its report mails took 9.97 ms of CPU each
    before, 8.16 ms after (the same bytes; measured in one run, 2,000 mails)."""
    font = _font(size, bold)
    if isinstance(font, ImageFont.FreeTypeFont):
        mask, (left, top) = font.getmask2(text, "1", anchor=_ANCHOR[anchor])
        return mask, left, top
    # Pillow without FreeType: its bitmap font, measured and drawn as before.
    left, top, right, bottom = (int(v) for v in font.getbbox(text, anchor=_ANCHOR[anchor]))
    image = Image.new("1", (max(1, right - left), max(1, bottom - top)), 0)
    pen = ImageDraw.Draw(image)
    pen.fontmode = "1"
    pen.text((-left, -top), text, fill=1, font=font, anchor=_ANCHOR[anchor])
    return image.im, left, top


def compact_png(context: ReportContext) -> bytes:
    """The report context's compact map picture as PNG bytes."""
    layout = compact_layout(context)
    scale, k = layout.scale, layout.boost
    viewer = context["empire"]["code"]
    systems: Sequence[MapSystem] = context["map"]["systems"]
    pos = layout.frame.pos
    ink = _Palette()
    image = Image.new("P", (max(1, layout.width), max(1, layout.height)), ink(BACKGROUND))
    draw = ImageDraw.Draw(image)
    draw.fontmode = "1"  # unsmoothed letters: a palette picture has no shades between colours
    link, link_width = ink(LINK), _px(layout.link * scale)
    for a, b in context["map"]["links"]:
        if a in pos and b in pos:
            (x1, y1), (x2, y2) = pos[a], pos[b]
            draw.line([(x1 * scale, y1 * scale), (x2 * scale, y2 * scale)], fill=link, width=link_width)
    rows = forces(context)
    for s in systems:
        row = rows.get(s["code"])
        sym = symbol(s, layout.frame, row, viewer, k)
        _symbol(draw, sym, scale, ink)
        if layout.labels:
            for label in labels(s, sym, row, context):
                _label(draw, label, scale, ink, sym.faded)
    arrows = []
    for arrow in context["map"].get("arrows", []):
        a, b = arrow["from"], arrow["to"]
        if a in pos and b in pos and a != b:
            arrows.append((arrow["kind"], *pos[a], *pos[b]))
    _arrows(draw, arrows, scale, k, ink)
    return _png(image, ink)


def _arrows(
    draw: ImageDraw.ImageDraw,
    arrows: list[tuple[ArrowKind, float, float, float, float]],
    scale: float,
    k: float,
    ink: _Palette,
) -> None:
    """This turn's arrows (kind, from x, y, to x, y), with a battle's cross and a capture's ring."""
    width = _px(ARROW_WIDTH * k * scale)
    for kind, x1, y1, x2, y2 in arrows:
        colour = ink(ARROW_COLOUR[kind])
        shape = arrow_shape(x1, y1, x2, y2, k)
        sx, sy, hx, hy = (v * scale for v in shape.shaft)
        if kind == "lost":
            _dashed(draw, sx, sy, hx, hy, colour, width)
        else:
            draw.line([(sx, sy), (hx, hy)], fill=colour, width=width)
        draw.polygon([(px * scale, py * scale) for px, py in shape.head], fill=colour)
        if kind == "attack":
            for cx1, cy1, cx2, cy2 in attack_cross(x2, y2, k):
                draw.line([(cx1 * scale, cy1 * scale), (cx2 * scale, cy2 * scale)], fill=colour, width=width)
        elif kind == "capture":
            radius, ring_width = CAPTURE_RING
            _disc(draw, x2 * scale, y2 * scale, radius * k * scale, None, colour, _px(ring_width * k * scale))


#: zlib's fastest level: these few-colour pictures, mostly background, pack
#: almost as well at it. On the 300-empire synthetic game's 600 pictures:
#: 0.37 ms of CPU and 2.6 KiB a picture, against 0.74 ms and 2.1 KiB at
#: Pillow's default (6), 5.1 ms and 1.9 KiB at 9; a thousand-empire night
#: makes two thousand of them.
PNG_COMPRESS_LEVEL = 1


def _png(image: Image.Image, ink: _Palette) -> bytes:
    image.putpalette(ink.flat())
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=PNG_COMPRESS_LEVEL)
    return out.getvalue()


def near_png(layout: NearLayout) -> bytes:
    """The neighbourhood map (:func:`~.nearmap.near_layout`) as PNG bytes, at 1:1."""
    ink = _Palette()
    image = Image.new("P", (layout.width, layout.height), ink(BACKGROUND))
    draw = ImageDraw.Draw(image)
    draw.fontmode = "1"
    link = ink(LINK)
    for x1, y1, x2, y2 in layout.links:
        draw.line([(x1, y1), (x2, y2)], fill=link, width=2)
    for sym, system_labels in layout.systems:
        _symbol(draw, sym, 1.0, ink)
        for label in system_labels:
            # No outline: here labels stand beside their symbols, clear of
            # most links, and the outline would double the picture's cost.
            mask, left, top = _lettering(label.text, label.size, label.bold, label.anchor)
            # As ImageDraw.text puts what the font rendered on the picture.
            draw.draw.draw_bitmap(
                (round(label.x) + left, round(label.y) + top), mask, ink(label.fill, sym.faded)
            )
    _arrows(draw, layout.arrows, 1.0, 1.0, ink)
    return _png(image, ink)
