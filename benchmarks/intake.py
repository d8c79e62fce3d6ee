"""Intake benchmark: N order mails for a game of E empires, through a private
Dovecot, end to end (fetch, parse, authenticate, validate, store, queue ack),
against a bare imapclient fetch of the same mails in the same run.

    .venv/bin/python benchmarks/intake.py [--mails 2000] [--empires 200]

Needs dovecot (apt-get install dovecot-imapd). Prints mails/s for both and the ratio.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import sys
import tempfile
import time
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from imapclient import IMAPClient  # noqa: E402

from tests.servers import DovecotServer  # noqa: E402
from turnproc.app import open_app  # noqa: E402
from turnproc.config import Config, ImapConfig  # noqa: E402
from turnproc.games import add_empire, new_game# noqa: E402
from turnproc.intake import poll# noqa: E402
from turnproc.storage.convert import load_state  # noqa: E402
from turnproc.storage.db import transaction  # noqa: E402

USER, PASSWORD = "turns", "bench"


def empire_code(i: int) -> str:
    return "".join(chr(65 + (i // 26**k) % 26) for k in (2, 1, 0))


def order_lines(state, code: str, rng: random.Random) -> list[str]:
    owned = [s for s in state.owned_by(code)]
    star = next(s for s in owned if s.star is None)
    neighbours = [n for n in state.neighbours(star.code) if state.systems[n].owner is None]
    lines = []
    for n in neighbours[:3]:
        lines.append(f"MOVE {star.code} {n} 1")
    far = [c for c in state.seen[code] if state.systems[c].type.value not in ("PL", "AB")]
    lines.append(f"DISTSQ {star.code} {rng.choice(far)}")
    lines += [f"NEWCRS {star.code} 1", "TAX", f"DEFEND {star.code}", f"NAME {star.code} Capital {code}"]
    if rng.random() < 0.2:
        lines.append("MOVE 100 101 ALL")  # a typical mistake, answered with an error
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mails", type=int, default=2000)
    ap.add_argument("--empires", type=int, default=200)
    ap.add_argument("--profile", action="store_true", help="print where the intake spends its time")
    ap.add_argument("--sort", default="tottime", help="profile order (tottime, cumtime)")
    args = ap.parse_args()

    server = DovecotServer({USER: PASSWORD})
    server.start()
    work = Path(tempfile.mkdtemp(prefix="turnproc-bench-"))
    try:
        config = Config(
            database_url=f"sqlite:///{work / 'bench.db'}",
            transport="imap",
            from_address="Host <turns@turnproc.example>",
            imap=ImapConfig(host="127.0.0.1", port=server.port, security="plain", user=USER, password=PASSWORD),
        )
        app = open_app(config)
        t0 = time.perf_counter()
        with transaction(app.sessions) as session:
            game, _ = new_game(session, "bench", players=args.empires, seed="bench")
            passwords = {}
            for i in range(args.empires):
                code = empire_code(i)
                _, passwords[code] = add_empire(session, game, code, f"Empire {code}", f"p{i}@example.org")
            state = load_state(session, game)
        print(f"set-up: game of {args.empires} empires, {len(state.systems)} systems in {time.perf_counter() - t0:.1f} s")

        rng = random.Random(1)
        codes = sorted(passwords)
        raws = []
        when = dt.datetime(2026, 1, 5, tzinfo=dt.timezone.utc)
        for i in range(args.mails):
            code = codes[i % len(codes)]
            msg = EmailMessage()
            msg["From"] = f"p{codes.index(code)}@example.org"
            msg["To"] = "turns@turnproc.example"
            msg["Subject"] = f"orders {i}"
            msg["Date"] = format_datetime(when + dt.timedelta(seconds=i))
            msg["Message-ID"] = make_msgid(domain="example.org")
            body = ["GAME bench", f"EMPIRE {code} {passwords[code]}", "TURN 1", *order_lines(state, code, rng), "END"]
            msg.set_content("\n".join(body) + "\n")
            raws.append(bytes(msg))
        client = IMAPClient("127.0.0.1", port=server.port, ssl=False)
        client.login(USER, PASSWORD)
        for i in range(0, len(raws), 200):
            client.multiappend("INBOX", raws[i : i + 200])
        client.logout()
        total_bytes = sum(len(r) for r in raws)
        print(f"loaded {len(raws)} mails ({total_bytes / 1e6:.1f} MB) into Dovecot")

        # The floor: a bare imapclient fetch of the same mails, same batch size.
        t0 = time.perf_counter()
        client = IMAPClient("127.0.0.1", port=server.port, ssl=False)
        client.login(USER, PASSWORD)
        client.select_folder("INBOX")
        uids = sorted(client.search(["NOT", "DELETED"]))
        fetched = 0
        for i in range(0, len(uids), 100):
            fetched += len(client.fetch(uids[i : i + 100], ["BODY.PEEK[]"]))
        client.logout()
        bare = time.perf_counter() - t0
        assert fetched == args.mails

        profiler = None
        if args.profile:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        t0 = time.perf_counter()
        results = poll(app, dt.datetime(2026, 1, 6, tzinfo=dt.timezone.utc))
        full = time.perf_counter() - t0
        if profiler is not None:
            import pstats

            profiler.disable()
            stats = pstats.Stats(profiler).sort_stats(args.sort)
            stats.print_stats(30)
            stats.print_callees("handle_mail|handle|accept|reply")
        outcomes: dict[str, int] = {}
        for r in results:
            outcomes[r.outcome] = outcomes.get(r.outcome, 0) + 1
        assert len(results) == args.mails, outcomes

        print(f"bare imapclient fetch : {args.mails} mails in {bare:6.2f} s = {args.mails / bare:8.1f} mails/s")
        print(f"intake end to end     : {args.mails} mails in {full:6.2f} s = {args.mails / full:8.1f} mails/s  {outcomes}")
        print(f"ratio intake / bare fetch time: {full / bare:.2f}x  (target: >= 200 mails/s and <= 2x)")
        app.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
