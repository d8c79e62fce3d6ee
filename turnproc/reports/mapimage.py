"""The map as a PNG picture, for mail programs that show no SVG (Gmail,
Outlook): the SVG drawing of :mod:`.svgmap`, fitted to
:data:`~.svgmap.MAX_PNG_SIDE` pixels, rendered by resvg.

resvg (through the resvg-py binding) was chosen over cairosvg because it is
some sixty times faster on big maps (a 9,000-system map: 1.3 s against 85 s)
and needs no system library. Text is set in DejaVu Sans when the system has
it (Debian's fonts-dejavu-core), so the picture looks the same on every host;
otherwise resvg takes the system's fonts.

resvg's cost is mostly per pixel (benchmarks/mapimage.py): the compact picture
of big games is small so that sending keeps its pace; loading the two font
files is a fixed cost of a small fraction of a millisecond.
"""

from __future__ import annotations

import struct
from functools import lru_cache
from pathlib import Path
from typing import Any

import resvg_py

from .svgmap import MAX_PNG_SIDE, svg_map

__all__ = ["png_map", "png_size"]

_FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"))
_FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")


@lru_cache(maxsize=1)
def _fonts() -> list[str] | None:
    """The DejaVu Sans files, or None to let resvg use the system's fonts.
    Loading two files is much quicker than scanning every font on the system."""
    for folder in _FONT_DIRS:
        files = [folder / name for name in _FONT_FILES]
        if all(f.is_file() for f in files):
            return [str(f) for f in files]
    return None


def _render(svg: str) -> bytes:
    fonts = _fonts()
    if fonts is None:
        return bytes(resvg_py.svg_to_bytes(svg_string=svg))
    return bytes(
        resvg_py.svg_to_bytes(svg_string=svg, skip_system_fonts=True, font_files=fonts, sans_serif_family="DejaVu Sans")
    )


def png_map(context: dict[str, Any], *, compact: bool = False) -> bytes:
    """The report context's map as PNG bytes, at most MAX_PNG_SIDE pixels wide
    and high plus the legend; with ``compact`` (games above the bulletin
    threshold, whose pictures are made at send time) at most COMPACT_SIDE,
    which keeps one picture within a few milliseconds of CPU."""
    if compact:
        return _render(svg_map(context, compact=True))
    return _render(svg_map(context, max_side=MAX_PNG_SIDE))


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) in pixels, from the PNG's header."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)
