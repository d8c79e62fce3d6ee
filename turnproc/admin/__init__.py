"""Game-master tools on a game's data: checked SQL scripts and the audit log.

* :func:`run_script` — a GM's SQL in one transaction, committed only when the
  game still passes every invariant and no other game's rows changed;
* :func:`check_game` — the same checks on their own (``turnproc check``);
* :mod:`.audit` — the record of every script and turn action.

Turn-level tools (preview, hold, rollback, rerun) are in :mod:`turnproc.turns.run`.
"""

from __future__ import annotations

from .checks import check_game, describe_rows, format_violation
from .script import ScriptResult, StatementResult, result_lines, run_script
from .statements import ScriptSyntaxError, Statement, split_statements

__all__ = [
    "ScriptResult",
    "ScriptSyntaxError",
    "Statement",
    "StatementResult",
    "check_game",
    "describe_rows",
    "format_violation",
    "result_lines",
    "run_script",
    "split_statements",
]
