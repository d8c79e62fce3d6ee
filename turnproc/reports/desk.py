"""The order desk: ``orders/`` in a game's public pages, where a player opens
the JSON report of the report mail, works on a map and writes the next
turn's orders, each line judged as it is typed by the host's own code
(docs/orders.md, "The order desk").

No rule is written again in JavaScript: the page runs, under Pyodide
(CPython in WebAssembly), the modules :mod:`turnproc.reports.judge` imports,
found here by following its imports, so a check added to the rules ships
with the next ``turnproc site``. Pyodide's release files (the ``pyodide``
package of the npm registry, :data:`PYODIDE_VERSION`) are copied from a
folder the GM names into the site itself: the page asks nothing of any other
server, and the report never leaves the player's device.
"""

from __future__ import annotations

import ast
import functools
import io
import json
import sys
import zipfile
from email.utils import parseaddr
from pathlib import Path

from markupsafe import Markup

from ..runtime.resources import templates_dir
from .public import copy_public, public_folders, write_public
from .render import environment

__all__ = [
    "PYODIDE_VERSION",
    "PYODIDE_FILES",
    "DeskError",
    "pure_modules",
    "module_bundle",
    "desk_files",
    "write_desk",
]

#: The Pyodide release the page is written for (docs/gm-handbook.md, "The order desk").
PYODIDE_VERSION = "314.0.8"

#: What the page loads of a Pyodide release: the loader, the interpreter and the standard library.
PYODIDE_FILES = (
    "pyodide.js",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)

#: Where the page's Python starts: the verdicts and the order form's hints.
ROOT = "turnproc.reports.judge"

_PACKAGE = Path(__file__).resolve().parent.parent


class DeskError(ValueError):
    """The order desk cannot be written as asked (the message says why)."""


def _module_path(name: str) -> Path | None:
    parts = name.split(".")[1:]
    base = _PACKAGE.joinpath(*parts)
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    return None


def _imported(name: str, path: Path) -> set[str]:
    """Every module ``path`` (module ``name``) imports, absolute."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
                # "from . import x" may name a module as well as a name.
                found.update(
                    f"{module}.{alias.name}" for alias in node.names if _module_path(f"{module}.{alias.name}")
                )
            else:
                module = node.module or ""
            found.add(module)
    return found


def pure_modules(root: str = ROOT) -> dict[str, Path]:
    """The turnproc modules ``root`` needs, by name, with the packages that
    hold them. Raises :class:`DeskError` when one imports anything beyond the
    standard library: Pyodide's bare release has nothing else."""
    todo, seen = [root], {}
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = _module_path(name)
        if path is None:
            raise DeskError(f"{name} is not a module of turnproc")
        seen[name] = path
        parents = name.split(".")
        todo += [".".join(parents[:i]) for i in range(1, len(parents))]
        for imported in _imported(name, path):
            top = imported.split(".")[0]
            if top == "turnproc":
                todo.append(imported)
            elif top not in sys.stdlib_module_names and top != "__future__":
                raise DeskError(f"{name} imports {imported}: the order desk runs the standard library only")
    return dict(sorted(seen.items()))


@functools.cache
def module_bundle(root: str = ROOT) -> bytes:
    """The modules of :func:`pure_modules` as a zip the page unpacks.
    Written with fixed times, so the same code gives the same bytes; made
    once a process, as the modules are the installed code (the worker writes
    the desk after every turn, and reading the imports of 38 modules took
    half a second)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bundle:
        for _name, path in pure_modules(root).items():
            where = path.relative_to(_PACKAGE.parent).as_posix()
            bundle.writestr(
                zipfile.ZipInfo(where, date_time=(2020, 1, 1, 0, 0, 0)),
                path.read_bytes(),
                zipfile.ZIP_DEFLATED,
            )
    return out.getvalue()


def desk_files(game: str, host_address: str, pyodide_ready: bool) -> dict[str, bytes]:
    """The desk's own files, by name under ``orders/``: the page, its script
    and style, the offline cache's worker and the module bundle.
    ``host_address``: where order mails go (the ``mailto:`` link)."""
    env = environment()
    folder = templates_dir() / "desk"
    config = {
        "game": game,
        "host": parseaddr(host_address)[1],
        "pyodide": "pyodide/" if pyodide_ready else None,
    }
    # In a <script> element: "<" written as \u003c, so no text can end it.
    page = env.get_template("desk/index.html").render(
        game=game, config=Markup(json.dumps(config).replace("<", "\\u003c"))
    )
    files = {"index.html": page.encode()}
    for name in ("desk.js", "desk.css"):
        files[name] = (folder / name).read_bytes()
    files["turnproc.zip"] = module_bundle()
    cached = ["./", *files]
    files["cache.js"] = env.get_template("desk/cache.js").render(files=Markup(json.dumps(cached))).encode()
    return files


def _check_release(pyodide: Path) -> None:
    missing = [name for name in PYODIDE_FILES if not (pyodide / name).is_file()]
    if missing:
        raise DeskError(f"{pyodide} is not an unpacked pyodide package: {', '.join(missing)} missing")
    try:
        version = json.loads((pyodide / "package.json").read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError):
        raise DeskError(f"{pyodide} has no package.json naming its version") from None
    if version != PYODIDE_VERSION:
        raise DeskError(f"{pyodide} holds pyodide {version}; the order desk is written for {PYODIDE_VERSION}")


def write_desk(directory: Path, game: str, host_address: str, pyodide: Path | None) -> list[Path]:
    """Write the order desk into ``directory`` (``SITE/orders``); the files
    written. ``pyodide``: the unpacked ``pyodide`` package to copy in; None
    leaves the page without its checker (it says so, and orders can still be
    written and copied)."""
    if pyodide is not None:
        _check_release(pyodide)
    public_folders(directory)
    written = [
        write_public(directory / name, data)
        for name, data in sorted(desk_files(game, host_address, pyodide is not None).items())
    ]
    if pyodide is not None:
        into = directory / "pyodide"
        public_folders(into)
        for name in PYODIDE_FILES:
            # Unchanged files are left alone: 10 MB copied after every turn is waste.
            source, target = pyodide / name, into / name
            if (
                not target.is_file()
                or target.stat().st_size != source.stat().st_size
                or target.stat().st_mtime < source.stat().st_mtime
            ):
                copy_public(source, target)
            written.append(target)
    return written
