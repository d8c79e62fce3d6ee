"""One rule for what press is public (rules.md §14), in the rules: the
reports, the bulletin and the public pages all take it from
:func:`turnproc.rules.visibility.public_press`."""

from __future__ import annotations

import inspect

from turnproc.games import publish
from turnproc.reports import bulletin, context
from turnproc.rules.events import Event
from turnproc.rules.visibility import audience, press_author, public_press

EVENTS = [
    Event("message", "RIG", {"to": None, "text": "Greetings, all"}),
    Event("message", "RIG", {"to": "VEG", "text": "Just for you"}),
    Event(
        "message", None, {"to": None, "from": "ORI", "text": "An older record names its author in the data"}
    ),
    Event("battle", "RIG", {"attacker": "RIG", "defender": "VEG"}),
    Event("end", None, {}),
]


def test_public_press_is_the_messages_everyone_may_read() -> None:
    press = public_press(EVENTS)
    assert [e.data["text"] for e in press] == [
        "Greetings, all",
        "An older record names its author in the data",
    ]
    assert all(audience(e) is None for e in press)
    assert [press_author(e) for e in press] == ["RIG", "ORI"]


def test_the_bulletin_shows_the_same_press() -> None:
    rows = context.public_press(EVENTS)
    assert [(r["from"], r["text"]) for r in rows] == [
        (press_author(e), e.data["text"]) for e in public_press(EVENTS)
    ]


def test_the_reports_the_bulletin_and_the_site_have_no_rule_of_their_own() -> None:
    for module in (context, bulletin, publish):
        source = inspect.getsource(module)
        assert 'data.get("to") is None' not in source and 'get("to") is None' not in source, module.__name__
