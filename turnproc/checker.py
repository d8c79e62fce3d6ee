"""The offline order checker: a player's orders checked against the JSON report
the player holds, with no database, no server and no configuration
(``turnproc check-orders REPORT.json ORDERS.txt``, docs/orders.md).

It rebuilds the game the report shows (:mod:`turnproc.reports.rebuild`), runs
the one parser with its state checks (:mod:`turnproc.rules.parser`) and says
what the acknowledgement would say about the orders, in the acknowledgement's
own words (:func:`turnproc.mails.order_check` and ``templates/ack/orders.txt``),
cost against the balance included. Only the password, the orders on file and
the deadline moving are beyond it: the host alone knows them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .mails import order_check
from .reports.rebuild import PlayerView, ReportError, state_from_report
from .reports.render import environment
from .rules.orders import MailCommand, ParsedOrders
from .rules.parser import parse_mail
from .rules.problems import is_header_code

__all__ = ["CheckError", "Checked", "check_orders_offline", "read_report"]

#: Header problems the host answers by refusing the whole mail (docs/orders.md).
_REFUSING = ("missing_game", "missing_empire", "bad_empire", "missing_password", "placeholder_password", "header_only_quoted")


class CheckError(ValueError):
    """The orders cannot be checked against this report (the message says why)."""


@dataclass(frozen=True)
class Checked:
    text: str
    """What the acknowledgement would say, as the checker prints it."""
    outcome: str
    """accepted, unchanged, cleared, commands or refused."""
    errors: int
    """Order lines with an ERROR."""


def read_report(text: str) -> PlayerView:
    """A JSON report's text, read back into the game its reader knows."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CheckError(f"the report is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise CheckError("the report is not a turnproc JSON report: it is nested too deeply to read") from None
    except ValueError:  # the interpreter's limit on a number's digits (4,300)
        raise CheckError("the report is not a turnproc JSON report: it holds a number too long to read") from None
    try:
        return state_from_report(data)
    except ReportError as exc:
        raise CheckError(f"the report is not a turnproc JSON report: {exc}") from None
    except RecursionError:
        raise CheckError("the report is not a turnproc JSON report: it is nested too deeply to read") from None


def _refusal(view: PlayerView, parsed: ParsedOrders) -> str:
    """Why the host would refuse the whole mail, or ""."""
    header = parsed.header
    for problem in parsed.problems:
        if problem.code in _REFUSING:
            return problem.message
    if view.finished:
        return f"game {view.game} is over"
    if header.turn is not None and header.turn != view.state.turn:
        return f"these orders are for turn {header.turn}, but game {view.game} is taking orders for turn {view.state.turn}"
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


def check_orders_offline(view: PlayerView, text: str) -> Checked:
    """Check an order mail's ``text`` against the game of ``view`` (a JSON
    report read by :func:`read_report`). Raises :class:`CheckError` when the
    mail names another game or empire than the report: its orders cannot be
    checked against it."""
    header = parse_mail(text).header
    if header.game is not None and header.game.lower() != view.game.lower():
        raise CheckError(f"the orders are for game {header.game}, but the report is of game {view.game}")
    if header.empire is not None and header.empire.upper() != view.empire:
        raise CheckError(f"the orders are for empire {header.empire.upper()}, but the report is {view.empire}'s")
    state = view.state
    parsed = parse_mail(text, state, view.empire)
    reason = _refusal(view, parsed)
    outcome = "refused" if reason else _outcome(parsed)
    context: dict[str, Any] = {
        "game": view.game, "empire": view.empire, "turn": state.turn, "report_turn": view.turn,
        "deadline": view.deadline, "outcome": outcome, "reason": reason, "offline": True,
        **order_check(parsed, list(parsed.orders) if outcome == "accepted" else None, state, view.empire),
    }  # fmt: skip
    rendered = environment().get_template("ack/offline.txt").render(context)
    errors = sum(1 for p in parsed.errors if p.line)
    return Checked(rendered, outcome, errors)
