"""Making a new game: the galaxy from a seed (rules.md §2.5) and empires' starts (rules.md §3.1).

The map is a function of the seed string and the sizes alone: the seed is hashed
with SHA-256 into a private ``random.Random``, so the same arguments give the same
map on every machine and every run (``hash()`` is salted per process; never use it).

How a map is made:

1. Stars are scattered over a square grid (about 40 % of the squares hold a star)
   and get up to three planets or belts; one planet per player is held back.
   Every star left without planets or belts is a *home candidate*: those
   chosen become yellow dwarfs and get a held-back planet each.
2. Links start from the Gabriel graph of the stars (a planar proximity graph: no
   two links cross, every link joins near neighbours), restricted to short
   distances. A minimum spanning tree of it makes every system reachable (on
   the rare map where short links leave a star cut off, its nearest reachable
   star is linked to it, however far); extra
   short links are added until stars have about 3 links on average (counting
   their planets and belts, as the 7-link limit does). No star goes over 7;
   home candidates keep a link free for their planet.
3. Homes are picked among the candidates by greedy farthest-point selection on
   link distance, so they end up as far apart as the map allows.
4. Codes are handed out star by star in random order (so a code says nothing
   about where a star is), each star's planets and belts right after it.
"""

from __future__ import annotations

import hashlib
import heapq
import math
import random
import re
from collections import deque
from collections.abc import Callable

from .economy import income
from .galaxy import MAX_LINKS, code_width, link_allowed, unreachable_systems
from .state import (
    TECH_START,
    Empire,
    GameSettings,
    GameState,
    System,
    SystemType,
    Tech,
    link_key,
)

__all__ = [
    "GalaxyError",
    "generate_galaxy",
    "place_empire",
    "check_galaxy",
    "home_slots",
    "free_home_slots",
    "home_planet",
    "scanner_range",
    "code_range",
    "link_distances",
    "START_TREASURY",
]


class GalaxyError(ValueError):
    """A galaxy cannot be made as asked, or an empire cannot be placed in it."""


#: Treasury of a new empire (rules.md §3.1).
START_TREASURY = 50

#: Share of grid squares that hold a star: dense enough that stars have near
#: neighbours, sparse enough that a Jump-1 DEEP (distance² ≤ 1) is not always possible.
_DENSITY = 0.4
#: Candidate links join stars at most this far apart (distance²); longer ones
#: are only made when a part of the map would otherwise be cut off.
_LINK_REACH_SQ = 8
#: Mean number of links per star, counting its planets and belts (rules.md §2.2).
_LINKS_PER_STAR = 3
#: Most planets and belts around a star that is not a home candidate.
_MAX_SATELLITES = 3
#: Farthest-point home choices tried from different first homes; the widest wins.
_HOME_TRIES = 6
#: Weights of the star types (a star chosen as a home becomes a yellow dwarf).
_STAR_WEIGHTS: dict[SystemType, int] = {
    SystemType.YD: 18,
    SystemType.WD: 14,
    SystemType.RD: 24,
    SystemType.BD: 10,
    SystemType.RG: 18,
    SystemType.SG: 16,
}
_PLANET_SHARE = 0.7  # the rest of the satellites are asteroid belts
_MAX_SYSTEMS = 90_000  # 5-digit codes run out at 99999

_EMPIRE_CODE = re.compile(r"[A-Z]{3}")


# -- public helpers ------------------------------------------------------------


def code_range(n_systems: int) -> range:
    """The codes a game of ``n_systems`` systems may use (rules.md §2.1): 100–999, 1000–9999, …"""
    width = code_width(n_systems)
    return range(10 ** (width - 1), 10**width)


def home_slots(state: GameState) -> list[int]:
    """Codes of all home stars set aside by the generator, ascending."""
    return sorted(code for code, s in state.systems.items() if s.home_slot)


def home_planet(state: GameState, star: int) -> int | None:
    """The one planet of a home star, or None if the star has not exactly one."""
    # A planet is always linked to its star, so the star's links find it
    # without a scan of the whole map.
    planets = [
        n
        for n in state.neighbours(star)
        if state.systems[n].star == star and state.systems[n].type is SystemType.PL
    ]
    return planets[0] if len(planets) == 1 else None


def free_home_slots(state: GameState) -> list[int]:
    """Home stars nobody has claimed yet (star and planet unowned), ascending."""
    free = []
    unowned = sorted(c for c, s in state.systems.items() if s.home_slot and s.owner is None)
    for code in unowned:
        planet = home_planet(state, code)
        if planet is not None and state.systems[planet].owner is None:
            free.append(code)
    return free


def scanner_range(state: GameState, empire: str) -> set[int]:
    """Systems within the empire's Scanner links of a system it owns (rules.md §14), its own included."""
    owned = [s.code for s in state.owned_by(empire)]
    depth = state.empires[empire].tech(Tech.SCANNER) if empire in state.empires else 0
    return _within(state, owned, depth)


def link_distances(state: GameState, start: int) -> dict[int, int]:
    """Fewest links from ``start`` to every system reachable from it."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for n in state.neighbours(here):
            if n not in dist:
                dist[n] = dist[here] + 1
                queue.append(n)
    return dist


def check_galaxy(state: GameState) -> list[str]:
    """Everything wrong with the map of ``state`` against rules.md §2.5, as sentences.

    An empty list means the map is sound. Only the map is checked (systems and
    links), not holdings or empires.
    """
    problems: list[str] = []
    systems = state.systems
    allowed_codes = code_range(len(systems))
    squares: dict[tuple[int, int], int] = {}
    for key, s in sorted(systems.items()):
        if key != s.code:
            problems.append(f"system stored under {key} has code {s.code}")
        if s.code not in allowed_codes:
            problems.append(
                f"system {s.code}: a game of {len(systems)} systems uses codes "
                f"{allowed_codes.start}–{allowed_codes.stop - 1}"
            )
        if s.is_star:
            if s.star is not None:
                problems.append(f"star {s.code} ({s.type}) belongs to system {s.star}")
            where = (s.row, s.col)
            if where in squares:
                problems.append(f"stars {squares[where]} and {s.code} share square {where}")
            else:
                squares[where] = s.code
        else:
            host = systems.get(s.star) if s.star is not None else None
            if host is None or not host.is_star:
                problems.append(f"{s.type} {s.code} does not belong to a star")
            elif (host.row, host.col) != (s.row, s.col):
                problems.append(
                    f"{s.type} {s.code} is at {(s.row, s.col)} but its star {host.code} "
                    f"is at {(host.row, host.col)}"
                )
    counts: dict[int, int] = {}
    for a, b in sorted(state.links):
        if (a, b) != link_key(a, b):
            problems.append(f"link {(a, b)} is not stored as {link_key(a, b)}")
        if a not in systems or b not in systems:
            problems.append(f"link {a}–{b} joins a system that does not exist")
            continue
        if not link_allowed(systems[a], systems[b]):
            problems.append(f"link {a}–{b} ({systems[a].type}–{systems[b].type}) is not allowed")
        counts[a] = counts.get(a, 0) + 1
        counts[b] = counts.get(b, 0) + 1
    for code, n in sorted(counts.items()):
        if n > MAX_LINKS and systems[code].is_star:
            problems.append(f"star {code} has {n} links (at most {MAX_LINKS})")
    lost = unreachable_systems(state)
    if lost:
        shown = ", ".join(str(c) for c in lost[:10])
        more = f" and {len(lost) - 10} more" if len(lost) > 10 else ""
        problems.append(f"systems not reachable by links: {shown}{more}")
    return problems


# -- generation ----------------------------------------------------------------


def _rng_for(seed: str, players: int, systems_per_player: int) -> random.Random:
    text = f"starchase-galaxy-v1|{seed}|{players}|{systems_per_player}"
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest, "big"))


def generate_galaxy(
    seed: str,
    players: int,
    systems_per_player: int = 30,
    settings: GameSettings | None = None,
) -> GameState:
    """A new game's map (rules.md §2.5): turn 1, no empires, ``players`` free home slots.

    Raises :class:`GalaxyError` for sizes no map can have.
    """
    if players < 1:
        raise GalaxyError(f"a galaxy needs at least 1 player, not {players}")
    if systems_per_player < 2:
        raise GalaxyError(
            "a galaxy needs at least 2 systems per player (a home star and its planet), "
            f"not {systems_per_player}"
        )
    total = players * systems_per_player
    if total > _MAX_SYSTEMS:
        raise GalaxyError(f"{total} systems is more than the {_MAX_SYSTEMS} codes allow")
    rng = _rng_for(seed, players, systems_per_player)

    n_sat = max(players, total // 4)
    n_stars = total - n_sat

    side = max(2, math.ceil(math.sqrt(n_stars / _DENSITY)))
    cells = rng.sample(range(side * side), n_stars)
    grid = [-1] * (side * side)
    for i, cell in enumerate(cells):
        grid[cell] = i
    rows = [cell // side for cell in cells]
    cols = [cell % side for cell in cells]

    # Stars and their satellites, less the home planets (one per player).
    # Satellites go several to a star, which leaves more stars free for homes:
    # at least half the stars, or all when there are as many players as stars.
    types = rng.choices(list(_STAR_WEIGHTS), weights=list(_STAR_WEIGHTS.values()), k=n_stars)
    sats: list[list[SystemType]] = [[] for _ in range(n_stars)]
    slots = [i for i in range(n_stars) for _ in range(_MAX_SATELLITES)]
    for i in rng.sample(slots, n_sat - players):
        sats[i].append(SystemType.PL if rng.random() < _PLANET_SHARE else SystemType.AB)

    # A star without satellites may become a home: keep a link free for its planet.
    budget = [MAX_LINKS - len(s) if s else MAX_LINKS - 1 for s in sats]
    edges = _make_links(rng, side, grid, rows, cols, budget, n_sat)

    adj: list[list[int]] = [[] for _ in range(n_stars)]
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    for lst in adj:
        lst.sort()
    candidates = [i for i in range(n_stars) if not sats[i]]
    homes = _pick_homes(rng, adj, candidates, players)
    for i in homes:
        types[i] = SystemType.YD
        sats[i] = [SystemType.PL]

    # Codes: random star order, satellites right after their star.
    order = list(range(n_stars))
    rng.shuffle(order)
    codes = iter(code_range(total))
    star_code = [0] * n_stars
    systems: dict[int, System] = {}
    links: set[tuple[int, int]] = set()
    home_set = set(homes)
    for i in order:
        code = next(codes)
        star_code[i] = code
        systems[code] = System(code=code, type=types[i], row=rows[i], col=cols[i], home_slot=i in home_set)
        for t in sats[i]:
            sub = next(codes)
            systems[sub] = System(code=sub, type=t, row=rows[i], col=cols[i], star=code)
            links.add(link_key(code, sub))
    for a, b in edges:
        links.add(link_key(star_code[a], star_code[b]))
    return GameState(
        turn=1,
        systems=systems,
        links=frozenset(links),
        empires={},
        settings=settings if settings is not None else GameSettings(),
    )


def _gabriel_offsets() -> list[tuple[int, int, int, list[tuple[int, int]]]]:
    """For every neighbour offset within reach (counted once per pair): its
    distance², and the offsets that would lie in the closed circle on that
    link as diameter — a star there makes the link too long for the map."""
    reach = math.isqrt(_LINK_REACH_SQ) + 1
    out = []
    for dr in range(0, reach + 1):
        for dc in range(-reach, reach + 1):
            d2 = dr * dr + dc * dc
            if (dr == 0 and dc <= 0) or d2 > _LINK_REACH_SQ:
                continue
            blockers = [
                (wr, wc)
                for wr in range(-reach, reach + 1)
                for wc in range(-reach, reach + 1)
                if (wr, wc) not in ((0, 0), (dr, dc)) and wr * (wr - dr) + wc * (wc - dc) <= 0
            ]
            out.append((dr, dc, d2, blockers))
    return out


def _make_links(
    rng: random.Random,
    side: int,
    grid: list[int],
    rows: list[int],
    cols: list[int],
    budget: list[int],
    n_sat: int,
) -> list[tuple[int, int]]:
    """Star–star links by star index: spanning tree + extra short links."""
    n = len(rows)

    def occupied(r: int, c: int) -> bool:
        return 0 <= r < side and 0 <= c < side and grid[r * side + c] >= 0

    # Gabriel-graph candidates within reach, each with a random tie-breaker.
    cands: list[tuple[int, float, int, int]] = []
    offsets = _gabriel_offsets()
    for i in range(n):
        r, c = rows[i], cols[i]
        for dr, dc, d2, blockers in offsets:
            if not occupied(r + dr, c + dc):
                continue
            if any(occupied(r + wr, c + wc) for wr, wc in blockers):
                continue
            cands.append((d2, rng.random(), i, grid[(r + dr) * side + c + dc]))
    cands.sort()

    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    degree = [0] * n
    edges: list[tuple[int, int]] = []
    spare: list[tuple[int, int, int]] = []
    for d2, _, a, b in cands:
        ra, rb = find(a), find(b)
        if ra != rb and degree[a] < budget[a] and degree[b] < budget[b]:
            parent[ra] = rb
            degree[a] += 1
            degree[b] += 1
            edges.append((a, b))
        else:
            spare.append((d2, a, b))

    _join_components(side, grid, rows, cols, budget, degree, find, parent, edges)

    # Extra links, short ones more likely, up to the target mean.
    target = max(n - 1, (_LINKS_PER_STAR * n - n_sat) // 2)
    extras = sorted(spare, key=lambda e: (e[0] * (0.5 + rng.random()), e[1], e[2]))
    for _, a, b in extras:
        if len(edges) >= target:
            break
        if degree[a] < budget[a] and degree[b] < budget[b]:
            degree[a] += 1
            degree[b] += 1
            edges.append((a, b))
    return edges


def _join_components(
    side: int,
    grid: list[int],
    rows: list[int],
    cols: list[int],
    budget: list[int],
    degree: list[int],
    find: Callable[[int], int],
    parent: list[int],
    edges: list[tuple[int, int]],
) -> None:
    """Link the spanning forest into one tree: repeatedly join the smallest piece
    to its nearest star elsewhere. Rare (an isolated star, a full star in the
    way), so a plain ring search around the piece's stars is fast enough."""
    n = len(rows)
    while True:
        pieces: dict[int, list[int]] = {}
        for i in range(n):
            pieces.setdefault(find(i), []).append(i)
        if len(pieces) <= 1:
            return
        piece = min(pieces.values(), key=lambda p: (len(p), p[0]))
        root = find(piece[0])
        best: tuple[int, int, int] | None = None  # (d2, own star, other star)
        for a in piece:
            if degree[a] >= budget[a]:
                continue
            r0, c0 = rows[a], cols[a]
            for k in range(1, side):
                if best is not None and k * k > best[0]:
                    break
                for r in range(r0 - k, r0 + k + 1):
                    if not 0 <= r < side:
                        continue
                    step = 1 if abs(r - r0) == k else 2 * k
                    for c in range(c0 - k, c0 + k + 1, step):
                        if not 0 <= c < side:
                            continue
                        b = grid[r * side + c]
                        if b < 0 or find(b) == root or degree[b] >= budget[b]:
                            continue
                        d2 = (r - r0) ** 2 + (c - c0) ** 2
                        if best is None or (d2, a, b) < best:
                            best = (d2, a, b)
        if best is None:  # cannot happen: a forest always has a star with room
            raise GalaxyError("could not link the galaxy together")
        _, a, b = best
        parent[find(a)] = find(b)
        degree[a] += 1
        degree[b] += 1
        edges.append((a, b))


def _pick_homes(rng: random.Random, adj: list[list[int]], candidates: list[int], players: int) -> list[int]:
    """``players`` homes among the candidates, as far apart as found.

    Greedy farthest-point selection is within a factor 2 of the best spread;
    running it from a few different first homes and keeping the widest result
    gets noticeably closer on small maps, at a linear cost per try.
    """
    # Prefer candidates that are not dead ends, when there are enough of them.
    pool = [i for i in candidates if len(adj[i]) >= 2]
    if len(pool) < players:
        pool = list(candidates)
    tie = {i: rng.random() for i in pool}
    n = len(adj)

    # The first try starts at the candidate farthest from a random one (an
    # edge of the map); the others at random candidates.
    dist = [n + 1] * n
    _relax(adj, dist, rng.choice(pool))
    starts = [max(pool, key=lambda i: (dist[i], tie[i]))]
    others = [i for i in pool if i != starts[0]]
    # Big maps gain little from more tries (many homes, each region similar).
    tries = _HOME_TRIES if players <= 200 else 2
    starts += rng.sample(others, min(tries - 1, len(others)))

    best: list[int] = []
    best_spread = -1
    for first in starts:
        homes = _farthest_points(adj, pool, tie, first, players)
        spread = _min_separation(adj, homes)
        if spread > best_spread:
            best, best_spread = homes, spread
    return best


def _relax(adj: list[list[int]], dist: list[int], source: int) -> None:
    """Lower ``dist`` (fewest links to any source so far) with a new source.

    Distances only ever shrink, so the BFS stops where an older source is at
    least as near: each pass touches only the new source's own region."""
    dist[source] = 0
    queue = deque([source])
    while queue:
        here = queue.popleft()
        d = dist[here] + 1
        for nb in adj[here]:
            if dist[nb] > d:
                dist[nb] = d
                queue.append(nb)


def _farthest_points(
    adj: list[list[int]], pool: list[int], tie: dict[int, float], first: int, k: int
) -> list[int]:
    dist = [len(adj) + 1] * len(adj)
    homes = [first]
    _relax(adj, dist, first)
    heap = [(-dist[i], -tie[i], i) for i in pool if i != first]
    heapq.heapify(heap)
    while len(homes) < k:
        neg_d, neg_t, i = heapq.heappop(heap)
        if -neg_d != dist[i]:  # stale: a newer home came nearer
            heapq.heappush(heap, (-dist[i], neg_t, i))
            continue
        homes.append(i)
        _relax(adj, dist, i)
    return homes


def _min_separation(adj: list[list[int]], sources: list[int]) -> int:
    """Fewest links between any two sources (multi-source BFS: the closest pair
    meets across a link where two sources' regions touch)."""
    if len(sources) < 2:
        return len(adj) + 1
    dist = [-1] * len(adj)
    region = [-1] * len(adj)
    queue = deque(sources)
    for s in sources:
        dist[s] = 0
        region[s] = s
    while queue:
        here = queue.popleft()
        for nb in adj[here]:
            if dist[nb] < 0:
                dist[nb] = dist[here] + 1
                region[nb] = region[here]
                queue.append(nb)
    return min(
        dist[a] + 1 + dist[b] for a in range(len(adj)) for b in adj[a] if a < b and region[a] != region[b]
    )


# -- empires -------------------------------------------------------------------


def _within(state: GameState, sources: list[int], depth: int) -> set[int]:
    seen = set(sources)
    frontier = list(sources)
    for _ in range(depth):
        nxt = []
        for code in frontier:
            for n in state.neighbours(code):
                if n not in seen:
                    seen.add(n)
                    nxt.append(n)
        frontier = nxt
    return seen


def place_empire(state: GameState, code: str, name: str) -> Empire:
    """Give a new empire the lowest-coded free home slot and its start (rules.md §3.1).

    Mutates ``state``: the empire is added, its home star and planet are
    stocked and owned, and ``state.seen[code]`` is filled from its scanners.
    """
    if not isinstance(code, str) or not _EMPIRE_CODE.fullmatch(code):
        raise GalaxyError(f"empire code {code!r} is not 3 capital letters A–Z")
    if code in state.empires:
        raise GalaxyError(f"empire code {code} is already used in this game")
    if not name.strip():
        raise GalaxyError(f"empire {code} needs a name")
    free = free_home_slots(state)
    if not free:
        raise GalaxyError(f"no free home slot: all {len(home_slots(state))} homes are taken")
    star = state.systems[free[0]]
    planet_code = home_planet(state, star.code)
    assert planet_code is not None  # free_home_slots only lists stars with one
    planet = state.systems[planet_code]

    planet.owner = code
    planet.ever_owned = True
    planet.pop, planet.industry, planet.fighters = 20, 10, 2
    star.owner = code
    star.ever_owned = True
    star.pop, star.industry = 2, 2
    star.colony_ships, star.fighters, star.cruisers = 1, 2, 5

    empire = Empire(
        code=code,
        name=name,
        treasury=START_TREASURY,
        techs=dict(TECH_START),
        base=star.code,
        home=planet.code,
    )
    state.empires[code] = empire
    empire.balance = income(state, code)
    # A new code owns nothing else, so the scan can start from these two.
    state.seen[code] = _within(state, [star.code, planet.code], empire.tech(Tech.SCANNER))
    return empire
