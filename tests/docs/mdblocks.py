"""Fenced blocks of the Markdown docs, for the docs tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def doc_paths() -> list[Path]:
    """Every document players and GMs read: docs/*.md and the README."""
    return sorted(DOCS.glob("*.md")) + [ROOT / "README.md"]


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    """Line of the opening fence (1-based)."""
    info: str
    """The fence's info string, e.g. ``orders-wrong code=not_linked``."""
    text: str

    @property
    def kind(self) -> str:
        return self.info.split(" ", 1)[0] if self.info else ""

    @property
    def attrs(self) -> dict[str, str]:
        """``key=value`` words of the info string after the kind."""
        pairs = (w.partition("=") for w in self.info.split()[1:])
        return {key: value for key, _, value in pairs}

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(path: Path) -> list[Block]:
    """The fenced (```) blocks of a Markdown file, in order."""
    found: list[Block] = []
    opened: tuple[int, str] | None = None
    body: list[str] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        stripped = line.strip()
        if opened is None:
            if stripped.startswith("```"):
                opened, body = (number, stripped[3:].strip()), []
        elif stripped == "```":
            found.append(Block(path, opened[0], opened[1], "\n".join(body) + "\n"))
            opened = None
        else:
            body.append(line)
    assert opened is None, f"{path.name}:{opened[0]}: a fenced block is never closed"
    return found


def sections(path: Path, level: int) -> dict[str, str]:
    """Heading text (backticks removed) → the text under it, for headings of ``level``."""
    marker = "#" * level + " "
    out: dict[str, str] = {}
    current: str | None = None
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("#"):
            hashes = len(line) - len(line.lstrip("#"))
            if hashes == level and line.startswith(marker):
                current = line[len(marker) :].strip().replace("`", "")
                out[current] = ""
                continue
            if hashes <= level:
                current = None
        if current is not None:
            out[current] += line + "\n"
    return out
