"""Every relative link in the docs leads somewhere: the file exists, and a
``#fragment`` into a Markdown file names one of its headings (as GitHub makes
heading anchors)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs.mdblocks import ROOT, doc_paths

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


def _prose(path: Path) -> str:
    """The file without its fenced blocks (links in code are not links)."""
    out, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            out.append(line)
    return "\n".join(out)


def anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to '-',
    repeats numbered -1, -2, ..."""
    found: set[str] = set()
    for line in _prose(path).splitlines():
        m = re.match(r"#{1,6} (.*)", line)
        if not m:
            continue
        base = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        slug, n = base, 0
        while slug in found:
            n += 1
            slug = f"{base}-{n}"
        found.add(slug)
    return found


def links(path: Path) -> list[str]:
    return [a or b for a, b in LINK.findall(_prose(path))]


@pytest.mark.parametrize("doc", doc_paths(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(doc: Path) -> None:
    broken = []
    for target in links(doc):
        if re.match(r"[a-z]+:", target):
            continue  # http:, https:, mailto:
        file, _, fragment = target.partition("#")
        dest = (doc.parent / file).resolve() if file else doc
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
            broken.append(f"{target}: no heading #{fragment} in {dest.relative_to(ROOT)}")
    assert not broken, f"{doc.relative_to(ROOT)}:\n  " + "\n  ".join(broken)
