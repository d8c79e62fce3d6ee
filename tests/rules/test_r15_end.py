"""rules.md §15: end of game."""

from __future__ import annotations

from turnproc.orders.orders import Action as A

from .builders import Builder, kinds, o, one, run


def two(turn: int = 1, turn_limit: int = 30, vp_target: int = 100) -> Builder:
    b = Builder(modules=(), turn=turn, turn_limit=turn_limit, vp_target=vp_target)
    b.empire("ABC", supply=1000)
    b.empire("XYZ", supply=1000)
    b.star(101, 0, 0, owner="ABC", pop=5, industry=5)
    b.star(102, 0, 1, owner="XYZ", pop=5, industry=5)
    b.link(101, 102)
    return b


def test_game_ends_after_the_turn_limit() -> None:
    """rules.md §15: the game ends after the GM's turn limit (default 30)."""
    new, events = run(two(turn=29).build())
    assert not new.finished and not kinds(events, "end")
    new, events = run(two(turn=30).build())
    assert new.finished and new.turn == 31
    assert one(events, "end")["reason"] == "turn_limit"


def test_game_ends_when_an_empire_reaches_the_vp_target() -> None:
    b = two(vp_target=10)
    b.empires["XYZ"].vp = 10
    new, events = run(b.build())
    d = one(events, "end")
    assert d["reason"] == "vp_target" and d["winner"] == "XYZ"
    assert d["ranking"][0] == {"empire": "XYZ", "vp": 10, "industry": 5}


def test_game_ends_when_one_empire_is_left() -> None:
    b = two()
    b.systems[101].cruisers = 30
    b.systems[102].pop = 0
    b.empires["ABC"].balance = 10
    new, events = run(b.build(), {"ABC": [o(A.MOVE, 101, 102, 30)]})
    assert new.systems[102].owner == "ABC"
    assert one(events, "eliminated", "XYZ") == {}
    d = one(events, "end")
    assert (d["reason"], d["winner"]) == ("last_empire", "ABC")
    assert new.finished


def test_most_vp_wins_ties_go_to_more_industry() -> None:
    """rules.md §15: most VP wins; ties go to more industry."""
    b = two(turn=30)
    b.empires["ABC"].vp = b.empires["XYZ"].vp = 7
    b.systems[101].industry = 3  # ABC: 3 // 10 = 0 VP this turn, like XYZ's 5
    d = one(run(b.build())[1], "end")
    assert d["winner"] == "XYZ"
    assert [r["empire"] for r in d["ranking"]] == ["XYZ", "ABC"]


def test_full_tie_is_shared() -> None:
    """rules.md §15 (ruling G2)."""
    d = one(run(two(turn=30).build())[1], "end")
    assert d["winner"] is None and d["winners"] == ["ABC", "XYZ"]


def test_a_single_empire_game_is_not_over_at_once() -> None:
    b = Builder(modules=())
    b.empire("ABC")
    b.star(101, 0, 0, owner="ABC", pop=1)
    new, events = run(b.build())
    assert not new.finished
