"""rules.md §19.3 BOMBARD and rules.md §19.4 LINK (rule set 2): every success and
failure path, with the worked examples of the rulebook."""

from __future__ import annotations

from turnproc.orders.orders import Action as A
from turnproc.rules.galaxy import MAX_LINKS
from turnproc.rules.links import link_problem, segment_blocked
from turnproc.rules.state import SystemType as T
from turnproc.rules.state import Tech

from .builders import Builder, kinds, o, one, order_events, run, run_with


def bombard_field() -> Builder:
    """ABC holds star 104 with 3 cruisers; XYZ its planet 105 (pop 12, industry 8,
    1 cruiser, 2 fighters) and a belt 106; ABC's own planet 107; XYZ's star 108."""
    b = Builder(modules=(), ruleset=2)
    b.empire("ABC", supply=100)
    b.empire("XYZ", supply=100)
    b.star(104, 0, 0, owner="ABC", pop=5, industry=5, cruisers=3)
    b.planet(105, 104, owner="XYZ", pop=12, industry=8, cruisers=1, fighters=2)
    b.planet(106, 104, T.AB, owner="XYZ", pop=3)
    b.planet(107, 104, owner="ABC", pop=3)
    b.star(108, 0, 1, owner="XYZ", pop=5, industry=5)
    b.planet(109, 108, owner="XYZ", pop=5)
    b.link(104, 108)
    return b


def test_r19_3_bombard_example() -> None:
    """rules.md §19.3: "Each BOMBARD kills 1 defending cruiser and 1 defending fighter (where
    there are any), and 5–9 population and 5–9 industry (two separate rolls of d5 + 4,
    never below 0). It captures nothing and costs no VP; FROM becomes sticky for you."
    The rulebook's example: rolls 7 and 9 leave pop 5, industry 0, no cruiser, 1 fighter."""
    b = bombard_field()
    b.empires["XYZ"].vp = 4
    new, events = run_with(b.build(), {"ABC": [o(A.BOMBARD, 104, 105), o(A.MOVE, 104, 108, 1)]}, [3, 5])
    bomb = one(events, "bombard", "ABC")
    assert (bomb["pop_roll"], bomb["industry_roll"]) == (7, 9)
    assert (bomb["pop_lost"], bomb["industry_lost"]) == (7, 8)
    assert (bomb["cruisers_lost"], bomb["fighters_lost"]) == (1, 1)
    assert bomb["lost_in_space"] == {"attacker": 0, "defender": 0}
    planet = new.systems[105]
    assert (planet.owner, planet.pop, planet.industry, planet.cruisers, planet.fighters) == (
        "XYZ",
        5,
        0,
        0,
        1,
    )
    assert new.empires["XYZ"].vp == 4
    first, move = order_events(events, "ABC")
    assert first["cost"] == 2 and move["reason"] == "sticky"


def test_r19_3_bombard_may_be_repeated_and_never_goes_below_zero() -> None:
    """rules.md §19.3: "It may be repeated in the same turn"; pop and industry never below 0
    (ruling R3: both rolls are made even when nothing is left)."""
    b = bombard_field()
    orders = [o(A.BOMBARD, 104, 105), o(A.BOMBARD, 104, 105), o(A.BOMBARD, 104, 105)]
    new, events = run_with(b.build(), {"ABC": orders}, [5, 5, 5, 5, 1, 1])
    assert [e["ok"] for e in order_events(events, "ABC")] == [True, True, True]
    planet = new.systems[105]
    assert (planet.pop, planet.industry, planet.fighters, planet.owner) == (0, 0, 0, "XYZ")
    assert [e.data["pop_lost"] for e in kinds(events, "bombard")] == [9, 3, 0]


def test_r19_3_bombard_failures() -> None:
    """rules.md §19.3: "Not against your own planets, belts or stars; not from a planet or
    belt"; FROM must hold a cruiser of yours; TO must be one of FROM's planets; 2 BP."""
    b = bombard_field()
    b.systems[107].cruisers = 1
    orders = [
        o(A.BOMBARD, 108, 109),  # FROM not yours
        o(A.BOMBARD, 107, 104),  # from a planet
        o(A.BOMBARD, 104, 106),  # a belt
        o(A.BOMBARD, 104, 109),  # another star's planet
        o(A.BOMBARD, 104, 107),  # your own planet
        o(A.BOMBARD, 104, 108),  # a star
    ]
    _, events = run(b.build(), {"ABC": orders})
    assert [e["reason"] for e in order_events(events, "ABC")] == [
        "not_owned",
        "not_star_from",
        "not_planet",
        "not_planet",
        "not_enemy",
        "not_planet",
    ]
    b = bombard_field()
    b.systems[104].cruisers = 0
    _, events = run(b.build(), {"ABC": [o(A.BOMBARD, 104, 105)]})
    assert order_events(events, "ABC")[0]["reason"] == "no_ships"
    b = bombard_field()
    b.empires["ABC"].balance = 1
    _, events = run(b.build(), {"ABC": [o(A.BOMBARD, 104, 105)]})
    assert order_events(events, "ABC")[0]["reason"] == "no_money"


def test_r19_3_bombard_of_an_unowned_planet_fails() -> None:
    """rules.md §19.3: TO must be "owned by another empire"."""
    b = bombard_field()
    b.systems[105].owner = None
    b.systems[105].pop = b.systems[105].industry = b.systems[105].cruisers = b.systems[105].fighters = 0
    _, events = run(b.build(), {"ABC": [o(A.BOMBARD, 104, 105)]})
    assert order_events(events, "ABC")[0]["reason"] == "not_enemy"


# -- LINK ----------------------------------------------------------------------------------


def link_field(hyperspace: int = 9) -> Builder:
    """ABC owns 101 at (0,0); stars at (0,1) 102 (XYZ), (1,1) 103, (0,3) 104, (2,0) 105,
    (3,3) 106; 101 chained to all so the map is connected."""
    b = Builder(modules=(), ruleset=2)
    b.empire("ABC", supply=100, hyperspace=hyperspace)
    b.empire("XYZ", supply=100)
    b.star(101, 0, 0, owner="ABC", pop=5, industry=5, cruisers=4)
    b.star(102, 0, 1, owner="XYZ", pop=5, industry=5)
    b.star(103, 1, 1)
    b.star(104, 0, 3)
    b.star(105, 2, 0)
    b.star(106, 3, 3)
    b.link(101, 102)
    b.link(102, 103, 105, 106)
    b.link(102, 104)
    return b


def test_r19_4_link_makes_a_permanent_link_used_from_the_next_slot() -> None:
    """rules.md §19.4: "LINK from, to (5 BP × distance²): a new star–star link between FROM, a
    star you own, and TO, a star you own or that nobody owns ... used by everyone from
    the next slot on." 101 (0,0) to 103 (1,1) is distance² 2: 10 BP."""
    new, events = run(link_field().build(), {"ABC": [o(A.LINK, 101, 103), o(A.MOVE, 101, 103, 2)]})
    link, move = order_events(events, "ABC")
    assert (link["ok"], link["cost"], link["distsq"]) == (True, 10, 2)
    assert one(events, "link", "ABC") == {"from": 101, "to": 103, "distsq": 2}
    assert move["ok"] and move["outcome"] == "captured"
    assert new.linked(101, 103)


def test_r19_4_link_distances_and_hyperspace() -> None:
    """rules.md §19.4: "Allowed when distance² ≤ Hyperspace and distance² ∈ {1, 2, 4, 9}".
    105 at (2,0) is 4 away; with Hyperspace 3 beyond the tech; 106 at (3,3) is 18: never a
    link distance, which is told before the tech (rules.md §17.1)."""
    _, events = run(link_field(3).build(), {"ABC": [o(A.LINK, 101, 105), o(A.LINK, 101, 106)]})
    assert [e["reason"] for e in order_events(events, "ABC")] == ["beyond_hyperspace", "bad_distance"]
    _, events = run(link_field(20).build(), {"ABC": [o(A.LINK, 101, 106), o(A.LINK, 101, 105)]})
    reasons = [(e["reason"], e.get("cost")) for e in order_events(events, "ABC")]
    assert reasons == [("bad_distance", 0), (None, 20)]


def test_r19_4_no_other_star_on_the_segment() -> None:
    """rules.md §19.4: "no other star's square lies on the straight segment between the two
    squares": 101 (0,0) to 104 (0,3) passes 102 at (0,1)."""
    state = link_field().build()
    assert segment_blocked(state, 101, 104) == 102
    assert segment_blocked(state, 101, 105) is None  # (1,0) is empty
    _, events = run(state, {"ABC": [o(A.LINK, 101, 104)]})
    assert order_events(events, "ABC")[0]["reason"] == "blocked"


def test_r19_4_link_failures() -> None:
    """rules.md §19.4: FROM yours; TO yours or nobody's; not already linked; 5 BP × d²."""
    b = link_field()
    orders = [
        o(A.LINK, 103, 105),  # FROM not yours
        o(A.LINK, 101, 102),  # already linked (and another empire's)
    ]
    _, events = run(b.build(), {"ABC": orders})
    assert [e["reason"] for e in order_events(events, "ABC")] == ["not_owned", "target_owned"]
    b = link_field()
    b.systems[102].owner = "ABC"
    _, events = run(b.build(), {"ABC": [o(A.LINK, 101, 102)]})
    assert order_events(events, "ABC")[0]["reason"] == "already_linked"
    b = link_field()
    b.empires["ABC"].balance = 9
    _, events = run(b.build(), {"ABC": [o(A.LINK, 101, 103)]})
    assert order_events(events, "ABC")[0]["reason"] == "no_money"


def test_r19_4_link_ends_are_stars() -> None:
    """rules.md §19.4 (ruling R5): both ends must be stars."""
    b = link_field()
    b.planet(107, 101, owner="ABC", pop=1)
    b.planet(108, 103)
    _, events = run(b.build(), {"ABC": [o(A.LINK, 107, 103), o(A.LINK, 101, 108)]})
    assert [e["reason"] for e in order_events(events, "ABC")] == ["not_star_from", "not_star"]


def test_r19_4_seven_links_at_most() -> None:
    """rules.md §19.4: "neither star already has 7 links (planets and belts count)"."""
    b = link_field()
    for i in range(MAX_LINKS - 1):
        b.planet(110 + i, 101, T.AB if i % 2 else T.PL)
    state = b.build()
    assert len(state.neighbours(101)) == MAX_LINKS
    assert link_problem(state, 101, 103) == "too_many_links"
    _, events = run(state, {"ABC": [o(A.LINK, 101, 103)]})
    assert order_events(events, "ABC")[0]["reason"] == "too_many_links"


def test_r19_4_link_to_a_star_you_own() -> None:
    """rules.md §19.4: TO may be "a star you own"."""
    b = link_field()
    b.systems[105].owner = "ABC"
    b.systems[105].ever_owned = True
    new, events = run(b.build(), {"ABC": [o(A.LINK, 101, 105)]})
    assert order_events(events, "ABC")[0]["ok"] and new.linked(101, 105)
    assert new.empires["ABC"].tech(Tech.HYPERSPACE) >= 9
