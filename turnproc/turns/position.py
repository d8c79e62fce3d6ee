"""The position reports: each empire's report of the state as it stands,
as ``report`` prints it before turn 1 (the start of the game) or for an
empire with no report yet, and the start of the game once turns have run,
from turn 1's record (as ``REPORT 0`` gives a player). They are built when
asked, not stored (a GM may still change the game before the first turn),
and nothing is written. This module loads no SQLAlchemy: the GM's prompt
reads over :mod:`turnproc.storage.plainread`'s read-only connection
(``benchmarks/cli.py`` prints what a cold ``report`` costs).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..errors import GMError
from ..reports.context import TurnView, position_context
from ..reports.render import SharedParts, render_report_text
from ..reports.schema import ReportContext
from ..rules.serialize import state_from_dict
from ..rules.state import GameState
from ..storage.plainread import GameRow, Reader
from ..storage.stateread import read_state, settings_from

__all__ = ["position_reports"]


def position_reports(
    reader: Reader, game: GameRow, codes: Iterable[str], *, start: bool = False
) -> Iterator[tuple[str, str, ReportContext]]:
    """(code, text, JSON data) of each empire's report of the state as it
    stands; with ``start``, of the start of the game (turn 0) even after
    turns have run. The state, the parts every report shares and the
    roundup's text are made once for all ``codes``: a thousand reports of a
    thousand-empire game take seconds where one at a time took a second each."""
    state = _start(reader, game) if start and game.turn > 1 else _now(reader, game)
    view, shared = TurnView.build(state, []), SharedParts()
    for code in codes:
        if code not in state.empires:
            raise GMError(f"{code} joined {game.name} later: there is no report of turn 0 for it")
        context = position_context(state, code, game_name=game.name, view=view)
        yield code, render_report_text(context, shared), context


def _now(reader: Reader, game: GameRow) -> GameState:
    return read_state(
        reader,
        game.id,
        turn=game.turn,
        settings=settings_from(game.modules, game.turn_limit, game.vp_target, game.ruleset),
        finished=game.status == "finished",
    )


def _start(reader: Reader, game: GameRow) -> GameState:
    """The state before turn 1, as turn 1's record keeps it."""
    found = reader.rows("SELECT state_before FROM turns WHERE game_id = ? AND number = 1", game.id)
    if not found:
        raise GMError(f"the start of {game.name} is no longer on record")
    return state_from_dict(reader.json(found[0][0]))
