"""The ``turnproc`` command: thin wiring, one library call per command.

Each group of commands lives in its own module with a ``register`` function;
this one builds the parser from them and turns library errors a GM can cause
into one line on stderr and exit status 1. Nothing here holds game logic.

Exit statuses (the GM's handbook lists them): 0 done; 1 refused or failed,
one line on stderr says why; 2 a command line argparse could not read; 130
interrupted; 141 the reader of our output went away (``| head``).
"""

from __future__ import annotations

import argparse
import functools
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any

from .. import __version__
from ..errors import GMError, ServerUnavailable, one_line
from . import admin, check, db, empires, games, service, site, turns
from .common import CLIError, defaults_notice, printable

log = logging.getLogger("turnproc")

__all__ = ["main", "build_parser", "CLIError"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="turnproc",
        description="Play-by-e-mail turn processor for Star Chase.\n\nExample:\n  turnproc demo",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="config file (default: $TURNPROC_CONFIG, else ./turnproc.toml, else built-in defaults)",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv for debug)")
    parser.add_argument("--version", action="version", version=f"turnproc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in (db, games, empires, turns, admin, service, check, site):
        module.register(sub)
    return parser


# One parser a process: argparse's parsing leaves its parser as it was, and
# building this one (a hundred subcommands, each help text through gettext's
# file lookups) costs more than most commands: a process that runs main()
# many times (the test suite, a GM's Python script) builds it once.
_parser = functools.cache(build_parser)


_ERRORS = (GMError, CLIError, ServerUnavailable)

#: The errors of layers a command may not have loaded: (module, class name).
#: They are looked up only in modules already imported, since an exception of
#: a module never imported cannot have been raised, and importing one here
#: would cost ``--help`` and ``--version`` the imports they are spared.
_LAYER_ERRORS = (
    ("turnproc.config", "ConfigError"),
    ("turnproc.storage.db", "DatabaseError"),
    ("turnproc.storage.migrate", "SchemaOutdated"),
    ("turnproc.storage.migrate", "MigrationDrift"),
    ("turnproc.mail.outbox", "OutboxError"),
)


def _loaded(*names: tuple[str, str]) -> tuple[type[BaseException], ...]:
    """The exception classes ``names`` of the modules imported so far."""
    found = []
    for module, name in names:
        kind = getattr(sys.modules.get(module), name, None)
        if isinstance(kind, type) and issubclass(kind, BaseException):
            found.append(kind)
    return tuple(found)


def _orig(exc: BaseException) -> Any:
    """A DBAPIError's driver exception (None if it has none)."""
    return getattr(exc, "orig", None)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        status = int(args.handler(args))
        sys.stdout.flush()  # here, not at exit, where a closed pipe can no longer be caught
    except BrokenPipeError:
        return _pipe_closed()
    except _ERRORS + _loaded(*_LAYER_ERRORS) as exc:
        return _fail(args, str(exc))
    except _loaded(("sqlalchemy.exc", "IntegrityError")) as exc:
        # The database's own constraints caught what no check above did: say
        # which rule, in one line, instead of a traceback.
        reason = str(_orig(exc)).strip().splitlines()[0] if _orig(exc) else str(exc)
        return _fail(args, f"the database refused the change, nothing was written: {reason}")
    except _loaded(("sqlalchemy.exc", "DBAPIError")) as exc:
        # A full disk, a lost connection, a lock held too long: one line; -vv
        # (debug) shows the whole exception.
        log.debug("database error", exc_info=True)
        return _fail(
            args, f"database error, the command's changes were not saved: {one_line(_orig(exc) or exc)}"
        )
    except OSError as exc:
        log.debug("system error", exc_info=True)
        where = f": {exc.filename}" if exc.filename else ""
        return _fail(args, f"{exc.strerror or one_line(exc)}{where}")
    except KeyboardInterrupt:
        sys.stderr.write("turnproc: interrupted\n")
        return 130
    notice = defaults_notice(args)
    if notice:
        sys.stderr.write(f"turnproc: {notice}\n")
    return status


def _fail(args: argparse.Namespace, message: str) -> int:
    """The one error line; when no config file was found, what the command
    worked on rides along (a GM in the wrong folder sees why at once)."""
    notice = defaults_notice(args)
    sys.stderr.write(printable(f"turnproc: error: {message}" + (f" [{notice}]" if notice else "")) + "\n")
    return 1


def _pipe_closed() -> int:
    """``turnproc ... | head``: the reader has gone, which is no error of ours.
    Point stdout at /dev/null so the interpreter's final flush cannot raise
    again at exit, and end as a program killed by SIGPIPE would."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is no real file (a test's capture): nothing to redirect
        pass
    return 141
