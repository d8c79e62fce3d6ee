"""rules.md §14: what each empire sees, and the map it has seen."""

from __future__ import annotations

from turnproc.orders.orders import Action as A
from turnproc.rules.state import Tech
from turnproc.rules.visibility import visible_systems

from .builders import Builder, o, run


def line() -> Builder:
    """101 – 102 – … – 108 in a row, ABC owns 101 with cruisers; 108 far off."""
    b = Builder(modules=())
    b.empire("ABC", supply=1000, jump=100)
    for i in range(8):
        b.star(101 + i, 0, i)
    b.link(*range(101, 109))
    s = b.systems[101]
    s.owner, s.pop, s.cruisers, s.ever_owned = "ABC", 5, 5, True
    return b


def test_visible_within_scanner_links() -> None:
    """rules.md §14: systems within Scanner links of an owned system or of its ships."""
    state = line().build()
    assert visible_systems(state, "ABC") == {101, 102}
    state.empires["ABC"].techs[Tech.SCANNER] = 3
    assert visible_systems(state, "ABC") == {101, 102, 103, 104}
    state.empires["ABC"].techs[Tech.SCANNER] = 0
    assert visible_systems(state, "ABC") == {101}
    assert visible_systems(state, "QQQ") == set()


def test_seen_grows_with_moves_jumps_and_distsq() -> None:
    """rules.md §14: systems it attacked, moved or jumped through this turn, and the
    answers to its DISTSQ; the map grows turn by turn."""
    state = line().build()
    orders = [o(A.DISTSQ, 101, 108), o(A.DEEP, 101, 105, 1)]
    new, _ = run(state, {"ABC": orders})
    seen = new.seen["ABC"]
    assert {101, 102, 108, 105, 104, 106} <= seen
    assert 107 not in seen
    # Seen stays seen after the empire looks away.
    new2, _ = run(new, {})
    assert seen <= new2.seen["ABC"]
