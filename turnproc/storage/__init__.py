"""Where a game is kept: the SQLAlchemy models (the mail tables in
``mailtables``), the engine and session set-up (``db``), the schema's
migrations (``migrate``), the one converter between rows and the rules'
objects (``convert``, which reads through ``stateread``: the state's tables
over the DB-API alone, by the column lists of ``columns``), rows written in
bulk (``pending``), the one read-model of a game and its deadline (``readmodel``, no SQLAlchemy in it),
the game loaded through the ORM (``queries``), and the reads of the GM's
prompt over the DB-API alone (``plainread``).
"""
