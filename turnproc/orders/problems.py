"""The problem catalogue: every code the order parser can report.

A player's mistake is data (:class:`~turnproc.orders.orders.Problem`) with a
stable code; this table gives each code its severity and the words the
acknowledgement uses. Codes are stable; templates may be reworded.
"""

from __future__ import annotations

from dataclasses import dataclass

from .orders import Problem, Severity
from .vocabulary import REASONS

__all__ = ["ProblemKind", "PROBLEMS", "FORESEEN", "is_header_code", "make_problem"]


@dataclass(frozen=True)
class ProblemKind:
    """One stable problem code: its severity and the message template."""

    severity: Severity
    template: str
    header: bool = False
    """A problem with the mail's GAME, EMPIRE or TURN line, not with an order:
    intake refuses the whole mail for these errors instead of storing orders."""


_E = Severity.ERROR
_W = Severity.WARNING


def _foreseen(reason: str, detail: str = "") -> ProblemKind:
    """An order the empire's report already shows must fail (rules.md §17.1):
    said in the words the turn's report would use for it."""
    return ProblemKind(_E, f"The turn would fail this order: {REASONS[reason]}{detail}.")


#: The engine's reasons the order checks foresee, each a problem code of its own.
FORESEEN: dict[str, ProblemKind] = {
    "not_star_from": _foreseen("not_star_from"),
    "not_planet": _foreseen("not_planet"),
    "not_enemy": _foreseen("not_enemy"),
    "own_system": _foreseen("own_system"),
    "too_far": _foreseen("too_far", " (distance squared {distsq}, your Jump {level})"),
    "bad_distance": _foreseen("bad_distance", " (this one is {distsq})"),
    "beyond_hyperspace": _foreseen(
        "beyond_hyperspace", " (distance squared {distsq}, your Hyperspace {level})"
    ),
    "target_owned": _foreseen("target_owned"),
    "blocked": _foreseen("blocked", " (star {blocker})"),
    "already_linked": _foreseen("already_linked"),
    "too_many_links": _foreseen("too_many_links"),
    "no_reserve": _foreseen("no_reserve"),
    "level_too_high": _foreseen("level_too_high", " (yours is {level})"),
}

#: Every problem code the parser emits. Codes are stable; templates may be reworded.
PROBLEMS: dict[str, ProblemKind] = {
    # header
    "missing_game": ProblemKind(_E, "No game name: your orders need a line GAME <game name>.", header=True),
    "missing_empire": ProblemKind(
        _E, "No empire: your orders need a line EMPIRE <code> <password>.", header=True
    ),
    "missing_password": ProblemKind(
        _E, "The EMPIRE line has no password: write EMPIRE {value} <password>.", header=True
    ),
    "placeholder_password": ProblemKind(
        _E,
        "The EMPIRE line still has the order form's placeholder where your password goes: "
        "write EMPIRE {value} followed by your own password, without < and >.",
        header=True,
    ),
    "password_in_brackets": ProblemKind(
        _W,
        "The password on the EMPIRE line is in angle brackets; it was read without "
        "them (passwords never contain < or >).",
        header=True,
    ),
    "header_only_quoted": ProblemKind(
        _E,
        "A GAME or EMPIRE line was found only in quoted text (lines starting with >), "
        "which is never read: write your header again, unquoted, above your orders.",
        header=True,
    ),
    "bad_empire": ProblemKind(_E, "{value} is not an empire code (three letters, like ABC).", header=True),
    "bad_turn": ProblemKind(_E, "{value} is not a turn number: write TURN <n>.", header=True),
    "wrong_turn": ProblemKind(
        _E,
        "These orders say TURN {value}, but the game is collecting orders for turn {turn}.",
        header=True,
    ),
    "conflicting_header": ProblemKind(
        _E,
        "{keyword} was already given differently on line {other}; this line is ignored.",
        header=True,
    ),
    "late_header": ProblemKind(
        _W, "{keyword} should come before the first order; it is used anyway.", header=True
    ),
    # syntax
    "unknown_action": ProblemKind(_E, "{value} is not an order or command.{hint}"),
    "missing_field": ProblemKind(_E, "{action} needs {field}: write {usage}."),
    "too_many_fields": ProblemKind(_E, "Too many fields for {action}: {value} is left over (write {usage})."),
    "bad_number": ProblemKind(_E, "{value} is not {expect}."),
    "bad_parts": ProblemKind(_E, "{value} is not a number of parts: RETREAT splits into 1, 2 or 3 parts."),
    "bad_system": ProblemKind(_E, "{value} is not a system code (codes are numbers like 101)."),
    "bad_text": ProblemKind(
        _E,
        "The {field} contains characters that cannot be printed (control characters) or that change how it "
        "reads (invisible formatting such as U+202E or a zero-width space).",
    ),
    "unknown_tech": ProblemKind(_E, "{value} is not a tech.{hint}"),
    "name_too_long": ProblemKind(
        _E, "The name {value} has {length} characters; a name may have at most {limit}."
    ),
    "message_too_long": ProblemKind(
        _E, "The message has {length} characters; a message may have at most {limit}."
    ),
    "same_system": ProblemKind(_E, "{action} from {value} to {value}: FROM and TO must differ."),
    # mail commands
    "weak_password": ProblemKind(_E, "The new password cannot be used: {why}. Your password is unchanged."),
    "bad_address": ProblemKind(_E, "{value} is not an e-mail address: write ADDRESS name@example.org."),
    "duplicate_command": ProblemKind(
        _W, "{command} was already given on line {other}; this later line counts."
    ),
    # game state
    "unknown_system": ProblemKind(_E, "You know of no system {value}.{hint}"),
    "not_owned": ProblemKind(_E, "You do not own system {value}.{hint}"),
    "not_owned_yet": ProblemKind(
        _W,
        "You do not own system {value} yet: this works only if an earlier order captures it.",
    ),
    "target_is_planet": ProblemKind(_E, "{action} cannot go to {value}: it is a planet or asteroid belt."),
    "not_linked": ProblemKind(_E, "{value} and {to} are not linked; {action} needs a link."),
    "target_not_owned": ProblemKind(
        _W, "You do not own system {value} now; {action} needs it to be yours when it runs."
    ),
    "unknown_empire": ProblemKind(_E, "There is no empire {value} in this game.{hint}"),
    "gift_to_self": ProblemKind(_E, "You cannot GIFT to your own empire."),
    "number_is_system": ProblemKind(
        _W,
        "{action} {value} builds {value} at your BASE; to build at system {value} "
        "write {action} {value} <number>.",
    ),
    "not_in_ruleset": ProblemKind(
        _E,
        "{value} belongs to rule set 2; this game plays rule set {ruleset} and does not have it.",
    ),
    "stash_not_last": ProblemKind(
        _E,
        "STASH without a number stashes everything left only as your 16th action "
        "(this is action {slot}); write STASH <number>, or make it action 16.",
    ),
    # limits
    "too_many_slots": ProblemKind(
        _E,
        "You already have {limit} actions; this one is not taken (NAME and MESSAGE lines do not count).",
    ),
    "too_many_names": ProblemKind(_E, "You already have {limit} NAME lines; this one is not taken."),
    "too_many_probes": ProblemKind(
        _E, "You already have {limit} PROBE lines (your Probe tech); this one is not taken."
    ),
    "second_take": ProblemKind(
        _E, "You already have a TAKE on line {other}; an empire may TAKE once a turn."
    ),
    # what the report already shows must fail when the turn runs
    **FORESEEN,
    "duplicate_stance": ProblemKind(
        _W, "System {value} already got a stance on line {other}; this later one wins."
    ),
    "duplicate_setting": ProblemKind(_W, "{action} was already set on line {other}; this later one wins."),
    "duplicate_name": ProblemKind(
        _W, "System {value} was already named on line {other}; this later name wins."
    ),
}


def is_header_code(code: str) -> bool:
    """Whether ``code`` is a problem with the mail's header, not with an order."""
    kind = PROBLEMS.get(code)
    return kind is not None and kind.header


def make_problem(line: int, code: str, text: str = "", **values: object) -> Problem:
    """The :class:`Problem` for ``code``, its template filled in with ``values``."""
    kind = PROBLEMS[code]
    return Problem(line, code, kind.template.format(**values), kind.severity, text)
