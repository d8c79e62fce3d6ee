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
"""

from __future__ import annotations

from typing import Final

__all__ = ["EventKind", "Reason"]


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
