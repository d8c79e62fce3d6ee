"""Configuration: a TOML file, then environment overrides, then defaults.

With no file at all turnproc works out of the box: a SQLite file and a local
Maildir in the working directory (the embedded default). Secrets may come from
the environment or from a file named by ``*_file`` keys, so a config can be
committed to a deploy repo without passwords in it.
"""

from __future__ import annotations

import logging
import os
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

__all__ = ["ConfigError", "Config", "ImapConfig", "SmtpConfig", "load_config", "DEFAULT_FILE"]

DEFAULT_FILE = "turnproc.toml"

log = logging.getLogger(__name__)


class ConfigError(ValueError):
    """The configuration is unreadable or wrong; the message names the key."""


@dataclass(frozen=True)
class ImapConfig:
    host: str = "localhost"
    port: int = 993
    security: str = "tls"
    """``tls`` (implicit TLS), ``starttls`` or ``plain`` (loopback tests only)."""
    user: str = ""
    password: str = ""
    folder: str = "INBOX"
    processed_folder: str = "Processed"
    rejected_folder: str = "Rejected"
    failed_folder: str = "Failed"
    """Where a mail goes that failed through our fault in ``set_aside_after`` polls."""
    timeout: float = 30.0


@dataclass(frozen=True)
class SmtpConfig:
    host: str = "localhost"
    port: int = 587
    security: str = "starttls"
    """``tls``, ``starttls`` or ``plain``."""
    user: str = ""
    password: str = ""
    timeout: float = 30.0
    connections: int = 3
    """Connections a flush delivers over at once (turnproc/mail/lanes.py); a
    server that refuses some gets fewer."""


@dataclass(frozen=True)
class Config:
    database_url: str = "sqlite:///turnproc.db"
    transport: str = "maildir"
    """``maildir`` (the embedded default) or ``imap`` (IMAP in, SMTP out)."""
    maildir_in: Path = Path("mail/in")
    maildir_out: Path = Path("mail/out")
    from_address: str = "turnproc@localhost"
    """Sender of every mail the host sends; players reply to it."""
    gm_address: str = ""
    """Where notices for the game master go; empty means none are sent."""
    stranger_replies_per_hour: int = 3
    """Answers to addresses that play in no game, all together, per hour (only
    to mail that names a game here); the rest of such mail is not answered."""
    trusted_authserv_id: str = ""
    """The ``authserv-id`` the receiving mail server stamps its
    ``Authentication-Results`` headers with (RFC 8601): a mail whose From
    domain fails DMARC by that server's word is filed unanswered, its
    password never checked. Empty: no header is trusted (deploy/dmarc.md)."""
    password_tag_key_file: Path | None = None
    """The password key (turnproc/accounts/passwordkey.py), made on first use; None:
    beside the data (:func:`turnproc.accounts.passwordkey.key_path`)."""
    set_aside_after: int = 3
    """Polls a mail may fail in (our fault, not the player's) before it is
    moved to the Failed folder and the GM is told; it never blocks the inbox."""
    outbox_lease: float = 600.0
    """Seconds a flush holds its claim on the mail it is delivering: no other
    flush sends that mail before the lease runs out, even if the claimant died
    or could not record the delivery. Longer than one SMTP delivery can take."""
    outbox_journal: Path | None = None
    """Where a flush keeps the sent marks it could not record (a full disk),
    so that the next ``turnproc send`` or worker records them instead of
    sending the mails again (turnproc/mail/marks.py); relative to the config
    file's directory (default ``outbox-journal`` there, or in the working
    directory without a config file); written only when a mark fails. None
    (a Config built in code): kept by the process that delivered them only."""
    outbox_keep_days: int = 30
    """Days a sent mail's bytes stay in the outbox; then only its row (who, what,
    when, Message-ID) is kept. The reports themselves stay in ``reports``. 0: keep."""
    bulletin_threshold: int = 50
    """A game of more empires than this mails the roundup and the public press
    once a turn, as the turn bulletin to every player, instead of in every
    report (docs/orders.md)."""
    min_turn_interval: int = 10
    """Minutes that must pass after a turn ran before ``turnproc turn run``
    runs the next one without ``--force`` (a second keystroke, a cron job beside
    the GM); 0: no wait. The worker's deadlines are spaced by its schedule."""
    mail_max_parts: int = 200
    """MIME parts a mail may have; a mail of more is refused unread, before it
    is parsed (its sender answered as for any unreadable mail)."""
    mail_max_depth: int = 20
    """How deep a mail's MIME parts may nest; a deeper mail is refused."""
    mail_read_seconds: float = 2.0
    """CPU seconds reading one mail's text may take before it is refused."""
    admin_sql_seconds: float = 30.0
    """Seconds an admin SQL script (``turnproc sql``, ``turnproc fix``) may run
    before it is stopped and rolled back."""
    site_dir: Path | None = None
    """Where the worker writes each game's public pages after each turn it runs
    (``site_dir/GAME/index.html``, as ``turnproc site``); None: it does not."""
    site_url: str = ""
    """The address ``site_dir`` is served at (``https://example.org/starchase/``):
    a game's pages are at ``site_url`` + GAME + ``/``, and the welcome, HELP and
    every report link to its rulebook there. Empty: they say to ask the GM."""
    pyodide_dir: Path | None = None
    """An unpacked ``pyodide`` package (the version of
    :data:`turnproc.reports.desk.PYODIDE_VERSION`), copied into the pages for
    the order desk's checker; None: the desk is written without it."""
    imap: ImapConfig = field(default_factory=ImapConfig)
    smtp: SmtpConfig = field(default_factory=SmtpConfig)
    source: str = "<defaults>"


_TOP_KEYS = {
    "database_url",
    "transport",
    "maildir_in",
    "maildir_out",
    "from_address",
    "gm_address",
    "outbox_lease",
    "stranger_replies_per_hour",
    "set_aside_after",
    "outbox_keep_days",
    "site_dir",
    "bulletin_threshold",
    "trusted_authserv_id",
    "pyodide_dir",
    "site_url",
    "password_tag_key_file",
    "min_turn_interval",
    "outbox_journal",
    "mail_max_parts",
    "mail_max_depth",
    "mail_read_seconds",
    "admin_sql_seconds",
}

#: Keys of older versions, accepted and ignored (a config from before the
#: upgrade still starts), with why.
_RETIRED = {
    "password_failures_per_hour": (
        'no mail is refused by its sender any more; see the handbook\'s "Passwords and guessing"'
    ),
}

#: Whole-number settings and their ranges (top-level, and ``[smtp] connections``).
_COUNTS = {
    "stranger_replies_per_hour": (0, 1000),
    "set_aside_after": (1, 100),
    "outbox_keep_days": (0, 3650),
    "bulletin_threshold": (1, 100_000),
    "connections": (1, 20),
    "min_turn_interval": (0, 10080),
    "mail_max_parts": (1, 100_000),
    "mail_max_depth": (1, 1000),
}

#: Settings in seconds and their ranges.
_SECONDS = {"outbox_lease": (1, 86400), "mail_read_seconds": (0.01, 600), "admin_sql_seconds": (0.1, 86400)}


def _check_counts(where: str, values: Mapping[str, Any]) -> None:
    for key, (low, high) in _COUNTS.items():
        if key not in values:
            continue  # the dataclass default
        value = values[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ConfigError(f"{where}: {key} {value!r} is not a whole number from {low} to {high}")


def _section(cls: type, raw: Mapping[str, Any], where: str, base_dir: Path) -> Any:
    known = {f.name: f for f in fields(cls)}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key.endswith("_file") and key[: -len("_file")] in known:
            # A secret kept in its own file (mode 600), e.g. password_file.
            path = (base_dir / str(value)).expanduser()
            try:
                values[key[: -len("_file")]] = path.read_text(encoding="utf-8").strip()
                mode = stat.S_IMODE(path.stat().st_mode)
            except OSError as exc:
                raise ConfigError(f"{where}.{key}: cannot read {path}: {exc.strerror}") from None
            if mode & 0o004:
                log.warning(
                    "%s.%s: %s is readable by every user of this machine (mode %o); chmod 600 it",
                    where,
                    key,
                    path,
                    mode,
                )
            continue
        if key not in known:
            raise ConfigError(f"{where}: unknown key {key!r} (known: {', '.join(sorted(known))})")
        if key == "password" and value:
            log.warning(
                "%s.password: a password written in the config file; keep it in password_file (mode 600)"
                " or the environment, so the config can be shared without it",
                where,
            )
        expected = known[key].type
        if expected in ("int", int) and not isinstance(value, int):
            raise ConfigError(f"{where}.{key}: expected a whole number, got {value!r}")
        values[key] = value
    if "security" in values and values["security"] not in ("tls", "starttls", "plain"):
        raise ConfigError(f"{where}.security: {values['security']!r} is not tls, starttls or plain")
    _check_counts(where, values)
    return cls(**values)


def load_config(path: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> Config:
    """Read the config from ``path``, else ``$TURNPROC_CONFIG``, else
    ``./turnproc.toml`` if present, else defaults; then apply environment
    overrides (``TURNPROC_DATABASE_URL``, ``TURNPROC_IMAP_PASSWORD``,
    ``TURNPROC_SMTP_PASSWORD``)."""
    env = os.environ if env is None else env
    chosen = path or env.get("TURNPROC_CONFIG") or (DEFAULT_FILE if Path(DEFAULT_FILE).exists() else None)
    raw: dict[str, Any] = {}
    source = "<defaults>"
    base_dir = Path.cwd()
    if chosen:
        file = Path(chosen)
        source = str(file)
        base_dir = file.parent
        try:
            raw = tomllib.loads(file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"config file {file} does not exist") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{file}: {exc}") from None
    top: dict[str, Any] = {}
    for key, value in raw.items():
        if key in ("imap", "smtp"):
            continue
        if key in _RETIRED:
            log.warning("%s: %s is no longer used (%s)", source, key, _RETIRED[key])
            continue
        if key not in _TOP_KEYS:
            raise ConfigError(
                f"{source}: unknown key {key!r} (known: {', '.join(sorted(_TOP_KEYS | {'imap', 'smtp'}))})"
            )
        top[key] = value
    imap = _section(ImapConfig, raw.get("imap", {}), f"{source}: imap", base_dir)
    smtp = _section(SmtpConfig, raw.get("smtp", {}), f"{source}: smtp", base_dir)
    if "TURNPROC_IMAP_PASSWORD" in env:
        imap = _replace(imap, password=env["TURNPROC_IMAP_PASSWORD"])
    if "TURNPROC_SMTP_PASSWORD" in env:
        smtp = _replace(smtp, password=env["TURNPROC_SMTP_PASSWORD"])
    if "TURNPROC_DATABASE_URL" in env:
        top["database_url"] = env["TURNPROC_DATABASE_URL"]
    top.setdefault("outbox_journal", "outbox-journal")
    for key in (
        "maildir_in",
        "maildir_out",
        "site_dir",
        "pyodide_dir",
        "password_tag_key_file",
        "outbox_journal",
    ):
        if key in top:
            top[key] = base_dir / str(top[key]) if chosen else Path(str(top[key]))
    _check_counts(source, top)
    site_url = top.get("site_url", "")
    if not isinstance(site_url, str) or (site_url and not site_url.startswith(("https://", "http://"))):
        raise ConfigError(
            f"{source}: site_url {site_url!r} is not an address starting with https:// or http://"
        )
    for key, (low, high) in _SECONDS.items():
        value = top.get(key, low)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
            raise ConfigError(
                f"{source}: {key} {value!r} is not a number of seconds from {low:g} to {high:g}"
            )
    if top.get("transport", "maildir") not in ("maildir", "imap"):
        raise ConfigError(f"{source}: transport {top['transport']!r} is not maildir or imap")
    return Config(imap=imap, smtp=smtp, source=source, **top)


def _replace(obj: Any, **changes: Any) -> Any:
    return replace(obj, **changes)
