"""A game's turns: the run and its preview (``run``), the GM's control over
a turn once run (``control``: hold and release, discard, rollback, rerun),
each turn's reports stored and queued (``reports``), what is due and
whether the missed-orders guard stops a turn (``schedule``), a turn run
by hand under that same guard (``byhand``), and the start-of-game report,
built when asked (``position``).

The worker and ``turnproc turn run`` both come here, so a turn is run one
way whoever asks for it.
"""
