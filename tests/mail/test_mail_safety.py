"""Order mail that never loses a player's orders, tried as players and as a
hostile sender would: every mail goes through a real Dovecot, on SQLite and
on PostgreSQL (docs/orders.md "Sending again", "No answer at all?").
"""

from __future__ import annotations

import base64
import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from imapclient import IMAPClient
from sqlalchemy import inspect, select, text

from tests.conftest import IMAP_PASSWORD, IMAP_USER
from tests.factories import EMAILS, HOST_ADDRESS, PASSWORD, imap_app, make_game, order_mail
from tests.mailrows import with_bodies
from turnproc.app import App, open_app
from turnproc.config import Config
from turnproc.games.game import game_summary
from turnproc.intake import IntakeResult, handle_mail, poll
from turnproc.storage import models as m
from turnproc.storage.db import transaction
from turnproc.storage.queries import get_game, load_game_view

NOW = dt.datetime(2026, 1, 5, 19, 0, tzinfo=dt.timezone.utc)
GOOD = "TAX\nMOVE 101 103 1"


@dataclass
class Box:
    app: App
    imap_port: int

    def client(self) -> IMAPClient:
        client = IMAPClient("127.0.0.1", port=self.imap_port, ssl=False)
        client.login(IMAP_USER, IMAP_PASSWORD)
        return client

    def deliver(self, *raws: bytes) -> None:
        client = self.client()
        for raw in raws:
            client.append("INBOX", raw)
        client.logout()

    def poll(self, now: dt.datetime = NOW) -> list[IntakeResult]:
        return poll(self.app, now)

    def count(self, folder: str) -> int:
        client = self.client()
        try:
            if not client.folder_exists(folder):
                return 0
            return len(client.select_folder(folder, readonly=True) and client.search(["ALL"]))
        finally:
            client.logout()

    def outbox(self, kind: str | None = None) -> list[m.OutboxMail]:
        with self.app.sessions() as session:
            query = select(m.OutboxMail).order_by(m.OutboxMail.id)
            if kind is not None:
                query = query.where(m.OutboxMail.kind == kind)
            return with_bodies(session, list(session.scalars(query)), self.app.config.from_address)

    def on_file(self, code: str = "RIG") -> list[str] | None:
        with self.app.sessions() as session:
            row = session.scalars(
                select(m.OrderSet)
                .join(m.Empire)
                .where(m.Empire.code == code, m.OrderSet.active.is_(True))
                .order_by(m.OrderSet.id.desc())
            ).first()
            return None if row is None else list(row.lines)

    def inbound(self) -> list[m.InboundMessage]:
        with self.app.sessions() as session:
            return list(session.scalars(select(m.InboundMessage).order_by(m.InboundMessage.id)))


def body(mail: m.OutboxMail) -> str:
    msg = message_from_bytes(mail.body, policy=policy.default)
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


@pytest.fixture
def box(db_url: str, imap, smtp_server) -> Iterator[Box]:
    app = imap_app(db_url, imap.port, smtp_server.port, IMAP_USER, IMAP_PASSWORD, gm_address="gm@example.org")
    yield Box(app, imap.port)
    app.close()


def mail_at(minutes: int, text: str, **kw: object) -> bytes:
    """An order mail written ``minutes`` after 18:00 on NOW's day."""
    msg = message_from_bytes(order_mail(text, **kw), policy=policy.default)  # type: ignore[arg-type]
    del msg["Date"]
    msg["Date"] = (NOW.replace(hour=18) + dt.timedelta(minutes=minutes)).strftime(
        "%a, %d %b %Y %H:%M:%S +0000"
    )
    return msg.as_bytes()


# -- orders lost or wrong ----------------------------------------------------------------


@pytest.mark.parametrize("typo", ["ORDER", "ORDERS 2", "HLEP"])
def test_a_mistyped_command_keeps_the_orders_on_file(box: Box, typo: str) -> None:
    box.deliver(mail_at(1, GOOD), mail_at(2, typo))
    box.poll()
    assert box.on_file() == ["TAX", "MOVE 101 103 1"]
    ack = body(box.outbox("ack")[-1])
    assert "none of its order lines could be accepted, so the orders on file are unchanged" in ack
    assert "Orders now on file (2/16 slots):\n  TAX\n  MOVE 101 103 1" in ack
    with box.app.sessions() as session:
        view = load_game_view(session, name="corpus")
        assert view is not None
        assert {e.code: e.orders_at is not None for e in view[1].empires} == {"RIG": True, "VEG": False}


def test_a_mail_whose_lines_all_fail_is_not_orders_in(box: Box) -> None:
    box.deliver(mail_at(1, "ORDER"))
    box.poll()
    assert box.on_file() is None
    with box.app.sessions() as session:
        summary = game_summary(session, get_game(session, "corpus"), NOW)
    assert all(e.orders_at is None for e in summary.view.empires)  # game show says "no orders"


def test_a_relays_second_copy_is_not_applied_again(box: Box) -> None:
    first = mail_at(1, "TAX", message_id="<relay-1@players.example>")
    box.deliver(first, mail_at(2, GOOD))
    box.poll()
    again = b"Received: from relay.example by mx.example; Mon, 5 Jan 2026 19:30:00 +0000\r\n" + first
    box.deliver(again)
    results = box.poll(NOW + dt.timedelta(minutes=30))
    assert [r.outcome for r in results] == ["duplicate"]
    assert box.on_file() == ["TAX", "MOVE 101 103 1"]
    assert len(box.outbox("ack")) == 2
    assert box.count("INBOX") == 0


def test_of_two_mails_the_one_written_later_counts(box: Box) -> None:
    box.deliver(mail_at(10, GOOD), mail_at(5, "TAX"))
    outcomes = [r.outcome for r in box.poll()]
    assert outcomes == ["accepted", "older"]
    assert box.on_file() == ["TAX", "MOVE 101 103 1"]
    assert "so those stay on file" in body(box.outbox("ack")[-1])


def test_a_mail_dated_in_the_future_does_not_lock_later_mail_out(box: Box) -> None:
    future = mail_at(60 * 24 * 365, "TAX")  # a wrong clock, a year ahead
    box.deliver(future)
    box.poll()
    box.deliver(mail_at(70, GOOD))
    box.poll(NOW + dt.timedelta(hours=1))
    assert box.on_file() == ["TAX", "MOVE 101 103 1"]


def test_a_mail_without_from_is_refused_and_the_owner_told(box: Box) -> None:
    msg = message_from_bytes(mail_at(1, GOOD), policy=policy.default)
    del msg["From"]
    box.deliver(msg.as_bytes())
    results = box.poll()
    assert [r.outcome for r in results] == ["rejected"]
    assert box.on_file() is None
    [answer] = box.outbox()
    assert answer.recipient == EMAILS["RIG"]
    assert "arrived with no From address" in body(answer)


# -- mail that must never stay stuck -------------------------------------------------------


def deep_multipart(depth: int) -> bytes:
    head = (
        f"From: {EMAILS['RIG']}\r\nTo: {HOST_ADDRESS}\r\nSubject: deep\r\n"
        "Message-ID: <deep@x.example>\r\nMIME-Version: 1.0\r\n"
    )
    parts = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\r\n\r\n--b{i}\r\n' for i in range(depth))
    inner = f"Content-Type: text/plain\r\n\r\nGAME corpus\r\nEMPIRE RIG {PASSWORD}\r\nTAX\r\n"
    tail = "".join(f"\r\n--b{i}--\r\n" for i in reversed(range(depth)))
    return (head + parts + inner + tail).encode()


def test_a_2000_deep_multipart_is_refused_with_an_answer(box: Box) -> None:
    box.deliver(deep_multipart(2000))
    results = box.poll()
    assert [r.outcome for r in results] == ["rejected"]
    assert box.count("INBOX") == 0
    # 2,000 multiparts are 2,000 parts: refused from the bytes, before the parser nests in
    assert "the mail has more than 200 MIME parts" in body(box.outbox()[0])


def hostile(**headers: str) -> bytes:
    msg = EmailMessage()
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(f"GAME corpus\nEMPIRE RIG {PASSWORD}\nTAX\n")
    return msg.as_bytes()


def test_nul_bytes_long_subjects_and_long_senders_are_handled_on_every_database(box: Box) -> None:
    nul_subject = hostile(
        From=EMAILS["RIG"],
        To=HOST_ADDRESS,
        Subject="=?utf-8?b?" + base64.b64encode(b"ord\x00ers").decode() + "?=",
    )
    b64 = (
        f"From: {EMAILS['RIG']}\r\nTo: {HOST_ADDRESS}\r\nSubject: b64\r\nMIME-Version: 1.0\r\n"
        "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n"
        + base64.b64encode(
            f"GAME corpus\nEMPIRE RIG {PASSWORD}\nTAX\nMOVE 101 103 1\nMESSAGE ALL null\x00byte\n".encode()
        ).decode()
        + "\r\n"
    ).encode()
    long_subject = hostile(From=EMAILS["RIG"], To=HOST_ADDRESS, Subject="orders " + "x" * 2250)
    long_sender = hostile(From="a" * 300 + "@example.org", To=HOST_ADDRESS, Subject="long sender")
    box.deliver(nul_subject, long_subject, long_sender, b64)
    results = box.poll()
    assert len(results) == 4 and "failed" not in [r.outcome for r in results]
    assert box.count("INBOX") == 0
    # A NUL is not deleted (that would store "nullbyte", a line nobody wrote):
    # the line is bad_text, as docs/orders.md promises, and the rest is stored.
    assert box.on_file() == ["TAX", "MOVE 101 103 1"]
    [ack] = [mail for mail in box.outbox() if mail.subject == "Re: b64"]
    assert "ERROR [bad_text]" in body(ack) and "   5  MESSAGE ALL null" in body(ack)
    subjects = [mail.subject for mail in box.outbox()]
    assert all(len(s) <= 998 for s in subjects)


def test_a_mail_that_keeps_failing_is_set_aside_and_the_gm_told(
    box: Box, monkeypatch: pytest.MonkeyPatch
) -> None:
    import turnproc.intake.inbox as inbox

    def broken(*args: object, **kwargs: object) -> IntakeResult:
        raise RuntimeError("a bug of ours")

    monkeypatch.setattr(inbox, "handle_mail", broken)
    box.deliver(mail_at(1, GOOD))
    for attempt in range(1, 4):
        results = box.poll(NOW + dt.timedelta(minutes=attempt))
        assert [r.outcome for r in results] == ["failed"]
    assert box.count("INBOX") == 0 and box.count("Failed") == 1
    [notice] = box.outbox()
    assert notice.recipient == "gm@example.org" and "set aside" in notice.subject
    assert "a bug of ours" in body(notice)
    # Fixed, and moved back by the GM: handled afresh.
    monkeypatch.undo()
    client = box.client()
    client.select_folder("Failed")
    client.move(client.search(["ALL"]), "INBOX")
    client.logout()
    assert [r.outcome for r in box.poll(NOW + dt.timedelta(hours=1))] == ["accepted"]


# -- answers that mislead or never come ------------------------------------------------------


def test_reply_to_decides_nothing_about_who_sent_a_mail(box: Box) -> None:
    stranger = mail_at(1, GOOD, sender="mallory@evil.example")
    msg = message_from_bytes(stranger, policy=policy.default)
    msg["Reply-To"] = EMAILS["RIG"]
    box.deliver(msg.as_bytes())
    box.poll()
    [ack] = box.outbox("ack")
    assert ack.recipient == EMAILS["RIG"]
    assert "This mail came from mallory@evil.example" in body(ack)
    assert box.inbound()[0].sender == "mallory@evil.example"


def test_a_wrong_password_warning_names_the_from_address(box: Box) -> None:
    msg = message_from_bytes(
        mail_at(1, GOOD, sender="mallory@evil.example", password="guess"), policy=policy.default
    )
    msg["Reply-To"] = EMAILS["RIG"]
    box.deliver(msg.as_bytes())
    box.poll()
    assert not box.outbox("reject")  # not answered one by one: the digest tells the owner
    [digest] = [d for d in box.outbox("guessing") if d.recipient == EMAILS["RIG"]]
    assert "mallory@evil.example: 1" in body(digest)
    assert "arrived from mallory@evil.example with a wrong password" in body(digest)


@pytest.mark.parametrize(
    "subject",
    [
        "Out of Office: Re: Orders",
        "Automatische Antwort: Orders",
        "Automatic reply: orders",
        "Réponse automatique : ordres",
    ],
)
def test_out_of_office_replies_are_known_by_their_subject(box: Box, subject: str) -> None:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = EMAILS["RIG"], HOST_ADDRESS, subject
    msg.set_content("I am away until Monday.\n\n> GAME corpus\n> EMPIRE RIG <your password>\n")
    box.deliver(msg.as_bytes())
    assert [r.outcome for r in box.poll()] == ["ignored"]
    assert box.outbox() == []


def test_html_only_mail_is_numbered_as_the_player_sees_it(box: Box) -> None:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = EMAILS["RIG"], HOST_ADDRESS, "orders"
    html = (
        "<html><head><style>p {margin:0}</style></head><body>"
        "<div>Hello host,</div><div><br></div>"
        f"<div>GAME corpus</div><div>EMPIRE RIG {PASSWORD}</div><div><br></div>"
        "<p class=MsoNormal>TAX<o:p></o:p></p><p class=MsoNormal>MOVE 101 103 1</p>"
        "<p class=MsoNormal>BOGUS 1</p>"
        "</body></html>"
    )
    msg.set_content(html, subtype="html")
    box.deliver(msg.as_bytes())
    box.poll()
    ack = body(box.outbox("ack")[0])
    # Lines as shown: 1 Hello, 2 blank, 3 GAME, 4 EMPIRE, 5 blank, 6 TAX, 7 MOVE, 8 BOGUS.
    assert "   6  TAX" in ack and "   7  MOVE 101 103 1" in ack and "   8  BOGUS 1" in ack


@pytest.mark.parametrize(
    ("password", "words"),
    [
        ("", "without a password: The EMPIRE line has no password"),
        ("<password>", "without a password: The EMPIRE line still has the order form's placeholder"),
        ("<pw>", "without a password: The EMPIRE line still has the order form's placeholder"),
    ],
)
def test_a_missing_or_placeholder_password_gets_its_own_answer(box: Box, password: str, words: str) -> None:
    """In the owner's digest: the latest such mail's reason, in the parser's words."""
    box.deliver(mail_at(1, GOOD, password=password))
    box.poll()
    [answer] = [d for d in box.outbox("guessing") if d.recipient == EMAILS["RIG"]]
    assert words in body(answer)


def turn_one_report(box: Box) -> str:
    from turnproc.turns.run import run_turn

    with transaction(box.app.sessions) as session:
        result = run_turn(session, get_game(session, "corpus"), box.app.config, NOW)
    return result.report_text("RIG")


def test_a_report_pasted_above_the_orders_is_ignored(box: Box) -> None:
    """docs/orders.md: anything above the header is ignored, even a whole report
    with its own order form (EMPIRE RIG <password>)."""
    report = turn_one_report(box)
    assert "EMPIRE RIG <password>" in report
    box.deliver(
        mail_at(
            61, report + "\n\n" + f"GAME corpus\nEMPIRE RIG {PASSWORD}\n{GOOD}\nEND\n", password=PASSWORD
        ).replace(b"GAME corpus\nEMPIRE RIG sesame\n", b"", 1)
    )
    results = box.poll(NOW + dt.timedelta(hours=2))
    assert [r.outcome for r in results] == ["accepted"]
    assert box.outbox("reject") == []
    assert box.on_file() == ["TAX", "MOVE 101 103 1"]


def test_an_outlook_reply_with_the_report_below_is_read_without_errors(box: Box) -> None:
    report = turn_one_report(box)
    outlook = (
        f"{GOOD}\n\n________________________________\nFrom: Host <{HOST_ADDRESS}>\n"
        "Sent: Monday, January 5, 2026 7:00 PM\nTo: ann@example.org\nSubject: corpus turn 1 report\n\n"
        + report
    )
    box.deliver(mail_at(61, outlook))
    box.poll(NOW + dt.timedelta(hours=2))
    ack = body(box.outbox("ack")[-1])
    assert "Orders received" in ack and "ERROR" not in ack
    assert "Not read:\n  lines 6-" in ack and ": the mail you replied to" in ack
    assert box.on_file() == ["TAX", "MOVE 101 103 1"]


def test_gmails_on_wrote_line_ends_the_orders(box: Box) -> None:
    gmail = (
        f"{GOOD}\n\nOn Mon, 5 Jan 2026 at 19:00, Host <{HOST_ADDRESS}> wrote:\n"
        "> Orders received for game corpus\n> bla\n"
    )
    box.deliver(mail_at(1, gmail))
    box.poll()
    ack = body(box.outbox("ack")[-1])
    assert ("ERROR" not in ack and "quoted text (lines starting with >)" not in ack) or "Not read:" in ack
    assert box.on_file() == ["TAX", "MOVE 101 103 1"]


def test_a_top_posted_reply_without_a_header_is_told_why(box: Box) -> None:
    raw = (
        f"From: {EMAILS['RIG']}\r\nTo: {HOST_ADDRESS}\r\nSubject: Re: orders\r\n\r\nTAX\r\n\r\n"
        f"On Mon, 5 Jan 2026 at 18:00, Ann <{EMAILS['RIG']}> wrote:\r\n"
        f"> GAME corpus\r\n> EMPIRE RIG {PASSWORD}\r\n> TAX\r\n"
    ).encode()
    box.deliver(raw)
    box.poll()
    [answer] = box.outbox()
    text = body(answer)
    assert "only in quoted text" in text and "for game ?" not in text


def test_a_misspelt_game_gets_a_suggestion(box: Box) -> None:
    box.deliver(mail_at(1, GOOD, game="corpsu"))
    box.poll()
    assert "there is no game called 'corpsu' here (did you mean corpus?)" in body(box.outbox()[0])


def test_orders_attached_to_a_mail_that_says_so_are_read(box: Box) -> None:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = EMAILS["RIG"], HOST_ADDRESS, "orders"
    msg.set_content("Hi, my orders are attached.\n\nAnn\n")
    msg.add_attachment(f"GAME corpus\nEMPIRE RIG {PASSWORD}\n{GOOD}\n", filename="orders.txt")
    box.deliver(msg.as_bytes())
    assert [r.outcome for r in box.poll()] == ["accepted"]
    assert box.on_file() == ["TAX", "MOVE 101 103 1"]


def test_answers_held_back_are_recorded_and_shown_to_the_gm(box: Box) -> None:
    """A player's second header mistake within the hour gets no answer (one an
    hour for mail we cannot place), and the GM can see that it was held back."""
    mistake = (
        f"From: {EMAILS['RIG']}\r\nTo: turns@turnproc.example\r\nSubject: hi\r\n\r\nGAME corpus\r\nTAX\r\n"
    ).encode()
    box.deliver(mistake, mistake.replace(b"TAX", b"TAX again"))
    box.poll()
    assert len(box.outbox("unknown")) == 1
    with box.app.sessions() as session:
        held = list(session.scalars(select(m.SuppressedReply)))
        assert [(r.recipient, r.kind) for r in held] == [(EMAILS["RIG"], "unknown")]
        assert "replies to this address in the last hour" in held[0].reason
        # `turnproc game show` lists it (docs/gm-schema.md, docs/orders.md).
        [(_, recipient, kind, reason)] = game_summary(session, get_game(session, "corpus"), NOW).suppressed
        assert (recipient, kind) == (EMAILS["RIG"], "unknown") and reason == held[0].reason


def test_a_big_mail_from_a_registered_player_counts_against_the_refusal_cap(box: Box) -> None:
    big = mail_at(1, GOOD + "\n" + "# padding\n" * 30000)
    box.deliver(big, mail_at(2, GOOD + "\n" + "# more padding\n" * 20000))
    box.poll()
    refusals = box.outbox("reject")
    assert len(refusals) == 2 and all(r.recipient == EMAILS["RIG"] for r in refusals)
    assert "longer than 256 KiB" in body(refusals[0])


def test_report_copies_are_capped_at_five_an_hour_as_documented(box: Box) -> None:
    from turnproc.turns.run import run_turn

    with transaction(box.app.sessions) as session:
        run_turn(session, get_game(session, "corpus"), box.app.config, NOW)
    box.deliver(*(mail_at(i, "REPORT", subject=f"report {i}") for i in range(7)))
    box.poll(NOW + dt.timedelta(minutes=5))
    assert len(box.outbox("report_copy")) == 5


def test_no_reply_goes_to_something_that_is_not_an_address(box: Box) -> None:
    raw = (
        b"From: ann at players dot example\r\nTo: turns@turnproc.example\r\nSubject: x\r\n\r\n"
        b"GAME corpus\r\nEMPIRE XYZ pw\r\n"
    )
    box.deliver(raw)
    box.poll()
    assert box.outbox() == []
    with box.app.sessions() as session:
        [held] = session.scalars(select(m.SuppressedReply))
        # Read strictly, such a From names no address: the mail is from nobody.
        assert "no From address" in held.reason


def test_no_password_is_stored_anywhere(box: Box) -> None:
    box.deliver(
        mail_at(1, GOOD), mail_at(2, "TAX\n> EMPIRE RIG " + PASSWORD), mail_at(3, GOOD, password="wrong-one")
    )
    box.poll()
    with box.app.engine.connect() as conn:
        for table in inspect(conn).get_table_names():
            for row in conn.execute(text(f'SELECT * FROM "{table}"')):
                for value in row:
                    data = value if isinstance(value, bytes) else str(value).encode()
                    assert PASSWORD.encode() not in data, f"the password is in table {table}"


# -- the rule, for any sequence of mails -------------------------------------------------------

VALID = ["TAX", "MOVE 101 103 1", "NEWCRS 101 1", "STASH 2", "NAME 101 Rigel Prime"]
INVALID = ["ORDER", "BOGUS 1", "MOVE 999 1000 1", "HELP"]
COMMANDS = ["WAIT", "ORDERS", "CLEAR"]


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    mails=st.lists(
        st.lists(st.sampled_from(VALID + INVALID + COMMANDS), min_size=1, max_size=5, unique=True),
        min_size=1,
        max_size=6,
    )
)
def test_orders_on_file_are_those_of_the_newest_mail_with_an_accepted_line(
    sqlite_url: str, mails: list[list[str]]
) -> None:
    """docs/orders.md "Sending again": whatever a player sends, in order, the
    orders on file are those of the newest mail that had at least one accepted
    line, or none after a CLEAR without orders."""
    app = open_app(Config(database_url=sqlite_url, from_address=HOST_ADDRESS))
    try:
        with transaction(app.sessions) as session:
            name = f"p{session.scalar(select(m.Game.id).order_by(m.Game.id.desc()).limit(1)) or 0}"
            make_game(session, name)
        expected: list[str] | None = None
        for i, lines in enumerate(mails):
            with transaction(app.sessions) as session:
                handle_mail(session, mail_at(i, "\n".join(lines), game=name), app.config, NOW)
            accepted = [line for line in lines if line in VALID]
            if "CLEAR" in lines and not accepted:
                expected = None
            elif accepted:
                expected = accepted
        with app.sessions() as session:
            game = get_game(session, name)
            row = session.scalars(
                select(m.OrderSet)
                .join(m.Empire)
                .where(m.OrderSet.game_id == game.id, m.Empire.code == "RIG", m.OrderSet.active.is_(True))
                .order_by(m.OrderSet.id.desc())
            ).first()
            assert (list(row.lines) if row is not None else None) == expected
    finally:
        app.close()


# -- no backscatter, no password guessing (issue: security) ------------------------------------


def test_headerless_mail_with_forged_senders_is_never_answered(box: Box) -> None:
    forged = [
        f"From: victim{i}@example.com\r\nTo: {HOST_ADDRESS}\r\nSubject: buy now\r\n\r\nhello\r\n".encode()
        for i in range(30)
    ]
    box.deliver(*forged)
    assert len(box.poll()) == 30
    assert box.outbox() == []


def test_strangers_naming_a_game_get_a_few_answers_an_hour_in_all(box: Box) -> None:
    strangers = [
        (
            f"From: new{i}@example.com\r\nTo: {HOST_ADDRESS}\r\nSubject: join\r\n\r\n"
            "GAME corpus\r\nEMPIRE NEW x\r\n"
        ).encode()
        for i in range(10)
    ]
    box.deliver(*strangers)
    box.poll()
    assert len(box.outbox("stranger")) == box.app.config.stranger_replies_per_hour == 3


def test_password_guessing_locks_no_one_out_and_the_owner_and_gm_are_told_once(box: Box) -> None:
    """Over IMAP: forged guesses "from" the owner's own address lock nobody out."""
    guesses = [mail_at(i, GOOD, sender=EMAILS["RIG"].upper(), password=f"guess{i}") for i in range(12)]
    box.deliver(*guesses, mail_at(20, GOOD))
    outcomes = [r.outcome for r in box.poll()]
    assert outcomes == ["wrong_password"] * 12 + ["accepted"]
    digests = box.outbox("guessing")
    assert sorted(n.recipient for n in digests) == [EMAILS["RIG"], "gm@example.org"]
    assert box.on_file() == ["TAX", "MOVE 101 103 1"]
