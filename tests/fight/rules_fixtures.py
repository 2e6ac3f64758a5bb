"""A trial bestiary on F5 for the rules of saves, conditions and concentration: one
creature, Spitter, whose actions each ask one rule (a save that halves or negates, a
condition with a clock, a one-use condition, further clauses), and a ``deafened`` rule
with modifiers to saves. Steps run through ``fight_fixtures.Game`` with forced faces."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from fight_fixtures import BRENNA, CORWIN, Game, f5_doc

from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.ruleset.model import Ruleset


def _act(ident: str, name: str, **more: Any) -> dict[str, Any]:
    return {"id": ident, "name": name, "budget": "action", **more}


ACTIONS = [
    _act(
        "spit",
        "Spit",
        damage={"dice": "2d6", "type": "acid"},
        save={"save": "dex_save", "difficulty": 13, "onSuccess": "half"},
        targetCount=2,
    ),
    _act(
        "wail",
        "Wail",
        damage={"dice": "2d4", "type": "psychic"},
        save={"save": "wis_save", "difficulty": 12, "onSuccess": "negates"},
        applies=[
            {
                "condition": "frightened",
                "duration": {"rounds": 3},
                "saveEnds": {"save": "wis_save", "at": "turn-end"},
            }
        ],
        targetCount=2,
    ),
    _act(
        "snare",
        "Snare",
        toHit=4,
        damage={"dice": "1d4", "flat": 1, "type": "slashing"},
        applies=[
            {
                "condition": "restrained",
                "duration": "until-save",
                "saveEnds": {"save": "str_save", "at": "turn-end"},
            }
        ],
        saveDifficulty=12,
    ),
    _act(
        "daze",
        "Daze",
        toHit=4,
        applies=[{"condition": "blinded", "duration": {"rounds": 1, "at": "turn-start"}}],
    ),
    _act(
        "trip",
        "Trip",
        toHit=4,
        applies=[{"condition": "prone", "duration": "instant", "endsAfter": "attacked"}],
    ),
    _act(
        "taunt",
        "Taunt",
        toHit=4,
        applies=[{"condition": "blinded", "duration": "instant", "endsAfter": "own-attack"}],
    ),
    _act(
        "lure",
        "Lure",
        toHit=4,
        applies=[{"condition": "restrained", "duration": "instant", "endsAfter": "own-save"}],
    ),
    _act(
        "grab",
        "Grab",
        toHit=4,
        applies=[{"condition": "grappled", "duration": "instant"}],
    ),
    _act(
        "charm",
        "Charm",
        toHit=4,
        applies=[{"condition": "charmed", "duration": "instant"}],
    ),
    _act(
        "venom",
        "Venom",
        toHit=3,
        damage={
            "dice": "1d4",
            "type": "piercing",
            "plus": [
                {
                    "dice": "1d6",
                    "type": "poison",
                    "save": {"save": "con_save", "difficulty": 11, "onSuccess": "half"},
                },
                {"flat": 2, "type": "fire"},
            ],
        },
    ),
    _act("spark", "Spark", toHit=4, damage={"dice": "1d4", "type": "fire"}),
    _act("stare", "Stare", self=True),
]

TRIALS = {
    "id": "trials",
    "label": "Trials",
    "holds": "creatures",
    "entries": [
        {
            "id": "spitter",
            "label": "Spitter",
            "creature": {
                "tier": "cr_1_4",
                "health": 20,
                "defense": 10,
                "initiativeModifier": 0,
                "saves": {"dex_save": 1, "con_save": 2, "wis_save": 0},
                "actions": ACTIONS,
            },
        },
        {
            "id": "stone",
            "label": "Stone",
            "creature": {
                "tier": "cr_1_4",
                "health": 30,
                "defense": 5,
                "initiativeModifier": 0,
                "saves": {"con_save": 0, "wis_save": -1},
                "conditionImmunities": ["frightened"],
                "actions": [ACTIONS[0]],
            },
        },
    ],
}

DEAFENED = {
    "condition": "deafened",
    "modifiers": [
        {"to": "saves", "flat": -2, "saves": ["wis_save"]},
        {"to": "saves", "dice": "1d4"},
        {"to": "saves", "mode": "advantage", "saves": ["con_save"]},
    ],
}


@cache
def _trials_doc() -> str:
    doc: dict[str, Any] = json.loads(f5_doc())
    doc["catalogs"].append(TRIALS)
    doc["combat"]["conditions"].append(DEAFENED)
    return json.dumps(doc)


@cache
def trials() -> Ruleset:
    return compile_ruleset(json.loads(_trials_doc()), capability_api="1.70")


def spitter_first(
    brenna_live: dict[str, Any] | None = None, enemies: str = "Spitter (trials/spitter)"
) -> Game:
    """``S(F5+trials; Brenna, Corwin; Spitter; 1,1,20)``: order Spitter, Brenna, Corwin."""
    ruleset = trials()
    party = []
    for raw, live in ((BRENNA, brenna_live), (CORWIN, None)):
        doc = dict(raw)
        if live is not None:
            doc["live"] = live
        party.append(load_character(ruleset, doc))
    game = Game(ruleset, party)
    faces = (1, 1) + (20,) * (enemies.count(",") + 1)
    game.S("Brenna, Corwin", enemies, *faces)
    assert game.fight is not None and game.fight["order"][0] == "spitter"
    return game
