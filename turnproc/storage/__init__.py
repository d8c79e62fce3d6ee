"""Where a game is kept: the SQLAlchemy models (the mail tables in
``mailtables``), the engine and session set-up (``db``), the schema's
migrations (``migrate``), the one converter between rows and the rules'
objects (``convert``), rows written in bulk (``pending``) and the one
read-model of a game with its current deadline (``queries``).
"""
