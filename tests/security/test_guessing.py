"""Password guessing, tried as a rival in a public game would, through the
real intake (Maildir in, the outbox out) on SQLite and PostgreSQL: forged
mail never stops or delays the owner's correct mail, a flood costs scrypt only
for the guesses that match the empire's password tag, and the owner and the
GM hear of it in one digest (docs/orders.md, docs/gm-handbook.md "Passwords
and guessing", deploy/OPERATIONS.md "The password key")."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select

from tests.mail.test_intake_passwords import Counted, scrypt  # noqa: F401 - scrypt is the fixture
from tests.security.host import FORGED_FROMS, GM, NOW, OWNER, deliver, mail, on_file, outbox, text_of
from turnproc.accounts.passwordkey import load_key
from turnproc.app import App
from turnproc.intake import inbox, poll_maildir
from turnproc.intake.cache import IntakeCache
from turnproc.intake.guessing import DIGEST_EVERY
from turnproc.storage import models as m


@pytest.mark.slow
def test_a_thousand_forged_guesses_neither_stop_nor_delay_the_owner(app: App, scrypt: Counted) -> None:
    """1,000 wrong passwords "from" the owner (case and display-name variants)
    and the owner's correct mail in one poll: the owner's orders are accepted
    and acknowledged in that poll; the owner and the GM get one digest each,
    and no one is answered mail by mail."""
    forged = [
        mail("MOVE 101 103 9", sender=FORGED_FROMS[i % len(FORGED_FROMS)], password=f"guess{i:04}")
        for i in range(1000)
    ]
    deliver(app, *forged[:500], mail("TAX\nMOVE 101 103 1"), *forged[500:])
    results = poll_maildir(app, NOW)
    assert sorted(r.outcome for r in results) == ["accepted"] + ["wrong_password"] * 1000
    assert on_file(app) == ["TAX", "MOVE 101 103 1"]
    [ack] = outbox(app, "ack")
    assert ack.recipient == OWNER and text_of(ack).startswith(
        "Orders received for game corpus, empire RIG, turn 1."
    )
    digests = outbox(app, "guessing")
    assert sorted(d.recipient for d in digests) == sorted([GM, OWNER])
    assert {d.recipient: d.subject for d in digests} == {
        OWNER: "[corpus] 1000 mails with a wrong password for RIG",
        GM: "[corpus] 1000 mails with a wrong password for 1 empire",
    }
    assert {d.kind for d in outbox(app)} == {"ack", "guessing"}  # nothing else, to no one else
    # Untagged before (made before tags), the empire got its tag from the
    # owner's mail: of the guesses after it, those of its batch and of the
    # next (handed to the pool ahead) were checked as before, the rest only
    # when they matched the tag.
    with app.sessions() as session:
        rig = session.scalars(select(m.Empire).where(m.Empire.code == "RIG")).one()
        key = load_key(app.config)
        assert key.valid(rig.password_hash, rig.password_tag)
        later = range(500 + 2 * inbox.BATCH, 1000)
        matches = [
            f"guess{i:04}"
            for i in later
            if not key.rules_out(rig.id, rig.password_hash, rig.password_tag, f"guess{i:04}")
        ]
    assert sorted(c for c in scrypt.calls if c.startswith("guess") and int(c[5:]) in later) == matches
    assert len(matches) < 10  # one in 4,096 of 300


def test_the_digest_goes_once_a_day_to_owner_and_gm_never_to_the_sender(app: App) -> None:
    deliver(app, *(mail("TAX", sender="mallory@evil.example", password=f"g{i}") for i in range(3)))
    poll_maildir(app, NOW)
    [owner, gm] = sorted(outbox(app, "guessing"), key=lambda d: d.recipient != OWNER)
    assert (owner.recipient, gm.recipient) == (OWNER, GM)
    body = text_of(owner)
    assert "3 mails with a wrong or missing password arrived" in body and "mallory@evil.example: 3" in body
    assert all(row.recipient != "mallory@evil.example" for row in outbox(app))
    # More within the day: counted, not told.
    deliver(app, *(mail("TAX", sender="eve@evil.example", password=f"h{i}") for i in range(4)))
    poll_maildir(app, NOW + dt.timedelta(hours=5))
    assert len(outbox(app, "guessing")) == 2
    # A day after the last digest, the next wrong password brings one that counts all since.
    deliver(app, mail("TAX", sender="eve@evil.example", password="late"))
    poll_maildir(app, NOW + DIGEST_EVERY)
    latest = [d for d in outbox(app, "guessing") if d.recipient == OWNER][-1]
    assert "5 mails with a wrong password for RIG" in latest.subject and "eve@evil.example: 5" in text_of(
        latest
    )


def test_the_gm_gets_one_digest_a_day_for_a_flood_over_every_empire(app: App) -> None:
    deliver(
        app,
        *(
            mail("TAX", empire=code, sender="x@evil.example", password=f"g{i}")
            for i in range(3)
            for code in ("RIG", "VEG")
        ),
    )
    poll_maildir(app, NOW)
    deliver(app, mail("TAX", empire="VEG", sender="x@evil.example", password="again"))
    poll_maildir(app, NOW + dt.timedelta(hours=1))
    digests = outbox(app, "guessing")
    assert sorted(d.recipient for d in digests) == sorted([GM, OWNER, "bo@example.org"])
    [gm] = [d for d in digests if d.recipient == GM]
    assert gm.subject == "[corpus] 6 mails with a wrong password for 2 empires"
    assert "RIG: 3" in text_of(gm) and "VEG: 3" in text_of(gm)


def test_300_guesses_at_a_chosen_password_cost_scrypt_only_for_tag_matches(app: App, scrypt: Counted) -> None:
    """A chosen password's hash is 32 times the work of a generated one's:
    without the tag, 300 guesses held intake for most of a minute."""
    chosen = "quartz-lantern-odyssey-47"
    deliver(app, mail(f"PASSWORD {chosen}"))
    [result] = poll_maildir(app, NOW)
    assert result.outcome == "commands"
    guesses = [f"guess-{i}" for i in range(300)]
    deliver(app, *(mail("TAX", password=g) for g in guesses), mail("TAX", password=chosen))
    scrypt.calls.clear()
    outcomes = [r.outcome for r in poll_maildir(app, NOW + dt.timedelta(minutes=1))]
    assert sorted(outcomes) == ["accepted"] + ["wrong_password"] * 300
    assert chosen in scrypt.calls and len(scrypt.calls) < 10


def test_a_batch_failing_part_way_is_retried_with_a_fresh_runs_counters(
    app: App, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The mail-by-mail retry of a batch counts replies, answers to strangers
    and wrong passwords from what is committed, not on top of what the
    rolled-back attempt counted: its counters are a fresh run's."""
    from turnproc.intake import handle

    accept = handle._Mail.accept

    def failing(self: handle._Mail, *args: object) -> object:
        if "BOOM" in self.parsed.text:
            raise RuntimeError("our own failure")
        return accept(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(handle._Mail, "accept", failing)

    def batch(boom: bool) -> list[tuple[int, bytes]]:
        raws = [
            mail("TAX"),
            mail("TAX", password="wrong1"),
            mail("TAX", empire="XYZ", sender="s1@strangers.example"),
            mail("MOVE 101 103 1"),
            mail("TAX", password="wrong2"),
            mail("TAX", empire="XYZ", sender="s2@strangers.example"),
            *([mail("TAX\nBOOM")] if boom else []),
            mail("TAX", password="wrong3"),
        ]
        return list(enumerate(raws))

    def counters(cache: IntakeCache) -> tuple[object, ...]:
        b = cache.batch
        return (dict(b.reply_counts), b.strangers_answered, {k: v for k, v in b.wrong_passwords.items()})

    retried = IntakeCache(load_key(app.config))
    outcomes = [r.outcome for _, r in inbox._handle_batch(app, batch(boom=True), NOW, retried)]
    assert outcomes.count("failed") == 1 and outcomes.count("wrong_password") == 3
    retried.close()
    # A fresh run of the same mails, a day later (no reply of the first run is
    # within its hour), with nothing failing.
    fresh = IntakeCache(load_key(app.config))
    inbox._handle_batch(app, batch(boom=False), NOW + dt.timedelta(days=1), fresh)
    fresh.close()
    assert counters(retried) == counters(fresh)
    assert counters(fresh)[1] == 2 and list(counters(fresh)[2].values()) == [3]  # type: ignore[union-attr]
