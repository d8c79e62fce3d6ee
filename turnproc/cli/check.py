"""The player's offline order checker: ``turnproc check-orders REPORT.json ORDERS.txt``.

It opens no database and reads no configuration: a player runs it with nothing
but the JSON report the host mailed (docs/orders.md, "Check before you send").
"""

from __future__ import annotations

import argparse
from typing import Any

from .common import CLIError, add_command, out, read_input

#: Exit status when the host would refuse the mail or some lines have errors.
EXIT_PROBLEMS = 3
#: An order mail is a few KiB; the host reads 256 KiB of one at most.
ORDERS_LIMIT = 1024 * 1024


def cmd_check_orders(args: argparse.Namespace) -> int:
    # Loaded when the command runs, not for --help (see .common).
    from ..reports.checker import CheckError, check_orders_offline, read_report

    report = read_input(args.report)
    orders = read_input(args.orders, ORDERS_LIMIT)
    try:
        checked = check_orders_offline(read_report(report), orders)
    except CheckError as exc:
        raise CLIError(f"{args.report}: {exc}") from None
    out(checked.text)
    return EXIT_PROBLEMS if checked.outcome == "refused" or checked.errors else 0


def register(sub: Any) -> None:
    p = add_command(
        sub,
        "check-orders",
        cmd_check_orders,
        "Check an order mail offline against your JSON report, as the acknowledgement would.",
        "turnproc check-orders demo-turn3-RIG.json orders.txt",
    )
    p.add_argument("report", metavar="REPORT", help="the JSON report attached to your report mail")
    p.add_argument("orders", metavar="ORDERS", help="your order mail as text (- for standard input)")
