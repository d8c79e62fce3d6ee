"""End of game (rules.md §15).

Checked after the economy of every turn. The game ends when the turn just
resolved is the GM's turn limit, when an empire has reached the VP target, or
when only one empire still owns a system (rules.md §15, ruling G1: "left" means owning at
least one system; checked only in games started with two or more empires).
Most VP wins; ties go to more industry; a tie on both is shared (rules.md §15, ruling G2).
"""

from __future__ import annotations

from ..orders.vocabulary import EventKind
from .eventdata import EndRow
from .resolution import Resolution, holdings
from .state import GameState

__all__ = ["ranking", "check_end"]


def ranking(state: GameState) -> list[EndRow]:
    """Empires by VP, then industry, then code."""
    held = holdings(state)
    keyed = sorted(
        (-emp.vp, -sum(s.industry for s in held.get(code, [])), code) for code, emp in state.empires.items()
    )
    return [{"empire": code, "vp": -vp, "industry": -industry} for vp, industry, code in keyed]


def check_end(ctx: Resolution) -> None:
    state = ctx.state
    settings = state.settings
    playing = [code for code in sorted(state.empires) if ctx.owns_anything(code)]
    reason: str | None = None
    # rules.md §15 (ruling G1): the first that applies names the end.
    if len(state.empires) >= 2 and len(playing) <= 1:
        reason = "last_empire"
    elif any(e.vp >= settings.vp_target for e in state.empires.values()):
        reason = "vp_target"
    elif state.turn >= settings.turn_limit:
        reason = "turn_limit"
    if reason is None:
        return
    rows = ranking(state)
    winners: list[str] = []
    if state.v2 and reason == "last_empire":
        # rules.md §19.8: the last empire owning a system wins whatever the VP;
        # an eliminated empire never wins (nobody does when none is left).
        winners = playing
    elif rows:
        best = (rows[0]["vp"], rows[0]["industry"])
        winners = [r["empire"] for r in rows if (r["vp"], r["industry"]) == best]
    state.finished = True
    ctx.emit(
        EventKind.END,
        None,
        reason=reason,
        turn=state.turn,
        winner=winners[0] if len(winners) == 1 else None,
        winners=winners,
        ranking=rows,
    )
