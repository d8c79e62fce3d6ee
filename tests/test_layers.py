"""The package's shape: every module imports only from its own layer or lower
ones, no modules import each other in a cycle, and imports sit at the top of
a module unless a comment beside them says why.

The layers, lowest first (a module may import from any layer at or below its own):

0. the rules, and what every layer may use: errors, config, passwords, resources, retry, logs
1. deadline maths and scenario files
2. storage: the models, the database, the one converter, the one read-model
3. the application and the ways mail comes and goes, and reports
4. the GM's admin tools, the mails the host sends and the offline order checker
5. intake, turns, games, sign-up, a game's public pages, the GM's notices to players, empires
6. the worker's decisions, and a turn run by hand under the same guard
7. the worker
8. the demo
9. the command line
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import turnproc

PACKAGE = Path(turnproc.__file__).parent

LAYERS: list[tuple[str, ...]] = [
    ("turnproc", "turnproc.rules", "turnproc.errors", "turnproc.config", "turnproc.passwords", "turnproc.passwordkey",
     "turnproc.resources", "turnproc.retry", "turnproc.logs", "turnproc.collector",
     "turnproc.jsontext", "turnproc.links"),
    ("turnproc.deadlines", "turnproc.scenario"),
    ("turnproc.storage",),
    ("turnproc.app", "turnproc.mail", "turnproc.reports"),
    ("turnproc.admin", "turnproc.reportmail", "turnproc.mails", "turnproc.accountmails", "turnproc.empiremails",
     "turnproc.checker"),
    ("turnproc.intake", "turnproc.turns", "turnproc.turnreports", "turnproc.games", "turnproc.signup", "turnproc.publish", "turnproc.notices",
     "turnproc.welcome", "turnproc.empires"),
    ("turnproc.schedule", "turnproc.handrun"),
    ("turnproc.worker",),
    ("turnproc.demo",),
    ("turnproc.cli", "turnproc.__main__"),
]  # fmt: skip


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


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
    upward = [f"line {line}: {target} (layer {layer_of(target)})" for line, target, _ in imports(module) if layer_of(target) > mine]
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
                cycle = stack[stack.index(nxt):] + [nxt]
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
    for module, path in MODULES.items():
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
    assert layer_of("turnproc.rules.parser") < layer_of("turnproc.storage.convert") < layer_of("turnproc.turns")
    assert layer_of("turnproc.turns") < layer_of("turnproc.worker") < layer_of("turnproc.cli")
    assert layer_of("turnproc.storage.queries") < layer_of("turnproc.mails") < layer_of("turnproc.intake.handle")


def test_no_module_is_over_600_lines() -> None:
    """A module that grows past this mixes jobs: split it by what each part owns."""
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600}
    assert not long, f"modules over 600 lines: {long}"
