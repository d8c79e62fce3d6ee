"""Which columns of the state's tables hold which of the rules' fields:
named once for the model's constraints, the state's reader
(:mod:`.stateread`) and its writer (:mod:`.convert`). No SQLAlchemy here.
"""

from __future__ import annotations

__all__ = ["TECH_COLUMNS", "SYSTEM_FIELDS", "EMPIRE_FIELDS"]

#: Empire columns holding tech levels, keyed by the rules' Tech value.
TECH_COLUMNS: dict[str, str] = {
    "WEAPONS": "tech_weapons",
    "DEFENCE": "tech_defence",
    "MARINES": "tech_marines",
    "JUMP": "tech_jump",
    "EXPO": "tech_expo",
    "FIGHTER": "tech_fighter",
    "SUPPLY": "tech_supply",
    "LIFESUPPORT": "tech_life_support",
    "BPINCOME": "tech_bp_income",
    "TREASURY": "tech_treasury",
    "CULTURAL": "tech_cultural",
    "DRIVE": "tech_drive",
    "SCANNER": "tech_scanner",
    # Rule set 2 (migration 0009).
    "PROBE": "tech_probe",
    "HYPERSPACE": "tech_hyperspace",
    "RECOVERY": "tech_recovery",
}
#: System columns that are System fields of the same name, in the order of
#: System's own fields (tests/storage/test_roundtrip.py holds the order).
SYSTEM_FIELDS = (
    "type",
    "row",
    "col",
    "star",
    "name",
    "pop",
    "industry",
    "stance",
    "stance_target",
    "retreat_parts",
    "ever_owned",
    "home_slot",
)
#: Empire columns that are Empire fields of the same name.
EMPIRE_FIELDS = (
    "name",
    "balance",
    "treasury",
    "vp",
    "base",
    "home",
    "lost_in_space",
    "active",
    "missed_turns",
    "reserve",
    "active_probe",
)
