"""One small valid ruleset of each kind, and the packaged rulesets' files: shared by the
tests of the schema, the report and the odds reader."""

from __future__ import annotations

import copy
from typing import Any

from repo_paths import DATA

PACKAGED = sorted((DATA / "rulesets").glob("*.json"))


TIERS: list[dict[str, Any]] = [
    {"id": "untrained", "label": "Untrained"},
    {"id": "trained", "label": "Trained", "flat": 2},
]
SHEET: dict[str, Any] = {
    "version": 1,
    "sections": [{"id": "lore", "label": "Lore", "untrained": "refuse"}],
    "abilities": [
        {"id": "grit", "label": "Grit", "short": "GRT", "min": 0, "max": 5, "default": 2},
        {"id": "wits", "label": "Wits", "short": "WIT", "min": 0, "max": 5, "default": 3},
    ],
    "skills": [
        {"id": "climb", "label": "Climb", "ability": "grit"},
        {"id": "sneak", "label": "Sneak", "ability": "wits", "untrained": "harder"},
        {"id": "runes", "label": "Runes", "ability": "wits", "section": "lore"},
    ],
    "saves": [{"id": "endure", "label": "Endure", "ability": "grit"}],
}
KIND_BLOCKS: dict[str, dict[str, Any]] = {
    "dice-sum": {
        "dice": {"count": 2, "sides": 6},
        "difficultyLadder": [{"label": "Easy", "dc": 6}, {"label": "Hard", "dc": 10}],
    },
    "dice-pool": {
        "die": {"sides": 10},
        "pool": {"min": 1, "max": 10},
        "target": {"default": 7, "min": 2, "max": 10},
        "difficultyLadder": [
            {"label": "Easy", "successes": 1},
            {"label": "Hard", "successes": 2, "target": 8},
        ],
    },
    "dice-highest": {
        "die": {"sides": 6},
        "pool": {"min": 0, "max": 6},
        "difficultyLadder": [{"label": "Easy", "dc": 4}, {"label": "Hard", "dc": 6}],
    },
    "roll-against": {
        "dice": {"count": 3, "sides": 6},
        "against": "at-most",
        "difficultyLadder": [
            {"label": "Easy", "dc": 4},
            {"label": "Hard", "dc": -2, "divide": 2},
        ],
    },
    "symbol-pool": {
        "symbols": [
            {"id": "s", "label": "Success", "cancels": "f"},
            {"id": "f", "label": "Failure"},
        ],
        "dice": [
            {"id": "good", "label": "Good", "faces": [[], ["s"], ["s"], ["s", "s"]]},
            {"id": "bad", "label": "Bad", "faces": [[], ["f"], ["f"], []]},
        ],
        "pool": {"die": "good", "max": 6},
        "difficulty": {"die": "bad", "max": 4},
        "success": {"symbol": "s", "needed": 1},
        "difficultyLadder": [{"label": "Easy", "dc": 1}, {"label": "Hard", "dc": 3}],
    },
    "step-pool": {
        "steps": [4, 6, 8, 10],
        "talent": {"label": "Talent"},
        "training": {"label": "Training", "count": 2},
        "target": {"default": 4, "min": 2, "max": 10},
        "difficultyLadder": [{"label": "Easy", "dc": 3}, {"label": "Hard", "dc": 6}],
    },
}


def ruleset_of_kind(kind: str, **resolution: Any) -> dict[str, Any]:
    """A small valid ruleset of one kind; ``resolution`` keys replace the sample's."""
    return {
        "schemaVersion": 1,
        "id": f"{kind}-sample",
        "version": 1,
        "name": f"A {kind} sample",
        "coverage": {"checks": True, "summary": "One small ruleset per kind, for the tests."},
        "resolution": {
            "kind": kind,
            "abilityModifier": {"op": "identity"},
            "proficiencyTiers": copy.deepcopy(TIERS),
            **copy.deepcopy(KIND_BLOCKS[kind]),
            **copy.deepcopy(resolution),
        },
        "sheet": copy.deepcopy(SHEET),
        "gm": {"checkGuidance": "Ask for a roll when the outcome is in doubt."},
    }
