"""An order mail judged against the JSON report its player holds, with no
database, no server and no configuration: the verdicts the acknowledgement
would give, as data. ``turnproc check-orders`` (:mod:`turnproc.reports.checker`)
writes them out as the acknowledgement's text; the order desk page
(:mod:`turnproc.reports.desk`) runs this module under Pyodide in the player's
browser and shows them beside each line. So the module and everything it
imports stay pure: the standard library and the rules only.
"""

from __future__ import annotations

import json

from ..orders.orders import MailCommand, ParsedOrders
from ..orders.parser import parse_mail
from ..orders.problems import is_header_code
from ..rules.verdicts import OrderCheck, order_check
from .orderform import system_lines
from .rebuild import PlayerView, ReportError, state_from_report

__all__ = ["CheckError", "Verdict", "read_report", "judge", "desk_verdicts", "desk_hints"]

#: Header problems the host answers by refusing the whole mail (docs/orders.md).
_REFUSING = (
    "missing_game",
    "missing_empire",
    "bad_empire",
    "missing_password",
    "placeholder_password",
    "header_only_quoted",
)


class CheckError(ValueError):
    """The orders cannot be checked against this report (the message says why)."""


def read_report(text: str) -> PlayerView:
    """A JSON report's text, read back into the game its reader knows."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CheckError(
            f"the report is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except RecursionError:
        raise CheckError(
            "the report is not a turnproc JSON report: it is nested too deeply to read"
        ) from None
    except ValueError:  # the interpreter's limit on a number's digits (4,300)
        raise CheckError(
            "the report is not a turnproc JSON report: it holds a number too long to read"
        ) from None
    try:
        return state_from_report(data)
    except ReportError as exc:
        raise CheckError(f"the report is not a turnproc JSON report: {exc}") from None
    except RecursionError:
        raise CheckError(
            "the report is not a turnproc JSON report: it is nested too deeply to read"
        ) from None


class Verdict(OrderCheck):
    """What :func:`judge` says: the offline acknowledgement's context."""

    game: str
    empire: str
    turn: int
    report_turn: int
    deadline: str | None
    outcome: str
    reason: str
    offline: bool
    error_lines: int
    """Order lines with errors."""


def _refusal(view: PlayerView, parsed: ParsedOrders) -> str:
    """Why the host would refuse the whole mail, or ""."""
    header = parsed.header
    for problem in parsed.problems:
        if problem.code in _REFUSING:
            return problem.message
    if view.finished:
        return f"game {view.game} is over"
    if header.turn is not None and header.turn != view.state.turn:
        return (
            f"these orders are for turn {header.turn}, but game {view.game} is taking orders for turn "
            f"{view.state.turn}"
        )
    return ""


def _outcome(parsed: ParsedOrders) -> str:
    """What the mail would do to the orders on file (docs/orders.md, "Sending again")."""
    if MailCommand.CLEAR in parsed.commands and not parsed.orders:
        return "cleared"
    if parsed.orders:
        return "accepted"
    if any(not is_header_code(p.code) for p in parsed.errors):
        return "unchanged"
    return "commands"


def judge(view: PlayerView, text: str) -> Verdict:
    """What the acknowledgement would say of the order mail ``text``, checked
    against the game of ``view`` (a JSON report read by :func:`read_report`):
    the context of ``templates/mail/ack/offline.txt``, with ``error_lines`` (order
    lines with an ERROR). Raises :class:`CheckError` when the mail names
    another game or empire than the report: its orders cannot be checked
    against it."""
    header = parse_mail(text).header
    if header.game is not None and header.game.lower() != view.game.lower():
        raise CheckError(f"the orders are for game {header.game}, but the report is of game {view.game}")
    if header.empire is not None and header.empire.upper() != view.empire:
        raise CheckError(
            f"the orders are for empire {header.empire.upper()}, but the report is {view.empire}'s"
        )
    state = view.state
    parsed = parse_mail(text, state, view.empire)
    reason = _refusal(view, parsed)
    outcome = "refused" if reason else _outcome(parsed)
    return {
        "game": view.game,
        "empire": view.empire,
        "turn": state.turn,
        "report_turn": view.turn,
        "deadline": view.deadline,
        "outcome": outcome,
        "reason": reason,
        "offline": True,
        "error_lines": sum(1 for p in parsed.errors if p.line),
        **order_check(parsed, list(parsed.orders) if outcome == "accepted" else None, state, view.empire),
    }


def desk_verdicts(report: str, text: str) -> str:
    """The order desk's call: :func:`judge` of the mail ``text`` against the
    JSON ``report``, as JSON for the page (``problem``: why it cannot be
    checked at all, when it cannot)."""
    try:
        return json.dumps(judge(read_report(report), text))
    except CheckError as exc:
        return json.dumps({"problem": str(exc)})


def desk_hints(report: str) -> str:
    """Each own system's lines of the report's order form ("can:" and all),
    by system code, as JSON for the page's system sheet."""
    data = json.loads(report)
    return json.dumps({str(row["code"]): system_lines(row) for row in data.get("systems", [])})
