"""What a scenario file holds, and the one error reading it can raise."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..rules.state import GameState

__all__ = ["Scenario", "ScenarioError", "scenario_from_state", "MAX_NAME", "SYSTEM_COUNTS"]

#: Longest system name (the NAME order's limit, rules.md §6.18).
MAX_NAME = 24
#: A system's counts: never negative, and left out of a dumped file when 0.
SYSTEM_COUNTS = ("pop", "industry", "cruisers", "fighters", "colony_ships")


class ScenarioError(ValueError):
    """A scenario file that cannot be read; the message says where and why."""


@dataclass
class Scenario:
    """A starting state and the empires' e-mail addresses (code → address)."""

    state: GameState
    emails: dict[str, str] = field(default_factory=dict)


def scenario_from_state(state: GameState, emails: dict[str, str] | None = None) -> Scenario:
    """Wrap a state (e.g. a freshly generated and populated one) for :func:`dump_scenario`."""
    return Scenario(state=state, emails=dict(emails or {}))
