"""`turnproc demo`: the main job on the embedded default, as a newcomer runs it."""

from __future__ import annotations

import mailbox
import re
import subprocess
import sys
from email import message_from_bytes, policy
from pathlib import Path

import pytest

from turnproc.service.demo import run_demo


def test_demo_plays_a_turn_and_reports_every_empire(tmp_path: Path) -> None:
    summary = run_demo(tmp_path / "demo", turns=1)
    assert "turn 1: 4/4 order mails accepted" in summary
    paths = re.findall(r"^  ([A-Z]{3}) .*: (\S+\.txt)$", summary, re.M)
    assert [code for code, _ in paths] == ["RIG", "VEG", "ORI", "SOL"]
    for code, path in paths:
        text = Path(path).read_text(encoding="utf-8")
        assert f"({code})" in text and "turn 1 report" in text
        assert "== Your orders ==" in text
    out = mailbox.Maildir(tmp_path / "demo" / "mail" / "out", create=False)
    subjects = sorted(
        str(message_from_bytes(out.get_bytes(k), policy=policy.default)["Subject"]) for k in out.iterkeys()
    )
    assert sum("report" in s for s in subjects) == 4
    assert sum(s.startswith("Re:") for s in subjects) == 4  # one acknowledgement per order mail


@pytest.mark.slow  # plays the demo
def test_every_demo_order_mail_is_accepted_without_errors(tmp_path: Path) -> None:
    run_demo(tmp_path / "demo", turns=1)
    out = mailbox.Maildir(tmp_path / "demo" / "mail" / "out", create=False)
    for key in out.iterkeys():
        msg = message_from_bytes(out.get_bytes(key), policy=policy.default)
        if str(msg["Subject"]).startswith("Re:"):
            body = msg.get_body(preferencelist=("plain",)).get_content()
            assert "Orders received" in body, body
            assert "ERROR" not in body, body


@pytest.mark.slow
def test_demo_several_turns_and_rerun_in_the_same_folder(tmp_path: Path) -> None:
    summary = run_demo(tmp_path / "demo", turns=3)
    assert "turn 3:" in summary
    again = run_demo(tmp_path / "demo", turns=1)  # replaces its own earlier demo
    assert "turn 1:" in again and "turn 2:" not in again


def test_demo_refuses_a_folder_that_is_not_its_own(tmp_path: Path) -> None:
    (tmp_path / "precious.txt").write_text("keep me")
    with pytest.raises(FileExistsError):
        run_demo(tmp_path, turns=1)
    assert (tmp_path / "precious.txt").exists()


@pytest.mark.slow  # a fresh interpreter plays the demo
def test_demo_command_in_a_fresh_directory(tmp_path: Path) -> None:
    """README command (1), minus the install: `turnproc demo` in an empty directory."""
    script = Path(sys.executable).parent / "turnproc"
    result = subprocess.run([str(script), "demo"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(".txt") == 4
    assert (tmp_path / "turnproc-demo" / "turnproc.db").exists()
