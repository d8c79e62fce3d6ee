"""The long-running side of turnproc: the worker's one pass that polls, runs
due turns and sends (``worker``), the service that runs it on timers
(``process``), and the whole cycle played on the embedded default with no
servers (``demo``).

Orchestration only: every decision it acts on is made in :mod:`turnproc.turns`,
:mod:`turnproc.intake` or :mod:`turnproc.games`.
"""
