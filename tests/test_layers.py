"""The package's shape: every module imports only from its own layer or lower
ones, no modules import each other in a cycle, and imports sit at the top of
a module unless a comment beside them says why.

The layers, lowest first (a module may import from any layer at or below its own):

0. the rules and the order parser, and what every layer may use: errors, config, the
   runtime's helpers, passwords and the password key
1. time (deadlines, retry timing) and scenario files
2. storage: the models, the database, the one converter, the one read-model
3. the application and the ways mail comes and goes, and reports
4. the GM's admin tools and the mails the host sends
5. intake, turns, games
6. the service: the worker and the demo
7. the command line
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

import turnproc

PACKAGE = Path(turnproc.__file__).parent

LAYERS: list[tuple[str, ...]] = [
    (
        "turnproc",
        "turnproc.rules",
        "turnproc.orders",
        "turnproc.errors",
        "turnproc.config",
        "turnproc.runtime",
        "turnproc.accounts",
    ),
    ("turnproc.timing", "turnproc.scenario"),
    ("turnproc.storage",),
    ("turnproc.app", "turnproc.mail", "turnproc.reports"),
    ("turnproc.admin", "turnproc.outgoing"),
    ("turnproc.intake", "turnproc.turns", "turnproc.games"),
    ("turnproc.service",),
    ("turnproc.cli", "turnproc.__main__"),
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}

README = PACKAGE.parent / "README.md"
#: The only modules at the top of the package: everything else lives in a package named after what it owns.
TOP_MODULES = {"turnproc.__main__", "turnproc.app", "turnproc.config", "turnproc.errors"}


def layer_of(module: str) -> int:
    """The layer of the longest prefix that names one."""
    best, rank = -1, -1
    for i, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > best:
                best, rank = len(name), i
    if rank < 0:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS in {__file__}")
    return rank


def imports(module: str) -> list[tuple[int, str, bool]]:
    """(line, imported turnproc module, at the module's top level) for each import."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    top = {id(node) for node in tree.body}
    found: list[tuple[int, str, bool]] = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            # "from . import mails" imports a module; "from .x import name" imports from one.
            targets = [f"{stem}.{a.name}" if f"{stem}.{a.name}" in MODULES else stem for a in node.names]
        for target in targets:
            if target == "turnproc" or target.startswith("turnproc."):
                while target not in MODULES and "." in target:
                    target = target.rpartition(".")[0]
                found.append((node.lineno, target, id(node) in top))
    return found


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        layer_of(module)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_import_from_a_higher_layer(module: str) -> None:
    mine = layer_of(module)
    upward = [
        f"line {line}: {target} (layer {layer_of(target)})"
        for line, target, _ in imports(module)
        if layer_of(target) > mine
    ]
    assert not upward, f"{module} (layer {mine}) imports from above its layer: {upward}"


def test_no_import_cycle() -> None:
    graph = {m: {t for _, t, _ in imports(m) if t != m} for m in MODULES}
    # A package's __init__ re-exporting its own submodules is not a cycle of concepts.
    for m in graph:
        graph[m] = {t for t in graph[m] if not m.startswith(t + ".")}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt) :] + [nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)


def test_imports_are_at_the_top_unless_a_comment_says_why() -> None:
    hidden = []
    for _module, path in MODULES.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        top = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in top:
                if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                    continue
                here, above = lines[node.lineno - 1], lines[node.lineno - 2] if node.lineno > 1 else ""
                if "#" not in here and not above.strip().startswith("#"):
                    hidden.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {here.strip()}")
    assert not hidden, "imports inside functions, with no comment saying why:\n" + "\n".join(hidden)


def test_the_checks_catch_what_they_are_for(tmp_path: Path) -> None:
    """The layer table must rank a lower module below a higher one, or the
    upward-import test above could never fail."""
    assert (
        layer_of("turnproc.orders.parser")
        < layer_of("turnproc.storage.convert")
        < layer_of("turnproc.turns.run")
    )
    assert layer_of("turnproc.turns.run") < layer_of("turnproc.service.worker") < layer_of("turnproc.cli")
    assert (
        layer_of("turnproc.storage.queries")
        < layer_of("turnproc.outgoing.mails")
        < layer_of("turnproc.intake.handle")
    )


def test_no_module_is_over_600_lines() -> None:
    """A module that grows past this mixes jobs: split it by what each part owns."""
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600}
    assert not long, f"modules over 600 lines: {long}"


def test_no_line_is_longer_than_the_formatters() -> None:
    """ruff's own check leaves out a line that ends in a pragma (``# noqa``,
    ``# type: ignore``); this one counts every line of the Python we ship, test
    and measure with, against the same ``line-length``."""
    root = PACKAGE.parent
    limit = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"][
        "line-length"
    ]
    long = [
        f"{path.relative_to(root)}:{number} ({len(line)})"
        for folder in ("turnproc", "tests", "benchmarks", "migrations", "docs")
        for path in sorted((root / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if len(line) > limit
    ]
    assert not long, f"lines over {limit} characters: {long}"


def readme_layout() -> list[str]:
    """The README's layout table, its ``turnproc/...`` rows as module names, in order."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(turnproc/[^`]*)` \|", section, flags=re.MULTILINE)
    return [row.removesuffix("/").removesuffix(".py").replace("/", ".") for row in rows]


def test_the_readme_layout_table_lists_exactly_the_layers() -> None:
    listed = readme_layout()
    layered = [name for names in LAYERS for name in names if name != "turnproc"]
    assert sorted(listed) == sorted(layered), (
        f"README only: {sorted(set(listed) - set(layered))}; LAYERS only: "
        f"{sorted(set(layered) - set(listed))}"
    )
    ranks = [layer_of(name) for name in listed]
    assert ranks == sorted(ranks), (
        f"the README's layout table is not lowest layer first: {list(zip(listed, ranks))}"
    )


def test_no_loose_module_at_the_top_but_the_entry_points_and_the_shared_three() -> None:
    loose = {m for m, p in MODULES.items() if m.count(".") == 1 and p.name != "__init__.py"}
    assert loose == TOP_MODULES, (
        f"put these in the package that owns what they do: {sorted(loose - TOP_MODULES)}"
    )


def test_every_package_says_what_it_owns() -> None:
    mute = [
        m
        for m, p in MODULES.items()
        if p.name == "__init__.py" and not ast.get_docstring(ast.parse(p.read_text(encoding="utf-8")))
    ]
    assert not mute, f"packages whose __init__ has no docstring saying what they own: {mute}"


def test_the_layout_checks_can_fail() -> None:
    """The table reader must see a row, or the agreement test above could pass on nothing."""
    assert "turnproc.service" in readme_layout() and "turnproc.config" in readme_layout()
    assert (
        layer_of("turnproc.orders.parser")
        == layer_of("turnproc.rules.turn")
        < layer_of("turnproc.timing.deadlines")
    )


def test_no_tracker_issue_numbers() -> None:
    """Code and docs say what a thing is; an issue number means nothing to a reader without the tracker."""
    root = PACKAGE.parent
    cited = re.compile(r"\b(issue|ticket)s? #?\d", re.IGNORECASE)
    found = []
    for folder in ("turnproc", "tests", "docs", "benchmarks", "templates", "deploy", "migrations"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in {".py", ".md", ".txt", ".html", ".toml", ".sh", ".service"} and path.is_file():
                for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                    if cited.search(line):
                        found.append(f"{path.relative_to(root)}:{n}: {line.strip()}")
    found += [
        f"README.md: {line}" for line in README.read_text(encoding="utf-8").splitlines() if cited.search(line)
    ]
    assert not found, "tracker issue numbers (say what the thing is instead):\n" + "\n".join(found)
