"""What a player reads of a game: the report's context (pure), the maps, Jinja
rendering, a report read back into a state (``rebuild``), the verdicts of an
order mail against a JSON report (``judge``) and the offline order checker
built on them (``checker``), the links to the rulebook and the site
(``links``), the public pages' files (``site``, ``public``) and the order desk
(``desk``).

It reads values handed to it and writes files; storing and sending are the
callers'.
"""
