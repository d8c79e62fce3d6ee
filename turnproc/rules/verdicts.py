"""What the host says about an order mail's orders, line by line: the rows of
the acknowledgement's table, what was not read, the errors, the orders on
file and their cost. The acknowledgement (:mod:`turnproc.outgoing.mails`), the offline
checker (``turnproc check-orders``) and the order desk page (which runs this
module under Pyodide) all take their verdicts from here, so none can word one
differently.
"""

from __future__ import annotations

from typing import TypedDict

from ..orders.orders import (
    Order,
    ParsedOrders,
    ProblemDict,
    Severity,
    Skipped,
    SkipReason,
    format_order,
    slots_used,
)
from .costs import spending
from .state import GameState

__all__ = ["OrderCheck", "order_check"]


class OrderCheck(TypedDict):
    """What :func:`order_check` says, as the acknowledgement takes it."""

    lines: list[dict[str, object]]
    errors: list[ProblemDict]
    skipped: list[str]
    on_file: list[str] | None
    slots: int
    cost: dict[str, int] | None


def order_check(
    parsed: ParsedOrders,
    on_file: list[Order] | None,
    state: GameState | None,
    empire: str,
    written: list[str] | None = None,
) -> OrderCheck:
    """What an acknowledgement says about the orders of one parse: a row per
    order line and per problem, what was not read, the errors, the orders on
    file and their cost against the purses (rules.md §4.2, ruling O7). The
    mail's answer and the offline checker (:mod:`turnproc.reports.checker`) both say
    exactly this, so they cannot disagree. ``written``: the parse's orders
    written out already (as the order set stored them), in their order."""
    cost: dict[str, int] | None = None
    if on_file and state is not None and empire in state.empires:
        spent = spending(on_file, state, empire)
        cost = {
            "balance": spent.balance,
            "treasury": spent.treasury,
            "balance_cost": spent.balance_cost,
            "treasury_cost": spent.treasury_cost,
            "to_balance": spent.to_balance,
            "to_treasury": spent.to_treasury,
            "balance_short": spent.balance_short,
            "treasury_short": spent.treasury_short,
        }
    if written is None:
        written = [format_order(o) for o in parsed.orders]
    texts = {id(o): text for o, text in zip(parsed.orders, written, strict=True)}
    return {
        "lines": _line_results(parsed, texts),
        # As the acknowledgement stores them (JSON: it is built when sent).
        "errors": [p.to_dict() for p in parsed.errors],
        "skipped": [_skipped_text(s) for s in parsed.skipped if s.reason in _TOLD],
        # Accepted orders are on file as they were parsed: each is written once.
        "on_file": None if on_file is None else [texts.get(id(o)) or format_order(o) for o in on_file],
        "slots": slots_used(on_file or []),
        "cost": cost,
    }


def _line_results(parsed: ParsedOrders, texts: dict[int, str]) -> list[dict[str, object]]:
    """A row per line (its number, text and result, and ``row``: the three as
    the acknowledgement's table shows them); ``texts``: each of the parse's
    orders written out, by its id()."""
    by_line: dict[int, tuple[str, str]] = {}
    for o in parsed.orders:
        by_line[o.line] = (texts[id(o)], "OK")
    for p in parsed.problems:
        text, result = by_line.get(p.line, (p.text.strip(), ""))
        label = "ERROR" if p.severity is Severity.ERROR else "WARNING"
        note = f"{label} [{p.code}] {p.message}"
        by_line[p.line] = (text, note if result in ("", "OK") else f"{result}; {note}")
    # The row is written out here, not in the template, where three lookups
    # and a filter for each row were a third of rendering an acknowledgement.
    return [
        {"line": line, "text": text, "result": result, "row": f"{line:4d}  {text[:30]:<30} {result}"}
        for line, (text, result) in sorted(by_line.items())
    ]


_SKIPPED = {
    SkipReason.QUOTED: "quoted text (lines starting with >)",
    SkipReason.REPLY_HEADER: "the mail you replied to",
    SkipReason.HOST_REPORT: "a copy of a mail from the host",
    SkipReason.SIGNATURE: "after your signature",
    SkipReason.END: "after END",
    SkipReason.BEFORE_HEADER: "above the GAME line",
}


#: What the acknowledgement lists as not read: text a player may not know was
#: there. Lines above the header, after END or a signature were left out on purpose.
_TOLD = frozenset({SkipReason.QUOTED, SkipReason.REPLY_HEADER, SkipReason.HOST_REPORT})


def _skipped_text(skipped: Skipped) -> str:
    where = (
        f"line {skipped.first_line}"
        if skipped.first_line == skipped.last_line
        else f"lines {skipped.first_line}-{skipped.last_line}"
    )
    return f"{where}: {_SKIPPED[skipped.reason]}"
