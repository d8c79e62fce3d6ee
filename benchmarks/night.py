"""The whole night, as a game of N empires lives it: every empire mails one full
turnsheet, the host polls them from a real Dovecot, runs the turn, and sends
every acknowledgement and report to a real SMTP server (aiosmtpd, in its own
process). Each size runs in its own process, on SQLite and on PostgreSQL, on
turn 1 and again after ``--history`` turns (a database with history); the
sizes take their nights in turns, one process working at a time, so that a
shared machine's drifting speed moves them all alike (see :func:`_drive`).

    .venv/bin/python -m benchmarks.night [--sizes 12,100,300,1000] [--backends sqlite,postgres]
        [--history 5] [--age 100]

``--age A`` measures a night of an old game too: after the nights played, the
archive is filled up to turn A - 1 with copies of the last night's rows (see
:func:`age_archive`), and turn A is played; then the copies are dropped
(:func:`drop_copies`) and one more young night is played. On PostgreSQL
each bulk change is followed, off the clock, by the vacuum and statistics
autovacuum would have made over those nights (:func:`settle`). The old night is
printed between the young nights before and after it, with its ratios to
their mean, wall and CPU: a machine whose speed drifts moves both young
nights, and the mean cancels a steady drift. Playing 100 real nights at
N=1,000 takes half an hour; copies have a real night's sizes.

Printed per backend and size, for the first night and the last:
* each phase's wall time (poll, turn, send) and the night's total;
* the I/O floor measured in the same run: loading the game and saving the
  resolved state of the same turn in one transaction (rolled back), and the
  turn's ratio to it;
* the public pages' refresh after the turn (``site``, as the worker does it),
  counted in the turn's time;
* intake mails/s and send mails/s, the CPU seconds of the process and of
  the processes it starts to render report mails (and, in each night's
  line, the SMTP server's own CPU seconds during the send: it shares the
  CPUs), the process's peak RSS
  (the other processes' own is not measured: getrusage's figure for
  children counts a subprocess's parent pages at the moment it forks),
  and the database's growth over the night;
* the CPU growth per doubling of empires, between successive sizes.

Needs dovecot (apt-get install dovecot-imapd) and, for PostgreSQL, the server
binaries (initdb, pg_ctl). Its PostgreSQL runs with fsync on (the tests'
runs without), so its commits wait for the disk as production's do.
"""

from __future__ import annotations

import argparse
import datetime as dt
import html
import itertools
import json
import math
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any

from imapclient import IMAPClient
from sqlalchemy import Column, Table, case, delete, func, insert, literal, select, text

from benchmarks import baseline
from benchmarks.servers import DovecotServer, PostgresServer, free_port, wait_for_port
from benchmarks.synthetic import GAME, synthetic_orders, synthetic_state, write_game
from turnproc.app import open_app
from turnproc.config import Config, ImapConfig, SmtpConfig
from turnproc.games.publish import refresh_site
from turnproc.intake import poll
from turnproc.mail.outbox import purge_sent_bodies
from turnproc.outgoing.reportmail import send_outbox
from turnproc.rules.turn import resolve, turn_rng
from turnproc.runtime.collector import gc_paused
from turnproc.storage import models as m
from turnproc.storage.base import UTCDateTime
from turnproc.storage.convert import load_state, orders_for_turn, save_state
from turnproc.storage.queries import get_game
from turnproc.turns.run import run_current_turn

USER, MAILBOX_PASSWORD = "turns", "bench"
PASSWORD = "bench-password"  # write_game gives every empire this one
START = dt.datetime(2026, 1, 5, 18, 0, tzinfo=dt.timezone.utc)
#: Where the last night's turn is profiled to (--profile-turn FILE), for pstats.
PROFILE_TURN = os.environ.get("TURNPROC_NIGHT_PROFILE_TURN", "")
#: PostgreSQL commits to disk (--pg-fsync): as a production server does.
#: Where the last night's poll is profiled to (--profile-poll FILE): its own thread only.
PROFILE_POLL = os.environ.get("TURNPROC_NIGHT_PROFILE_POLL", "")
#: Where the last night's send is profiled to (--profile-send FILE):
#: its calling thread only, not the delivering threads nor the rendering processes.
PROFILE_SEND = os.environ.get("TURNPROC_NIGHT_PROFILE_SEND", "")


# -- the SMTP server, in its own process so its CPU and memory are not ours ----------------


class _Counter:
    def __init__(self) -> None:
        self.mails = 0
        self.bytes = 0

    async def handle_DATA(self, server: object, session: object, envelope: Any) -> str:
        self.mails += 1
        self.bytes += len(envelope.original_content or b"")
        return "250 OK"


def sink(port: int) -> None:
    from aiosmtpd.controller import Controller

    handler = _Counter()
    controller = Controller(handler, hostname="127.0.0.1", port=port, data_size_limit=0)
    controller.start()
    try:
        for line in sys.stdin:  # "count" -> mails, bytes and this process's CPU s so far; EOF stops
            if line.strip() == "count":
                print(f"{handler.mails} {handler.bytes} {time.process_time()}", flush=True)
    finally:
        controller.stop()


class Sink:
    def __init__(self) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.night", "--sink", str(self.port)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        wait_for_port(self.port)

    def count(self) -> tuple[int, int, float]:
        """Mails and bytes taken so far, and the server's CPU seconds: it runs
        on the same CPUs as the host, and what it costs them is not ours."""
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write("count\n")
        self.proc.stdin.flush()
        mails, size, cpu = self.proc.stdout.readline().split()
        return int(mails), int(size), float(cpu)

    def stop(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


# -- one size, in its own process ---------------------------------------------------------------


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _db_bytes(url: str, engine: Any) -> int:
    if url.startswith("sqlite"):
        path = Path(url.removeprefix("sqlite:///"))
        return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())
    with engine.connect() as conn:
        return int(conn.scalar(text("SELECT pg_database_size(current_database())")))


#: Which mail program each empire's player writes with, in turn: of every 20,
#: 8 on Gmail, 5 on Outlook, 7 in plain text (Thunderbird, Apple Mail, mutt).
#: Gmail and Outlook send a text and an HTML alternative; Outlook's HTML
#: carries its style sheet, its text is quoted-printable.
CLIENTS = ["gmail"] * 8 + ["outlook"] * 5 + ["plain"] * 7
_OUTLOOK_HEAD = (
    '<html xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" '
    'xmlns:w="urn:schemas-microsoft-com:office:word" '
    'xmlns:m="http://schemas.microsoft.com/office/2004/12/omml" '
    'xmlns="http://www.w3.org/TR/REC-html40"><head>'
    '<meta http-equiv="Content-Type" content="text/html; charset=us-ascii">'
    '<meta name="Generator" content="Microsoft Word 15 (filtered medium)"><style><!--\n'
    '/* Font Definitions */\n@font-face\n\t{font-family:"Cambria Math";\n\tpanose-1:2 4 5 3 5 4 6 3 2 4;}\n'
    "@font-face\n\t{font-family:Calibri;\n\tpanose-1:2 15 5 2 2 2 4 3 2 4;}\n"
    "/* Style Definitions */\np.MsoNormal, li.MsoNormal, div.MsoNormal\n\t{margin:0cm;\n\tfont-size:11.0pt;\n"
    '\tfont-family:"Calibri",sans-serif;\n\tmso-ligatures:standardcontextual;\n'
    "\tmso-fareast-language:EN-US;}\n"
    "span.EmailStyle17\n\t{mso-style-type:personal-compose;\n"
    '\tfont-family:"Calibri",sans-serif;\n\tcolor:windowtext;}\n'
    ".MsoChpDefault\n\t{mso-style-type:export-only;\n\tfont-size:10.0pt;\n\tmso-ligatures:none;}\n"
    "@page WordSection1\n\t{size:612.0pt 792.0pt;\n\tmargin:72.0pt 72.0pt 72.0pt 72.0pt;}\n"
    "div.WordSection1\n\t{page:WordSection1;}\n--></style></head>"
    '<body lang="EN-GB" link="#0563C1" vlink="#954F72" style="word-wrap:break-word">'
    '<div class="WordSection1">\n'
)


def _turnsheet_mail(client: str, sender: str, subject: str, date: str, text: str) -> bytes:
    """``text`` mailed as ``client`` would send it."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = "turns@turnproc.example"
    msg["Subject"] = subject
    msg["Date"] = date
    msg["Message-ID"] = make_msgid(domain="mail.gmail.com" if client == "gmail" else "bench.example")
    lines = text.splitlines()
    if client == "gmail":
        msg.set_content(text)
        msg.add_alternative(
            '<div dir="ltr">' + "".join(f"<div>{html.escape(line)}</div>" for line in lines) + "</div>\n",
            subtype="html",
        )
    elif client == "outlook":
        msg["Thread-Topic"] = subject
        msg["Accept-Language"] = "en-GB, en-US"
        msg["X-MS-Has-Attach"] = ""
        msg.set_content(text, cte="quoted-printable")
        body = "".join(f'<p class="MsoNormal">{html.escape(line)}<o:p></o:p></p>\n' for line in lines)
        msg.add_alternative(
            _OUTLOOK_HEAD + body + "</div></body></html>\n", subtype="html", cte="quoted-printable"
        )
    else:
        msg.set_content(text)
    return bytes(msg)


def turnsheets(state: Any, night: int) -> list[bytes]:
    """One full turnsheet per active empire, as the player would mail it
    (from the mail program :data:`CLIENTS` gives the empire)."""
    rng = random.Random(f"night-{night}")
    raws = []
    for i, code in enumerate(sorted(state.empires)):
        emp = state.empires[code]
        if not emp.active:
            continue
        try:
            body = synthetic_orders(state, code, rng)
        except (AssertionError, IndexError):
            body = "TAX\nSTASH 1"  # an empire that lost its base still sends orders
        raws.append(
            _turnsheet_mail(
                CLIENTS[i % len(CLIENTS)],
                f"Player {code} <{code.lower()}@bench.example>",
                f"{GAME} turn {state.turn} orders",
                format_datetime(START + dt.timedelta(days=night, seconds=i)),
                f"GAME {GAME}\nEMPIRE {code} {PASSWORD}\nTURN {state.turn}\n{body}\nEND\n",
            )
        )
    return raws


def _floor(app: Any) -> float:
    """Load the game and save the resolved state of the same turn, in one
    transaction rolled back: the database work no turn can avoid. Measured
    as ``turn run`` does its own load and save: with the garbage collector
    held off (turnproc.runtime.collector)."""
    with app.sessions() as session:
        game = get_game(session, GAME)
        state = load_state(session, game)
        orders, _ = orders_for_turn(session, game)
        new_state, _ = resolve(state, orders, turn_rng(game.seed, state.turn))
    del state
    t0 = time.perf_counter()
    with gc_paused(), app.sessions() as session, session.begin():
        game = get_game(session, GAME)
        load_state(session, game)
        save_state(session, game, new_state)
        session.flush()
        took = time.perf_counter() - t0
        session.rollback()
    return took


def _forkserver_cpu() -> float:
    """CPU seconds of the fork server that starts the report-rendering
    processes, and of those processes once they ended (the server reaps
    them, so their time is its children's time): not our children, so
    getrusage does not see them."""
    from multiprocessing import forkserver

    pid = getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)
    if not pid:
        return 0.0
    time.sleep(0.05)  # let the server reap the workers that just ended
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # utime, stime, cutime, cstime: fields 14-17 of /proc/PID/stat.
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def cpu_seconds() -> float:
    """CPU seconds of this process, of its children that ended, and of the
    report-rendering processes (see :func:`_forkserver_cpu`)."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime + _forkserver_cpu()


def _timed(fn: Any) -> tuple[Any, float, float]:
    w, c = time.perf_counter(), cpu_seconds()
    out = fn()
    return out, time.perf_counter() - w, cpu_seconds() - c


#: The tables a night adds rows to, with the column naming the turn a row
#: belongs to (None: the row has none; it is copied all the same).
GROWING: dict[str, str | None] = {
    "inbound_messages": None,
    "orders": "turn",
    "turns": "number",
    "reports": "turn",
    "bulletins": "turn",
    "outbox": "turn",
    "suppressed_replies": None,
}


def _marks(app: Any) -> dict[str, int]:
    """The highest id of each growing table: what a night adds comes after it."""
    with app.engine.connect() as conn:
        return {
            name: conn.scalar(select(func.coalesce(func.max(m.Base.metadata.tables[name].c.id), 0))) or 0
            for name in GROWING
        }


def _copied(table: Table, column: Column[Any], shift: int, when: dt.datetime) -> Any:
    """``column`` of a copy ``shift`` turns later: turn numbers moved on,
    unique texts made unique again, every timestamp at that night's time."""
    if column.name == GROWING[table.name]:
        return column + shift
    if column.name == "sha256":
        return func.substr(column, 1, 56).concat(f"{shift:08d}")
    if table.name == "outbox" and column.name == "message_id":
        return column.concat(f".{shift}")
    if isinstance(column.type, UTCDateTime):
        return case((column.is_(None), None), else_=literal(when, UTCDateTime))
    return column


def age_archive(app: Any, marks: dict[str, int], turns: int, night_time: Any) -> int:
    """Copy the rows the last night added (ids after ``marks``) ``turns``
    times, each copy one turn later than the one before, dated a day later;
    then move the game on to the turn after the last copy, and empty the
    mails' bodies a real game's sends would have emptied. The galaxy itself is
    the last night's: its size does not grow with the game's age. Returns the
    rows written."""
    written = 0
    with app.sessions() as session, session.begin():
        game = get_game(session, GAME)
        tables = m.Base.metadata.tables
        for name in GROWING:
            table = tables[name]
            top = session.scalar(select(func.max(table.c.id))) or 0
            if top <= marks[name]:
                continue
            columns = [c for c in table.c if c.name != "id"]
            for shift in range(1, turns + 1):
                rows = select(*(_copied(table, c, shift, night_time(shift)) for c in columns)).where(
                    table.c.id > marks[name], table.c.id <= top
                )
                written += (
                    session.execute(insert(table).from_select([c.name for c in columns], rows)).rowcount or 0
                )
        # An old game has not reached its turn limit yet, nor reaches it on
        # the young night after the old one: a last turn's reports carry the
        # final standings, half as many bytes again.
        game.turn_limit = max(game.turn_limit, game.turn + turns + 10)
        game.turn += turns
    # What the sends of the copied nights would have emptied (outbox_keep_days).
    purge_sent_bodies(app.sessions, night_time(turns), Config(database_url="").outbox_keep_days)
    return written


def _profiled(fn: Any, path: str) -> tuple[Any, float, float]:
    """:func:`_timed`, profiled into ``path`` when one is given (pstats)."""
    if not path:
        return _timed(fn)
    import cProfile

    profile = cProfile.Profile()
    out = _timed(lambda: profile.runcall(fn))
    profile.dump_stats(path)
    return out


def _nights(history: int, age: int) -> list[int]:
    """The nights a size plays: ``history`` + 1 of them; with ``age``, the old
    game's night and then a young one again (the copies dropped), so that the
    old night is measured between two young ones and a machine's drifting
    speed cancels out of their ratio."""
    return list(range(history + 1)) + ([history + 1, history + 2] if age else [])


def drop_copies(app: Any, first: dict[str, int], last: dict[str, int], site: Path, turns: range) -> int:
    """Delete the rows :func:`age_archive` wrote (ids after ``first`` up to
    ``last``) and the copied turns' public pages: the game is young again,
    with what its real nights wrote. Returns the rows deleted."""
    deleted = 0
    tables = m.Base.metadata.tables
    # Each deleted row's references are looked up; the schema indexes none of
    # the columns that point at these tables (nothing deletes from them but
    # this), so for the deletion only they get an index, dropped with it.
    pointing = [
        (f"night_drop_{fk.parent.table.name}_{fk.parent.name}", fk.parent.table.name, fk.parent.name)
        for table in tables.values()
        for fk in table.foreign_keys
        if fk.column.table.name in GROWING
    ]
    with app.sessions() as session, session.begin():
        for index, table_name, column in pointing:
            session.execute(text(f"CREATE INDEX {index} ON {table_name} ({column})"))
        for name in reversed(list(GROWING)):
            table = tables[name]
            done = session.execute(delete(table).where(table.c.id > first[name], table.c.id <= last[name]))
            deleted += done.rowcount or 0
        for index, _, _ in pointing:
            session.execute(text(f"DROP INDEX {index}"))
    for number in turns:
        for suffix in (".html", ".json"):
            (site / GAME / "turns" / f"{number}{suffix}").unlink(missing_ok=True)
    return deleted


def settle(app: Any) -> None:
    """After the bulk copy or drop, on PostgreSQL: the vacuum and the
    statistics autovacuum would have made over the hundred nights, made now,
    off the clock, so that its workers catching up on half a million rows
    at once do not run beside the night measured next. (SQLite keeps no
    statistics of its own.)"""
    if app.engine.dialect.name != "postgresql":
        return
    with app.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        for name in GROWING:
            conn.execute(text(f"VACUUM ANALYZE {name}"))


def _step(said: str) -> None:
    """Tell the driving process ``said`` and wait for its word to go on (see
    :func:`_drive`)."""
    print(said, flush=True)
    if not sys.stdin.readline():
        raise SystemExit("the benchmark's driving process is gone")


def child(backend: str, n: int, history: int, age: int = 0) -> dict[str, Any]:
    _step("waiting")  # set up only when told: the sizes set up one at a time
    work = Path(tempfile.mkdtemp(prefix="turnproc-night-"))
    pg = PostgresServer(fsync=True) if backend == "postgres" else None
    dovecot = DovecotServer({USER: MAILBOX_PASSWORD})
    smtp = Sink()
    try:
        dovecot.start()
        if pg is not None:
            pg.start()
            url = pg.url
        else:
            url = f"sqlite:///{work / 'night.db'}"
        t0 = time.perf_counter()
        state = synthetic_state(n)
        write_game(url, state)
        config = Config(
            database_url=url,
            transport="imap",
            from_address="Host <turns@turnproc.example>",
            imap=ImapConfig(
                host="127.0.0.1", port=dovecot.port, security="plain", user=USER, password=MAILBOX_PASSWORD
            ),
            smtp=SmtpConfig(host="127.0.0.1", port=smtp.port, security="plain"),
            site_dir=work / "site",
            password_tag_key_file=work / "turnproc-password.key",
        )
        app = open_app(config)
        with app.sessions() as session, session.begin():
            session.execute(delete(m.OrderSet))  # the orders come by mail
        setup = time.perf_counter() - t0
        nights = []
        aged = 0  # turns copied into the archive before the night
        marks = _marks(app)  # each night's, taken before its mails: the old game's night copies the last
        filled: tuple[dict[str, int], dict[str, int], range] | None = None
        for night in _nights(history, age):
            _step("ready")
            if night == history + 2 and filled is not None:  # young again: the copies go
                t_drop = time.perf_counter()
                assert config.site_dir is not None
                rows = drop_copies(app, *filled[:2], config.site_dir, filled[2])
                settle(app)
                print(
                    f"  [{backend} N={n}] copies dropped: {rows} rows in "
                    f"{time.perf_counter() - t_drop:.0f} s",
                    file=sys.stderr,
                )
                night += aged
                aged = 0
            if night == history + 1:  # the old game's night: fill the archive up to it
                if age <= history + 2:
                    raise SystemExit(f"--age {age}: the game is at turn {history + 2} already")
                with app.sessions() as session:
                    played = get_game(session, GAME).turn
                aged = age - played
                t_age = time.perf_counter()
                before_fill = _marks(app)
                rows = age_archive(
                    app, marks, aged, lambda shift: START + dt.timedelta(days=night - 1 + shift, hours=6)
                )
                filled = (before_fill, _marks(app), range(played, played + aged))
                rows = sum(filled[1][k] - before_fill[k] for k in GROWING)  # rowcount is -1 on some drivers
                # The copied turns' pages, as the worker's refresh after each would have written them.
                assert config.site_dir is not None
                refresh_site(
                    app.sessions, config.site_dir, GAME, START + dt.timedelta(days=night - 1 + aged, hours=6)
                )
                settle(app)
                print(
                    f"  [{backend} N={n}] archive filled to turn {age - 1}: {rows} rows in "
                    f"{time.perf_counter() - t_age:.0f} s",
                    file=sys.stderr,
                )
                night += aged
            marks = _marks(app)
            with app.sessions() as session:
                state = load_state(session, get_game(session, GAME))
            raws = turnsheets(state, night)
            client = IMAPClient("127.0.0.1", port=dovecot.port, ssl=False)
            client.login(USER, MAILBOX_PASSWORD)
            for i in range(0, len(raws), 200):
                client.multiappend("INBOX", raws[i : i + 200])
            client.logout()
            del state
            size_before = _db_bytes(url, app.engine)
            mails_before, bytes_before, smtp_cpu_before = smtp.count()
            now = START + dt.timedelta(days=night, hours=6)
            # Profiled: the last night; with --age, each night from the last young one on, to FILE.turnT.
            suffix = f".turn{night + 1}" if age else ""
            profiled = night >= history
            results, poll_s, poll_cpu = _profiled(
                lambda: poll(app, now), PROFILE_POLL + suffix if PROFILE_POLL and profiled else ""
            )
            floor_s = _floor(app)
            run = lambda: run_current_turn(app.sessions, GAME, config, now)
            _, run_s, run_cpu = _profiled(run, PROFILE_TURN + suffix if PROFILE_TURN and profiled else "")
            # The worker refreshes the public pages after each turn it runs.
            assert config.site_dir is not None
            refresh = lambda: refresh_site(
                app.sessions, config.site_dir, GAME, now, host_address=config.from_address
            )
            _, site_s, site_cpu = _profiled(
                refresh, PROFILE_TURN + ".site" + suffix if PROFILE_TURN and profiled else ""
            )
            turn_s, turn_cpu = run_s + site_s, run_cpu + site_cpu
            send = lambda: send_outbox(app.sessions, config, now)
            (sent, failed), send_s, send_cpu = _profiled(
                send, PROFILE_SEND + suffix if PROFILE_SEND and profiled else ""
            )
            mails_after, bytes_after, smtp_cpu_after = smtp.count()
            outcomes: dict[str, int] = {}
            for r in results:
                outcomes[r.outcome] = outcomes.get(r.outcome, 0) + 1
            nights.append(
                {
                    "night": night,
                    "mails_in": len(raws),
                    "outcomes": outcomes,
                    "poll": poll_s,
                    "turn": turn_s,
                    "site": site_s,
                    "archived": aged,
                    "send": send_s,
                    "cpu": poll_cpu + turn_cpu + send_cpu,
                    "poll_cpu": poll_cpu,
                    "turn_cpu": turn_cpu,
                    "send_cpu": send_cpu,
                    "floor": floor_s,
                    "sent": sent,
                    "failed": failed,
                    "smtp_mails": mails_after - mails_before,
                    "smtp_mb": (bytes_after - bytes_before) / 1e6,
                    "smtp_cpu": smtp_cpu_after - smtp_cpu_before,
                    "db_growth_mb": (_db_bytes(url, app.engine) - size_before) / 1e6,
                }
            )
            print(
                f"  [{backend} N={n}] night {night}: poll {poll_s:.1f} s ({poll_cpu:.1f} s CPU), "
                f"turn {turn_s:.1f} s ({turn_cpu:.1f}; site {site_s:.1f}), send {send_s:.1f} s "
                f"({send_cpu:.1f}; the SMTP server's own {smtp_cpu_after - smtp_cpu_before:.1f})",
                file=sys.stderr,
            )
        app.close()
        return {
            "backend": backend,
            "n": n,
            "setup": setup,
            "nights": nights,
            "rss_mb": _rss_mb(),
            "load": os.getloadavg()[0],
        }
    finally:
        smtp.stop()
        dovecot.stop()
        if pg is not None:
            pg.stop()
        shutil.rmtree(work, ignore_errors=True)


# -- the table ------------------------------------------------------------------------------------


def _row(label: str, n: int, night: dict[str, Any], rss: float) -> str:
    total = night["poll"] + night["turn"] + night["send"]
    return (
        f"{n:>5} {label:<15} {night['poll']:>6.1f} {night['turn']:>6.1f} {night['site']:>6.2f} "
        f"{night['send']:>6.1f} {total:>6.1f} "
        f"{night['floor']:>6.2f} {night['turn'] / night['floor']:>6.1f}x "
        f"{night['mails_in'] / night['poll']:>7.0f} "
        f"{night['sent'] / night['send'] if night['send'] else 0:>7.0f} "
        f"{night['cpu']:>6.1f} {rss:>6.0f} {night['db_growth_mb']:>8.1f} {night['smtp_mb']:>7.1f}"
    )


def report(rows: list[dict[str, Any]]) -> None:
    for backend in sorted({r["backend"] for r in rows}):
        mine = sorted((r for r in rows if r["backend"] == backend), key=lambda r: r["n"])
        print(
            f"\n{backend}: seconds wall (poll, turn with the site's refresh,"
            " the site's refresh alone, send, night), floor s,"
        )
        print(
            "  turn/floor, mails/s in and out, CPU s, peak RSS MB, database growth MB over the night, MB sent"
        )
        print(
            "    N night             poll   turn   site   send  night  floor  ratio  in/s   out/s"
            "    CPU    RSS  db+MB   sentMB"
        )
        for r in mine:
            first, last = r["nights"][0], r["nights"][-1]
            print(_row("turn 1", r["n"], first, r["rss_mb"]))
            old = [night for night in r["nights"] if night["archived"]]
            if old:
                # The old game's night between the young nights played before and after it.
                aged = old[0]
                at = r["nights"].index(aged)
                before, after = r["nights"][at - 1], r["nights"][at + 1]
                for night, label in ((before, ""), (aged, " old"), (after, " young")):
                    print(_row(f"turn {night['night'] + 1}{label}", r["n"], night, r["rss_mb"]))
                young = {k: (before[k] + after[k]) / 2 for k in before if isinstance(before[k], float)}
                for what, keys in (
                    ("wall", ("poll", "turn", "site", "send")),
                    ("CPU", ("poll_cpu", "turn_cpu", "send_cpu")),
                ):
                    ratios = ", ".join(
                        f"{k.removesuffix('_cpu')} {aged[k] / young[k]:.2f}x" for k in keys if young[k]
                    )
                    print(
                        f"      {what}, turn {aged['night'] + 1} ({aged['archived']} turns copied)"
                        f" over the mean of turns {before['night'] + 1} and {after['night'] + 1}: {ratios}"
                    )
            elif len(r["nights"]) > 1:
                print(_row(f"turn {last['night'] + 1}", r["n"], last, r["rss_mb"]))
            # A shared machine's other work moves every figure: say how busy it was.
            print(f"      load average {r.get('load', float('nan')):.1f} at the end of N={r['n']}")
            failures = {
                k: v for night in r["nights"] for k, v in night["outcomes"].items() if k != "accepted"
            }
            if failures:
                print(f"      outcomes other than accepted over all nights: {failures}")
        for a, b in itertools.pairwise(mine):
            ca, cb = a["nights"][-1]["cpu"], b["nights"][-1]["cpu"]
            doublings = math.log2(b["n"] / a["n"])
            per = (cb / ca) ** (1 / doublings) if ca > 0 else float("nan")
            print(
                f"  CPU growth N={a['n']} -> {b['n']} (last night): {cb / ca:.1f}x,"
                f" {per:.2f}x per doubling of empires"
            )


def _drive(backend: str, sizes: list[int], history: int, age: int) -> list[dict[str, Any]]:
    """Each size in a process of its own, set up one after the other, then
    their nights taken in turns: every size's first night, then every size's
    second, and so on, one process working at a time. A shared machine's
    speed drifts over minutes; played one size after the other, the sizes'
    last nights were minutes apart and the CPU growth between them moved
    with that drift (7.3x to 12.9x over eight runs of the same code)."""
    procs = []
    try:
        for n in sizes:
            # Started as `python -c`, not as this script: the rendering processes
            # start by running the main script again, which for the turnproc
            # command costs nothing (turnproc.outgoing.reportmail) and for this one
            # would cost its test-server imports.
            procs.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-c",
                        CHILD,
                        "--child",
                        f"{backend}:{n}",
                        "--history",
                        str(history),
                        "--age",
                        str(age),
                    ],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                    env={**os.environ, "PYTHONHASHSEED": "0"},
                )
            )
        for proc in procs:  # set up, one at a time
            _expect(proc, "waiting")
            _go(proc)
            _expect(proc, "ready")
        last = {}
        for _ in _nights(history, age):
            for proc in procs:
                _go(proc)
                last[proc.pid] = _expect(proc, "ready", "{")
        rows = []
        for proc in procs:
            rows.append(json.loads(last[proc.pid]))  # the last night's answer is the results
            if proc.wait() != 0:
                raise SystemExit(f"a size's process failed ({proc.returncode})")
        return rows
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def _go(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.write("go\n")
    proc.stdin.flush()


def _expect(proc: subprocess.Popen[str], *starts: str) -> str:
    """Read the process's lines until one starts with one of ``starts``; that line."""
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith(starts):
            return line
    raise SystemExit(f"a size's process ended early ({proc.wait()})")


CHILD = "from benchmarks.night import main; main()"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="12,100,300,1000")
    ap.add_argument("--backends", default="sqlite,postgres")
    ap.add_argument(
        "--history", type=int, default=5, help="turns played before the last measured night (default 5)"
    )
    ap.add_argument(
        "--age",
        type=int,
        default=0,
        help="then fill the archive and play turn AGE too (e.g. 100; default: no)",
    )
    ap.add_argument(
        "--profile-turn",
        metavar="FILE",
        help="profile the last night's turn run into FILE, its site refresh into FILE.site (pstats)",
    )
    ap.add_argument("--profile-poll", metavar="FILE", help="profile the last night's poll into FILE (pstats)")
    ap.add_argument(
        "--profile-send",
        metavar="FILE",
        help="profile the last night's send (its calling thread) into FILE (pstats)",
    )
    ap.add_argument("--sink", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument(
        "--check",
        action="store_true",
        help="run as the baseline was made and fail when a phase's ratio to the calibration is worse "
        "than the baseline's by more than --tolerance (benchmarks/baseline.py)",
    )
    ap.add_argument(
        "--save-baseline", action="store_true", help="write this run's ratios to the baseline file"
    )
    ap.add_argument(
        "--baseline", type=Path, default=baseline.BASELINE, help="the baseline file (default %(default)s)"
    )
    ap.add_argument(
        "--tolerance",
        type=float,
        default=baseline.TOLERANCE,
        help="how much worse a ratio may be, as a fraction (default %(default)s)",
    )
    args = ap.parse_args()
    if args.check:  # the baseline's sizes, backends and history, unless the command line says otherwise
        ap.set_defaults(**baseline.load(args.baseline)["run"])
        args = ap.parse_args()
    if args.sink:
        sink(args.sink)
        return
    if args.child:
        backend, n = args.child.split(":")
        print(json.dumps(child(backend, int(n), args.history, args.age)))
        return
    if args.profile_turn:
        os.environ["TURNPROC_NIGHT_PROFILE_TURN"] = str(Path(args.profile_turn).resolve())
    if args.profile_poll:
        os.environ["TURNPROC_NIGHT_PROFILE_POLL"] = str(Path(args.profile_poll).resolve())
    if args.profile_send:
        os.environ["TURNPROC_NIGHT_PROFILE_SEND"] = str(Path(args.profile_send).resolve())
    gauge = baseline.Gauge() if args.check or args.save_baseline else None
    rows = []
    for backend in args.backends.split(","):
        rows += _drive(backend, [int(x) for x in args.sizes.split(",")], args.history, args.age)
    aged = f", then the archive filled to turn {args.age - 1} and turn {args.age} played" if args.age else ""
    fsync = ", PostgreSQL with fsync on" if "postgres" in args.backends else ""
    print(f"\nnight benchmark, {os.cpu_count()} CPUs, history {args.history} turns{aged}{fsync}")
    report(rows)
    if gauge is not None:
        run = {"sizes": args.sizes, "backends": args.backends, "history": args.history}
        sys.exit(
            gauge.finish(
                rows,
                run,
                args.baseline,
                save_to=args.save_baseline,
                check=args.check,
                tolerance=args.tolerance,
            )
        )


if __name__ == "__main__":
    main()
