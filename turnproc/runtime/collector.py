"""Holding off Python's cyclic garbage collector through a burst of work.

A thousand-empire turn or poll makes millions of objects in seconds, and
each collection walks all the live ones (the galaxy's state, the ORM's rows)
again: held off, a turn takes a quarter less time and a poll a tenth, with
hardly more memory, since their objects die by reference counting; the few
cycles wait for the collector's next run.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """The collector off for the block (or the decorated function), and back
    as it was after it (also when it fails; nested uses leave it to the
    outermost)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
