"""When things happen, as pure arithmetic on times: a game's deadlines from its
cron schedule and time zone (``deadlines``) and the back-off before trying a
failed server or game again (``retry``).

Both are functions of the time they are given; neither reads the clock or the
database, so storage's read-model and the worker's decisions can share them.
"""
