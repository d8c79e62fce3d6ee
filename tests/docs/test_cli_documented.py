"""The GM's handbook documents every command and option, and its commands run.

* Every command of ``turnproc`` (walked from ``cli.build_parser()``) has a
  ``### `turnproc ...` `` section under "Command reference" in
  docs/gm-handbook.md, naming each of its options and positional arguments; and
  every such section names a real command.
* Every ```` ```console ```` block of the handbook runs, top to bottom, in one
  fresh directory with the embedded default (SQLite file and local Maildir, no
  config): ``$ turnproc ...`` lines are commands, the lines after one are its
  expected output (``...`` matches anything). A block with ``file=NAME`` in
  its info string (```` ```toml file=duel.toml ````) is written to NAME in that
  directory when the walk reaches it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import re
import shlex
import shutil
from pathlib import Path

import pytest

from tests.docs.mdblocks import DOCS, blocks, sections
from turnproc.cli import build_parser, main

HANDBOOK = DOCS / "gm-handbook.md"


def commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ("turnproc",)
) -> dict[str, argparse.ArgumentParser]:
    """Every command path ("turnproc game new") → its parser; groups included."""
    found = {" ".join(path): parser}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.update(commands(sub, path + (name,)))
    return found


def is_group(parser: argparse.ArgumentParser) -> bool:
    return any(isinstance(a, argparse._SubParsersAction) for a in parser._actions)


def arguments(parser: argparse.ArgumentParser) -> list[str]:
    """Option strings and positional names (as the usage line shows them)."""
    names: list[str] = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if action.option_strings:
            names.extend(action.option_strings)
        else:
            names.append(str(action.metavar or action.dest.upper()))
    return names


def reference() -> dict[str, str]:
    return {k: v for k, v in sections(HANDBOOK, 3).items() if k.startswith("turnproc")}


def _mentions(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def test_every_command_and_option_is_in_the_handbook() -> None:
    documented = reference()
    problems = []
    for path, parser in commands(build_parser()).items():
        if is_group(parser) and path != "turnproc":
            continue
        section = documented.get(path)
        if section is None:
            problems.append(f"no section '### `{path}`' in the command reference")
            continue
        problems += [
            f"{path}: {name} is not documented" for name in arguments(parser) if not _mentions(section, name)
        ]
    assert not problems, "docs/gm-handbook.md:\n  " + "\n  ".join(problems)


def test_the_handbook_documents_no_command_that_does_not_exist() -> None:
    real = set(commands(build_parser()))
    stale = sorted(set(reference()) - real)
    assert not stale, f"docs/gm-handbook.md documents commands turnproc does not have: {stale}"


def _matches(expected: str, actual: str) -> bool:
    pattern = ".*?".join(re.escape(part) for part in expected.strip().split("..."))
    return re.fullmatch(pattern, actual.strip(), re.DOTALL) is not None


def _run(argv: list[str]) -> tuple[int, str, str]:
    """``turnproc ARGV`` in this process (a subprocess per command would triple
    the test's time); the logging set-up a command makes is undone after it."""
    out, err = io.StringIO(), io.StringIO()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as exc:  # argparse: --help, --version, usage errors
                status = int(exc.code or 0)
    finally:
        root.handlers[:], root.level = handlers, level
    return status, out.getvalue(), err.getvalue()


@pytest.mark.slow
def test_the_handbook_console_sessions_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "TURNPROC_CONFIG",
        "TURNPROC_DATABASE_URL",
        "TURNPROC_IMAP_PASSWORD",
        "TURNPROC_SMTP_PASSWORD",
    ):
        monkeypatch.delenv(name, raising=False)
    shutil.copytree(DOCS / "examples", tmp_path / "docs" / "examples")
    monkeypatch.chdir(tmp_path)
    ran = 0
    for block in blocks(HANDBOOK):
        if "file" in block.attrs:
            (tmp_path / block.attrs["file"]).write_text(block.text, encoding="utf-8")
            continue
        if block.kind != "console":
            continue
        steps: list[tuple[str, list[str]]] = []
        for line in block.text.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                assert steps, f"{block.where}: output before the first '$ ' command"
                steps[-1][1].append(line)
        for command, expected in steps:
            argv = shlex.split(command)
            assert argv[0] == "turnproc", f"{block.where}: only turnproc commands run here: {command}"
            status, out, err = _run(argv[1:])
            assert status == 0, f"{block.where}: `{command}` failed ({status}):\n{err}{out}"
            if expected:
                assert _matches("\n".join(expected), out), (
                    f"{block.where}: `{command}` printed\n{out}\nnot\n" + "\n".join(expected)
                )
            ran += 1
    assert ran >= 10
