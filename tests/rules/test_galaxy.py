"""rules.md §2 (galaxy: distances, limits, links, generation) and rules.md §3.1 (start holdings)."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnproc.rules.economy import income
from turnproc.rules.galaxy import (
    MAX_LINKS,
    code_width,
    distance_sq,
    link_allowed,
    population_limit,
)
from turnproc.rules.generate import (
    GalaxyError,
    check_galaxy,
    free_home_slots,
    generate_galaxy,
    home_planet,
    home_slots,
    link_distances,
    place_empire,
)
from turnproc.rules.state import (
    TECH_START,
    Empire,
    GameSettings,
    GameState,
    System,
    SystemType,
    Tech,
    link_key,
)


def _state(*systems: System, links: tuple[tuple[int, int], ...] = ()) -> GameState:
    return GameState(
        turn=1,
        systems={s.code: s for s in systems},
        links=frozenset(link_key(a, b) for a, b in links),
        empires={},
    )


def _star_links(state: GameState, code: int) -> int:
    return len(state.neighbours(code))


def _min_home_separation(state: GameState) -> int:
    homes = home_slots(state)
    return min(link_distances(state, a)[b] for a, b in combinations(homes, 2))


# -- rules.md §2.3 distance squared (3.12) ---------------------------------------------------

DISTANCE_TABLE = [
    ((1, 0), 1),
    ((0, 1), 1),
    ((1, 1), 2),
    ((2, 2), 8),
    ((2, 0), 4),
    ((0, 2), 4),
    ((2, 1), 5),
    ((1, 2), 5),
    ((3, 0), 9),
    ((0, 3), 9),
    ((3, 1), 10),
    ((1, 3), 10),
    ((4, 0), 16),
    ((0, 4), 16),
    ((4, 1), 17),
    ((2, 3), 13),
    ((5, 0), 25),
    ((0, 5), 25),
    ((5, 1), 26),
    ((3, 2), 13),
]


@pytest.mark.parametrize(("delta", "expected"), DISTANCE_TABLE)
def test_r2_3_distance_table_3_12(delta: tuple[int, int], expected: int) -> None:
    dr, dc = delta
    state = _state(
        System(100, SystemType.YD, 10, 10),
        System(101, SystemType.RD, 10 + dr, 10 + dc),
        System(102, SystemType.WD, 10 - dr, 10 - dc),
    )
    assert distance_sq(state, 100, 101) == expected
    assert distance_sq(state, 101, 100) == expected  # symmetric
    assert distance_sq(state, 100, 102) == expected  # either direction on the grid


def test_r6_4_distsq_from_a_planet_measures_from_its_star() -> None:
    state = _state(
        System(100, SystemType.YD, 0, 0),
        # A planet whose own row/col were wrong would still measure from the star.
        System(101, SystemType.PL, 9, 9, star=100),
        System(102, SystemType.AB, 0, 0, star=100),
        System(103, SystemType.RD, 2, 1),
    )
    assert distance_sq(state, 101, 103) == 5
    assert distance_sq(state, 102, 103) == 5
    assert distance_sq(state, 101, 100) == 0


# -- rules.md §2.1 population limits -----------------------------------------------------------


@pytest.mark.parametrize(
    ("stype", "limit"),
    [
        (SystemType.YD, 40),
        (SystemType.WD, 20),
        (SystemType.RD, 25),
        (SystemType.RG, 15),
        (SystemType.SG, 10),
        (SystemType.PL, 60),
        (SystemType.AB, 15),
    ],
)
def test_r2_1_population_limit_by_type(stype: SystemType, limit: int) -> None:
    star = 100 if stype in (SystemType.PL, SystemType.AB) else None
    system = System(101, stype, 0, 0, star=star)
    assert population_limit(system, None) == limit
    assert population_limit(system, Empire("ABC", "A")) == limit


def test_r2_1_black_dwarf_limit_is_owners_life_support() -> None:
    bd = System(100, SystemType.BD, 0, 0, owner="ABC")
    empire = Empire("ABC", "A")
    assert population_limit(bd, empire) == TECH_START[Tech.LIFE_SUPPORT] == 5
    empire.techs[Tech.LIFE_SUPPORT] = 9
    assert population_limit(bd, empire) == 9
    assert population_limit(bd, None) == 0


# -- rules.md §2.2 links -------------------------------------------------------------------------


def test_r2_2_link_rules() -> None:
    star = System(100, SystemType.YD, 0, 0)
    other = System(102, SystemType.SG, 0, 1)
    planet = System(101, SystemType.PL, 0, 0, star=100)
    belt = System(103, SystemType.AB, 0, 1, star=102)
    assert link_allowed(star, other) and link_allowed(other, star)
    assert link_allowed(star, planet) and link_allowed(planet, star)
    assert link_allowed(other, belt)
    assert not link_allowed(planet, other)  # never planet ↔ another star
    assert not link_allowed(star, belt)
    assert not link_allowed(planet, belt)  # never planet ↔ planet
    assert not link_allowed(star, star)


def test_r2_5_check_galaxy_finds_broken_maps() -> None:
    good = _state(
        System(100, SystemType.YD, 0, 0),
        System(101, SystemType.PL, 0, 0, star=100),
        System(102, SystemType.RD, 0, 1),
        links=((100, 101), (100, 102)),
    )
    assert check_galaxy(good) == []

    cut_off = _state(System(100, SystemType.YD, 0, 0), System(101, SystemType.RD, 0, 1), links=())
    assert any("not reachable" in p for p in check_galaxy(cut_off))

    same_square = _state(
        System(100, SystemType.YD, 0, 0), System(101, SystemType.RD, 0, 0), links=((100, 101),)
    )
    assert any("share square" in p for p in check_galaxy(same_square))

    bad_link = _state(
        System(100, SystemType.YD, 0, 0),
        System(101, SystemType.PL, 0, 0, star=100),
        System(102, SystemType.RD, 0, 1),
        links=((100, 101), (101, 102)),
    )
    assert any("not allowed" in p for p in check_galaxy(bad_link))

    hub = _state(
        System(100, SystemType.YD, 0, 0),
        *(System(101 + i, SystemType.RD, 1, i) for i in range(8)),
        links=tuple((100, 101 + i) for i in range(8)),
    )
    assert any("8 links" in p for p in check_galaxy(hub))

    orphan = _state(
        System(100, SystemType.YD, 0, 0),
        System(101, SystemType.PL, 0, 0, star=None),
        links=((100, 101),),
    )
    assert check_galaxy(orphan)  # a PL with no star, and a star–"star" PL link

    wide = _state(System(1000, SystemType.YD, 0, 0))
    assert any("100–999" in p for p in check_galaxy(wide))


# -- rules.md §2.5 generation -------------------------------------------------------------------


def test_r2_5_same_seed_same_galaxy() -> None:
    assert generate_galaxy("alpha", 4) == generate_galaxy("alpha", 4)
    assert generate_galaxy("alpha", 3, 12) == generate_galaxy("alpha", 3, 12)


def test_r2_5_different_seed_different_galaxy() -> None:
    assert generate_galaxy("alpha", 4) != generate_galaxy("beta", 4)


def test_r2_5_generation_is_stable_across_runs() -> None:
    # A fingerprint of one map: changes here mean every existing seed makes a new map.
    state = generate_galaxy("fingerprint", 2, 10)
    star = state.systems[100]
    assert (len(state.systems), len(state.links)) == (20, 23)
    assert (star.type, star.row, star.col) == (SystemType.YD, 4, 4)


def test_r2_5_new_galaxy_is_turn_1_without_empires() -> None:
    state = generate_galaxy("s", 2)
    assert state.turn == 1 and state.empires == {} and not state.finished
    assert state.settings == GameSettings()
    assert all(
        s.owner is None and s.pop == s.industry == s.fleet == s.colony_ships == 0
        for s in state.systems.values()
    )


def test_r2_5_settings_are_kept() -> None:
    settings = GameSettings(modules=frozenset({"zoc"}), turn_limit=12, vp_target=40)
    assert generate_galaxy("s", 2, settings=settings).settings == settings


@pytest.mark.parametrize(("players", "per_player"), [(4, 30), (1, 2), (3, 7), (7, 5)])
def test_r2_5_system_count_is_players_times_systems_per_player(players: int, per_player: int) -> None:
    state = generate_galaxy("count", players, per_player)
    assert len(state.systems) == players * per_player
    assert len(home_slots(state)) == players


def test_r2_5_generated_map_is_sound() -> None:
    state = generate_galaxy("sound", 4)
    assert check_galaxy(state) == []
    stars = [s for s in state.systems.values() if s.is_star]
    assert all(_star_links(state, s.code) <= MAX_LINKS for s in stars)
    assert {s.type for s in stars} <= set(SystemType) - {SystemType.PL, SystemType.AB}
    for s in state.systems.values():
        if not s.is_star:
            host = state.systems[s.star]  # type: ignore[index]
            assert host.is_star and (s.row, s.col) == (host.row, host.col)
            assert state.neighbours(s.code) == (host.code,)


def test_r2_5_about_three_links_per_star() -> None:
    state = generate_galaxy("links", 10)
    stars = [s.code for s in state.systems.values() if s.is_star]
    mean = sum(_star_links(state, c) for c in stars) / len(stars)
    assert 2.6 <= mean <= 3.4


def test_r2_5_links_join_near_neighbours() -> None:
    state = generate_galaxy("near", 10)
    star_links = [
        distance_sq(state, a, b)
        for a, b in state.links
        if state.systems[a].is_star and state.systems[b].is_star
    ]
    assert sorted(star_links)[len(star_links) // 2] <= 2  # the typical link is short
    assert sum(d <= 8 for d in star_links) >= 0.95 * len(star_links)


def test_r2_5_homes_are_yellow_dwarfs_with_one_planet() -> None:
    state = generate_galaxy("homes", 6)
    for code in home_slots(state):
        star = state.systems[code]
        assert star.type is SystemType.YD
        satellites = state.planets_of(code)
        assert [s.type for s in satellites] == [SystemType.PL]
        assert home_planet(state, code) == satellites[0].code


@pytest.mark.parametrize("seed", ["a", "b", "c", "d", "e", "f", "g", "h"])
def test_r2_5_homes_at_least_4_links_apart_in_a_normal_game(seed: str) -> None:
    assert _min_home_separation(generate_galaxy(seed, 4, 30)) >= 4


def test_r2_5_homes_spread_over_a_big_map() -> None:
    assert _min_home_separation(generate_galaxy("big", 40, 30)) >= 4


@pytest.mark.parametrize(
    ("players", "per_player", "width", "first"),
    [(30, 30, 3, 100), (4, 30, 3, 100), (40, 30, 4, 1000), (300, 30, 4, 1000), (301, 30, 5, 10000)],
)
def test_r2_1_code_widths(players: int, per_player: int, width: int, first: int) -> None:
    state = generate_galaxy("codes", players, per_player)
    n = len(state.systems)
    assert code_width(n) == width
    assert min(state.systems) == first and max(state.systems) == first + n - 1
    assert all(len(str(c)) == width for c in state.systems)


def test_r2_5_planet_codes_follow_their_star() -> None:
    state = generate_galaxy("follow", 3)
    for s in state.systems.values():
        if s.star is not None:
            assert 0 < s.code - s.star <= 3


@pytest.mark.parametrize(("players", "per_player"), [(0, 30), (2, 1), (4000, 30)])
def test_r2_5_impossible_sizes_are_refused(players: int, per_player: int) -> None:
    with pytest.raises(GalaxyError):
        generate_galaxy("x", players, per_player)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.text(max_size=12),
    players=st.integers(min_value=1, max_value=8),
    per_player=st.integers(min_value=2, max_value=16),
)
def test_r2_5_generation_invariants(seed: str, players: int, per_player: int) -> None:
    state = generate_galaxy(seed, players, per_player)
    assert check_galaxy(state) == []
    assert len(state.systems) == players * per_player
    homes = home_slots(state)
    assert len(homes) == players
    for code in homes:
        assert state.systems[code].type is SystemType.YD
        assert [s.type for s in state.planets_of(code)] == [SystemType.PL]
    assert generate_galaxy(seed, players, per_player) == state


# -- rules.md §3.1 start holdings ----------------------------------------------------------------


def test_r3_1_place_empire_start_holdings() -> None:
    state = generate_galaxy("start", 2)
    lowest = home_slots(state)[0]
    empire = place_empire(state, "ABC", "Alpha")

    assert state.empires["ABC"] is empire and empire.name == "Alpha"
    assert empire.base == lowest
    star = state.systems[lowest]
    planet = state.systems[empire.home]  # type: ignore[index]
    assert planet.type is SystemType.PL and planet.star == lowest
    assert (planet.owner, planet.pop, planet.industry, planet.fighters) == ("ABC", 20, 10, 2)
    assert (planet.cruisers, planet.colony_ships) == (0, 0)
    assert (star.owner, star.pop, star.industry) == ("ABC", 2, 2)
    assert (star.colony_ships, star.fighters, star.cruisers) == (1, 2, 5)
    assert star.ever_owned and planet.ever_owned
    assert empire.treasury == 50
    assert empire.techs == TECH_START
    # Income (rules.md §13.1): planet min(20,60)+min(20,10) = 30; star min(2,40)+min(2,2) = 4.
    assert empire.balance == income(state, "ABC") == 34
    assert (empire.vp, empire.lost_in_space, empire.active) == (0, 0, True)
    assert [s.code for s in state.owned_by("ABC")] == sorted([lowest, planet.code])


def test_r14_seen_is_scanner_range() -> None:
    state = generate_galaxy("seen", 3)
    empire = place_empire(state, "ABC", "Alpha")
    assert empire.base is not None and empire.home is not None
    owned = {empire.base, empire.home}
    expected = set(owned)
    for code in owned:
        expected |= set(state.neighbours(code))  # Scanner 1
    assert state.seen["ABC"] == expected


def test_r3_1_homes_are_claimed_lowest_first_until_none_is_free() -> None:
    state = generate_galaxy("claims", 3)
    homes = home_slots(state)
    bases = [place_empire(state, code, code.title()).base for code in ("AAA", "BBB", "CCC")]
    assert bases == homes
    assert free_home_slots(state) == []
    with pytest.raises(GalaxyError, match="no free home slot: all 3 homes are taken"):
        place_empire(state, "DDD", "Delta")
    assert "DDD" not in state.empires


@pytest.mark.parametrize("code", ["AB", "ABCD", "ab1", "abc", "A C", ""])
def test_r3_empire_code_must_be_3_letters(code: str) -> None:
    state = generate_galaxy("codes", 2)
    with pytest.raises(GalaxyError, match="3 capital letters"):
        place_empire(state, code, "Name")
    assert state.empires == {}
    assert all(s.owner is None for s in state.systems.values())


def test_r3_empire_code_must_be_unique() -> None:
    state = generate_galaxy("unique", 2)
    place_empire(state, "ABC", "Alpha")
    with pytest.raises(GalaxyError, match="already used"):
        place_empire(state, "ABC", "Again")
    assert len(state.empires) == 1


def test_r3_galaxy_error_is_a_value_error() -> None:
    assert issubclass(GalaxyError, ValueError)


def test_r3_1_placed_empires_keep_the_map_sound() -> None:
    state = generate_galaxy("sound-start", 4)
    for code in ("AAA", "BBB", "CCC", "DDD"):
        place_empire(state, code, code)
    assert check_galaxy(state) == []
    # Every home is far from every other: no empire starts next to another.
    bases = [e.base for e in state.empires.values() if e.base is not None]
    for a, b in combinations(bases, 2):
        assert link_distances(state, a)[b] >= 4
