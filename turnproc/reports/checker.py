"""The offline order checker: a player's orders checked against the JSON report
the player holds, with no database, no server and no configuration
(``turnproc check-orders REPORT.json ORDERS.txt``, docs/orders.md).

It rebuilds the game the report shows (:mod:`turnproc.reports.rebuild`), runs
the one parser with its state checks (:mod:`turnproc.orders.parser`) and says
what the acknowledgement would say about the orders, in the acknowledgement's
own words (:mod:`turnproc.reports.judge` and ``templates/mail/ack/orders.txt``),
cost against the balance included. Only the password, the orders on file and
the deadline moving are beyond it: the host alone knows them.
"""

from __future__ import annotations

from dataclasses import dataclass

from .judge import CheckError, judge, read_report
from .rebuild import PlayerView
from .render import environment

__all__ = ["CheckError", "Checked", "check_orders_offline", "read_report"]


@dataclass(frozen=True)
class Checked:
    text: str
    """What the acknowledgement would say, as the checker prints it."""
    outcome: str
    """accepted, unchanged, cleared, commands or refused."""
    errors: int
    """Order lines with an ERROR."""


def check_orders_offline(view: PlayerView, text: str) -> Checked:
    """Check an order mail's ``text`` against the game of ``view`` (a JSON
    report read by :func:`read_report`). Raises :class:`CheckError` when the
    mail names another game or empire than the report: its orders cannot be
    checked against it."""
    context = judge(view, text)
    rendered = environment().get_template("ack/offline.txt").render(context)
    return Checked(rendered, context["outcome"], context["error_lines"])
