"""Every mail the host sends, and nothing else: which mails go out, what each
one says, and when its bytes are built.

``mails`` queues each kind of mail in the caller's transaction (one function
per kind, each building its template's context); ``reportmail`` builds the
report, bulletin and answer mails when they are sent; ``welcome`` is the new
player's mail (its password sealed until it is sent); ``accountmails`` answers
a player's account commands; ``empiremails`` tells a player what the GM did
to their empire; ``announcements`` tells every active player at once (the
GM's announcement, a deadline moved); ``messageids`` is the one recipe for their Message-IDs. The
templates are under ``templates/mail/<kind>/``, each folder's context a type in ``contexts``,
which ``templated`` queues, its bytes built when sent; the kinds as the outbox
stores them are :class:`turnproc.storage.mailkinds.MailKind`, kept with the
column because the layers below this one count them too.

Sending itself (the outbox rows, SMTP, the Maildir) is :mod:`turnproc.mail`'s;
this package decides the content and hands it over.
"""
