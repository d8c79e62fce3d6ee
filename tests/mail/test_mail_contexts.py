"""Each folder of ``templates/mail/`` and its typed context
(:mod:`turnproc.outgoing.contexts`) agree: every name a template's files read
(the partials they include too) is a key of its type, every key the type
requires is read, and a sample of the type renders under StrictUndefined.
A row queued before the types were written, with fewer keys, still builds."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import get_args

import jinja2
import pytest
from jinja2 import meta, nodes

from turnproc.orders.parser import parse_mail
from turnproc.outgoing import reportmail
from turnproc.outgoing.contexts import (
    CONTEXTS,
    OFFLINE_ACK,
    AckMailContext,
    AddressChangedContext,
    AddressConfirmContext,
    AddressSetContext,
    AnnouncementContext,
    DeadlineChangedContext,
    GuessingDigestContext,
    HandedOverContext,
    HelpContext,
    MailSetAsideContext,
    NoticeTemplate,
    OrdersEnteredContext,
    PlayerQuitContext,
    ReminderContext,
    RolledBackContext,
    SignupConfirmContext,
    SignupReceivedContext,
    SignupRefusedContext,
    SignupRequestContext,
    TurnBlockedContext,
    TurnGuardedContext,
    TurnRanContext,
    WelcomeMailContext,
    WorkerErrorContext,
)
from turnproc.outgoing.mails import ack_context, order_check
from turnproc.reports.checker import check_orders_offline
from turnproc.reports.judge import judge, read_report
from turnproc.reports.render import environment, render, render_report_documents
from turnproc.reports.schema import BulletinContext
from turnproc.runtime.resources import templates_dir

MAIL = templates_dir() / "mail"
GOLDEN_REPORT = Path(__file__).parents[1] / "reports" / "golden" / "plain" / "RIG.json"

#: What the renderer adds to a stored report or bulletin before its templates see it
#: (turnproc/reports/render.py): the pictures, the roundup as text, the links.
RENDER_EXTRAS = {
    "report": {
        "ascii_map",
        "roundup_text",
        "roundup_html",
        "map_src",
        "map_width",
        "map_height",
        "map_legend",
        "near_src",
        "near_width",
        "links",
    },
    "bulletin": set(),
}

#: Required keys no template reads, and why they are there.
UNREAD = {
    # Whose copy of the announcement the outbox row is: the mail does not say.
    "announcement": {"empire"},
    # The JSON report's and bulletin's keys for programs (the deadline as a time), and
    # what the maps are drawn from (RENDER_EXTRAS), not what the text reads.
    "report": {"schema", "map", "deadline"},
    "bulletin": {"schema", "deadline"},
}


def _closure(name: str) -> list[nodes.Template]:
    """The template ``name`` parsed, and every partial it includes."""
    env = environment()
    assert env.loader is not None
    source, _, _ = env.loader.get_source(env, name)
    tree = env.parse(source)
    found = [tree]
    for included in meta.find_referenced_templates(tree):
        assert included is not None, f"{name} includes a template by a computed name"
        found += _closure(included)
    return found


def _names(files: list[str]) -> tuple[set[str], set[str]]:
    """(the names the files read from their context, those read only after ``is defined``)."""
    env = environment()
    trees = [tree for name in files for tree in _closure(name)]
    local = {
        n.name
        for tree in trees
        for a in tree.find_all(nodes.Assign)
        for n in [a.target, *a.target.find_all(nodes.Name)]
        if isinstance(n, nodes.Name)
    }
    read = {name for tree in trees for name in meta.find_undeclared_variables(tree)}
    guarded = {
        t.node.name
        for tree in trees
        for t in tree.find_all(nodes.Test)
        if t.name == "defined" and isinstance(t.node, nodes.Name)
    }
    return read - local - set(env.globals), guarded


def _files(folder: str) -> list[str]:
    return sorted(
        f"{folder}/{p.name}" for p in (MAIL / folder).iterdir() if f"{folder}/{p.name}" != OFFLINE_ACK[0]
    )


def _keys(context_type: type) -> tuple[frozenset[str], frozenset[str]]:
    """(required, optional) keys of a TypedDict."""
    return context_type.__required_keys__, context_type.__optional_keys__


def test_every_folder_has_a_context_type_and_every_notice_a_folder() -> None:
    folders = {p.name for p in MAIL.iterdir() if p.is_dir()}
    assert set(CONTEXTS) == folders
    assert set(get_args(NoticeTemplate)) <= folders


@pytest.mark.parametrize("folder", sorted(CONTEXTS))
def test_a_template_reads_only_its_types_keys_and_every_required_one(folder: str) -> None:
    read, guarded = _names(_files(folder))
    required, optional = _keys(CONTEXTS[folder])
    known = required | optional | RENDER_EXTRAS.get(folder, set())
    # A name read only after "is defined" may be missing: a row queued before it was added.
    assert read - guarded <= known, f"{folder} reads names its context type lacks: {read - guarded - known}"
    assert required - read == UNREAD.get(folder, set()), f"{folder}: keys no template reads"


def test_the_offline_acknowledgement_reads_the_verdicts_keys() -> None:
    name, verdict = OFFLINE_ACK
    read, guarded = _names([name])
    required, optional = _keys(verdict)
    assert read - guarded <= required | optional
    # error_lines is for the checker's exit status, not for the text.
    assert required - read == {"error_lines"}


# -- samples of every type, rendered -----------------------------------------------------

LINKS = {
    "site": "https://sc.example.org/g/",
    "rules": "r",
    "orders": "o",
    "desk": "d",
    "gm": "gm@example.org",
}
TURN_RAN: TurnRanContext = {
    "game": "g",
    "turn": 4,
    "early": False,
    "deadline": "2026-01-05 20:00 GMT",
    "next_deadline": "2026-01-08 20:00 GMT",
    "events": 12,
    "reports": 4,
    "missed": ["ZAP"],
    "inactive": [],
    "finished": False,
    "staged": False,
    "by_hand": False,
}
SAMPLES: dict[str, object] = {
    "address_changed": AddressChangedContext(
        game="g", empire="RIG", old="a@example.org", new="b@example.org"
    ),
    "address_confirm": AddressConfirmContext(game="g", empire="RIG", code="K3Z9", expires="2026-01-06 19:00"),
    "address_set": AddressSetContext(game="g", empire="RIG", old="a@example.org", new="b@example.org"),
    "announcement": AnnouncementContext(
        game="g", turn=4, empire="RIG", subject="Break", text="No turn on Monday."
    ),
    "deadline_changed": DeadlineChangedContext(
        game="g",
        turn=4,
        empire="RIG",
        because="The GM moved it.",
        deadline="2026-01-09 20:00 GMT",
        deadline_utc="2026-01-09 20:00 UTC",
        reply_to="host@example.org",
    ),
    "guessing_digest": GuessingDigestContext(
        game="g",
        empire="",
        count=7,
        first="2026-01-05 10:00",
        last="2026-01-05 11:00",
        senders=[("x@example.net", 7)],
        more_senders=0,
        latest="x@example.net",
        empires=[("RIG", 5), ("ZAP", 2)],
        more_empires=0,
        about="2 empires",
    ),
    "handed_over": HandedOverContext(game="g", empire="RIG"),
    "help": HelpContext(
        host="host@example.org", vacation_limit=3, min_password=10, min_symbols=6, links=LINKS
    ),
    "mail_set_aside": MailSetAsideContext(
        digest="ab12", attempts=3, error="ValueError: x", headers="From: a"
    ),
    "orders_entered": OrdersEnteredContext(
        game="g", empire="RIG", turn=4, orders=["TAX", "STASH 5"], reply_to="host@example.org"
    ),
    "player_quit": PlayerQuitContext(
        game="g", turn=4, empire="RIG", empire_name="Rigel", email="a@example.org"
    ),
    "reminder": ReminderContext(
        game="g",
        turn=4,
        empire="RIG",
        empire_name="Rigel",
        deadline="2026-01-05 20:00 GMT",
        time_left="6 hours",
        reply_to="host@example.org",
    ),
    "rolled_back": RolledBackContext(
        game="g", empire="RIG", turn=3, archived=[3, 4], reason="a bad order", reply_to="host@example.org"
    ),
    "signup_confirm": SignupConfirmContext(
        game="g", code="S1", name="Ann", secret="QWERTY", expires="2026-01-06 19:00"
    ),
    "signup_received": SignupReceivedContext(game="g", code="S1", name="Ann"),
    "signup_refused": SignupRefusedContext(game="g", code="S1", reason="the game is full"),
    "signup_request": SignupRequestContext(game="g", code="S1", name="Ann", email="a@example.org", pending=2),
    "turn_blocked": TurnBlockedContext(game="g", turn=5, staged_turn=4, deadline=None, next_deadline=None),
    "turn_guarded": TurnGuardedContext(
        game="g",
        turn=4,
        deadline="2026-01-05 20:00 GMT",
        next_deadline=None,
        active=10,
        missing=["RIG", "ZAP"],
        limit=1,
        opened="2026-01-02 20:00 GMT",
    ),
    "turn_ran": TURN_RAN,
    "welcome": WelcomeMailContext(
        game="g",
        turn=0,
        empire="RIG",
        empire_name="Rigel",
        why="new",
        reply_to="host@example.org",
        deadline="2026-01-05 20:00 GMT",
        example="GAME g EMPIRE RIG PASSWORD <password>\nTAX",
        report="(the report)",
        modules="",
        links=LINKS,
        password="correct horse battery",
    ),
    "worker_error": WorkerErrorContext(game="", turn=0, summary="the inbox cannot be read", detail="refused"),
}


def _ack_sample() -> AckMailContext:
    parsed = parse_mail("GAME g\nEMPIRE RIG pw\nTAX\nBOGUS 1\n")
    context = ack_context(
        outcome="accepted",
        game="g",
        empire="RIG",
        turn=4,
        **order_check(parsed, list(parsed.orders), None, "RIG"),
        deadline="2026-01-05 20:00 GMT",
        notice="A notice.",
        done=["PASSWORD: changed"],
        wait=True,
    )
    return {"subject": "my orders", **context}


@pytest.mark.parametrize("folder", sorted(SAMPLES))
def test_a_sample_of_each_type_renders_strictly(folder: str) -> None:
    sample = SAMPLES[folder]
    assert isinstance(sample, dict)
    required, optional = _keys(CONTEXTS[folder])
    assert required <= set(sample) <= required | optional
    rendered = render(folder, sample)
    assert rendered.subject and rendered.text.strip()


def test_the_acknowledgement_renders_strictly() -> None:
    sample = _ack_sample()
    assert set(sample) == _keys(AckMailContext)[0]
    rendered = render("ack", sample)
    assert rendered.subject == "Re: my orders" and "BOGUS 1" in rendered.text


def test_the_offline_acknowledgement_and_the_report_render_strictly() -> None:
    report = GOLDEN_REPORT.read_text(encoding="utf-8")
    mail = "GAME plain\nEMPIRE RIG pw\nTAX\nBOGUS 1\n"
    checked = check_orders_offline(read_report(report), mail)
    assert checked.outcome == "accepted" and "BOGUS 1" in checked.text
    assert judge(read_report(report), mail)["offline"] is True
    docs = render_report_documents(json.loads(report))
    assert docs.subject and docs.text and docs.html


def test_a_bulletin_renders_strictly_with_and_without_its_optional_keys() -> None:
    bulletin: BulletinContext = {
        "game": "g",
        "turn": 4,
        "next_turn": 5,
        "deadline": "2026-01-09T20:00:00+00:00",
        "deadline_text": "Friday 09 January 2026, 20:00 GMT",
        "finished": False,
        "corrected": True,
        "schema": "1",
        "subject": "[g] Turn 4 bulletin",
        "empires": 2,
        "roundup": [
            {"code": "RIG", "name": "Rigel", "vp": 12, "rank": 1, "active": True},
            {"code": "ZAP", "name": "Zap", "vp": 3, "rank": 2, "active": False},
        ],
        "press": [{"from": "RIG", "to": "*", "private": False, "text": "Hello, galaxy."}],
    }
    plain = render("bulletin", bulletin)
    full = render(
        "bulletin", {**bulletin, "announcements": [{"subject": "Break", "text": "No turn Monday."}]}
    )
    assert plain.subject == "[g] Turn 4 bulletin" and "Hello, galaxy." in plain.text and plain.html
    assert "Break" in full.text and "Break" not in plain.text


def test_an_acknowledgement_row_queued_before_the_types_still_builds() -> None:
    """An answer's ``outbox.data`` as intake wrote it before the ack said what account
    commands did (no ``done``, no ``wait``) and before notices were built when sent
    (no ``template``): it builds, and says what it said then."""
    old = {
        "to": "ann@example.org",
        "in_reply_to": "<o@players.example>",
        "references": "",
        "context": {
            "subject": "my orders",
            "outcome": "accepted",
            "game": "g",
            "empire": "RIG",
            "turn": 4,
            "lines": [],
            "errors": [],
            "on_file": ["TAX"],
            "slots": 1,
            "replaced": False,
            "deadline": None,
            "reason": "",
            "notice": "",
            "skipped": [],
            "cost": None,
            "offline": False,
        },
    }
    when = dt.datetime(2026, 1, 5, 19, 0, tzinfo=dt.UTC)
    raw = reportmail.ack_mail("Host <host@example.org>", "<m@host.example.org>", when, old)
    assert b"Subject: Re: my orders" in raw and b"TAX" in raw


def test_a_turn_ran_row_queued_before_by_hand_still_builds() -> None:
    old = {k: v for k, v in TURN_RAN.items() if k != "by_hand"}
    assert render("turn_ran", old).subject == "[g] turn 4 ran"


def test_strict_undefined_is_what_renders_them() -> None:
    assert environment().undefined is jinja2.StrictUndefined
