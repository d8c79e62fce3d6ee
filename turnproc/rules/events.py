"""What happened in a turn, as data.

The engine records every happening as an :class:`Event`; reports, the GM's
summaries and golden turn files are all built from these, never from the
engine's internals. ``data`` holds only JSON-safe values (str, int, bool,
None, lists and dicts of them) so a turn record can be stored and compared
byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Event", "events_to_json", "events_from_json"]


@dataclass(frozen=True)
class Event:
    kind: str
    """Stable name, e.g. ``order``, ``battle``, ``capture``, ``income``."""
    empire: str | None = None
    """The empire the event is about first (the actor); None for game-wide events."""
    data: dict[str, Any] = field(default_factory=dict)
    """Details; JSON-safe values only."""

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "empire": self.empire, "data": self.data}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Event:
        return cls(kind=d["kind"], empire=d.get("empire"), data=dict(d.get("data") or {}))


def events_to_json(events: list[Event]) -> str:
    """Canonical JSON: sorted keys and fixed separators, so equal events give equal bytes."""
    return json.dumps([e.to_dict() for e in events], sort_keys=True, separators=(",", ":"))


def events_from_json(text: str) -> list[Event]:
    return [Event.from_dict(d) for d in json.loads(text)]
