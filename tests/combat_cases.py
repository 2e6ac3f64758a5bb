"""The starting rulesets of the combat refusal tables: ``skirmish`` (a d20 fight that
writes nearly every key, ``tests/cases``) and ``vigil`` (our dice-pool ``lantern`` with a
pool fight on its wound track), each valid as it stands."""

from __future__ import annotations

import copy
from typing import Any

from ruleset_edits import load_case

__all__ = ["POOL_FIGHT", "start"]

POOL_FIGHT: dict[str, Any] = {
    "kind": "dice-pool",
    "health": {"track": "hurt"},
    "defense": {"const": 1},
    "initiative": {"pool": {"abilityScore": "wile"}, "plus": 1},
    "pool": {
        "advantage": True,
        "damageTarget": 5,
        "soak": {"roll": True, "all": {"const": 0}, "byKind": {"blunt": {"abilityScore": "grit"}}},
        "hardness": {"const": 0},
    },
    "economy": {"budgets": [{"id": "act", "label": "Act", "per": "turn"}]},
    "attacks": [
        {
            "list": "tricks",
            "budget": "act",
            "name": "name",
            "toHit": {},
            "damage": {"dice": {"column": "dice"}, "type": {"column": "kind"}},
        }
    ],
    "conditions": [],
    "damageTypes": ["blunt", "sharp"],
    "damageKinds": {"default": "blunt", "byType": {"sharp": "sharp"}, "marks": "per-blow"},
    "threat": {
        "tiers": [
            {
                "id": "pest",
                "label": "Pest",
                "health": [1, 3],
                "defense": 1,
                "toHit": 3,
                "damagePerRound": [1, 2],
                "saveDifficulty": 1,
            }
        ]
    },
    "spendLimits": [{"pool": "nerve", "max": {"const": 1}, "per": "round"}],
}


def start(name: str) -> dict[str, Any]:
    """A fresh copy of a starting ruleset."""
    if name != "vigil":
        return load_case(name)
    doc = load_case("lantern")
    doc["sheet"]["lists"][0]["columns"] += [
        {"id": "dice", "label": "Dice", "type": "dice"},
        {"id": "kind", "label": "Kind", "type": "enum", "values": ["blunt", "sharp"]},
    ]
    doc["sheet"]["live"]["conditions"] = [{"id": "rattled", "label": "Rattled"}]
    doc["combat"] = copy.deepcopy(POOL_FIGHT)
    return doc
