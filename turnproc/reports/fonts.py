"""The font files the map pictures are drawn with: DejaVu Sans when the
system has it (Debian's fonts-dejavu-core), so a picture looks the same on
every host; otherwise the renderer's own choice."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

__all__ = ["font_files", "FAMILY"]

FAMILY = "DejaVu Sans"
_FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"))
_FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")


@lru_cache(maxsize=1)
def font_files() -> tuple[str, str] | None:
    """The regular and bold DejaVu Sans files, or None. Loading two files is
    much quicker than scanning every font on the system."""
    for folder in _FONT_DIRS:
        regular, bold = (folder / name for name in _FONT_FILES)
        if regular.is_file() and bold.is_file():
            return str(regular), str(bold)
    return None
