"""Mail as bytes and servers: MIME read with limits and written (``mime``,
``mimetree``, ``compose``), header hygiene, the sender read as mail programs
read it (``identity``) and the receiving server's DMARC verdict (``dmarc``),
IMAP and Maildir in, SMTP and Maildir out (``transport``), the outbox (mails
queued by ``queueing``, delivered by ``outbox``) and the
journal of sent marks.

It knows nothing of games: what a mail says is :mod:`turnproc.outgoing`'s and
:mod:`turnproc.intake`'s.
"""
