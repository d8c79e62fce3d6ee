"""The order checks' foresight (rules.md §17.1): an order the empire's own
report already shows must fail is refused at once, for the reason the turn
would give, in the turn's words.

The reasons are not written here: each is the engine's own function
(:func:`~turnproc.rules.movement.cruiser_move_reason`,
:func:`~turnproc.rules.bombard.bombard_reason`,
:func:`~turnproc.rules.links.link_reason`,
:func:`~turnproc.rules.reserve.reserve_reason`,
:func:`~turnproc.rules.trade.trade_reason`), asked with a
:class:`~turnproc.rules.sight.ReportSight`: what the report shows as the turn
starts, and what the mail's earlier orders may change. What only the turn
can tell (ships still there, money left, a blockade, other empires' moves)
the check leaves to the turn, and the line is OK.
"""

from __future__ import annotations

from ..orders.orders import Action, Order
from ..orders.problems import FORESEEN
from .bombard import bombard_reason
from .galaxy import distance_sq
from .links import link_reason
from .movement import cruiser_move_reason
from .reserve import reserve_reason
from .sight import ReportSight, star_between
from .state import Tech
from .trade import trade_reason

__all__ = ["FORESEEN_ACTIONS", "foreseen"]

#: The actions whose orders the checks judge beyond the checks of every order.
FORESEEN_ACTIONS = frozenset(
    {Action.ASSAULT, Action.DEEP, Action.BOMBARD, Action.LINK, Action.RESERVE, Action.TRADE}
)


def foreseen(sight: ReportSight, order: Order) -> tuple[str, dict[str, int | None]] | None:
    """The problem code (one of :data:`~turnproc.orders.problems.FORESEEN`)
    and its values, when ``sight`` shows that ``order`` must fail; else None.
    ``order`` has passed the checks of every order: WHERE is the empire's
    as the turn starts, every system in it is known."""
    state = sight.state
    systems = state.systems
    if order.action not in FORESEEN_ACTIONS:
        return None
    if order.action is Action.TRADE:
        if order.tech is None or order.tech not in state.techs or not _partner_ok(sight, order):
            return None
        level = order.number.count if order.number is not None else None
        reason = trade_reason(sight, order.tech, level)
        return _told(reason, level=sight.tech(order.tech))
    if order.where is None or order.where not in sight.owned:
        return None
    src = systems[order.where]
    if order.action is Action.RESERVE:
        return _told(reserve_reason(sight, src))
    if order.to is None or order.to not in systems or order.to == order.where:
        return None
    dst = systems[order.to]
    if order.action is Action.BOMBARD:
        reason = bombard_reason(sight, src, dst)
    elif order.action is Action.LINK:
        reason = link_reason(sight, src, dst)
    else:
        reason = cruiser_move_reason(sight, order.action, src, dst)
    values: dict[str, int | None] = {"distsq": distance_sq(state, src.code, dst.code)}
    if reason == "too_far":
        values["level"] = sight.tech(Tech.JUMP)
    elif reason == "beyond_hyperspace":
        values["level"] = sight.tech(Tech.HYPERSPACE)
    elif reason == "blocked":
        values["blocker"] = star_between(src, dst, (systems[c] for c in sight.known))
    return _told(reason, **values)


def _partner_ok(sight: ReportSight, order: Order) -> bool:
    """A TRADE's partner is an empire of the game and not the trader: the
    engine's first failures, told before the level (rules.md §19.6)."""
    return order.empire in sight.state.empires and order.empire != sight.empire


def _told(reason: str | None, **values: int | None) -> tuple[str, dict[str, int | None]] | None:
    """``reason`` as a problem, when it is one the checks foresee; the
    others (not owned, not linked, not a star) have problems of their own."""
    if reason is None or reason not in FORESEEN:
        return None
    return reason, values
