"""Scenario files: a whole starting state in TOML, for GMs who draw their own maps.

The format is documented in ``docs/scenarios.md``; ``docs/examples/two-empires.toml``
is a commented example. Reading (:mod:`.reading`) uses the standard library's
:mod:`tomllib`; writing (:mod:`.writing`) uses a small emitter that lays the
file out the way a person would write it, so a dumped game is also a readable
starting point for a new one.

Every error is a :class:`ScenarioError` whose message starts with the file name
and, where it can be found, the line, then the key path, e.g.
``map.toml:27: systems[3].type: 'XX' is not a system type (...)``.
Indices in key paths count from 0, in file order.
"""

from .model import Scenario, ScenarioError, scenario_from_state
from .reading import load_scenario, load_scenario_file
from .writing import dump_scenario

__all__ = [
    "Scenario",
    "ScenarioError",
    "load_scenario",
    "load_scenario_file",
    "dump_scenario",
    "scenario_from_state",
]
