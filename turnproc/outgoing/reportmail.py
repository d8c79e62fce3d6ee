"""Report, bulletin and answer mails, built when they are sent.

``turn run`` stores each empire's report data and the turn's bulletin once
and queues their mails without bytes; intake queues its answers as what
they say (the outbox row's ``data``); the outbox asks :func:`builder` for the
bytes of a batch just before it delivers it. A mail is built from what is
stored — the report's data or the answer's, the outbox row's Message-ID,
subject, recipient and time — and nothing else: the MIME boundaries come
from the Message-ID, so building the same mail twice gives the same bytes
(a retried delivery, a ``REPORT`` copy's parts, a test). Rendering a
thousand reports is the night's biggest cost: it runs on every CPU
(:data:`PARALLEL_FROM` mails or more).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Text, cast, select
from sqlalchemy.orm import Session, sessionmaker

from ..accounts.passwordkey import PasswordKey, load_key
from ..config import Config
from ..mail.compose import compose, pack_markup, read_addresses
from ..mail.outbox import Build, Claimed, Transport, flush_outbox
from ..mail.transport import outbound
from ..reports.links import game_links
from ..reports.render import MAP_CID, NEAR_CID, render, render_report_documents
from ..reports.schema import StoredReport
from ..runtime import jsontext
from ..storage import models as m
from ..storage.mailkinds import MailKind
from .contexts import QueuedMail, QueuedWelcome, WelcomeMailContext

log = logging.getLogger(__name__)

__all__ = [
    "report_mail",
    "bulletin_mail",
    "ack_mail",
    "welcome_mail",
    "builder",
    "BULLETIN_TO",
    "PARALLEL_FROM",
    "send_outbox",
    "mail_bytes",
]

#: The To: of a bulletin: its recipients are only in the SMTP envelope.
BULLETIN_TO = "undisclosed-recipients:;"
#: A batch with at least this many mails to build is rendered on every CPU.
PARALLEL_FROM = 16


def _boundary_seed(message_id: str) -> str:
    return hashlib.sha256(message_id.encode("utf-8")).hexdigest()[:24]


@dataclass(frozen=True)
class _Job:
    """One mail to build: everything it is made of (picklable, for the pool)."""

    kind: str
    sender: str
    recipient: str
    message_id: str
    when: dt.datetime
    data: str
    """The report's or bulletin's data as stored (JSON text): parsed in the
    rendering process, so the flush's own holds a batch's text, not its objects."""
    stem: str
    site_url: str = ""
    addresses: dict[str, tuple[str, str]] | None = None
    """The sender and recipient as this process read them (:func:`read_addresses`):
    its cache of addresses lives on; a rendering process's dies with its pool."""


def report_mail(
    sender: str,
    recipient: str,
    message_id: str,
    when: dt.datetime,
    data: StoredReport,
    stem: str,
    site_url: str = "",
    addresses: dict[str, tuple[str, str]] | None = None,
) -> bytes:
    """A report as a mail: text and HTML alternatives, the map and the
    neighbourhood map as PNGs the HTML shows inline (``cid:``), and the map
    as SVG and the JSON attached; its footer says where the rules are
    (``site_url``, the config's)."""
    docs = render_report_documents(data, links=game_links(site_url, str(data.get("game") or "")))
    return compose(
        sender=sender,
        recipient=recipient,
        subject=docs.subject,
        text=docs.text,
        html=docs.html,
        when=when,
        message_id=message_id,
        attachments=[
            # The same drawing in fewer lines: each costs the mail servers on the way.
            (f"{stem}-map.svg", "image/svg+xml", pack_markup(docs.svg).encode("utf-8")),
            (f"{stem}.json", "application/json", docs.json.encode("utf-8")),
        ],
        inline=[(MAP_CID, f"{stem}-map.png", "image/png", docs.png)]
        + ([(NEAR_CID, f"{stem}-near.png", "image/png", docs.near_png)] if docs.near_png else []),
        boundary_seed=_boundary_seed(message_id),
        addresses=addresses,
    )


def bulletin_mail(
    sender: str,
    recipient: str,
    message_id: str,
    when: dt.datetime,
    data: dict[str, Any],
    addresses: dict[str, tuple[str, str]] | None = None,
) -> bytes:
    """A turn bulletin as a mail: to every player, none of them named in it
    (``recipient`` :data:`BULLETIN_TO`), or a copy to one who asked."""
    rendered = render("bulletin", data)
    return compose(
        sender=sender,
        recipient=recipient,
        subject=rendered.subject,
        text=rendered.text,
        html=rendered.html,
        when=when,
        message_id=message_id,
        boundary_seed=_boundary_seed(message_id),
        addresses=addresses,
    )


def ack_mail(
    sender: str,
    message_id: str,
    when: dt.datetime,
    data: QueuedMail,
    addresses: dict[str, tuple[str, str]] | None = None,
) -> bytes:
    """An answer to a player's mail, from what :func:`turnproc.outgoing.mails.queue_ack`
    stored (or a guessing digest, from what :func:`turnproc.outgoing.mails.queue_guessing_digest`
    stored: its ``template``): the same bytes every time for the same row (the
    boundary seed is its Message-ID)."""
    rendered = render(data.get("template", "ack"), data["context"])
    return compose(
        sender=sender,
        recipient=data["to"],
        subject=rendered.subject,
        text=rendered.text,
        when=when,
        message_id=message_id,
        in_reply_to=data["in_reply_to"] or None,
        references=data["references"] or None,
        boundary_seed=_boundary_seed(message_id),
        addresses=addresses,
    )


def welcome_mail(
    sender: str, message_id: str, when: dt.datetime, data: QueuedWelcome, password: str
) -> bytes:
    """A welcome mail, from what :func:`turnproc.outgoing.mails.queue_welcome` stored
    (its ``sealed`` password taken out) and the password unsealed for it."""
    context: WelcomeMailContext = {**data["context"], "password": password}
    rendered = render("welcome", context)
    return compose(
        sender=sender,
        recipient=data["to"],
        subject=rendered.subject,
        text=rendered.text,
        when=when,
        message_id=message_id,
        boundary_seed=_boundary_seed(message_id),
    )


def _build(job: _Job) -> bytes | Exception:
    """The mail's bytes, or what stopped them (one bad report must not stop
    the batch; the exception crosses back from a pool process as a plain one)."""
    try:
        data = jsontext.loads(job.data)
        if job.kind == "ack":
            return ack_mail(job.sender, job.message_id, job.when, data, job.addresses)
        if job.kind == "welcome":
            return welcome_mail(job.sender, job.message_id, job.when, data, data["password"])
        if job.kind == "bulletin":
            return bulletin_mail(job.sender, job.recipient, job.message_id, job.when, data, job.addresses)
        return report_mail(
            job.sender, job.recipient, job.message_id, job.when, data, job.stem, job.site_url, job.addresses
        )
    except Exception as exc:
        log.debug("building mail %s failed", job.message_id, exc_info=True)
        return RuntimeError(f"mail {job.message_id} cannot be built: {type(exc).__name__}: {exc}")


def _jobs(
    session: Session, sender: str, mails: list[Claimed], site_url: str = "", key: PasswordKey | None = None
) -> dict[int, _Job]:
    report_ids = [c.report_id for c in mails if c.report_id is not None]
    bulletin_ids = [c.bulletin_id for c in mails if c.bulletin_id is not None]
    reports = (
        {
            rid: (data, f"{game}-turn{turn}-{code}")
            for rid, data, turn, code, game in session.execute(
                select(m.Report.id, cast(m.Report.data, Text), m.Report.turn, m.Empire.code, m.Game.name)
                .join(m.Empire, m.Empire.id == m.Report.empire_id)
                .join(m.Game, m.Game.id == m.Report.game_id)
                .where(m.Report.id.in_(report_ids))
            )
        }
        if report_ids
        else {}
    )
    bulletins: dict[int, str] = (
        {
            bid: data
            for bid, data in session.execute(
                select(m.Bulletin.id, cast(m.Bulletin.data, Text)).where(m.Bulletin.id.in_(bulletin_ids))
            )
        }
        if bulletin_ids
        else {}
    )
    jobs: dict[int, _Job] = {}
    for c in mails:
        if c.data is not None and c.kind == MailKind.WELCOME:
            data = _unsealed(c, key)
            if data is not None:
                jobs[c.id] = _Job("welcome", sender, c.recipient, c.message_id, c.created_at, data, "")
        elif c.data is not None:
            # The answer's To: is the address as the player's mail gave it (the row's is as shown).
            # (A row without one fails alone, where it is built.)
            to = jsontext.loads(c.data).get("to") or ""
            jobs[c.id] = _Job(
                "ack",
                sender,
                c.recipient,
                c.message_id,
                c.created_at,
                c.data,
                "",
                "",
                read_addresses(sender, to),
            )
        elif c.bulletin_id in bulletins:
            jobs[c.id] = _Job(
                "bulletin",
                sender,
                c.recipient,
                c.message_id,
                c.created_at,
                bulletins[c.bulletin_id],
                "",
                addresses=read_addresses(sender, c.recipient),
            )
        elif c.report_id in reports:
            data, stem = reports[c.report_id]
            jobs[c.id] = _Job(
                "report",
                sender,
                c.recipient,
                c.message_id,
                c.created_at,
                data,
                stem,
                site_url,
                read_addresses(sender, c.recipient),
            )
    return jobs


def _unsealed(mail: Claimed, key: PasswordKey | None) -> str | None:
    """A welcome's stored data with its password unsealed (only in memory,
    on its way to the renderer); None without the key it was sealed with."""
    assert mail.data is not None
    data = jsontext.loads(mail.data)
    try:
        password = key.unseal(data.pop("sealed")) if key is not None else None
    except ValueError:
        password = None
    if password is None:
        log.error(
            "welcome mail %s: its password was sealed with another password key; not built", mail.message_id
        )
        return None
    return jsontext.dumps({**data, "password": password})


def mail_bytes(
    session: Session, row: m.OutboxMail, sender: str, site_url: str = "", key: PasswordKey | None = None
) -> bytes:
    """The bytes of an outbox mail: stored, or built as sending would build
    them (a welcome's with ``key``, the password key)."""
    if row.body is not None:
        return row.body
    claimed = Claimed.of(row)
    job = _jobs(session, sender, [claimed], site_url, key).get(row.id)
    if job is None:
        raise LookupError(
            f"mail {row.message_id}: its report or bulletin, or the key of its password, is missing"
        )
    built = _build(job)
    if isinstance(built, Exception):
        raise built
    return built


def _context() -> multiprocessing.context.BaseContext:
    """How rendering processes start: forked from a fork server that has
    loaded the rendering code once for this process's life, so a night's
    pool costs milliseconds to start, not a fresh interpreter's imports per
    worker; and they inherit none of this process's database connections or
    threads (this runs in the outbox's builder thread). Where there is no
    fork server (not POSIX), a fresh interpreter each."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    # The command line too: each process of each pool runs the program's main
    # script again as it starts, and the turnproc command's imports the whole
    # command line (0.4 s of CPU a process, twice a night); with it loaded in
    # the fork server, that is nothing.
    context.set_forkserver_preload([__name__, "turnproc.cli"])
    return context


#: How much lower the rendering processes run than the rest (os.nice).
RENDER_NICENESS = 5


def _yield_to_delivery() -> None:
    """A rendering process runs at lower priority: it works a batch ahead,
    while the delivering threads and the mail server wait on each other's
    every answer; with the CPUs busy rendering, each of those answers waited
    for a time slice too."""
    os.nice(RENDER_NICENESS)


def render_pool() -> ProcessPoolExecutor:
    """The processes that render a flush's big batches (one per CPU)."""
    return ProcessPoolExecutor(mp_context=_context(), initializer=_yield_to_delivery)


@contextmanager
def builder(
    factory: sessionmaker[Session], sender: str, site_url: str = "", key: PasswordKey | None = None
) -> Iterator[Build]:
    """The outbox's builder for one flush: reads the batch's reports and
    bulletins in one query each and renders them, on a pool of processes
    when there are many. A mail whose report is gone (a rollback) gets a
    ``LookupError`` in place of its bytes."""
    pool: Executor | None = None

    def build(mails: list[Claimed]) -> dict[int, bytes | Exception]:
        nonlocal pool
        with factory() as session:
            jobs = _jobs(session, sender, mails, site_url, key)
        out: dict[int, bytes | Exception] = {
            c.id: LookupError(f"mail {c.message_id}: its report or bulletin is no longer stored")
            for c in mails
            if c.id not in jobs
        }
        ids = list(jobs)
        if len(ids) >= PARALLEL_FROM and (os.cpu_count() or 1) > 1:
            if pool is None:
                pool = render_pool()
            results = list(pool.map(_build, [jobs[i] for i in ids], chunksize=2))
        else:
            results = [_build(jobs[i]) for i in ids]
        out.update(zip(ids, results, strict=True))
        return out

    try:
        yield build
    finally:
        if pool is not None:
            pool.shutdown()


def send_outbox(
    factory: sessionmaker[Session],
    config: Config,
    now: dt.datetime,
    transport: Transport | None = None,
    *,
    claimant: str | None = None,
) -> tuple[int, int]:
    """Deliver every due mail (``turnproc send``, the worker), building the
    reports and bulletins among them on the way: (sent, failed)."""
    with builder(factory, config.from_address, config.site_url, load_key(config)) as build:
        return flush_outbox(
            factory,
            transport or outbound(config),
            now,
            lease=dt.timedelta(seconds=config.outbox_lease),
            claimant=claimant,
            keep_days=config.outbox_keep_days,
            build=build,
            journal=config.outbox_journal,
        )
