"""The long-running side of turnproc: the worker that polls, runs due turns and
sends on timers (``worker``), and the whole cycle played on the embedded
default with no servers (``demo``).

Orchestration only: every decision it acts on is made in :mod:`turnproc.turns`,
:mod:`turnproc.intake` or :mod:`turnproc.games`.
"""
