"""What every command module shares: the one-line error, opening the app from
the command line's config, reading a file the GM names, and printing.

The command modules import the layers they call inside each handler, not at
their top: building the parser (``--help``, ``--version``, a usage error)
then loads no SQLAlchemy, Alembic, Jinja or mail code, and each command loads
only what it runs (tests/test_cli_imports.py holds the list)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # For the annotations only: importing the app loads SQLAlchemy, and the
    # config (TOML, dataclasses) is for commands that run, not for --help.
    from ..app import App
    from ..config import Config  # (as above)
    from ..storage.plainread import Reader  # (as above)

Handler = Callable[[argparse.Namespace], int]


class CLIError(Exception):
    """A failure to report in one line."""


def now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def config_from(args: argparse.Namespace) -> Config:
    """The config the command line names. With no config file at all, the
    command says what it works on (see :func:`defaults_notice`): a GM in the
    wrong folder would otherwise quietly start a second, empty game database."""
    # Here, not at the top: --help and --version read no config.
    from ..config import load_config

    config = load_config(args.config)
    if config.source == "<defaults>":
        args.defaults_notice = (
            f"no config file (--config, $TURNPROC_CONFIG, ./turnproc.toml): used the database "
            f"{safe_url(config.database_url)} and the Maildirs {config.maildir_in} (in) and "
            f"{config.maildir_out} (out)"
        )
    return config


def defaults_notice(args: argparse.Namespace) -> str | None:
    """What the command worked on, when that came from the built-in defaults:
    ``main`` prints it on stderr after the command, or inside its error line."""
    notice = getattr(args, "defaults_notice", None)
    return notice if isinstance(notice, str) else None


def safe_url(url: str) -> str:
    """A database URL with any password masked."""
    # Here, not at the top: only a command that opens a database needs SQLAlchemy.
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError  # (as above)

    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "<a bad URL>"


def open_from(args: argparse.Namespace, *, migrate: bool = True, read_only: bool = False) -> App:
    """The app for this command line. ``read_only`` commands (list, show,
    check, report, ...) refuse a database that is not there rather than
    create an empty one."""
    # Here, not at the top: opening the app loads SQLAlchemy and Alembic.
    from ..app import open_app

    config = config_from(args)
    if read_only:
        refuse_missing(config.database_url)  # then open_app only checks the schema is current
    return open_app(config, migrate=migrate)


@contextmanager
def reading(args: argparse.Namespace) -> Iterator[Reader]:
    """A reader of the command line's database in one read-only transaction:
    its own DB-API connection, with no SQLAlchemy loaded, when
    ``storage.plainread`` knows the URL and the schema is current; else the
    ORM's session's, opened as :func:`open_from` opens a read-only command,
    which refuses a missing database or an old schema in its own words."""
    # Here, not at the top: --help and --version open no database.
    from ..storage import plainread

    with plainread.opened(config_from(args).database_url) as reader:
        if reader is not None:
            yield reader
            return
    from ..storage.db import read_only  # (as above; the ORM's path loads SQLAlchemy)
    from ..storage.queries import plain_reader  # (as above)

    app = open_from(args, read_only=True)
    try:
        with read_only(app.sessions) as session:
            yield plain_reader(session)
    finally:
        app.close()


def refuse_missing(url: str, *, schema: bool = True) -> None:
    """CLIError when the database at ``url`` is not there (a SQLite file), or,
    with ``schema``, has no turnproc schema: nothing that only reads may create one."""
    # Here, not at the top: only a command that opens a database needs these.
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError  # (as above)

    from ..storage.db import make_engine  # (as above)
    from ..storage.migrate import current_revision  # (as above)

    try:
        parsed = make_url(url)
    except ArgumentError:
        return  # make_engine says what is wrong with it
    if parsed.get_backend_name() == "sqlite" and parsed.database and parsed.database != ":memory:":
        if not parsed.database.startswith("file:") and not Path(parsed.database).exists():
            raise CLIError(
                f"there is no database at {parsed.database}: this command only reads one "
                "(create it with turnproc db upgrade or turnproc game new, or give --config)"
            )
    if not schema:
        return
    engine = make_engine(url)
    try:
        if current_revision(engine) is None:
            raise CLIError(
                f"the database {safe_url(url)} has no turnproc schema yet: run turnproc db upgrade first"
            )
    finally:
        engine.dispose()


#: The most a named file may hold (64 MiB): a report of a big game is a few
#: MB; past this it is refused rather than read on (``/dev/zero`` never ends).
MAX_INPUT = 64 * 1024 * 1024


#: The largest whole number an option takes: a turn, a count, minutes. A
#: database's integer column holds 2**63 - 1, SQLite's driver no more
#: (a bigger one was an OverflowError), and no game comes near this.
MAX_WHOLE = 2**31 - 1


def whole(text: str) -> int:
    """An option's whole number (argparse ``type``), refused with a one-line
    usage error when it is none or beyond :data:`MAX_WHOLE` either way."""
    try:
        value = int(text)
    except ValueError:  # also a number of thousands of digits (the interpreter's limit)
        raise argparse.ArgumentTypeError(f"{_short(text)!r} is not a whole number") from None
    if abs(value) > MAX_WHOLE:
        raise argparse.ArgumentTypeError(f"{_short(text)} is too large (at most {MAX_WHOLE:,})")
    return value


#: The largest number of seconds or hours an option takes (a million hours
#: is 114 years: a date that far on is still one the calendar holds).
MAX_NUMBER = 1_000_000


def number(text: str) -> float:
    """An option's number of seconds or hours (argparse ``type``): finite,
    and at most :data:`MAX_NUMBER` either way."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{_short(text)!r} is not a number") from None
    if not abs(value) <= MAX_NUMBER:  # also NaN
        raise argparse.ArgumentTypeError(
            f"{_short(text)} is not a number from {-MAX_NUMBER:,} to {MAX_NUMBER:,}"
        )
    return value


def _short(text: str) -> str:
    return text if len(text) <= 24 else text[:20] + "..."


def read_input(path: str, limit: int = MAX_INPUT) -> str:
    """A file the GM or a player names (``-``: standard input), as text; a
    BOM is dropped; one of more than ``limit`` bytes is refused unread."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with open(path, "rb") as file:
                data = file.read(limit + 1)
        if len(data) > limit:
            raise CLIError(f"cannot read {path}: it is larger than {limit // (1024 * 1024)} MiB")
        return data.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise CLIError(f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None


#: ASCII control characters but the line break and the tab.
_ASCII_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def printable(text: str) -> str:
    """``text`` safe for the GM's terminal: each control character (C0 but a
    line break or tab, DEL, C1: a terminal obeys them; ESC sets the window's
    title or clears the screen) and each format character (U+202E turns the
    rest of a line around) written as ``\\uXXXX``. Names and addresses
    come from strangers' mail; the escape is also valid in JSON strings."""
    # ASCII holds no format character and its only controls are C0 and DEL:
    # a report of plain ASCII lines is printed as it is, not looked at a
    # character at a time.
    if text.isascii() and not _ASCII_CONTROL.search(text):
        return text
    return "".join(
        f"\\u{ord(ch):04x}" if unicodedata.category(ch) in ("Cc", "Cf") and ch not in "\n\t" else ch
        for ch in text
    )


def out(text: str = "") -> None:
    """Print ``text`` (escaped by :func:`printable`: every CLI line may hold stored text)."""
    text = printable(text)
    sys.stdout.write(text + ("\n" if not text.endswith("\n") else ""))


def out_json(value: object) -> None:
    """One JSON document on stdout (``--json``): the shapes are in the GM's handbook."""
    out(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=_json_default))


def _json_default(value: object) -> str:
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    raise TypeError(f"{type(value).__name__} is not JSON")


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
