"""The map as a PNG picture, for mail programs that show no SVG (Gmail,
Outlook): the SVG drawing of :mod:`.svgmap`, fitted to
:data:`~.svgmap.MAX_PNG_SIDE` pixels, rendered by resvg; and in big games the
compact picture, drawn by :mod:`.pixelmap`.

resvg (through the resvg-py binding) was chosen over cairosvg because it is
some sixty times faster on big maps (a 9,000-system map: 1.3 s against 85 s)
and needs no system library. Text is set in the font files of :mod:`.fonts`.
resvg's cost is mostly per pixel (benchmarks/mapimage.py); loading the two
font files is a fixed cost of a small fraction of a millisecond.
"""

from __future__ import annotations

import struct

import resvg_py

from .fonts import FAMILY, font_files
from .pixelmap import compact_png
from .schema import ReportContext
from .svgmap import MAX_PNG_SIDE, svg_map

__all__ = ["png_map", "png_size"]


def _render(svg: str) -> bytes:
    fonts = font_files()
    if fonts is None:
        return bytes(resvg_py.svg_to_bytes(svg_string=svg))
    return bytes(
        resvg_py.svg_to_bytes(
            svg_string=svg, skip_system_fonts=True, font_files=list(fonts), sans_serif_family=FAMILY
        )
    )


def png_map(context: ReportContext, *, compact: bool = False) -> bytes:
    """The report context's map as PNG bytes, at most MAX_PNG_SIDE pixels wide
    and high plus the legend; with ``compact`` (games above the bulletin
    threshold, whose pictures are made at send time) at most COMPACT_SIDE,
    which keeps one picture within a millisecond or so of CPU."""
    if compact:
        return compact_png(context)
    return _render(svg_map(context, max_side=MAX_PNG_SIDE))


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) in pixels, from the PNG's header."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)
