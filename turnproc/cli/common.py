"""What every command module shares: the one-line error, opening the app from
the command line's config, reading a file the GM names, and printing."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..app import App, open_app
from ..config import load_config

Handler = Callable[[argparse.Namespace], int]


class CLIError(Exception):
    """A failure to report in one line."""


def now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def open_from(args: argparse.Namespace, *, migrate: bool = True) -> App:
    config = load_config(args.config)
    return open_app(config, migrate=migrate)


def read_input(path: str) -> str:
    """A file the GM names (``-``: standard input), as text; a BOM is dropped."""
    try:
        return Path(path).read_text(encoding="utf-8-sig") if path != "-" else sys.stdin.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise CLIError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None


def out(text: str = "") -> None:
    sys.stdout.write(text + ("\n" if not text.endswith("\n") else ""))


def add_command(sub: Any, name: str, handler: Handler, summary: str, example: str) -> argparse.ArgumentParser:
    """A subcommand whose help shows its one-line summary and an example."""
    p: argparse.ArgumentParser = sub.add_parser(
        name,
        help=summary,
        description=f"{summary}\n\nExample:\n  {example}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(handler=handler)
    return p
