"""Order mail as real mail programs send it (docs/orders.md, "Where the host starts
and stops reading"; the decisions are in turnproc.orders.parser's docstring).

Orders are written in the header and order syntax of rules.md §6; these tests are
about which lines of a mail are read at all.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from turnproc.orders.orders import Action, ParsedOrders, Severity, Skipped, SkipReason
from turnproc.orders.parser import parse_header, parse_mail, parse_orders
from turnproc.orders.problems import PROBLEMS, is_header_code

S = SkipReason
REPORT = (Path(__file__).parents[2] / "docs" / "samples" / "report.txt").read_text(encoding="utf-8")
HEADER = "GAME demo\nEMPIRE RIG mq7hv3kaxp2e\nTURN 4\n"


def codes(result: ParsedOrders) -> list[str]:
    return [p.code for p in result.problems]


def quoted(text: str) -> str:
    return "\n".join(("> " + line).rstrip() for line in text.splitlines())


def line_of(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def last_filled(text: str) -> int:
    """Line number of the last line that is not blank (the last a Skipped can end on)."""
    return max(i for i, line in enumerate(text.splitlines(), 1) if line.strip())


def agrees(text: str) -> ParsedOrders:
    """parse_mail, checking parse_header gives the same header."""
    result = parse_mail(text)
    assert parse_header(text) == result.header
    return result


# -- the mails from the issue tracker -----------------------------------------------

GMAIL_REPLY = (
    HEADER
    + "MOVE 143 161 2\nGROW 144 2\n\n"
    + "On Mon, 12 Jan 2026 at 20:05, Star Chase GM <gm@example.org> wrote:\n\n"
    + quoted(REPORT)
    + "\n"
)


def test_gmail_reply_ends_at_on_wrote_line() -> None:
    """docs/orders.md: the "On … wrote:" line ends the orders; the report quoted
    below it gets no problem and is reported as not read."""
    result = agrees(GMAIL_REPLY)
    assert result.problems == []
    assert [o.action for o in result.orders] == [Action.MOVE, Action.GROW]
    first = line_of(GMAIL_REPLY, "On Mon")
    assert result.skipped == [Skipped(first, last_filled(GMAIL_REPLY), S.REPLY_HEADER)]


OUTLOOK_REPLY = (
    HEADER
    + "MOVE 143 161 2\nGROW 144 2\n\nRegards\n\n"
    + "________________________________\n"
    + "From: Star Chase GM <gm@example.org>\n"
    + "Sent: Monday, 12 January 2026 20:05\n"
    + "To: ann@example.org\n"
    + "Subject: demo turn 3 report\n\n"
    + REPORT
)


def test_outlook_reply_with_the_report_below_unquoted() -> None:
    """Outlook puts the report below, unquoted, under its From/Sent block: the
    orders end at the underscores, and the report's 60 lines (its order form with
    <password> included) give no problem. "Regards" is still an order line."""
    result = agrees(OUTLOOK_REPLY)
    assert [(p.line, p.code) for p in result.problems] == [
        (line_of(OUTLOOK_REPLY, "Regards"), "unknown_action")
    ]
    assert result.header.password == "mq7hv3kaxp2e"
    assert len(result.orders) == 2
    first = line_of(OUTLOOK_REPLY, "____")
    assert result.skipped == [Skipped(first, last_filled(OUTLOOK_REPLY), S.REPLY_HEADER)]


def test_outlook_german_header_block() -> None:
    text = (
        HEADER + "TAX\n\nVon: Star Chase GM <gm@example.org>\nGesendet: Montag, 12. Januar 2026 20:05\n"
        "An: ann@example.org\nBetreff: demo turn 3 report\n\n" + REPORT
    )
    result = agrees(text)
    assert result.problems == [] and len(result.orders) == 1
    assert [s.reason for s in result.skipped] == [S.REPLY_HEADER]
    assert result.skipped[0].first_line == line_of(text, "Von:")


def test_pasted_report_above_real_orders_the_real_header_wins() -> None:
    """docs/orders.md: anything above the header is ignored, "even a whole report";
    the report's own order form (EMPIRE RIG <password>) is not the header."""
    text = REPORT + "\nHi GM, my orders:\n\n" + HEADER + "MOVE 143 161 2\nEND\n"
    result = agrees(text)
    assert result.problems == []
    lines = text.splitlines()
    assert result.header.line == len(lines) - lines[::-1].index("GAME demo")
    assert result.header.password == "mq7hv3kaxp2e"
    assert [o.line for o in result.orders] == [line_of(text, "MOVE 143 161 2")]
    greeting = line_of(text, "Hi GM")
    assert result.skipped == [
        Skipped(1, line_of(text, "END"), S.HOST_REPORT),  # to the order form's END
        Skipped(greeting, greeting, S.BEFORE_HEADER),
    ]


def test_orders_then_report_unquoted_below_without_end() -> None:
    """A report pasted (or left by a mail program) below the orders ends them at its
    first line; none of its lines is an error."""
    text = HEADER + "MOVE 143 161 2\n\n" + REPORT
    result = agrees(text)
    assert result.problems == [] and len(result.orders) == 1
    assert result.skipped == [Skipped(6, last_filled(text), S.HOST_REPORT)]


def test_order_form_heading_ends_orders() -> None:
    """Only the end of the report pasted below: its order form's heading ends the
    orders, so its EMPIRE RIG <password> is no conflicting_header."""
    text = HEADER + "TAX\n\n== Order form for turn 4 ==\nGAME demo\nEMPIRE RIG <password>\nTURN 4\n\nEND\n"
    result = agrees(text)
    assert result.problems == []
    assert [s.reason for s in result.skipped] == [S.HOST_REPORT]


def test_form_filled_in_below_the_mail_replied_to() -> None:
    """Bottom-posting in Outlook: the player filled in the report's own order form
    below the From/Sent block. With no header above the reply line, the first real
    header anywhere counts."""
    text = "From: Star Chase GM <gm@example.org>\nSent: Monday, 12 January 2026 20:05\n\n" + REPORT.replace(
        "EMPIRE RIG <password>\nTURN 4\n", "EMPIRE RIG mq7hv3kaxp2e\nTURN 4\nGROW 144 2\n"
    )
    result = agrees(text)
    assert result.problems == []
    assert result.header.password == "mq7hv3kaxp2e"
    assert [o.action for o in result.orders] == [Action.GROW]
    assert [s.reason for s in result.skipped] == [S.REPLY_HEADER]


@pytest.mark.parametrize(
    "line",
    [
        "On Mon, 12 Jan 2026 at 20:05, Star Chase GM <gm@example.org> wrote:",
        "On 12 Jan 2026, at 20:05, Star Chase GM <gm@example.org> wrote:",  # Apple Mail
        "On 12/01/2026 20:05, Star Chase GM wrote:",  # Thunderbird
        "Am Mo., 12. Jan. 2026 um 20:05 Uhr schrieb Star Chase GM <gm@example.org>:",
        "Le lun. 12 janv. 2026 à 20:05, Star Chase GM <gm@example.org> a écrit :",
        "El lun, 12 ene 2026 a las 20:05, Star Chase GM (<gm@example.org>) escribió:",
        "Il giorno lun 12 gen 2026 alle ore 20:05 Star Chase GM <gm@example.org> ha scritto:",
        "Op ma 12 jan. 2026 om 20:05 schreef Star Chase GM <gm@example.org>:",
        "-----Original Message-----",
        "----- Original Message -----",
        "-----Ursprüngliche Nachricht-----",
        "---------- Forwarded message ---------",
    ],
)
def test_reply_lines_end_orders(line: str) -> None:
    text = f"{HEADER}TAX\n{line}\n> GAME demo\nMOVE 1 2 3\nrubbish\n"
    result = agrees(text)
    assert result.problems == [] and len(result.orders) == 1
    assert result.skipped == [Skipped(5, 8, S.REPLY_HEADER)]


def test_gmail_attribution_wrapped_over_two_lines() -> None:
    text = f"{HEADER}TAX\nOn Mon, 12 Jan 2026 at 20:05, Star Chase GM <\ngm@example.org> wrote:\n> x\n"
    result = agrees(text)
    assert result.problems == []
    assert result.skipped == [Skipped(5, 7, S.REPLY_HEADER)]


@pytest.mark.parametrize(
    "line",
    ["On", "On my way", "From: Ann", "________________", "Le lundi", "Order form", "STAR CHASE"],
)
def test_look_alikes_are_not_reply_lines(line: str) -> None:
    """Without the rest of the pattern (the verb, a Sent: line below, the report's
    words) a line is an order line as before."""
    result = parse_mail(f"{HEADER}{line}\nTAX\n")
    assert codes(result) == ["unknown_action"]
    assert len(result.orders) == 1 and result.skipped == []


def test_apple_mail_signature_and_sent_from() -> None:
    text = f"{HEADER}TAX\n\n-- \nAnn\nSent from my iPhone\n"
    result = agrees(text)
    assert result.problems == []
    assert result.skipped == [Skipped(6, 8, S.SIGNATURE)]


def test_after_end_is_skipped_as_end() -> None:
    text = f"{HEADER}TAX\nEND\n\nSent from my iPhone\n\n"
    assert agrees(text).skipped == [Skipped(7, 7, S.END)]
    assert agrees(f"{HEADER}TAX\nEND\n\n").skipped == []


def test_parse_orders_skips_after_end_but_knows_no_reply_lines() -> None:
    """A bare order list (parse_orders) has no mail around it."""
    result = parse_orders("TAX\n> x\nEND\nfoo")
    assert result.skipped == [Skipped(2, 2, S.QUOTED), Skipped(4, 4, S.END)]
    assert codes(parse_orders("TAX\nOn Monday, GM wrote:")) == ["unknown_action"]


# -- quoted text (item: say what was skipped) -----------------------------------------


def test_quoted_lines_among_orders_are_skipped_and_said() -> None:
    text = f"{HEADER}TAX\n> MOVE 143 110 1\n>\n\n> GROW 144 9\n# mine\n> old\nSTASH 1\n"
    result = agrees(text)
    assert result.problems == [] and len(result.orders) == 2
    assert result.skipped == [Skipped(5, 8, S.QUOTED), Skipped(10, 10, S.QUOTED)]


def test_top_posted_reply_header_only_in_quoted_text() -> None:
    """The player answered at the top with orders but no header; the header is only
    in the quoted report. Quoted text never counts: the mail has no header, and the
    result says a header was seen in quoted text and which lines were quoted."""
    text = (
        "MOVE 143 161 2\nGROW 144 2\n\nOn Mon, 12 Jan 2026 at 20:05, GM <gm@example.org> wrote:\n"
        + quoted(REPORT)
    )
    result = agrees(text)
    assert result.header.line == 0 and result.orders == []
    assert codes(result) == ["missing_game", "missing_empire", "header_only_quoted"]
    problem = result.problems[-1]
    assert problem.line == line_of(text, "> GAME demo") and problem.text == "> GAME demo"
    assert all(is_header_code(c) for c in codes(result))
    assert result.skipped == [
        Skipped(1, 2, S.BEFORE_HEADER),
        Skipped(4, last_filled(text), S.REPLY_HEADER),
    ]


def test_quoted_report_without_attribution_is_said_quoted() -> None:
    text = "TAX\n" + quoted("GAME demo\nEMPIRE RIG <password>")
    result = agrees(text)
    assert codes(result) == ["missing_game", "missing_empire", "header_only_quoted"]
    assert result.skipped == [Skipped(1, 1, S.BEFORE_HEADER), Skipped(2, 3, S.QUOTED)]


def test_bottom_posted_gmail_reply() -> None:
    text = (
        "On Mon, 12 Jan 2026 at 20:05, GM <gm@example.org> wrote:\n"
        + quoted(REPORT)
        + "\n\n"
        + HEADER
        + "TAX\n"
    )
    result = agrees(text)
    assert result.problems == [] and len(result.orders) == 1
    assert result.skipped == [Skipped(1, last_filled(quoted(REPORT)) + 1, S.REPLY_HEADER)]


# -- passwords in the header ------------------------------------------------------------


@pytest.mark.parametrize(
    "password",
    [
        "<password>",
        "<your password>",
        "<PW>",
        "<pw>",
        "<Your_Password>",
        "<>",
        "<passwort>",
        "<mot de passe>",
        "<my secret word>",
        "<password here>",
    ],
)
def test_placeholder_password(password: str) -> None:
    result = agrees(f"GAME demo\nEMPIRE RIG {password}\nTAX\n")
    assert codes(result) == ["placeholder_password"]
    problem = result.problems[0]
    assert problem.severity is Severity.ERROR and is_header_code(problem.code)
    assert "EMPIRE RIG followed by your own password" in problem.message
    assert result.header.password is None and result.header.empire == "RIG"


def test_password_in_brackets_is_read_without_them() -> None:
    result = agrees("GAME demo\nEMPIRE RIG <mq7hv3kaxp2e>\nTAX\n")
    assert result.header.password == "mq7hv3kaxp2e"
    assert codes(result) == ["password_in_brackets"]
    assert result.problems[0].severity is Severity.WARNING
    assert "mq7hv3kaxp2e" not in result.problems[0].text + result.problems[0].message


@pytest.mark.parametrize("password", ["mq7<hv>3", "<mq7hv3", "mq7hv3>", "<a>b"])
def test_other_brackets_are_part_of_the_password(password: str) -> None:
    result = agrees(f"GAME demo\nEMPIRE RIG {password}\nTAX\n")
    assert result.problems == [] and result.header.password == password


def test_copied_form_after_a_pasted_report_is_the_header() -> None:
    """No real header: the last form above the reply line counts, so the player's
    own copy (with their orders) is read and told to put the password in."""
    text = REPORT + "\nGAME demo\nEMPIRE RIG <password>\nTURN 4\nGROW 144 2\n"
    result = agrees(text)
    assert [(p.line, p.code) for p in result.problems] == [
        (line_of(text, "GROW") - 2, "placeholder_password")
    ]
    assert len(result.orders) == 1


def test_placeholder_after_the_real_password_is_not_repeated() -> None:
    result = agrees("GAME demo\nEMPIRE RIG mq7hv3kaxp2e\nEMPIRE RIG <password>\nTAX\n")
    assert result.problems == [] and result.header.password == "mq7hv3kaxp2e"


def test_new_codes_are_in_the_catalogue() -> None:
    for code in ("placeholder_password", "password_in_brackets", "header_only_quoted"):
        assert PROBLEMS[code].header


def test_skipped_round_trips_through_json() -> None:
    for skipped in agrees(OUTLOOK_REPLY).skipped + agrees(GMAIL_REPLY).skipped:
        assert Skipped.from_dict(json.loads(json.dumps(skipped.to_dict()))) == skipped


# -- properties --------------------------------------------------------------------------

_PIECES = [
    "GAME demo",
    "GAME other",
    "EMPIRE RIG mq7hv3kaxp2e",
    "EMPIRE RIG <password>",
    "EMPIRE RIG <s3cret>",
    "EMPIRE SOL pw",
    "TURN 4",
    "TURN x",
    "MOVE 143 161 2",
    "TAX",
    "junk",
    "",
    "# c",
    "END",
    "-- ",
    "> GAME demo",
    "> EMPIRE RIG pw",
    "> TAX",
    "On Mon, 12 Jan 2026, GM <gm@example.org> wrote:",
    "-----Original Message-----",
    "________________",
    "From: GM <gm@example.org>",
    "Sent: Monday 20:05",
    "Von: GM",
    "Gesendet: Montag",
    "STAR CHASE - game demo - turn 3 report",
    "== Order form for turn 4 ==",
    "Am Mo., 12. Jan. 2026 schrieb GM:",
]
_REPORT_CHUNKS = [REPORT, quoted(REPORT), OUTLOOK_REPLY, GMAIL_REPLY]
_mail = st.lists(
    st.sampled_from(_PIECES) | st.sampled_from(_REPORT_CHUNKS) | st.text(max_size=12), max_size=30
).map("\n".join)


# No deadline: a mail of up to 30 pasted reports (each with its order form)
# takes a few milliseconds, but hundreds on a machine busy with other work.
@pytest.mark.slow
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(_mail)
def test_mail_shapes_parse_header_agrees_and_skipped_is_well_formed(text: str) -> None:
    result = parse_mail(text)
    assert parse_header(text) == result.header
    n = len(text.splitlines()) + 1
    last = 0
    # header_only_quoted points into quoted text on purpose: every other problem is on a read line.
    read = {o.line for o in result.orders} | {
        p.line for p in result.problems if p.line and p.code != "header_only_quoted"
    }
    for s in result.skipped:
        assert last < s.first_line <= s.last_line <= n
        assert not any(s.first_line <= line <= s.last_line for line in read)
        last = s.last_line


# The start and end of docs/samples/report.html as turnproc.mail.mime.html_to_text
# gives it (table cells run together, as there).
HTML_REPORT_AS_TEXT = """demo - turn 3
Rigel League (RIG) - rank 1, 3 VP.
Orders for turn 4 are due at the GM's next run.

Your orders
LineOrderResultCost
1MOVE 109 110 2OK: captured, cost 1 BP1
What happened
You took 110 by MOVE; 2 cruisers moved in.
Press
No messages.

Order form for turn 4

GAME demo
EMPIRE RIG <password>
TURN 4

END
"""


def test_html_report_turned_to_text_below_the_orders() -> None:
    """The HTML report as text (its title line "demo - turn 3" with the rank line
    below it) ends the orders like the text report's first line."""
    text = HEADER + "TAX\n\n" + HTML_REPORT_AS_TEXT
    result = agrees(text)
    assert result.problems == [] and len(result.orders) == 1
    assert result.skipped == [Skipped(line_of(text, "demo - turn 3"), last_filled(text), S.HOST_REPORT)]


def test_html_report_pasted_above_the_orders() -> None:
    text = HTML_REPORT_AS_TEXT + "\n" + HEADER + "TAX\n"
    result = agrees(text)
    assert result.problems == [] and result.header.password == "mq7hv3kaxp2e"
    assert result.skipped == [Skipped(1, line_of(text, "END"), S.HOST_REPORT)]


@pytest.mark.parametrize(
    "text",
    [
        "Op " + "schreef " * 20000,
        "Am " + "schrieb " * 20000 + ":",
        "On " + "x " * 100000,
        "-" * 100000 + "original message",
        "From: x\n" * 20000,
        "_____\n" * 20000,
        " - turn 1" * 20000,
    ],
    ids=lambda t: repr(t[:12]),
)
def test_long_reply_look_alikes_stay_fast(text: str) -> None:
    """A mail of up to 256 KiB must not make the reply-line patterns backtrack for
    seconds (the Dutch attribution pattern once took 5 s on the first text)."""
    import time

    began = time.perf_counter()
    result = parse_mail(text)
    assert parse_header(text) == result.header
    assert time.perf_counter() - began < 2.0


# -- mark_lines' cheap exit, held to the patterns it skips ---------------------------

_FRAGMENTS = [
    "MOVE 101 103 2",
    "TAX",
    "NAME 101 New Haven",
    "MOVE 101 102 AB-2",
    "",
    "  ",
    "# a note",
    "> quoted",
    "42",
    "From: Ann <ann@example.org>",
    "*Von:* Ann",
    "Sent: Monday, 5 January 2026 18:00",
    "Gesendet: Montag",
    "On Mon, 5 Jan 2026, Ann <ann@example.org>",
    "On Mon 5 Jan 2026 Ann Smith",
    "wrote:",
    "On Mon, Ann wrote:",
    "Am 5. Jan schrieb Ann:",
    "-----Original Message-----",
    "---- Forwarded message ----",
    "________________________________",
    "Star Chase - game demo - turn 3 report",
    "== Order form for turn 4 ==",
    "ORDER FORM FOR TURN 2",
    "demo - turn 3",
    "demo - turn 3 (corrected)",
    "Rigel League (RIG) - rank 1, 3 VP. 2 systems",
]


@example(["TAX", "On Mon 5 Jan 2026 Ann Smith", "wrote:", "> TAX"])
@given(
    st.lists(
        st.one_of(
            st.sampled_from(_FRAGMENTS), st.text(alphabet=" :-_>#aoOrRdeEfFmMtTuUnN0\u212a", max_size=24)
        ),
        max_size=12,
    )
)
def test_mark_lines_marks_each_line_as_its_patterns_do(lines: list[str]) -> None:
    from turnproc.orders.mailshape import _mark, mark_lines

    assert mark_lines(lines) == [_mark(lines, i) for i in range(len(lines))]
