"""Events told as sentences, for the text and HTML reports.

Each kind has one phrasing function; an unknown kind still reads sensibly
(its data as ``key value`` pairs), so a new event never breaks a report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..rules.events import Event

__all__ = ["describe", "REASONS"]

#: Player-facing words for the engine's failure reason codes.
REASONS: dict[str, str] = {}


def _reason(code: str | None) -> str:
    if not code:
        return ""
    return REASONS.get(code, code.replace("_", " "))


def _order(e: Event, viewer: str) -> str:
    d = e.data
    if not d.get("ok"):
        return f"failed: {_reason(d.get('reason'))}"
    parts = []
    if d.get("cost"):
        parts.append(f"cost {d['cost']} BP")
    if "answer" in d:
        parts.append(f"distance squared {d['answer']}")
    return ", ".join(parts) or "done"


def _generic(e: Event, viewer: str) -> str:
    details = ", ".join(f"{k.replace('_', ' ')} {_fmt(v)}" for k, v in sorted(e.data.items()))
    who = f"{e.empire}: " if e.empire and e.empire != viewer else ""
    return f"{who}{e.kind.replace('_', ' ')}" + (f" ({details})" if details else "")


def _fmt(v: Any) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} {_fmt(x)}" for k, x in sorted(v.items())) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)


_PHRASES: dict[str, Callable[[Event, str], str]] = {
    "order": _order,
}


def describe(event: Event, viewer: str) -> str:
    return _PHRASES.get(event.kind, _generic)(event, viewer)
