"""Secrets that let a player in: empire passwords and sign-up codes, generated
and stored only as salted scrypt hashes (``passwords``), and the host's
password key kept in a file outside the database (``passwordkey``): each
password's short keyed tag, and a queued welcome's password sealed until it
is sent.

Kept apart from the game so that what touches a password is in one place a
reviewer can read whole; intake, sign-up and the GM's empire commands call it.
"""
