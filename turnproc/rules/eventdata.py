"""What each event kind's ``data`` holds (the list in :mod:`.vocabulary`), as types.

``Event.data`` stays a plain dict (it is stored and compared as JSON); a
reader casts it to its kind's shape here, so a key read under a wrong or
old name is a mypy error, not a "None" printed in a report. Keys the engine
writes only where they apply are ``NotRequired``; readers take them with
``.get``, every other key by subscript, which mypy checks.
tests/rules/test_event_data.py holds the engine to these shapes over every
golden turn, and the report's phrasing to their keys.
"""

# No ``from __future__ import annotations`` here: Python 3.11 tells a
# NotRequired key (``__required_keys__``, which the tests read) only from
# annotations it evaluates.

from typing import Literal, NotRequired, TypedDict

from ..orders.vocabulary import EventKind

__all__ = [
    "Forces",
    "ShipsAfter",
    "Engage",
    "Losses",
    "Sides",
    "RoundData",
    "SystemIncome",
    "SystemSupply",
    "Scrapped",
    "ProbeState",
    "ProbeSight",
    "TurnData",
    "OrderData",
    "MessageData",
    "NameData",
    "StanceData",
    "DistsqData",
    "MoveData",
    "StickyData",
    "HyperspaceData",
    "CaptureData",
    "ExplorationData",
    "BattleData",
    "StandoffData",
    "WithdrawData",
    "PursuitData",
    "PinData",
    "ControlStopData",
    "BlockadeData",
    "LeftoversData",
    "IncomeData",
    "SupplyData",
    "InterestData",
    "ResearchData",
    "VpData",
    "EndData",
    "BombardData",
    "LinkData",
    "RetreatResetData",
    "TradeData",
    "ProbeLostData",
    "ProbeViewData",
    "ReserveData",
    "EliminatedData",
    "EndRow",
    "SHAPES",
]


class Forces(TypedDict):
    """What a system holds, as an attack or a probe saw it."""

    pop: int
    industry: int
    cruisers: int
    fighters: int
    colony_ships: int


class ShipsAfter(Forces):
    """A system right after an attack on it (rules.md §14, ruling V2)."""

    owner: str | None
    stance: str


class Engage(TypedDict):
    attacker_order: str
    attacker_value: int | None
    attacker_dice: list[int] | None
    defender_order: str
    defender_value: int | None
    defender_dice: list[int] | None
    winner: Literal["attacker", "defender"]


class Sides(TypedDict):
    attacker: int
    defender: int


class Losses(TypedDict):
    attacker: dict[str, int]
    defender: dict[str, int]


class RoundData(TypedDict):
    attack: int
    defence: int
    attacker_cruisers_lost: int
    defender_fighters_lost: int
    defender_cruisers_lost: int


class SystemIncome(TypedDict):
    system: int
    income: int


class SystemSupply(TypedDict):
    system: int
    cost: int
    in_supply: bool


class Scrapped(TypedDict):
    system: int
    cruisers: int


class ProbeState(TypedDict):
    system: int
    state: Literal["active", "inactive"]


class ProbeSight(Forces):
    system: int
    type: str
    owner: str | None


class TurnData(TypedDict):
    turn: int
    slot_order: list[str]


OrderData = TypedDict(
    "OrderData",
    {
        "line": int | None,
        "action": str,
        "text": str,
        "slot": int | None,
        "ok": bool,
        "reason": str | None,
        "cost": int,
        "treasury_cost": int,
        # What the action adds, where it applies.
        "from": NotRequired[int],
        "to": NotRequired[int],
        "where": NotRequired[int],
        "asked": NotRequired[int],
        "moved": NotRequired[int],
        "done": NotRequired[int],
        "outcome": NotRequired[str],
        "arrived": NotRequired[int],
        "survivors": NotRequired[int],
        "lost": NotRequired[int | None],
        "fighters": NotRequired[int],
        "distsq": NotRequired[int],
        "gained": NotRequired[int],
        "tech": NotRequired[str],
        "level": NotRequired[int | None],
        "recipient": NotRequired[str | None],
        "stance": NotRequired[str],
        "target": NotRequired[int | None],
        "parts": NotRequired[int],
        "name": NotRequired[str],
        "case": NotRequired[str],
        "destroyed": NotRequired[int],
        "received": NotRequired[int],
        "reserve": NotRequired[int],
        "lost_in_space": NotRequired[int],
        "cruisers_lost": NotRequired[int],
        "fighters_lost": NotRequired[int],
        "pop_lost": NotRequired[int],
        "industry_lost": NotRequired[int],
    },
)
MessageData = TypedDict("MessageData", {"from": str, "to": str | None, "text": str})


class NameData(TypedDict):
    system: int
    name: str


class StanceData(TypedDict):
    """A stance (``stance``, ``target``, ``parts``), or BASE or HOME (``base`` or ``home``)."""

    system: int
    stance: NotRequired[str]
    target: NotRequired[int | None]
    parts: NotRequired[int]
    base: NotRequired[int]
    home: NotRequired[int]


DistsqData = TypedDict("DistsqData", {"from": int, "to": int, "distsq": int})
MoveData = TypedDict(
    "MoveData",
    {
        "from": int,
        "to": int,
        "asked": int,
        "moved": int,
        "cruisers": int,
        "fighters": int,
        "colony_ships": int,
        "sticky": bool,
    },
)


class StickyData(TypedDict):
    systems: list[int]


HyperspaceData = TypedDict(
    "HyperspaceData",
    {
        "from": int,
        "to": int,
        "asked": int,
        "moved": int,
        "distsq": int,
        "jump": int,
        "ships": int,
        "lost": int,
    },
)


class CaptureData(TypedDict):
    system: int
    from_empire: str | None
    cruisers: int
    pop: int
    industry: int
    colony_ships: int
    how: str
    vp_lost: int


class ExplorationData(TypedDict):
    system: int
    roll: int
    find: str
    amount: int
    tech: str | None


BattleData = TypedDict(
    "BattleData",
    {
        "system": int,
        "from": int,
        "action": str,
        "attacker": str,
        "defender": str,
        "attack": int,
        "defence": int,
        "engage": Engage | None,
        "fire_order": str,
        "rounds": list[RoundData],
        "losses": Losses,
        "survivors": int,
        "defence_level": int,
        "winner": str,
        "captured": bool,
        "after": ShipsAfter,
        "lost_in_space": NotRequired[Sides],
    },
)
StandoffData = TypedDict(
    "StandoffData",
    {"system": int, "from": int, "attacker": str, "defender": str, "engage": Engage, "after": ShipsAfter},
)


class WithdrawData(TypedDict):
    system: int
    to: int
    cruisers: int
    caught: int
    lost: int
    attacker: str


class PursuitData(TypedDict):
    system: int
    withdrawer: str
    forced: bool


class PinData(TypedDict):
    system: int
    by: list[str]
    strength: int
    held: int
    ran: int


class ControlStopData(TypedDict):
    system: int
    by: list[str]


class BlockadeData(TypedDict):
    planet: int
    star: int
    by: str


class LeftoversData(TypedDict):
    balance: int
    base: int | None
    home: int | None
    cruisers: int
    fighters: int
    treasury: NotRequired[int]
    lost: int


class IncomeData(TypedDict):
    total: int
    bp_income: int
    systems: list[SystemIncome]
    blockaded: list[int]


class SupplyData(TypedDict):
    total: int
    paid: int
    shortfall: int
    forgiven: int
    systems: list[SystemSupply]
    scrapped: list[Scrapped]


class InterestData(TypedDict):
    rate: int
    amount: int
    treasury: int


class ResearchData(TypedDict):
    tech: str
    level: int


class VpData(TypedDict):
    gained: int
    industry_vp: int
    cultural_vp: int
    vp: int


class EndRow(TypedDict):
    empire: str
    vp: int
    industry: int


class EndData(TypedDict):
    reason: str
    turn: int
    winner: str | None
    winners: list[str]
    ranking: list[EndRow]


BombardData = TypedDict(
    "BombardData",
    {
        "system": int,
        "from": int,
        "attacker": str,
        "defender": str,
        "pop_roll": int,
        "industry_roll": int,
        "pop_lost": int,
        "industry_lost": int,
        "cruisers_lost": int,
        "fighters_lost": int,
        "lost_in_space": Sides,
    },
)
LinkData = TypedDict("LinkData", {"from": int, "to": int, "distsq": int})


class RetreatResetData(TypedDict):
    system: int
    to: int


class TradeData(TypedDict):
    taker: str
    tech: str
    level: int
    paid: int
    received: int


class ProbeLostData(TypedDict):
    system: int


class ProbeViewData(TypedDict):
    probes: list[ProbeState]
    systems: list[ProbeSight]


class ReserveData(TypedDict):
    reserve: int
    lost_in_space: int


class EliminatedData(TypedDict):
    """No data: the actor is the empire eliminated."""


#: Event kind -> the shape of its data: every kind of :class:`.vocabulary.EventKind`.
SHAPES: dict[str, type] = {
    EventKind.TURN: TurnData,
    EventKind.ORDER: OrderData,
    EventKind.MESSAGE: MessageData,
    EventKind.NAME: NameData,
    EventKind.STANCE: StanceData,
    EventKind.DISTSQ: DistsqData,
    EventKind.MOVE: MoveData,
    EventKind.STICKY: StickyData,
    EventKind.HYPERSPACE_LOSS: HyperspaceData,
    EventKind.CAPTURE: CaptureData,
    EventKind.EXPLORATION: ExplorationData,
    EventKind.BATTLE: BattleData,
    EventKind.STANDOFF: StandoffData,
    EventKind.WITHDRAW: WithdrawData,
    EventKind.PURSUIT: PursuitData,
    EventKind.PIN: PinData,
    EventKind.CONTROL_STOP: ControlStopData,
    EventKind.BLOCKADE: BlockadeData,
    EventKind.LEFTOVERS: LeftoversData,
    EventKind.INCOME: IncomeData,
    EventKind.SUPPLY: SupplyData,
    EventKind.INTEREST: InterestData,
    EventKind.RESEARCH: ResearchData,
    EventKind.VP: VpData,
    EventKind.ELIMINATED: EliminatedData,
    EventKind.END: EndData,
    EventKind.BOMBARD: BombardData,
    EventKind.LINK: LinkData,
    EventKind.RETREAT_RESET: RetreatResetData,
    EventKind.TRADE: TradeData,
    EventKind.PROBE_LOST: ProbeLostData,
    EventKind.PROBE_VIEW: ProbeViewData,
    EventKind.RESERVE: ReserveData,
}
