"""The player's guide shows ``turnproc check-orders`` on the demo game (docs/orders.md,
"Check your orders before you send them"): the example's output is what the
command prints for the example's orders against the demo's report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.docs.mdblocks import DOCS, blocks
from turnproc.app import open_app
from turnproc.cli import main
from turnproc.config import Config
from turnproc.reports.render import render_report_documents
from turnproc.service.demo import run_demo
from turnproc.storage.queries import get_empire, get_game
from turnproc.turns.run import report_for


def example(name: str) -> str:
    found = [b.text for b in blocks(DOCS / "orders.md") if b.attrs.get("check-orders") == name]
    assert len(found) == 1, f"docs/orders.md needs one ```text check-orders={name} block"
    return found[0]


@pytest.mark.slow  # plays the demo
def test_the_guides_example_is_what_the_command_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_demo(tmp_path / "demo", turns=3)
    capsys.readouterr()
    app = open_app(Config(database_url=f"sqlite:///{tmp_path / 'demo' / 'turnproc.db'}"), migrate=False)
    try:
        with app.sessions() as session:
            game = get_game(session, "demo")
            _, data = report_for(session, game, get_empire(session, game, "RIG"), None)
            attachment = render_report_documents(data).json
    finally:
        app.close()
    assert json.loads(attachment)["turn"] == 3
    (tmp_path / "demo-turn3-RIG.json").write_text(attachment, encoding="utf-8")
    (tmp_path / "orders.txt").write_text(example("orders.txt"), encoding="utf-8")
    status = main(["check-orders", str(tmp_path / "demo-turn3-RIG.json"), str(tmp_path / "orders.txt")])
    assert capsys.readouterr().out == example("output")
    assert status == 3  # line 6 has an error, as the guide says the exit status is then
