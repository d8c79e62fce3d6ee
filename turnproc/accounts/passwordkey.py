"""The host's password key: a secret kept in a file outside the database.

It does two things, both so that a stolen database alone gives away no more
than scrypt hashes (docs/gm-handbook.md, "Passwords and guessing"):

* **Tags.** Each empire stores, beside its scrypt hash, a short keyed tag of
  its password (:data:`TAG_BITS` bits of an HMAC). Intake compares a mail's
  password with the tag first and runs scrypt only when they agree, so a
  flood of wrong passwords costs an HMAC each, not a hash: only one wrong
  guess in 2**12 reaches scrypt. Why 12 bits: a tag is a filter an attacker
  who also has the key can use offline, making a search 2**TAG_BITS times
  cheaper; 12 bits leave a generated password (59 bits) 47 bits of scrypt
  work, thousands of CPU-years, while a thousand forged mails cost a quarter
  of one scrypt on average. More bits would help the key's thief, fewer
  would let a flood through to scrypt more often, and 12 already makes that
  negligible beside reading the mails.
* **Sealed welcome passwords.** A welcome mail waits in the outbox with its
  password sealed (XOR with an HMAC stream under the key and a fresh nonce),
  and the seal is removed when the mail is delivered.

A tag names the key it was made with and the hash it belongs to (a few bits
of each): a tag from another key (a lost key file, a host given a different
one) or beside a hash changed without it (admin SQL) is no tag, and the next
correct password makes a new one. Nothing is lost with the key file.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from ..config import Config

log = logging.getLogger(__name__)

__all__ = ["TAG_BITS", "KEY_FILE_NAME", "PasswordKey", "key_path", "load_key"]

#: Bits of the keyed tag of a password (see above).
TAG_BITS = 12
#: The key file's name in its default folder (:func:`key_path`).
KEY_FILE_NAME = "turnproc-password.key"
_KEY_BYTES = 32


def key_path(config: Config) -> Path:
    """Where the key file is: the config's ``password_tag_key_file``, else
    beside the data: the SQLite database's folder, or for a database server the
    service's state folder (systemd's ``$STATE_DIRECTORY``), else the working
    directory."""
    if config.password_tag_key_file is not None:
        return config.password_tag_key_file
    url = config.database_url
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        return Path(url.removeprefix("sqlite:///")).expanduser().resolve().parent / KEY_FILE_NAME
    state = os.environ.get("STATE_DIRECTORY", "").split(":")[0]
    return Path(state or ".").resolve() / KEY_FILE_NAME


def load_key(config: Config) -> PasswordKey:
    """The key, made (mode 0600, never overwritten) the first time it is needed."""
    path = key_path(config)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(secrets.token_hex(_KEY_BYTES) + "\n")
        log.warning("made a new password key file %s: back it up with the database", path)
    try:
        key = bytes.fromhex(path.read_text(encoding="ascii").strip())
    except ValueError:
        raise ValueError(f"password key file {path} does not hold a key (hex digits)") from None
    if len(key) < 16:
        raise ValueError(f"password key file {path} holds too short a key")
    return PasswordKey(key)


@dataclass(frozen=True)
class PasswordKey:
    key: bytes

    def _mac(self, *parts: str | bytes) -> bytes:
        data = b"\x00".join(p.encode("utf-8") if isinstance(p, str) else p for p in parts)
        return hmac.new(self.key, data, hashlib.sha256).digest()

    @property
    def key_id(self) -> str:
        return self._mac("key-id").hex()[:8]

    def tag(self, empire_id: int, stored: str, password: str) -> str:
        """The tag to store beside ``stored`` (the empire's scrypt hash)."""
        return f"{self.key_id}:{self._hash_mark(stored)}:{self._bits(empire_id, password)}"

    def _hash_mark(self, stored: str) -> str:
        return self._mac("hash", stored).hex()[:4]

    def _bits(self, empire_id: int, password: str) -> str:
        value = int.from_bytes(self._mac("tag", str(empire_id), password)[:4], "big") >> (32 - TAG_BITS)
        return f"{value:03x}"

    def valid(self, stored: str, tag: str | None) -> bool:
        """Whether ``tag`` is this key's and belongs to ``stored`` (else the
        empire counts as untagged: scrypt decides, and a correct password tags it)."""
        if not tag:
            return False
        parts = tag.split(":")
        return len(parts) == 3 and parts[0] == self.key_id and parts[1] == self._hash_mark(stored)

    def rules_out(self, empire_id: int, stored: str, tag: str | None, password: str) -> bool:
        """True when the tag alone shows ``password`` is wrong (no scrypt needed)."""
        if not self.valid(stored, tag):
            return False
        assert tag is not None
        return not hmac.compare_digest(tag.rsplit(":", 1)[1], self._bits(empire_id, password))

    def seal(self, secret: str) -> str:
        """``secret`` sealed for a row that waits (a welcome's password)."""
        nonce = secrets.token_bytes(16)
        data = secret.encode("utf-8")
        body = nonce + bytes(a ^ b for a, b in zip(data, self._stream(nonce, len(data))))
        return base64.b64encode(body + self._mac("sealed", body)[:8]).decode("ascii")

    def unseal(self, sealed: str) -> str:
        """The secret :meth:`seal` sealed; ValueError when it was sealed with another key."""
        raw = base64.b64decode(sealed)
        body, mark = raw[:-8], raw[-8:]
        if len(body) < 16 or not hmac.compare_digest(mark, self._mac("sealed", body)[:8]):
            raise ValueError("sealed with another key")
        nonce, data = body[:16], body[16:]
        return bytes(a ^ b for a, b in zip(data, self._stream(nonce, len(data)))).decode("utf-8")

    def _stream(self, nonce: bytes, length: int) -> bytes:
        blocks = (self._mac("seal", nonce, str(i)) for i in range(length // 32 + 1))
        return b"".join(blocks)[:length]
