"""A game as its game master runs it: creating it, its schedule, pausing and
resuming (``game``); its empires and their players (``empires``); strangers
signing up by mail (``signup``); what the GM tells every player (``notices``);
and what the world may see of it, its public pages (``publish``).

Each function here is one thing a GM (or a player signing up) asks for: it
checks the request, refuses with a :class:`~turnproc.errors.GMError` before
writing anything, writes the rows and queues the mails that tell the players.
"""
