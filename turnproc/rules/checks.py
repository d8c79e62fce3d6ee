"""Checks on a parse's candidate orders: against the game state (with the
engine's own reasons for what the report shows must fail, rules.md §17.1), then
the limits and duplicates on the whole set, in line order (rules.md §4, rules.md §6)."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass, field

from ..orders.grammar import SETTINGS, STANCES, FieldKind
from ..orders.orders import MAX_NAMES, MAX_SLOTS, STANCE_ACTIONS, V2_ACTIONS, Action, Order, Severity
from ..orders.problems import PROBLEMS
from ..orders.reader import Candidate, Run, did_you_mean, quote
from .foresight import FORESEEN_ACTIONS, foreseen
from .sight import ReportSight
from .state import GameState, SystemType, Tech, link_key

__all__ = ["KnownSystems", "known_systems", "known_systems_all", "check_orders"]


@dataclass(frozen=True)
class KnownSystems:
    """What an empire owns and knows at the start of the turn.

    Working it out walks every system; an intake that parses many mails from
    one empire against one state computes it once (:func:`known_systems`) and
    passes it to each parse.
    """

    state: GameState
    empire: str
    owned: frozenset[int]
    known: frozenset[int]


def known_systems(state: GameState, empire: str) -> KnownSystems | None:
    if empire not in state.empires:
        return None
    owned = frozenset(c for c, s in state.systems.items() if s.owner == empire)
    seen = {c for c in state.seen.get(empire, set()) if c in state.systems}
    return KnownSystems(state, empire, owned, owned | seen)


def known_systems_all(state: GameState) -> dict[str, KnownSystems]:
    """:func:`known_systems` of every empire, in one walk over the systems (a turn
    parses every empire's orders: one walk each would be quadratic)."""
    owned: dict[str, set[int]] = {code: set() for code in state.empires}
    for c, s in state.systems.items():
        if s.owner in owned:
            owned[s.owner].add(c)
    result = {}
    for code, mine in owned.items():
        seen = {c for c in state.seen.get(code, set()) if c in state.systems}
        result[code] = KnownSystems(state, code, frozenset(mine), frozenset(mine | seen))
    return result


@dataclass
class _Scope:
    """The checks' view of one parse. ``state`` is None when there is nothing
    to check against (no state, or an empire not in it)."""

    state: GameState | None
    empire: str | None
    owned: Set[int] = field(default_factory=frozenset)
    known: Set[int] = field(default_factory=frozenset)
    captured: set[int] = field(default_factory=set)
    new_links: set[tuple[int, int]] = field(default_factory=set)
    """Rule set 2: links earlier LINK lines of these orders make (rules.md §19.4)."""
    raised: set[Tech] = field(default_factory=set)
    """Techs earlier TECH lines of these orders buy."""
    exploring: bool = False
    """An earlier order may capture a system, whose exploration may find a tech."""
    sight: ReportSight | None = None

    def report_sight(self) -> ReportSight:
        """What the empire's report shows, and what these orders so far may
        change (rules.md §17.1); built the first time an order needs it."""
        assert self.state is not None and self.empire is not None
        if self.sight is None:
            self.sight = ReportSight(
                self.state,
                self.empire,
                self.known,
                self.owned,
                self.captured,
                self.new_links,
                self.raised,
                self.exploring,
            )
        self.sight.exploring = self.exploring
        return self.sight


def _scope_of(state: GameState | None, empire: str | None, known: KnownSystems | None = None) -> _Scope:
    if state is None or empire is None or empire not in state.empires:
        return _Scope(None, empire)
    if known is None or known.state is not state or known.empire != empire:
        known = known_systems(state, empire)
    assert known is not None
    return _Scope(state, empire, known.owned, known.known)


def _codes_hint(code: int, pool: Set[int]) -> str:
    return did_you_mean(str(code), [str(c) for c in sorted(pool)], cutoff=0.6)


def _state_checks(run: Run, scope: _Scope, cand: Candidate) -> bool:
    """Problems that need the game state; True when the order may be stored."""
    o, spec, line, name = cand.order, cand.spec, cand.text, cand.order.action._value_
    ok = True

    def add(code: str, **kw: object) -> None:
        nonlocal ok
        run.problem(o.line, code, line, **kw)
        if PROBLEMS[code].severity is Severity.ERROR:
            ok = False

    if scope.empire is not None and o.action is Action.GIFT and o.empire == scope.empire:
        add("gift_to_self")
    state = scope.state
    if state is None:
        return ok
    if not state.v2:
        v2_only = o.action.value if o.action in V2_ACTIONS else None
        if o.tech is not None and o.tech not in state.techs:
            v2_only = o.tech.value
        if v2_only is not None:
            add("not_in_ruleset", value=v2_only, ruleset=state.settings.ruleset)
            return ok
    unknown: set[str] = set()
    for f in spec.fields:
        value = getattr(o, f.attr)
        if f.kind is FieldKind.SYSTEM and value is not None and value not in scope.known:
            add("unknown_system", value=value, hint=_codes_hint(value, scope.known))
            unknown.add(f.attr)
    where, to = o.where, o.to
    if spec.owned and where is not None and "where" not in unknown and where not in scope.owned:
        early = o.action in STANCE_ACTIONS or o.action is Action.NAME
        if where in scope.captured and not early:
            add("not_owned_yet", value=where)
        else:
            add("not_owned", value=where, hint=_codes_hint(where, scope.owned))
    if to is not None and "to" not in unknown:
        if spec.to_star and not state.systems[to].is_star and not _belt_retreat(state, o):
            add("target_is_planet", action=name, value=to)
        if (
            spec.linked
            and where is not None
            and where in scope.owned
            and not state.linked(where, to)
            and link_key(where, to) not in scope.new_links
        ):
            add("not_linked", action=name, value=where, to=to)
        if spec.to_owned and to not in scope.owned and to not in scope.captured:
            add("target_not_owned", action=name, value=to)
    if o.action in (Action.GIFT, Action.MESSAGE) and o.empire is not None:
        if o.empire not in state.empires:
            hint = did_you_mean(o.empire, list(state.empires), cutoff=0.6)
            add("unknown_empire", value=quote(o.empire), hint=hint)
    first = spec.fields[0] if spec.fields else None
    if (
        first is not None
        and first.optional
        and first.attr == "where"
        and where is None
        and o.number is not None
        and o.number.count in scope.owned
    ):
        add("number_is_system", action=name, value=o.number.count)
    if ok and o.action in FORESEEN_ACTIONS:
        told = foreseen(scope.report_sight(), o)
        if told is not None:
            add(told[0], **told[1])
    return ok


def _belt_retreat(state: GameState, o: Order) -> bool:
    """Rule set 2: RETREAT may name an asteroid belt of the same star (rules.md §20.3)."""
    if not state.v2 or o.action is not Action.RETREAT or o.to is None:
        return False
    target = state.systems[o.to]
    return target.type is SystemType.AB and target.star == o.where


def _limit_problem(run: Run, scope: _Scope, cand: Candidate, counts: dict[str, int]) -> bool:
    """Rule set 2's per-turn limits (PROBE lines, one TAKE, STASH without a
    number as action 16); True when the line may be stored. ``counts`` holds
    the stored slots, probes and the line of the first TAKE so far."""
    o = cand.order
    state = scope.state
    if o.action is Action.PROBE and state is not None and scope.empire is not None:
        limit = state.empires[scope.empire].tech(Tech.PROBE)
        if counts["probes"] >= limit:
            run.problem(o.line, "too_many_probes", cand.text, limit=limit)
            return False
        counts["probes"] += 1
    if o.action is Action.TAKE:
        if counts["take"]:
            run.problem(o.line, "second_take", cand.text, other=counts["take"])
            return False
        counts["take"] = o.line
    if o.action is Action.STASH and o.number is None and state is not None:
        if not state.v2:
            # Ruling R1: leaving the number out is rule set 2's STASH (rules.md §19.7).
            run.problem(
                o.line,
                "not_in_ruleset",
                cand.text,
                value="STASH without a number",
                ruleset=state.settings.ruleset,
            )
            return False
        if counts["slots"] + 1 != MAX_SLOTS:
            run.problem(o.line, "stash_not_last", cand.text, slot=counts["slots"] + 1)
            return False
    return True


def check_orders(
    run: Run, state: GameState | None, empire: str | None, known: KnownSystems | None = None
) -> None:
    """State checks, limits and duplicates, in line order; stores the orders."""
    scope = _scope_of(state, empire, known)
    slots = names = 0
    stances: dict[int, int] = {}
    settings: dict[Action, int] = {}
    named: dict[int, int] = {}
    counts = {"slots": 0, "probes": 0, "take": 0}
    for cand in run.candidates:
        o = cand.order
        if not _state_checks(run, scope, cand):
            continue
        counts["slots"] = slots
        if not _limit_problem(run, scope, cand, counts):
            continue
        if o.uses_slot:
            if slots >= MAX_SLOTS:
                run.problem(o.line, "too_many_slots", cand.text, limit=MAX_SLOTS)
                continue
            slots += 1
        if o.action is Action.NAME:
            if names >= MAX_NAMES:
                run.problem(o.line, "too_many_names", cand.text, limit=MAX_NAMES)
                continue
            names += 1
        if o.action in STANCES and o.where is not None:
            if o.where in stances:
                run.problem(o.line, "duplicate_stance", cand.text, value=o.where, other=stances[o.where])
            stances[o.where] = o.line
        if o.action in SETTINGS:
            if o.action in settings:
                run.problem(
                    o.line,
                    "duplicate_setting",
                    cand.text,
                    action=o.action.value,
                    other=settings[o.action],
                )
            settings[o.action] = o.line
        if o.action is Action.NAME and o.where is not None:
            if o.where in named:
                run.problem(o.line, "duplicate_name", cand.text, value=o.where, other=named[o.where])
            named[o.where] = o.line
        run.result.orders.append(o)
        if cand.spec.captures and o.to is not None:
            scope.captured.add(o.to)
        if o.action is Action.LINK and o.where is not None and o.to is not None:
            scope.new_links.add(link_key(o.where, o.to))
        if o.action is Action.TECH and o.tech is not None:
            scope.raised.add(o.tech)
        if cand.spec.captures and o.to is not None and o.to not in scope.owned:
            scope.exploring = True
