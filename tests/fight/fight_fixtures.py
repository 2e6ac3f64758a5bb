"""FIGHTS §16.1's fixtures, built from the shared 5e draft: F5 (the ruleset less the
keys a plain fight does not play, plus the ``spells`` and ``fixtures`` catalogs) and its
characters Brenna and Corwin; and the steps of §16.2 (``S``, ``A``, ``E``) run through
the pure core with forced faces."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from functools import cache
from typing import Any

from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.dice import ForcedFaces
from dicebound.fight import FightStep, step
from dicebound.fight.state import Fight
from dicebound.fight.tag import FightTag, answer
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from shared_files import shared_path


def _creature(
    ident: str,
    label: str,
    tier: str,
    health: int,
    defense: int,
    init: int,
    action: dict[str, Any],
    **more: Any,
) -> dict[str, Any]:
    return {
        "id": ident,
        "label": label,
        "creature": {
            "tier": tier,
            "health": health,
            "defense": defense,
            "initiativeModifier": init,
            "actions": [action],
            **more,
        },
    }


def _hit(
    ident: str, name: str, to_hit: int, dice: str | None, flat: int, kind: str | None, **more: Any
) -> dict[str, Any]:
    damage: dict[str, Any] = {"flat": flat}
    if dice:
        damage["dice"] = dice
    if kind:
        damage["type"] = kind
    return {
        "id": ident,
        "name": name,
        "budget": "action",
        "toHit": to_hit,
        "damage": damage,
        **more,
    }


def _clawed(ident: str, **more: Any) -> dict[str, Any]:
    """The Clawed thing (cr_4, 90 health, defense 1), with what ``more`` adds."""
    poke = _hit("poke", "Poke", 0, None, 1, None)
    return _creature(ident, "Clawed thing", "cr_4", 90, 1, -5, poke, saves={"con_save": 0}, **more)


FIXTURES = {
    "id": "fixtures",
    "label": "Fixtures",
    "holds": "creatures",
    "entries": [
        _creature(
            "snag",
            "Snag",
            "cr_1_8",
            12,
            13,
            2,
            _hit("scimitar", "Scimitar", 4, "1d6", 2, "slashing"),
            saves={"dex_save": 2, "con_save": 0, "wis_save": -1},
            resist=["fire"],
        ),
        _creature(
            "rot",
            "Rot",
            "cr_1_4",
            14,
            12,
            0,
            _hit("bite", "Bite", 3, "1d8", 1, "piercing"),
            saves={"dex_save": 1, "wis_save": 0},
            vulnerable=["fire"],
        ),
        _creature(
            "husk",
            "Husk",
            "cr_1_4",
            20,
            11,
            0,
            _hit("slam", "Slam", 3, "1d6", 1, "bludgeoning"),
            immune=["fire"],
            conditionImmunities=["paralyzed"],
        ),
        _creature("mote", "Mote", "cr_0", 4, 5, -2, _hit("poke", "Poke", 0, None, 1, None)),
        _creature(
            "volley",
            "Volley",
            "cr_1_4",
            20,
            12,
            5,
            _hit("twin_shot", "Twin Shot", 10, "1d6", 0, "piercing", targetCount=2),
        ),
        _clawed("hide", resist=["fire"], immune=["poison"]),
        _clawed("bare"),
    ],
}


def _spell(
    row: tuple[str, str, int, bool], mechanics: dict[str, Any], catalog: str = "spells"
) -> dict[str, Any]:
    """A catalog entry that puts one row ``{name, level, prepared}`` on ``spells``."""
    ident, label, level, prepared = row
    values = {"name": label, "level": level, "prepared": prepared}
    return {
        "id": ident,
        "label": label,
        "rows": [{"list": "spells", "values": values}],
        "mechanics": mechanics,
    }


def _slots(level: int) -> list[dict[str, Any]]:
    return [{"pool": f"slots_{level}", "amount": 1}]


_SCALES = {"from": {"field": "level"}, "table": [[1, 0], [5, 1], [11, 2], [17, 3]]}
_HOLD = {
    "condition": "paralyzed",
    "duration": {"rounds": 10},
    "saveEnds": {"save": "wis_save", "at": "turn-end"},
}
_WIS_NEGATES = {"save": "wis_save", "onSuccess": "negates"}
SPELLS = {
    "id": "spells",
    "label": "Spells",
    "feeds": ["spells"],
    "entries": [
        _spell(
            ("fire-bolt", "Fire Bolt", 0, False),
            {"kind": "attack", "attackRoll": True, "amount": {"dice": "1d10"}}
            | {"damageType": "fire", "scales": _SCALES},
        ),
        _spell(
            ("fireball", "Fireball", 3, True),
            {"kind": "attack", "amount": {"dice": "8d6"}, "damageType": "fire"}
            | {"save": {"save": "dex_save", "onSuccess": "half"}, "targetCount": 3}
            | {"cost": _slots(3), "perCostStep": {"dice": "1d6"}},
        ),
        _spell(
            ("mending-light", "Mending Light", 1, True),
            {"kind": "heal", "targets": "ally", "amount": {"dice": "1d8", "flat": 4}}
            | {"cost": _slots(1)},
        ),
        _spell(
            ("hold-fast", "Hold Fast", 2, True),
            {"kind": "debuff", "save": _WIS_NEGATES, "applies": [_HOLD]}
            | {"concentration": True, "cost": _slots(2)},
        ),
        _spell(
            ("ward", "Ward", 1, True),
            {"kind": "buff", "targets": "self", "temporary": {"dice": "1d4", "flat": 4}}
            | {"cost": _slots(1)},
        ),
        _spell(
            ("spirit-lash", "Spirit Lash", 0, False),
            {"kind": "attack", "autoHit": True, "attackRoll": True, "amount": {"dice": "1d6"}}
            | {"damageType": "radiant", "budget": "bonus"},
        ),
        _spell(
            ("slumber", "Slumber", 1, False),
            {"kind": "debuff", "save": _WIS_NEGATES, "cost": _slots(1)}
            | {"applies": [{"condition": "unconscious", "duration": {"rounds": 1}}]},
        ),
        _spell(
            ("shield", "Shield", 1, True),
            {"kind": "buff", "targets": "self", "reaction": True, "temporary": {"flat": 5}}
            | {"cost": _slots(1)},
        ),
    ],
}
_POISON = {"save": "con_save", "difficulty": 12, "onSuccess": "half"}
CLAUSES = {
    "id": "clauses",
    "label": "Clauses",
    "feeds": ["spells"],
    "entries": [
        _spell(
            ("ember-lash", "Ember Lash", 1, True),
            {"kind": "attack", "attackRoll": True, "amount": {"dice": "1d6"}}
            | {"damageType": "piercing"}
            | {
                "plus": [
                    {"dice": "1d4", "type": "fire"},
                    {"flat": 4, "type": "poison", "save": _POISON},
                ]
            },
        )
    ],
}


@cache
def f5_doc() -> str:
    """F5 as JSON text, for fixtures that add to it."""
    return _f5_doc()


@cache
def _f5_doc() -> str:
    doc: dict[str, Any] = json.loads(
        shared_path("marinara", "ruleset-5e-2014.example.json").read_text("utf-8")
    )
    combat = doc["combat"]
    for key in ("checks", "contests", "levels"):
        combat.pop(key, None)
    for rule in combat.get("conditions", []):
        rule.pop("modifiers", None)
        rule.pop("skills", None)
        effects = [e for e in rule.get("effects", []) if not e.startswith("own-checks-")]
        rule["effects"] = effects
        if "whileSourceInSight" in rule and isinstance(rule["whileSourceInSight"], list):
            kept = [e for e in rule["whileSourceInSight"] if e in effects]
            if kept:
                rule["whileSourceInSight"] = kept
            else:
                rule.pop("whileSourceInSight")
    for catalog in doc["catalogs"]:
        if catalog.get("holds") == "creatures":
            for entry in catalog["entries"]:
                entry["creature"].pop("checks", None)
    doc["catalogs"] += [FIXTURES, SPELLS, CLAUSES]
    return json.dumps(doc)


def _compiled(doc: str) -> Ruleset:
    return compile_ruleset(json.loads(doc), capability_api="1.70")


@cache
def f5() -> Ruleset:
    return _compiled(_f5_doc())


def _sheet(
    abilities: dict[str, int], saves: Sequence[str], fields: dict[str, Any], lists: dict[str, Any]
) -> dict[str, Any]:
    return {
        "v": 1,
        "build": {
            "abilities": abilities,
            "skills": {},
            "saves": dict.fromkeys(saves, "proficient"),
            "bonuses": {},
            "fields": fields,
            "lists": lists,
        },
    }


BRENNA = {
    "name": "Brenna",
    "sheet": _sheet(
        {"str": 18, "dex": 14, "con": 16, "int": 10, "wis": 10, "cha": 10},
        ["str_save", "con_save"],
        {"level": 7, "ac": 18, "speed": 30, "hp_max": 60},
        {
            "attacks": [
                {
                    "name": "Longsword",
                    "ability": "str",
                    "proficient": True,
                    "bonus": 0,
                    "damage": "1d8",
                    "damage_type": "slashing",
                }
            ]
        },
    ),
}
CORWIN = {
    "name": "Corwin",
    "sheet": _sheet(
        {"str": 8, "dex": 14, "con": 12, "int": 18, "wis": 12, "cha": 10},
        ["int_save", "wis_save"],
        {
            "level": 7,
            "ac": 12,
            "hp_max": 38,
            "spellcasting_ability": "int",
            "slots_max_1": 4,
            "slots_max_2": 3,
            "slots_max_3": 3,
            "slots_max_4": 1,
        },
        {
            "spells": [
                {**entry["rows"][0]["values"], "_catalog": f"spells/{entry['id']}"}
                for entry in SPELLS["entries"]
            ]
        },
    ),
}
WREN = {
    "name": "Wren",
    "sheet": _sheet(
        {"str": 8, "dex": 12, "con": 12, "int": 18, "wis": 12, "cha": 10},
        [],
        {"level": 7, "ac": 12, "hp_max": 38, "spellcasting_ability": "int"},
        {
            "spells": [
                {
                    "name": "Ember Lash",
                    "level": 1,
                    "prepared": True,
                    "_catalog": "clauses/ember-lash",
                }
            ]
        },
    ),
}


def character(raw: dict[str, Any], live: dict[str, Any] | None = None) -> Character:
    doc = copy.deepcopy(raw)
    if live is not None:
        doc["live"] = live
    return load_character(f5(), doc)


class Game:
    """A game of the worked examples: a party, a fight, each step a tag with its faces."""

    def __init__(self, ruleset: Ruleset, party: Sequence[Character]) -> None:
        self.ruleset = ruleset
        self.party = tuple(party)
        self.fight: Fight | None = None
        self.last: FightStep | None = None

    def tag(self, body: str, *faces: int) -> str:
        forced = ForcedFaces(faces)
        result = step(self.ruleset, self.fight, self.party, FightTag((0, 0), body), forced)
        assert forced.left == 0, f"{forced.left} faces left over"
        self.last = result
        self.fight = result.fight
        self.party = result.party
        return answer(result, 'forced="true"')

    def now(self, body: str, *faces: int) -> str:
        """The ``now`` of the answer (or ``refused:<reason>``)."""
        text = self.tag(body, *faces)
        assert self.last is not None
        if not self.last.ok:
            return f"refused:{self.last.reason}"
        start = text.find('now="')
        return text[start + 5 : text.index('"', start + 5)] if start >= 0 else ""

    def S(self, party: str, enemies: str, *faces: int) -> str:  # noqa: N802
        return self.tag(f'op="start" party="{party}" enemies="{enemies}"', *faces)

    def A(self, who: str, option: str, target: str | None = None, *faces: int) -> str:  # noqa: N802
        body = f'op="act" who="{who}" option="{option}"'
        if target is not None:
            body += f' target="{target}"'
        return self.now(body, *faces)

    def E(self, who: str, *faces: int) -> str:  # noqa: N802
        return self.now(f'op="end-turn" who="{who}"', *faces)

    def c(self, ident: str) -> dict[str, Any]:
        assert self.fight is not None
        return next(x for x in self.fight["combatants"] if x["id"] == ident)

    def member(self, name: str) -> Character:
        return next(m for m in self.party if m.name == name)


def a_start() -> Game:
    """A-start: ``S(F5; Brenna, Corwin; Snag, Rot; 20,14,5,3)``."""
    game = Game(f5(), (character(BRENNA), character(CORWIN)))
    game.S("Brenna, Corwin", "Snag, Rot", 20, 14, 5, 3)
    return game


def _hound(ident: str, label: str, tier: str, health: int) -> dict[str, Any]:
    claw = {"id": "claw", "name": "Claw", "budget": "act", "toHit": 1}
    claw["damage"] = {"dice": "1d6", "type": "cut"}
    return _creature(ident, label, tier, health, 6, 1, claw)


HOUNDS = {
    "id": "hounds",
    "label": "Hounds",
    "holds": "creatures",
    "entries": [
        _hound("hound", "Hound", "stray", 6),
        _hound("big-hound", "Big hound", "road_terror", 20),
    ],
}


@cache
def _em_doc() -> str:
    doc: dict[str, Any] = json.loads(shared_path("marinara", "ember-roads.json").read_text("utf-8"))
    for key in ("checks", "contests"):
        doc["combat"].pop(key, None)
    doc["catalogs"].append(HOUNDS)
    return json.dumps(doc)


@cache
def em() -> Ruleset:
    return _compiled(_em_doc())


def em_character(
    name: str,
    abilities: dict[str, int],
    fields: dict[str, Any],
    live: dict[str, Any] | None = None,
    ruleset: Ruleset | None = None,
) -> Character:
    gear = [
        {"name": "Road axe", "swing": "brawn", "damage": "1d6", "harm": "cut"},
        {"name": "Rope"},
    ]
    lists: dict[str, Any] = {}
    if name == "Juno":
        knacks = [
            {"name": label, "_catalog": f"knacks/{ident}"}
            for ident, label in (
                ("road-sense", "Road Sense"),
                ("last-ember", "Last Ember"),
                ("coldfire-toss", "Coldfire Toss"),
                ("hold-the-line", "Hold the Line"),
            )
        ]
        tricks = [{"name": "Last Ember", "uses": 1, "recharge": "camp"}]
        tricks[0]["_catalog"] = "knacks/last-ember"
        lists = {"gear": gear, "knacks": knacks, "tricks": tricks}
    raw: dict[str, Any] = {"name": name, "sheet": _sheet(abilities, [], fields, lists)}
    if live is not None:
        raw["live"] = live
    return load_character(ruleset or em(), raw)


def juno(live: dict[str, Any] | None = None, ruleset: Ruleset | None = None) -> Character:
    abilities = {"brawn": 2, "wits": 1, "heart": 1}
    return em_character("Juno", abilities, {"calling": "Hauler", "toughness": 2}, live, ruleset)


def pell() -> Character:
    return em_character(
        "Pell", {"brawn": 1, "wits": 2, "heart": 0}, {"calling": "Scout", "toughness": 1}
    )
