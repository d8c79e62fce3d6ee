"""Refusals: what a game master (or the worker on a GM's behalf) asked for
that cannot be done. Raised before anything is written, in one line the CLI
prints as it is.
"""

from __future__ import annotations

__all__ = ["GMError", "TurnAlreadyRun", "ServerUnavailable", "one_line"]


class GMError(ValueError):
    """A game master's request that cannot be carried out; nothing was written."""


class TurnAlreadyRun(GMError):
    """The turn a run was started for was run by another run meanwhile."""


class ServerUnavailable(RuntimeError):
    """A mail server (IMAP or SMTP) cannot be reached or refused our login; the
    message names the server and the reason in one line. Nothing was handed
    over or taken: retrying later is safe."""


def one_line(exc: BaseException) -> str:
    """An exception for a log line or a mail: its type and its message's first line."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
