"""The Star Chase rules: pure Python, standard library only.

Nothing in this package touches a database, mail, the clock or global random
state; the turn's random generator is passed in.
"""
