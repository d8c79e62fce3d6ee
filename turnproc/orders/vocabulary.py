"""The turn engine's vocabulary: every event kind and every failure reason.

Reports, the GM's summaries and golden turn files match on these strings, so
they are stable: add new ones, never rename.

Event kinds (``Event.kind``; ``Event.empire`` is the actor, data as listed)
---------------------------------------------------------------------------
``turn``
    First event of every turn: ``turn`` (the number resolved), ``slot_order``
    (empire codes in the order they act within each slot).
``order``
    Exactly one per order, in execution order: ``line``, ``action``, ``text``
    (canonical form built from the fields), ``slot`` (1–16, None for NAME and
    MESSAGE), ``ok``, ``reason`` (a code below or None), ``cost`` (BP spent from
    the balance), ``treasury_cost`` (BP spent from the treasury) and
    action-specific fields, present when they apply: ``from``, ``to``,
    ``where`` (system codes); ``asked`` and ``moved``/``done`` (counts after
    clamping); ``outcome`` (MOVE/ASSAULT/DEEP: moved, captured, repelled,
    held_off, lost; COLONISE: planted, thrown); ``arrived``, ``survivors``,
    ``lost`` (DEEP), ``fighters`` (MOVECOL), ``distsq``, ``gained`` (TAX),
    ``tech`` and ``level`` (TECH), ``recipient`` (GIFT, MESSAGE), ``stance``,
    ``target``, ``parts``, ``name``.
``message``
    Press: ``from``, ``to`` (empire code or None for ALL), ``text``.
``name``
    A system was renamed: ``system``, ``name``.
``stance``
    A stance, BASE or HOME took effect before slot 1: ``system``, ``stance``,
    ``target``, ``parts`` (stances) or ``base``/``home``.
``distsq``
    ``from``, ``to``, ``distsq``.
``move``
    Ships arrived in an own system: ``from``, ``to``, ``cruisers``, ``fighters``,
    ``colony_ships``, ``sticky``.
``sticky``
    After the last slot, once per empire that has any: ``systems``, the
    codes of its systems its ships could not leave this turn (rules.md §7.1).
``hyperspace_loss``
    DEEP: ``from``, ``to``, ``distsq``, ``jump``, ``ships``, ``lost``.
``capture``
    ``system``, ``from_empire`` (None when unowned), ``cruisers`` moved in,
    ``pop``, ``industry``, ``colony_ships`` after halving, ``how``
    (MOVE/ASSAULT/DEEP/COLONISE), ``vp_lost``.
``exploration``
    ``system``, ``roll`` (d100), ``find`` (nothing/cruisers/fighters/
    colony_ship/industry/vp/bp/treasury/tech/population), ``amount``, ``tech``.
``battle``
    ``system``, ``from``, ``action``, ``attacker``, ``defender``, ``attack``
    and ``defence`` (first round), ``engage`` (None or attacker/defender values,
    dice and orders, ``winner``), ``fire_order`` (simultaneous/defender_first),
    ``rounds`` (list of per-round strengths and losses), ``losses`` by side and
    ship type, ``survivors``, ``defence_level``, ``winner``
    (attacker/defender), ``captured``.
``standoff``
    The defender held the attack off: ``system``, ``from``, ``attacker``,
    ``defender``, ``engage``.
``withdraw``
    Cruisers withdrew before a battle: ``system``, ``to``, ``cruisers``,
    ``caught``, ``lost`` (retreat losses under zoc), ``attacker``.
``pursuit``
    ``system`` (the withdrawal system), ``withdrawer``: the attacker's next
    MOVE/ASSAULT there cannot be evaded. Also sent with ``forced: true`` when
    that pursuit is used.
``pin``
    ``system``, ``by`` (pinning empires), ``strength`` (twelfths), ``held``,
    ``ran``.
``control_stop``
    zoc without pinning: moving ships stopped in an enemy-controlled system:
    ``system``, ``by``.
``blockade``
    ``planet``, ``star``, ``by``: the planet earns nothing this turn.
``leftovers``
    ``balance``, ``cruisers``, ``base``, ``fighters``, ``home``, ``lost``.
``income``
    ``systems`` (list of {system, income}), ``blockaded`` (planet codes),
    ``bp_income``, ``total``.
``supply``
    ``systems`` (list of {system, cost, in_supply}), ``total``, ``paid``,
    ``shortfall``, ``scrapped`` (list of {system, cruisers}), ``forgiven``.
``interest``
    ``rate``, ``amount``, ``treasury``.
``research``
    ``tech``, ``level``.
``vp``
    ``industry_vp``, ``cultural_vp``, ``gained``, ``vp``.
``eliminated``
    The empire owns no system any more.
``end``
    Game over: ``reason`` (turn_limit/vp_target/last_empire), ``winner``,
    ``ranking`` (list of {empire, vp, industry}).

Rule set version 2 only (rules.md §19, rules.md §20); a version-1 turn never has these
kinds nor these extra fields:

``battle`` / ``bombard`` extra field
    ``lost_in_space``: {attacker, defender} cruisers of the losses that went to
    each owner's lost-in-space pool (rules.md §19.2).
``bombard``
    ``system`` (the planet), ``from`` (its star), ``attacker``, ``defender``,
    ``pop_roll``, ``industry_roll``, ``pop_lost``, ``industry_lost``,
    ``cruisers_lost``, ``fighters_lost``, ``lost_in_space``.
``link``
    A new link: ``from``, ``to``, ``distsq``.
``order`` extra fields
    LAYUP/RESERVE: ``reserve`` (after); RECOVER: ``lost_in_space`` (after);
    BOMBARD: ``pop_lost``, ``industry_lost``, ``cruisers_lost``, ``fighters_lost``;
    LINK: ``distsq``; PROBE (slot None): ``where`` (the target), ``case``
    (activated/moved/launched), ``lost`` (an inactive probe lost to the limit);
    FIND: ``destroyed``; TRADE: ``level`` (None: the trader's own); TAKE (its
    slot, run after slot 16): ``level``, ``received``.
``retreat_reset``
    A cruiser MOVE set ``system``'s RETREAT destination to ``to`` (rules.md §19.7).
``trade``
    A TAKE matched a TRADE (sent to the trader, actor = trader): ``taker``,
    ``tech``, ``level`` (the taker's new level), ``paid``, ``received``.
``probe_lost``
    One of the empire's probes was destroyed by a FIND: ``system``.
``probe_view``
    End of turn, per empire with probes: ``probes`` (list of {system, state}),
    ``systems`` (list of {system, type, owner, pop, industry, cruisers,
    fighters, colony_ships}) - what its probes see.
``reserve``
    End of turn, per empire: ``reserve``, ``lost_in_space`` (rules.md §19.2).
"""

from __future__ import annotations

from typing import Final

__all__ = ["EventKind", "Reason", "REASONS"]


class EventKind:
    """Event kind names (see the module docstring for their data)."""

    TURN: Final = "turn"
    ORDER: Final = "order"
    MESSAGE: Final = "message"
    NAME: Final = "name"
    STANCE: Final = "stance"
    DISTSQ: Final = "distsq"
    MOVE: Final = "move"
    STICKY: Final = "sticky"
    HYPERSPACE_LOSS: Final = "hyperspace_loss"
    CAPTURE: Final = "capture"
    EXPLORATION: Final = "exploration"
    BATTLE: Final = "battle"
    STANDOFF: Final = "standoff"
    WITHDRAW: Final = "withdraw"
    PURSUIT: Final = "pursuit"
    PIN: Final = "pin"
    CONTROL_STOP: Final = "control_stop"
    BLOCKADE: Final = "blockade"
    LEFTOVERS: Final = "leftovers"
    INCOME: Final = "income"
    SUPPLY: Final = "supply"
    INTEREST: Final = "interest"
    RESEARCH: Final = "research"
    VP: Final = "vp"
    ELIMINATED: Final = "eliminated"
    END: Final = "end"
    # Rule set version 2 (rules.md §19).
    BOMBARD: Final = "bombard"
    LINK: Final = "link"
    RETREAT_RESET: Final = "retreat_reset"
    TRADE: Final = "trade"
    PROBE_LOST: Final = "probe_lost"
    PROBE_VIEW: Final = "probe_view"
    RESERVE: Final = "reserve"


class Reason:
    """Why an order failed (the ``reason`` of an ``order`` event)."""

    NO_SYSTEM: Final = "no_system"
    """A system field is missing or names no system in this game."""
    SAME_SYSTEM: Final = "same_system"
    """FROM and TO are the same system."""
    NOT_OWNED: Final = "not_owned"
    """You do not own WHERE / FROM (any more)."""
    DEST_NOT_OWNED: Final = "dest_not_owned"
    """MOVEF / MOVECOL / RETREAT: you do not own TO."""
    NOT_LINKED: Final = "not_linked"
    NOT_STAR: Final = "not_star"
    """DEEP, DISTSQ and RETREAT targets may not be a planet or belt."""
    TOO_FAR: Final = "too_far"
    """DEEP: distance² is more than your Jump tech."""
    BEYOND_HYPERSPACE: Final = "beyond_hyperspace"
    """LINK: distance² is more than your Hyperspace tech (rule set 2)."""
    STICKY: Final = "sticky"
    """Your ships in FROM may not leave this turn (rules.md §7.1)."""
    PINNED: Final = "pinned"
    """Every cruiser in FROM is held by a pin this turn (rules.md §9.1)."""
    ZOC: Final = "zoc"
    """From an enemy-controlled system straight into another (rules.md §8.2)."""
    NO_SHIPS: Final = "no_ships"
    """No ships of the needed kind that may act."""
    NO_MONEY: Final = "no_money"
    """The balance does not pay for even one."""
    NO_TREASURY: Final = "no_treasury"
    """The treasury does not pay for even one."""
    OWN_SYSTEM: Final = "own_system"
    """ASSAULT into your own system."""
    BLOCKADED: Final = "blockaded"
    NO_CAPACITY: Final = "no_capacity"
    """Building ships needs industry and population (at most min of both)."""
    AT_LIMIT: Final = "at_limit"
    """BUILD / GROW: already at the population limit."""
    HAS_POPULATION: Final = "has_population"
    """COLONISE plant: WHERE already has population."""
    NOT_UNOWNED: Final = "not_unowned"
    """COLONISE throw: TO is owned."""
    UNKNOWN_EMPIRE: Final = "unknown_empire"
    SELF: Final = "self"
    """GIFT / MESSAGE to yourself."""
    NO_BASE: Final = "no_base"
    """Blank WHERE and no BASE you own."""
    MISSING_FIELD: Final = "missing_field"
    """A field the action needs was left out."""
    NOTHING: Final = "nothing"
    """The NUMBER asks for none."""
    TOO_LONG: Final = "too_long"
    """NAME longer than 24 characters."""
    NO_TEXT: Final = "no_text"
    TOO_MANY_NAMES: Final = "too_many_names"
    TOO_MANY_ACTIONS: Final = "too_many_actions"
    BAD_PARTS: Final = "bad_parts"
    """RETREAT parts must be 1–3."""
    NO_EMPIRE: Final = "no_empire"
    """The empire owns no system any more: nothing it orders can happen."""
    # Rule set version 2 (rules.md §19).
    NOT_IN_RULESET: Final = "not_in_ruleset"
    """An order or tech of rule set 2 in a version-1 game."""
    NO_RESERVE: Final = "no_reserve"
    """RESERVE: no reserve cruisers (laid up before this turn)."""
    NO_POOL: Final = "no_pool"
    """RECOVER: nothing lost in space."""
    NOT_PLANET: Final = "not_planet"
    """BOMBARD: TO is not a planet of FROM's star."""
    NOT_ENEMY: Final = "not_enemy"
    """BOMBARD: the planet is yours or nobody's."""
    NOT_STAR_FROM: Final = "not_star_from"
    """BOMBARD, LINK: FROM must be a star."""
    TARGET_OWNED: Final = "target_owned"
    """LINK: TO belongs to another empire."""
    ALREADY_LINKED: Final = "already_linked"
    BAD_DISTANCE: Final = "bad_distance"
    """LINK: distance² must be 1, 2, 4 or 9."""
    BLOCKED: Final = "blocked"
    """LINK: another star's square lies on the segment."""
    TOO_MANY_LINKS: Final = "too_many_links"
    """LINK: an end already has 7 links."""
    OUT_OF_RANGE: Final = "out_of_range"
    """PROBE: no case applies (not linked to, nor within Jump of, your probe or systems)."""
    TOO_MANY_PROBES: Final = "too_many_probes"
    """More PROBE lines than the Probe tech."""
    NO_OFFER: Final = "no_offer"
    """TAKE: no matching TRADE to you, or the level offered is not above yours."""
    ONE_TAKE: Final = "one_take"
    """A second TAKE in the same turn."""
    LEVEL_TOO_HIGH: Final = "level_too_high"
    """TRADE: a level above your own (not counting levels received by trade)."""
    NOT_SLOT_16: Final = "not_slot_16"
    """STASH with no number outside slot 16."""


#: Player-facing words for each failure reason: the report's words for a failed
#: order, and the acknowledgement's for an order it already sees must fail
#: (rules.md §17.1), so the two never differ.
REASONS: dict[str, str] = {
    "no_system": "no such system",
    "same_system": "FROM and TO are the same system",
    "not_owned": "you do not own that system (any more)",
    "dest_not_owned": "you do not own the destination",
    "not_linked": "the systems are not linked",
    "not_star": "the target is a planet or asteroid belt",
    "too_far": "the jump is longer than your Jump tech allows",
    "beyond_hyperspace": "the link is longer than your Hyperspace tech allows",
    "sticky": "your ships there may not leave this turn",
    "pinned": "every cruiser there is held by an enemy pin",
    "zoc": "you cannot move from enemy control straight into enemy control",
    "no_ships": "no ships there that could act",
    "no_money": "not enough BP in your balance",
    "no_treasury": "not enough BP in your treasury",
    "own_system": "you cannot assault your own system",
    "blockaded": "the planet is blockaded",
    "no_capacity": "no industry or population there to build with",
    "at_limit": "already at the population limit",
    "has_population": "the system already has population",
    "not_unowned": "the target is owned",
    "unknown_empire": "no such empire",
    "self": "you cannot do that to yourself",
    "no_base": "no BASE you own",
    "missing_field": "a field is missing",
    "nothing": "the number asks for none",
    "too_long": "the name is longer than 24 characters",
    "no_text": "there is no text",
    "too_many_names": "only 2 NAME orders are carried out",
    "too_many_actions": "only 16 actions are carried out",
    "bad_parts": "RETREAT parts must be 1 to 3",
    "no_empire": "your empire owns no system",
    # Rule set 2 (rules.md §19).
    "not_in_ruleset": "this game plays rule set 1, which does not have it",
    "no_reserve": "no reserve cruisers (those laid up this turn cannot come back yet)",
    "no_pool": "nothing is lost in space",
    "not_planet": "the target is not a planet of that star",
    "not_enemy": "the planet is not another empire's",
    "not_star_from": "FROM must be a star",
    "target_owned": "the target star belongs to another empire",
    "already_linked": "the stars are already linked",
    "bad_distance": "a link must be distance squared 1, 2, 4 or 9",
    "blocked": "another star lies on the way",
    "too_many_links": "a star there already has 7 links",
    "out_of_range": "not linked to, nor within Jump of, your probe or systems",
    "too_many_probes": "more PROBE lines than your Probe tech",
    "no_offer": "no matching TRADE offer above your level",
    "one_take": "only one TAKE a turn",
    "level_too_high": "you may not offer a level above your own",
    "not_slot_16": "STASH without a number works only as action 16",
}
