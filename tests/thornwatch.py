"""Thornwatch, a Gravewatch-like dice-pool ruleset written for the tests, its warden
Bram the Quiet, Star Lasers (a stance pool), and the small helpers that throw a tag with
forced faces. Shared by the dice-pool kind's tests and the tests of spends, charms and
remembered throws."""

from __future__ import annotations

import copy
from typing import Any

from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.engine import CheckResult
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.tagpass import CheckReport, resolve_text

THORNWATCH: dict[str, Any] = {
    "schemaVersion": 1,
    "id": "thornwatch",
    "version": 1,
    "name": "Thornwatch",
    "coverage": {"checks": True, "summary": "Handfuls of ten-sided dice counted at seven."},
    "resolution": {
        "kind": "dice-pool",
        "die": {"sides": 10},
        "abilityModifier": {"op": "identity"},
        "proficiencyTiers": [
            {"id": "r0", "label": "Untried"},
            {"id": "r1", "label": "Shown once", "flat": 1},
            {"id": "r2", "label": "Steady", "flat": 2},
            {"id": "r3", "label": "Trusted", "flat": 3},
        ],
        "penaltyFrom": "harm",
        "adjust": [{"value": {"field": "lamp"}, "abilities": ["nerve"]}],
        "pool": {"min": 1, "max": 15, "abilityPlusAbility": True},
        "target": {"default": 7, "min": 5, "max": 9},
        "explode": {"from": 10, "min": 8},
        "cancel": {"upTo": 1},
        "botch": {"upTo": 1},
        "exceptional": {"successes": 5},
        "situationalDice": {"min": -3, "max": 3},
        "reroll": [
            {"id": "careful", "upTo": 6, "mode": "once"},
            {"id": "dogged", "upTo": 2, "mode": "until"},
        ],
        "spend": [{"pool": "resolve", "amount": 1, "successes": 1, "perCheck": 2}],
        "difficultyLadder": [
            {"label": "Plain work", "successes": 1, "target": 6},
            {"label": "Awkward", "successes": 2},
            {"label": "Tense", "successes": 2, "target": 9},
            {"label": "Grim", "successes": 3, "target": 8},
            {"label": "Hopeless", "successes": 5, "target": 9},
        ],
    },
    "sheet": {
        "version": 1,
        "abilities": [
            {"id": "sinew", "label": "Sinew", "min": 0, "max": 5, "default": 1},
            {"id": "nerve", "label": "Nerve", "min": 0, "max": 5, "default": 1},
            {"id": "warmth", "label": "Warmth", "min": 0, "max": 5, "default": 1},
        ],
        "skills": [
            {"id": "ward", "label": "Ward", "ability": "sinew"},
            {"id": "soothe", "label": "Soothe", "ability": "warmth"},
            {"id": "listen", "label": "Listen", "ability": "nerve", "untrained": "harder"},
            {"id": "dig", "label": "Dig", "ability": "sinew", "untrained": "refuse"},
            {"id": "barter", "label": "Barter", "ability": "warmth", "untrained": {"by": -1}},
        ],
        "fields": [
            {"id": "lamp", "label": "Lamp", "type": "number", "min": -2, "max": 2, "default": 0},
            {"id": "grit", "label": "Grit", "type": "number", "min": 0, "max": 200},
        ],
        "lists": [
            {
                "id": "charms",
                "label": "Charms",
                "maxItems": 6,
                "columns": [
                    {"id": "name", "label": "Charm", "type": "text", "maxLength": 60},
                    {"id": "notes", "label": "Notes", "type": "text", "maxLength": 200},
                ],
            },
            {
                "id": "tokens",
                "label": "Tokens",
                "maxItems": 6,
                "columns": [
                    {"id": "kind", "label": "Kind", "type": "text", "maxLength": 60},
                    {"id": "title", "label": "Token", "type": "text", "maxLength": 60},
                    {"id": "uses", "label": "Uses", "type": "number", "min": 0, "max": 3},
                ],
                "pools": {"nameColumn": "title", "maxColumn": "uses"},
            },
        ],
        "live": {
            "pools": [
                {"id": "resolve", "label": "Resolve", "max": {"const": 3}},
                {"id": "blood", "label": "Blood", "max": {"const": 4}, "group": "vitae"},
                {"id": "ichor", "label": "Ichor", "max": {"const": 4}, "group": "vitae"},
            ],
            "tracks": [
                {
                    "id": "harm",
                    "label": "Harm",
                    "min": 0,
                    "max": 4,
                    "levels": [
                        {"label": "Scuffed", "penalty": 0},
                        {"label": "Winded", "penalty": -1},
                        {"label": "Bleeding", "penalty": -3},
                        {"label": "Down", "penalty": -99},
                    ],
                    "kinds": [
                        {"id": "knock", "label": "K", "severity": 0},
                        {"id": "tear", "label": "T", "severity": 1},
                    ],
                }
            ],
        },
    },
    "gm": {
        "checkGuidance": "Name the skill and the successes it needs.",
        "sheetSummary": {"lists": [{"list": "charms", "nameColumn": "name"}]},
    },
}


def watch_doc(**resolution: Any) -> dict[str, Any]:
    """Thornwatch with resolution keys replaced (None takes a key away)."""
    doc = copy.deepcopy(THORNWATCH)
    for key, value in resolution.items():
        if value is None:
            doc["resolution"].pop(key, None)
        else:
            doc["resolution"][key] = value
    return doc


def watch(**resolution: Any) -> Ruleset:
    return compile_ruleset(watch_doc(**resolution))


def warden(
    ruleset: Ruleset,
    *,
    name: str = "Bram the Quiet",
    abilities: dict[str, int] | None = None,
    skills: dict[str, str] | None = None,
    bonuses: dict[str, int] | None = None,
    fields: dict[str, Any] | None = None,
    lists: dict[str, Any] | None = None,
    live: dict[str, Any] | None = None,
) -> Character:
    """Bram the Quiet, or someone built the same way."""
    build = {
        "abilities": {"sinew": 3, "nerve": 4, "warmth": 2} if abilities is None else abilities,
        "skills": {"ward": "r3", "soothe": "r1"} if skills is None else skills,
        "saves": {},
        "bonuses": {"ward": 1} if bonuses is None else bonuses,
        "fields": fields or {},
        "lists": lists or {},
    }
    raw = {
        "name": name,
        "sheet": {"v": 1, "build": build},
        "live": {"pools": {"resolve": {"value": 2}}} if live is None else live,
    }
    return load_character(ruleset, raw)


def throw(
    ruleset: Ruleset, character: Character | list[Character], tag: str, faces: tuple[int, ...]
) -> CheckReport:
    party = character if isinstance(character, list) else [character]
    return resolve_text(ruleset, party, f"[skill_check: {tag}]", faces=list(faces))


def result(
    ruleset: Ruleset, character: Character | list[Character], tag: str, faces: tuple[int, ...]
) -> CheckResult:
    (item,) = throw(ruleset, character, tag, faces).items
    assert isinstance(item, CheckResult), getattr(item, "error", item)
    return item


def attrs(item: CheckResult) -> dict[str, str]:
    return item.record.as_dict()


LASERS: dict[str, Any] = {
    "schemaVersion": 1,
    "id": "star-lasers",
    "version": 1,
    "name": "Star Lasers",
    "coverage": {"checks": True, "summary": "One number, two stances, a d6 or three."},
    "resolution": {
        "kind": "dice-pool",
        "die": {"sides": 6},
        "abilityModifier": {"op": "identity"},
        "proficiencyTiers": [
            {"id": "plain", "label": "Plain", "flat": 1},
            {"id": "expert", "label": "Expert", "flat": 2},
        ],
        "pool": {"min": 1, "max": 3},
        "target": {"default": 4, "min": 2, "max": 5, "from": {"field": "number"}},
        "situationalDice": {"min": 0, "max": 1},
        "stances": [
            {"id": "lasers", "label": "Lasers", "count": "below", "skills": ["shoot", "fix"]},
            {"id": "feelings", "label": "Feelings", "count": "above", "skills": ["charm"]},
        ],
        "exact": {"label": "LASER FEELINGS", "text": "Ask the GM a question.", "counts": True},
        "explode": {"from": 6},
        "cancel": {"upTo": 1},
        "botch": {"upTo": 1},
        "difficultyLadder": [{"label": "Risky", "successes": 1}, {"label": "Hard", "successes": 2}],
    },
    "sheet": {
        "version": 1,
        "fields": [{"id": "number", "label": "Number", "type": "number", "min": 2, "max": 5}],
        "skills": [
            {"id": "shoot", "label": "Shoot"},
            {"id": "fix", "label": "Fix"},
            {"id": "charm", "label": "Charm"},
            {"id": "pilot", "label": "Pilot"},
        ],
    },
    "gm": {"checkGuidance": "Lasers for science and violence, feelings for intuition."},
}
