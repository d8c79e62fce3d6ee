"""Game-master tools on a game's data: checked SQL scripts and the audit log.

* :func:`run_script` — a GM's SQL in one transaction, committed only when the
  game still passes every invariant and no other game's rows changed;
* :func:`check_game` — the same checks on their own (``turnproc check``);
* :mod:`.audit` — the record of every script and turn action.

Turn-level tools are in :mod:`turnproc.turns`: preview in ``run``, hold, rollback and
rerun in ``control``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # For the type checker only; at run time the names load on first use
    # (:func:`__getattr__`).
    from .checks import check_game, describe_rows, format_violation
    from .script import ScriptResult, StatementResult, result_lines, run_script  # (as above)
    from .statements import ScriptSyntaxError, Statement, split_statements  # (as above)

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

#: Where each name above lives. Loaded when first asked for, not with the
#: package: the turn and empire modules import :mod:`.audit` from here, and the
#: checks would bring the mail layer's address parser and the scheduler into
#: `turnproc report` and `empire list`, which never use them.
_HOMES = {
    "check_game": "checks",
    "describe_rows": "checks",
    "format_violation": "checks",
    "ScriptResult": "script",
    "StatementResult": "script",
    "result_lines": "script",
    "run_script": "script",
    "ScriptSyntaxError": "statements",
    "Statement": "statements",
    "split_statements": "statements",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
