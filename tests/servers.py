"""Real servers for the tests, started on loopback by the tests themselves
(the starters are benchmarks/servers.py's, which the benchmarks use too).

When a server cannot be had, tests that need it skip on a developer's machine
but fail when ``CI`` is set, so a missing install step can never hide as skips.
"""

from __future__ import annotations

import os

import pytest

from benchmarks.servers import DovecotServer, PostgresServer, free_port, wait_for_port

__all__ = ["DovecotServer", "PostgresServer", "free_port", "in_ci", "unavailable", "wait_for_port"]


def in_ci() -> bool:
    return bool(os.environ.get("CI"))


def unavailable(reason: str) -> None:
    """Skip locally, fail in CI."""
    if in_ci():
        pytest.fail(f"{reason} (CI is set, so this is a failure, not a skip)")
    pytest.skip(reason)
