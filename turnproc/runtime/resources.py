"""Where the shipped folders are: inside the installed package (the wheel
force-includes them as ``_migrations``, ``_templates`` and ``_docs``), or at the
top of a source checkout for an editable install."""

from __future__ import annotations

from pathlib import Path

__all__ = ["migrations_dir", "templates_dir", "public_docs"]

# This module is in turnproc/runtime/: the shipped folders are beside turnproc/.
_PACKAGE = Path(__file__).resolve().parent.parent


def _find(installed: str, checkout: str) -> Path:
    inside = _PACKAGE / installed
    if inside.is_dir():
        return inside
    beside = _PACKAGE.parent / checkout
    if beside.is_dir():
        return beside
    raise FileNotFoundError(
        f"turnproc is installed without its {checkout}/ folder (looked in {inside} and {beside})"
    )


def migrations_dir() -> Path:
    return _find("_migrations", "migrations")


def templates_dir() -> Path:
    return _find("_templates", "templates")


#: The docs a game's public pages carry, in the order of their links.
PUBLIC_DOCS = ("rules.md", "orders.md")


def public_docs() -> dict[str, str]:
    """The rulebook and the players' guide (Markdown), by file name."""
    folder = _find("_docs", "docs")
    return {name: (folder / name).read_text(encoding="utf-8") for name in PUBLIC_DOCS}
