"""Where in a scenario file a key was written: for error messages that name
the line and the key path."""

from __future__ import annotations

import re

__all__ = ["KeyPath", "Locator", "format_path"]

KeyPath = tuple[str | int, ...]


def format_path(path: KeyPath) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out or "(top level)"


class Locator:
    """Finds the line a key path was written on, as well as a simple scan can.

    tomllib keeps no positions, so this looks at headers (``[game]``,
    ``[[systems]]``, ``[empires.techs]``) and ``key =`` lines. It returns None
    rather than guess when the file uses inline tables or unusual layout.
    """

    _HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\" ]+?)\s*\]\]?\s*(#.*)?$")

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.headers: list[tuple[int, bool, str]] = []  # (index, is_array, dotted name)
        for n, line in enumerate(self.lines):
            m = self._HEADER.match(line)
            if m:
                name = re.sub(r"\s*\.\s*", ".", m.group(2).replace('"', ""))
                self.headers.append((n, m.group(1) == "[[", name))

    def line_of(self, path: KeyPath, hint: str | None = None) -> int | None:
        if not path or not isinstance(path[0], str):
            return None
        top = path[0]
        block = self._block(top, path[1] if len(path) > 1 and isinstance(path[1], int) else None)
        if block is None:
            return None
        start, end = block
        keys = [p for p in path[1:] if isinstance(p, str)]
        # A sub-table written as its own header ([empires.techs]) narrows the search,
        # so a tech named like an empire key (treasury) finds its own line.
        if len(keys) > 1:
            sub = f"{top}.{keys[0]}"
            for n, is_array, name in self.headers:
                if start <= n < end and name == sub and not is_array:
                    later = [h for h, _, _ in self.headers if n < h < end]
                    start, end = n + 1, (later[0] if later else end)
                    keys = keys[1:]
                    break
        if hint is not None:
            pattern = re.compile(hint)
            for n in range(start, end):
                if pattern.search(self.lines[n]):
                    return n + 1
        # The innermost key first; then its parents (an inline table's key line).
        for key in reversed(keys):
            key_re = re.compile(r'^\s*"?' + re.escape(key) + r'"?\s*=')
            for n in range(start, end):
                if key_re.match(self.lines[n]):
                    return n + 1
        return start  # the header's own line: block starts right after it, 0-based

    def _block(self, top: str, index: int | None) -> tuple[int, int] | None:
        """Lines (0-based, end exclusive) after the header of ``top`` (or its
        ``index``-th array entry), through its sub-tables, up to the next other table."""
        count = -1
        for h, (n, is_array, name) in enumerate(self.headers):
            if name != top:
                continue
            if is_array:
                count += 1
                if index is None or count != index:
                    continue
            elif index is not None:
                continue
            end = len(self.lines)
            for n2, is_array2, name2 in self.headers[h + 1 :]:
                if name2.startswith(top + ".") and not is_array2:
                    continue
                end = n2
                break
            return n + 1, end
        return None
