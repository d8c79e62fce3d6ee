"""deploy/: the example config loads, the unit runs the worker the way the
guide says, and every turnproc command in the operations guide exists."""

from __future__ import annotations

import configparser
import re
import shlex
import shutil
from pathlib import Path

import pytest

from turnproc.cli import build_parser
from turnproc.config import load_config

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def test_example_config_loads_with_its_secret_files(tmp_path: Path) -> None:
    config_file = tmp_path / "turnproc.toml"
    shutil.copy(DEPLOY / "turnproc.example.toml", config_file)
    (tmp_path / "imap-password").write_text("imap-secret\n")
    (tmp_path / "smtp-password").write_text("smtp-secret\n")
    config = load_config(config_file, env={})
    assert config.transport == "imap" and config.database_url.startswith("postgresql+psycopg://")
    assert (config.imap.security, config.imap.port, config.imap.password) == ("tls", 993, "imap-secret")
    assert (config.smtp.security, config.smtp.port, config.smtp.password) == ("starttls", 587, "smtp-secret")
    assert config.gm_address
    # No secret in the file itself.
    assert "password =" not in config_file.read_text()


def test_unit_runs_the_worker_as_its_own_user_and_restarts_it() -> None:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(DEPLOY / "turnproc-worker.service")
    service = unit["Service"]
    assert service["User"] == "turnproc" and service["Group"] == "turnproc"
    assert service["Restart"] == "on-failure"
    assert service["KillSignal"] == "SIGTERM"
    args = shlex.split(service["ExecStart"])
    assert args[0].endswith("/turnproc") and args[1:3] == ["--config", "/etc/turnproc/turnproc.toml"]
    build_parser().parse_args(args[1:])  # a command line the CLI accepts
    assert unit["Install"]["WantedBy"] == "multi-user.target"


def _guide_commands() -> list[list[str]]:
    text = (DEPLOY / "OPERATIONS.md").read_text()
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            for part in line.split("&&"):
                words = shlex.split(part, comments=True)
                # "turnproc ..." (the guide's alias) or ".../bin/turnproc ..." anywhere
                # (after runuser); "turnproc" elsewhere is the user or the database.
                for i, word in enumerate(words):
                    if (i == 0 and word == "turnproc") or word.endswith("/bin/turnproc"):
                        commands.append(words[i + 1 :])
                        break
    return commands


@pytest.mark.parametrize("args", _guide_commands(), ids=" ".join)
def test_every_command_in_the_operations_guide_exists(args: list[str]) -> None:
    build_parser().parse_args(args)


def test_readme_links_the_deploy_folder() -> None:
    readme = (ROOT / "README.md").read_text()
    for name in ("turnproc-worker.service", "turnproc.example.toml", "OPERATIONS.md"):
        assert f"(deploy/{name})" in readme
        assert (DEPLOY / name).exists()
