"""The start-of-game position: each empire's turn-0 report, as ``report``
prints it before turn 1. It is built from the state when asked, not stored
(a GM may still change the game before the first turn), and nothing is
written. This module loads no SQLAlchemy: the GM's prompt reads the state
over :mod:`turnproc.storage.plainread`'s read-only connection
(``benchmarks/cli.py`` prints what a cold ``report`` costs).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..reports.context import TurnView, position_context
from ..reports.render import SharedParts, render_report_text
from ..reports.schema import ReportContext
from ..storage.plainread import GameRow, Reader
from ..storage.stateread import read_state, settings_from

__all__ = ["position_reports"]


def position_reports(
    reader: Reader, game: GameRow, codes: Iterable[str]
) -> Iterator[tuple[str, str, ReportContext]]:
    """(code, text, JSON data) of each empire's turn-0 report. The state, the
    parts every report shares and the roundup's text are made once for all
    ``codes``: a thousand reports of a thousand-empire game take seconds
    where one at a time took a second each."""
    state = read_state(
        reader,
        game.id,
        turn=game.turn,
        settings=settings_from(game.modules, game.turn_limit, game.vp_target, game.ruleset),
        finished=game.status == "finished",
    )
    view, shared = TurnView.build(state, []), SharedParts()
    for code in codes:
        context = position_context(state, code, game_name=game.name, view=view)
        yield code, render_report_text(context, shared), context
