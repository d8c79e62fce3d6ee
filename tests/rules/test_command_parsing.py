"""The one parser reads the account commands (orders/commands.py): their
arguments, their mistakes as problem codes, and no echo of a new password."""

from __future__ import annotations

import pytest

from turnproc.orders.commands import password_weakness
from turnproc.orders.orders import CommandLine, MailCommand
from turnproc.orders.parser import parse_mail, parse_orders
from turnproc.orders.redact import redact_passwords

HEADER = "GAME duel\nEMPIRE ALF k7mq2rtx9pwd\n"


def codes(text: str) -> list[str]:
    return [p.code for p in parse_mail(HEADER + text).problems]


@pytest.mark.parametrize(
    "line,expected",
    [
        ("REPORT", CommandLine(3, MailCommand.REPORT)),
        ("REPORT 0", CommandLine(3, MailCommand.REPORT, number=0)),
        ("report 12", CommandLine(3, MailCommand.REPORT, number=12)),
        ("VACATION 3", CommandLine(3, MailCommand.VACATION, number=3)),
        ("ADDRESS <ann@new.example>", CommandLine(3, MailCommand.ADDRESS, text="ann@new.example")),
        ("CONFIRM h3k9mp2q", CommandLine(3, MailCommand.CONFIRM, text="h3k9mp2q")),
        ("PASSWORD m4ple-Syrup-77", CommandLine(3, MailCommand.PASSWORD, text="m4ple-Syrup-77")),
        ("BACK", CommandLine(3, MailCommand.BACK)),
        ("QUIT", CommandLine(3, MailCommand.QUIT)),
        ("HELP", CommandLine(3, MailCommand.HELP)),
    ],
)
def test_commands_and_their_arguments(line: str, expected: CommandLine) -> None:
    parsed = parse_mail(HEADER + line)
    assert parsed.problems == []
    assert parsed.command_lines == [expected]
    assert parsed.commands == [expected.command]


@pytest.mark.parametrize(
    "line,code",
    [
        ("REPORT last", "bad_number"),
        ("VACATION", "missing_field"),
        ("VACATION 0", "bad_number"),
        ("ADDRESS", "missing_field"),
        ("ADDRESS ann", "bad_address"),
        ("ADDRESS ann@example", "bad_address"),
        ("CONFIRM", "missing_field"),
        ("CONFIRM a b", "too_many_fields"),
        ("QUIT now", "too_many_fields"),
        ("PASSWORD", "missing_field"),
        ("PASSWORD aaaaaaaaaaaa", "weak_password"),
        ("PASSWORD two words here!", "weak_password"),
        ("PASWORD m4ple-Syrup-77", "unknown_action"),
        ('JOIN duel R1G "x"', "bad_empire"),
        ("JOIN duel", "missing_field"),
        ("JOIN duel RIG", "missing_field"),
        ("JOIN duel RIG " + "x" * 33, "name_too_long"),
    ],
)
def test_command_mistakes_are_problems(line: str, code: str) -> None:
    parsed = parse_mail(HEADER + line)
    assert [p.code for p in parsed.problems] == [code]
    assert parsed.commands == []


def test_a_new_password_is_never_in_a_problem() -> None:
    for line in ("PASSWORD short", "PASWORD m4ple-Syrup-77", "PASSWORD two words"):
        (problem,) = parse_mail(HEADER + line).problems
        assert problem.text.endswith("********")
        assert "short" not in problem.text and "m4ple" not in problem.text and "two" not in problem.text
    assert "Did you mean PASSWORD?" in parse_mail(HEADER + "PASWORD m4ple-Syrup-77").problems[0].message


def test_a_command_given_twice_differently_counts_once_the_later() -> None:
    parsed = parse_mail(HEADER + "REPORT 2\nREPORT 3\nREPORT 3")
    assert [p.code for p in parsed.problems] == ["duplicate_command"]
    assert parsed.command(MailCommand.REPORT) == CommandLine(4, MailCommand.REPORT, number=3)
    assert parsed.commands == [MailCommand.REPORT]


def test_help_and_join_need_no_header() -> None:
    for text in ("help", "\n\nHELP\n-- \nZed", 'JOIN duel rig "Rigel  League"'):
        parsed = parse_mail(text)
        assert parsed.errors == [], text
    join = parse_mail("JOIN duel rig \u201cRigel  League\u201d").command(MailCommand.JOIN)
    assert join == CommandLine(1, MailCommand.JOIN, text="duel", code="RIG", name="Rigel League")
    # Anything else without a header still misses it, and a request only starts a mail.
    assert [p.code for p in parse_mail("TAX\nHELP").problems] == ["missing_game", "missing_empire"]
    assert [p.code for p in parse_mail("help me please").problems] == ["missing_game", "missing_empire"]
    assert [p.code for p in parse_mail("Hi!\nHELP").problems] == ["missing_game", "missing_empire"]


def test_password_strength() -> None:
    assert password_weakness("m4ple-Syrup-77") is None
    assert "at least 10" in (password_weakness("abc123") or "")
    assert "different" in (password_weakness("abababababab") or "")
    assert "spaces" in (password_weakness("abcdefg hijk") or "")


def test_redaction_hides_new_passwords_quoted_or_not() -> None:
    text = HEADER + "PASSWORD m4ple-Syrup-77\n> password old-one-here\nTAX"
    redacted = redact_passwords(text)
    assert "m4ple" not in redacted and "old-one-here" not in redacted and "k7mq2rtx9pwd" not in redacted
    assert redacted.endswith("TAX")


def test_commands_in_bare_order_lines() -> None:
    assert parse_orders("VACATION 2\nTAX").command(MailCommand.VACATION) == CommandLine(
        1, MailCommand.VACATION, number=2
    )
