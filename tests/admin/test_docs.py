"""docs/gm-schema.md keeps up with the schema, the views, the scripts and the commands."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from turnproc.runtime.resources import migrations_dir
from turnproc.storage import models as m

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "gm-schema.md").read_text(encoding="utf-8")


def _views() -> dict[str, str]:
    path = next(migrations_dir().glob("versions/0002_*.py"))
    spec = importlib.util.spec_from_file_location("gm_views_migration", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.VIEWS)


@pytest.mark.parametrize("table", sorted(m.Base.metadata.tables))
def test_every_table_and_column_is_documented(table: str) -> None:
    section = re.search(rf"^### `{table}`.*?(?=^##)", DOC + "\n##", re.MULTILINE | re.DOTALL)
    assert section, f"no section for table {table}"
    for column in m.Base.metadata.tables[table].columns:
        assert f"`{column.name}`" in section.group(0), f"{table}.{column.name} is not documented"


@pytest.mark.parametrize("view", sorted(_views()))
def test_every_view_is_documented(view: str) -> None:
    section = re.search(rf"^### `{view}`.*?(?=^##)", DOC + "\n##", re.MULTILINE | re.DOTALL)
    assert section, f"no section for view {view}"
    columns = re.findall(r"\bAS (\w+)", _views()[view])
    for column in columns:
        assert f"`{column}`" in section.group(0), (view, column)


def test_every_example_script_is_listed() -> None:
    for script in (ROOT / "deploy" / "admin").glob("*.sql"):
        assert f"`{script.name}`" in DOC


@pytest.mark.parametrize(
    "command",
    [
        "turnproc check",
        "turnproc sql",
        "turnproc audit",
        "turnproc turn preview",
        "turnproc turn hold",
        "turnproc turn release",
        "turnproc turn discard",
        "turnproc turn rollback",
        "turnproc turn rerun",
    ],
)
def test_every_gm_command_is_documented(command: str) -> None:
    assert f"`{command}" in DOC
