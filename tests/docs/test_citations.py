"""Code and tests cite the player's rulebook, docs/rules.md, and every citation
leads somewhere: ``rules.md §10.4`` names a section or subsection the rulebook
has, ``(ruling B7)`` a ruling it writes, and a ruling cited with its section is
written in that section. The external spec the rules were built from is not
cited (the upper-case spec file, or a section sign outside a rulebook
citation). Test functions
named ``test_r10_4_...`` name a rulebook section too."""

from __future__ import annotations

import re
from pathlib import Path

from tests.docs.mdblocks import DOCS, ROOT

SEC = r"\d+(?:\.\d+)?"
#: A rulebook citation: ``rules.md``, the section sign, ``10.4`` (or a range ``8–9``).
CITATION = re.compile(rf"rules\.md \xa7(?P<a>{SEC})(?:–(?P<b>{SEC}))?")
#: A ruling cited right after its section: ``... 10.4 (ruling B7)``, ``(... 6, ruling O2``.
PAIRED = re.compile(rf"rules\.md \xa7(?P<sec>{SEC})(?: \(|, )ruling (?P<code>[A-Z]\d+)\b")
RULING = re.compile(r"\brulings? (?P<code>[A-Z]\d+)\b")
#: A section sign that is not part of a rulebook citation.
BARE = re.compile(r"(?<!rules\.md )\xa7")
#: The spec the rules were built from (spelt so that this file does not cite it).
SPEC = "RULES" + ".md"
TEST_NAME = re.compile(r"\bdef (test_r(?P<sec>\d+(?:_\d+)?)_\w+)")


def rulebook(path: Path = DOCS / "rules.md") -> tuple[set[str], dict[str, str]]:
    """The section numbers of the rulebook (``2``, ``2.1``, ...), and ruling code ->
    the section it is written in (a ``- **B7** ...`` item under a numbered heading)."""
    sections: set[str] = set()
    rulings: dict[str, str] = {}
    current: str | None = None
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip().startswith("```"):
            fenced = not fenced
        if fenced:
            continue
        heading = re.match(rf"#{{2,3}} ({SEC})\.? ", line)
        if heading:
            current = heading.group(1)
            sections.add(current)
        ruling = re.match(r"- \*\*([A-Z]\d+)\*\* ", line)
        if ruling and current is not None:
            rulings[ruling.group(1)] = current
    return sections, rulings


def sources() -> list[Path]:
    return sorted(p for d in ("turnproc", "tests") for p in (ROOT / d).rglob("*.py"))


def problems(path: Path, sections: set[str], rulings: dict[str, str]) -> list[str]:
    """Every wrong citation in one source file, as ``file:line: what``."""
    found = []
    rel = path.relative_to(ROOT)
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        where = f"{rel}:{number}"
        if SPEC in line:
            found.append(f"{where}: cites the external spec {SPEC}; cite docs/rules.md: {line.strip()}")
        if BARE.search(line):
            found.append(f"{where}: a section sign that is not a rules.md citation: {line.strip()}")
        for m in CITATION.finditer(line):
            for sec in filter(None, (m.group("a"), m.group("b"))):
                if sec not in sections:
                    found.append(f"{where}: docs/rules.md has no section {sec}: {line.strip()}")
        for m in RULING.finditer(line):
            if m.group("code") not in rulings:
                found.append(f"{where}: docs/rules.md has no ruling {m.group('code')}: {line.strip()}")
        for m in PAIRED.finditer(line):
            at = rulings.get(m.group("code"))
            sec = m.group("sec")
            if at is not None and at != sec and not at.startswith(sec + "."):
                code = m.group("code")
                found.append(f"{where}: ruling {code} is written in section {at} of docs/rules.md, not {sec}")
        for m in TEST_NAME.finditer(line):
            sec = m.group("sec").replace("_", ".")
            if sec not in sections:
                found.append(
                    f"{where}: {m.group(1)} names section {sec} of docs/rules.md, which does not exist"
                )
    return found


def test_the_rulebook_numbers_its_sections_and_writes_its_rulings() -> None:
    sections, rulings = rulebook()
    assert {"2.1", "6.17", "10.4", "18"} <= sections
    assert len(rulings) > 30


def test_code_and_tests_cite_only_what_the_rulebook_has() -> None:
    sections, rulings = rulebook()
    found = [problem for path in sources() for problem in problems(path, sections, rulings)]
    assert not found, "citations of docs/rules.md that lead nowhere:\n  " + "\n  ".join(found)


def test_the_check_finds_wrong_citations(tmp_path: Path) -> None:
    """The scan above would notice each kind of mistake."""
    book = tmp_path / "rules.md"
    book.write_text("## 1. One\n\n### 1.1 Sub\n\n- **A1** a ruling.\n\n## 2. Two\n", encoding="utf-8")
    sections, rulings = rulebook(book)
    assert sections == {"1", "1.1", "2"} and rulings == {"A1": "1.1"}
    source = ROOT / "tests" / "docs" / "_citation_sample.py"
    # Spelt in pieces: the scan reads this file too.
    s, r, d = "rules.md \xa7", "ruling", "def test_r"
    lines = {
        f"# {s}1.1 ({r} A1) and {s}2, {s}1–2": 0,
        f"# {s}1 ({r} A1): within the section": 0,
        f"# {SPEC} \xa76.2": 2,
        "# (\xa76.2)": 1,
        f"# {s}7.3": 1,
        f"# {s}1–3": 1,
        f"# {s}1.1 ({r} Q9)": 1,
        f"# {s}2 ({r} A1)": 1,
        f"{d}1_1_ok() -> None: ...": 0,
        f"{d}6_2_gone() -> None: ...": 1,
    }
    try:
        for text, expected in lines.items():
            source.write_text(text + "\n", encoding="utf-8")
            got = problems(source, sections, rulings)
            assert len(got) == expected, (text, got)
            assert all(g.startswith("tests/docs/_citation_sample.py:1: ") for g in got)
    finally:
        source.unlink(missing_ok=True)
