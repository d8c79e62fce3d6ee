"""The Message-IDs of the mails the host sends: one recipe for all of them.

Every id is ``<turnproc.LABEL.TOKEN@DOMAIN>``:

* ``turnproc.`` marks it as ours (:data:`turnproc.mail.hygiene.OUR_ID_MARK`):
  intake never answers a mail carrying it, so two hosts cannot loop;
* ``LABEL`` says what the mail is about, its parts joined by dots (a kind, a
  game, a turn, an empire), so the outbox can find a mail by it: the start of
  an announcement's ids (:func:`turnproc.outgoing.announcements.announcement_mails`), a
  capped mail's tag (:func:`id_tag_pattern`);
* ``TOKEN`` is random for a mail that may be sent any number of times; for a
  mail that must go at most once it is a digest of the label and a secret (the
  game's seed and id), the same every time, so the outbox's unique Message-ID
  refuses a second copy and a new game reusing a name gets fresh ids;
* ``DOMAIN`` is our From address's domain.
"""

from __future__ import annotations

import hashlib
import secrets

from ..mail.compose import message_id_domain
from ..storage import models as m

__all__ = ["message_id", "once_message_id", "game_once_id", "id_tag_pattern"]


def _recipe(from_address: str, label: tuple[object, ...], token: str) -> str:
    parts = [str(p) for p in label if str(p)]
    return f"<turnproc.{'.'.join([*parts, token])}@{message_id_domain(from_address)}>"


def message_id(from_address: str, *label: object) -> str:
    """A fresh Message-ID for a mail that may be sent again (an answer, a
    report); ``label`` (letters, digits, ``-``) marks what a capped mail was
    about, for the caps to count (:func:`id_tag_pattern`)."""
    return _recipe(from_address, label, secrets.token_hex(8))


def once_message_id(from_address: str, secret: tuple[object, ...], *label: object) -> str:
    """The Message-ID of a mail that goes at most once: the same for the same
    ``secret`` and ``label`` every time."""
    digest = hashlib.sha256("|".join(map(str, (*secret, *label))).encode()).hexdigest()[:12]
    return _recipe(from_address, label, digest)


def game_once_id(from_address: str, game: m.Game, kind: str, *parts: object) -> str:
    """The Message-ID of a game's mail that goes at most once (``kind`` and
    ``parts`` say which: a turn, an empire, a change), keyed by the game's
    secret seed and id."""
    return once_message_id(from_address, (game.seed, game.id), kind, game.name, *parts)


def id_tag_pattern(tag: str) -> str:
    """A SQL LIKE pattern for the Message-IDs :func:`message_id` made with the
    label ``tag`` (it also matches the ids made before the recipe was one,
    which carried ``.turnproc.TAG.`` after a time stamp)."""
    return f"%turnproc.{tag}.%"
