"""The shape of the ``combat`` block, of ``battle``, of a bestiary creature and of the
catalog ``mechanics`` keys a fight reads (docs/design/fights-schema.md).

Strict as the rest of the file: an unknown key is refused with its path, every number
has its range, every id its pattern. Rules that tie one key to another (which keys a
fight's kind takes, the names a key must find on the sheet) are cross-checks, made by
``compiler.combat.block`` and ``compiler.combat.catalog`` on a block whose shape is sound.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from dicebound.compiler.nodes import DICE, LABEL, STEP_TABLE, distinct, wrong_type_of
from dicebound.problem_codes import DUPLICATE_VALUE, NOT_ALLOWED, TOO_SMALL
from dicebound.problems import Path, Problem
from dicebound.ruleset.combat.effects import EFFECTS, LEVEL_REFUSED_EFFECTS
from dicebound.ruleset.refs import VALUE_REF
from dicebound.ruleset.spec import (
    Arr,
    Bool,
    Const,
    Custom,
    Enum,
    Id,
    Int,
    Map,
    Node,
    Num,
    Obj,
    OneOf,
    Str,
    describe,
    is_int,
    is_number,
)

__all__ = [
    "BATTLE",
    "COMBAT",
    "COMBAT_BLOCK",
    "CREATURE",
    "FIGHT_KINDS",
    "FIGHT_MECHANICS",
    "STANDARD_ACTIONS",
    "SYMBOL_FIGHT_REFUSED",
]

FIGHT_KINDS: tuple[str, ...] = ("attack-vs-defense", "dice-pool")
"""The fights dicebound plays."""

SYMBOL_FIGHT = "symbol-pool"
SYMBOL_FIGHT_REFUSED = (
    "A fight thrown in symbol dice is not specified anywhere dicebound can read, so it is not "
    "played; remove the combat block or write an attack-vs-defense fight."
)

STANDARD_ACTIONS: tuple[str, ...] = ("dash", "disengage", "dodge", "help", "hide", "ready")

_DICE_PAIR = Obj({"count": Int(1, 10), "sides": Int(2, 1000)}, required=("count", "sides"))
_COLUMN = Obj({"column": Id()}, required=("column",))
_TEXT = Str(hi=40)


def _check_choice(options: Mapping[str, Node], wanted: str) -> Custom:
    """One of several shapes told apart by the first key that names one (an object's
    keys) or by the JSON type (``true`` or a list)."""

    def pick(value: object) -> str | None:
        if isinstance(value, bool):
            return "bool" if "bool" in options else None
        if isinstance(value, list):
            return "list" if "list" in options else None
        if is_number(value):
            return "number" if "number" in options else None
        if isinstance(value, str):
            return "text" if "text" in options else None
        if isinstance(value, dict):
            named = next((k for k in options if k in value), None)
            return named or next((k for k, n in options.items() if isinstance(n, Obj)), None)
        return None

    node = OneOf(options, pick, wanted)
    return Custom(node.check, node.schema())


def _distinct_folded(node: Arr, noun: str) -> Custom:
    """A list of texts none of which repeats another, ignoring case."""

    def check(value: object, path: Path) -> Iterator[Problem]:
        yield from node.check(value, path)
        seen: dict[str, int] = {}
        for i, item in enumerate(value if isinstance(value, list) else ()):
            if isinstance(item, str):
                key = item.casefold()
                if key in seen:
                    yield Problem(
                        (*path, i),
                        DUPLICATE_VALUE,
                        f"{describe(item)} is item {seen[key]} again (ignoring case); each "
                        f"{noun} is listed once.",
                    )
                else:
                    seen[key] = i

    json = node.schema()
    json["uniqueItems"] = True
    return Custom(check, json)


def _range_pair(lo: int, hi: int) -> Custom:
    """``[low, high]``: two whole numbers in ``lo..hi`` (their order is a cross-check)."""
    item = Int(lo, hi)

    def check(value: object, path: Path) -> Iterator[Problem]:
        if not isinstance(value, list) or len(value) != 2:
            yield wrong_type_of(path, "a [low, high] pair of whole numbers", value)
            return
        for i, number in enumerate(value):
            yield from item.check(number, (*path, i))

    return Custom(
        check,
        {"type": "array", "minItems": 2, "maxItems": 2, "items": [item.schema(), item.schema()]},
    )


_EFFECT = Enum(EFFECTS)
_LEVEL_EFFECT = Enum(tuple(e for e in EFFECTS if e not in LEVEL_REFUSED_EFFECTS))

MODIFIER = Obj(
    {
        "to": Enum(("defense", "attacks", "saves", "checks", "speed")),
        "flat": Custom(
            lambda v, p: _nonzero(Int(-100, 100), v, p),
            {"type": "integer", "minimum": -100, "maximum": 100, "not": {"const": 0}},
        ),
        "dice": DICE,
        "minus": Const(True),
        "times": Enum((0.5, 2)),
        "skills": distinct(Arr(Id(), 1, 24, noun="skill"), "skill"),
        "saves": distinct(Arr(Id(), 1, 12, noun="save"), "save"),
        "mode": Enum(("advantage", "disadvantage")),
    },
    required=("to",),
    at_least_one=("flat", "dice", "times", "mode"),
)
"""One modifier of a condition, a level or an item (its shape; which keys go with which
``to`` is a cross-check)."""


def _nonzero(node: Int, value: object, path: Path) -> Iterator[Problem]:
    yield from node.check(value, path)
    if is_int(value) and value == 0:
        yield Problem(path, TOO_SMALL, "must be a number from -100 to 100 other than 0.")


_SAVE_LIST = distinct(Arr(Id(), 1, 12, noun="save"), "save")
_SKILL_LIST = distinct(Arr(Id(), 1, 24, noun="skill"), "skill")

_RESOURCE = Obj(
    {
        "base": Int(0, 100),
        "styles": Arr(
            Obj(
                {
                    "id": Id(),
                    "label": LABEL,
                    "takes": Obj({"gain": Int(0, 20)}),
                    "spends": Obj({"onMiss": STEP_TABLE}, required=("onMiss",)),
                },
                required=("id", "label"),
                exactly_one=("takes", "spends"),
            ),
            1,
            4,
            unique_key="id",
            noun="style",
        ),
        "crash": Obj(
            {
                "at": Int(-100, 100),
                "condition": Id(),
                "bonus": Int(0, 100),
                "recoverAfter": Int(1, 20),
            }
        ),
    },
    required=("base", "styles"),
)

_SOAK = Obj(
    {"roll": Bool(), "all": VALUE_REF, "byKind": Map(VALUE_REF, hi=6, key_pattern=r"^[a-z]")},
    required=("roll",),
    at_least_one=("all", "byKind"),
)

_MEASURE = _check_choice(
    {"column": _COLUMN, "const": Obj({"const": Num(0, 10000)}, required=("const",))},
    'a { "column": id } or a { "const": number }',
)

_ATTACK = Obj(
    {
        "list": Id(),
        "budget": Id(),
        "name": Id(),
        "reach": _MEASURE,
        "range": Obj({"normal": _MEASURE, "long": _MEASURE}, required=("normal",)),
        "strikes": VALUE_REF,
        "strikesCappedBy": _COLUMN,
        "toHit": Obj(
            {"ability": _COLUMN, "skill": _COLUMN, "proficiency": _COLUMN, "bonus": _COLUMN}
        ),
        "damage": Obj(
            {"dice": _COLUMN, "ability": _COLUMN, "bonus": _COLUMN, "type": _COLUMN},
            required=("dice",),
        ),
    },
    required=("list", "budget", "name", "toHit", "damage"),
)

_SCALAR = _check_choice(
    {"number": Num(), "text": Str(lo=0, hi=4000), "bool": Bool()},
    "a number, a string, or true or false",
)
_ALWAYS_WHEN = Obj({"column": Id(), "equals": _SCALAR}, required=("column", "equals"))

_ABILITY_SOURCE = Obj(
    {
        "list": Id(),
        "onlyWhen": Id(),
        "alwaysWhen": _ALWAYS_WHEN,
        "budget": Id(),
        "toHit": VALUE_REF,
        "saveDifficulty": VALUE_REF,
    },
    required=("list", "budget"),
)

_CONDITION_RULE = Obj(
    {
        "condition": Id(),
        "effects": distinct(Arr(_EFFECT, 0, 19, noun="effect"), "effect"),
        "modifiers": Arr(MODIFIER, 1, 6, noun="modifier"),
        "failsSaves": _SAVE_LIST,
        "saves": _SAVE_LIST,
        "skills": _SKILL_LIST,
        "whileSourceInSight": _check_choice(
            {"bool": Const(True), "list": distinct(Arr(_EFFECT, 1, 19, noun="effect"), "effect")},
            "true or a list of effects",
        ),
        "endsWhenSourceDown": Bool(),
    },
    required=("condition",),
)

_LEVEL = Obj(
    {
        "track": Id(),
        "derived": Id(),
        "at": Int(1, 1000),
        "effects": distinct(Arr(_LEVEL_EFFECT, 0, 15, noun="effect"), "effect"),
        "modifiers": Arr(MODIFIER, 1, 6, noun="modifier"),
        "failsSaves": _SAVE_LIST,
        "saves": _SAVE_LIST,
        "skills": _SKILL_LIST,
    },
    required=("at",),
    exactly_one=("track", "derived"),
    at_least_one=("effects", "modifiers", "failsSaves"),
)

_CHECKS = Obj({"checks": distinct(Arr(Id(), 1, 4, noun="check"), "check")}, required=("checks",))
_CONTEST = Obj(
    {
        "id": Id(),
        "label": LABEL,
        "budget": Id(),
        "strike": Const(True),
        "reach": Num(hi=10000, above=0),
        "attacker": _CHECKS,
        "defender": _CHECKS,
        "ties": Enum(("defender", "attacker")),
        "from": Obj({"holding": Id()}, required=("holding",)),
        "onWin": Obj(
            {
                "applies": Arr(
                    Obj({"condition": Id(), "rounds": Int(1, 100)}, required=("condition",)),
                    1,
                    4,
                    noun="condition",
                ),
                "ends": Arr(
                    Obj(
                        {"condition": Id(), "on": Enum(("actor", "target"))},
                        required=("condition", "on"),
                    ),
                    1,
                    4,
                    noun="condition",
                ),
                "push": Num(hi=10000, above=0),
            },
            at_least_one=("applies", "ends", "push"),
        ),
    },
    required=("id", "label", "budget", "attacker", "defender", "onWin"),
)

_DYING = Obj(
    {
        "kind": Const("saves"),
        "successes": Id(),
        "failures": Id(),
        "dice": _DICE_PAIR,
        "succeedAt": Int(1, 1000),
        "naturals": Obj(
            {
                "max": Enum(("revive-1", "success", "none")),
                "min": Enum(("two-failures", "one-failure", "none")),
            }
        ),
        "damageWhileDown": Enum(("one-failure", "two-failures", "none")),
        "criticalWhileDown": Enum(("one-failure", "two-failures", "none")),
        "condition": Id(),
    },
    required=("kind", "successes", "failures", "dice", "succeedAt"),
)

_TIER = Obj(
    {
        "id": Id(),
        "label": LABEL,
        "health": _range_pair(1, 100000),
        "defense": Int(0, 100),
        "toHit": Int(-20, 50),
        "damagePerRound": _range_pair(0, 10000),
        "saveDifficulty": Int(0, 100),
    },
    required=("id", "label", "health", "defense", "toHit", "damagePerRound", "saveDifficulty"),
)

COMBAT = Obj(
    {
        "kind": Enum(FIGHT_KINDS),
        "health": _check_choice(
            {
                "pool": Obj({"pool": Id()}, required=("pool",)),
                "track": Obj({"track": Id()}, required=("track",)),
            },
            'a { "pool": id } or a { "track": id }',
        ),
        "defense": VALUE_REF,
        "initiative": Obj(
            {
                "dice": _DICE_PAIR,
                "modifier": VALUE_REF,
                "pool": VALUE_REF,
                "plus": Int(0, 100),
                "each": Enum(("fight", "round")),
                "resource": _RESOURCE,
            },
            exactly_one=("dice", "pool"),
        ),
        "attackRoll": Obj(
            {
                "dice": _DICE_PAIR,
                "advantage": Bool(),
                "naturals": Obj(
                    {
                        "max": Enum(("critical", "hit", "none")),
                        "min": Enum(("miss", "none")),
                    }
                ),
                "critical": Enum(("double-dice", "max-dice", "none")),
            },
            required=("dice",),
        ),
        "pool": Obj(
            {
                "advantage": Bool(),
                "damageTarget": Int(2, 100),
                "soak": _SOAK,
                "hardness": VALUE_REF,
            }
        ),
        "economy": Obj(
            {
                "budgets": Arr(
                    Obj(
                        {
                            "id": Id(),
                            "label": LABEL,
                            "per": Enum(("turn", "round")),
                            "count": Int(1, 10),
                        },
                        required=("id", "label", "per"),
                    ),
                    1,
                    8,
                    unique_key="id",
                    noun="budget",
                ),
                "movement": VALUE_REF,
            },
            required=("budgets",),
        ),
        "distance": Obj(
            {"label": Str(hi=12), "perCell": Num(above=0)}, required=("label", "perCell")
        ),
        "ranged": Obj(
            {
                "long": Enum(("disadvantage", "normal")),
                "adjacentFoe": Enum(("disadvantage", "normal")),
            }
        ),
        "cover": Obj({"bonus": Int(0, 100)}, required=("bonus",)),
        "opportunity": Obj({"budget": Id()}, required=("budget",)),
        "offHand": Obj(
            {"budget": Id(), "ability": Enum(("full", "penalty-only"))}, required=("budget",)
        ),
        "attacks": Arr(_ATTACK, 0, 8, noun="attack source"),
        "abilities": Arr(_ABILITY_SOURCE, 0, 8, noun="ability source"),
        "standard": distinct(Arr(Enum(STANDARD_ACTIONS), 0, 6, noun="action"), "action"),
        "standardEffects": Obj(
            {"dodge": Obj({"saves": _SAVE_LIST}, required=("saves",))},
        ),
        "conditions": Arr(_CONDITION_RULE, 0, 80, unique_key="condition", noun="condition"),
        "levels": Arr(_LEVEL, 0, 20, noun="level"),
        "checks": Arr(
            Obj(
                {"id": Id(), "label": LABEL, "value": VALUE_REF}, required=("id", "label", "value")
            ),
            0,
            12,
            unique_key="id",
            noun="check",
        ),
        "contests": Arr(_CONTEST, 0, 12, unique_key="id", noun="contest"),
        "concentration": Obj(
            {
                "text": Id(),
                "save": Id(),
                "floor": Int(0, 100),
                "fromDamage": Num(hi=1, above=0),
            },
            required=("text", "save", "floor", "fromDamage"),
        ),
        "dying": _DYING,
        "damageTypes": _distinct_folded(Arr(_TEXT, 0, 40, noun="damage type"), "damage type"),
        "damageKinds": Obj(
            {
                "default": Id(),
                "byType": Map(Id(), hi=40),
                "marks": Enum(("per-blow", "per-point")),
            },
            required=("default", "marks"),
        ),
        "threat": Obj(
            {"tiers": Arr(_TIER, 1, 40, unique_key="id", noun="tier")}, required=("tiers",)
        ),
        "spendLimits": Arr(
            Obj(
                {"pool": Id(), "max": VALUE_REF, "per": Enum(("turn", "round"))},
                required=("pool", "max", "per"),
            ),
            1,
            12,
            noun="spend limit",
        ),
    },
    required=("kind", "health", "defense", "initiative", "economy"),
)
"""The ``combat`` block (FIGHTS §2.1), beside a resolution kind that may fight."""


def _check_combat(value: object, path: Path) -> Iterator[Problem]:
    if isinstance(value, dict) and value.get("kind") == SYMBOL_FIGHT:
        yield Problem((*path, "kind"), NOT_ALLOWED, SYMBOL_FIGHT_REFUSED)
        return
    yield from COMBAT.check(value, path)


COMBAT_BLOCK = Custom(_check_combat, COMBAT.schema())
"""The block as the file's shape checks it: a symbol-pool fight is refused at its kind,
wherever it appears, and nothing else of it is read."""

BATTLE = Obj(
    {
        "health": _check_choice(
            {
                "pool": Obj({"pool": Id()}, required=("pool",)),
                "track": Obj({"track": Id()}, required=("track",)),
            },
            'a { "pool": id } or a { "track": id }',
        ),
        "energy": Obj({"pool": Id()}, required=("pool",)),
        "slots": Arr(
            Obj({"pool": Id(), "level": Int(1, 9)}, required=("pool", "level")),
            0,
            12,
            noun="slot",
        ),
        "skills": Arr(
            Obj(
                {"list": Id(), "onlyWhen": Id(), "alwaysWhen": _ALWAYS_WHEN},
                required=("list",),
            ),
            0,
            8,
            noun="skill list",
        ),
    },
    required=("health",),
)
"""``battle`` (FIGHTS §1): validated and kept, never played."""

# -- what a fight reads of catalogs (FIGHTS §2.3, §2.4) ---------------------------------

_AMOUNT = Obj({"dice": DICE, "flat": Int()})
_SAVE_CLAUSE = Obj(
    {"save": Id(), "difficulty": Int(0, 1000), "onSuccess": Enum(("none", "half"))},
    required=("save", "onSuccess"),
)
_PLUS = Arr(
    Obj(
        {"dice": DICE, "flat": Int(-1000, 10000), "type": _TEXT, "save": _SAVE_CLAUSE},
    ),
    0,
    3,
    noun="clause",
)
_DURATION = _check_choice(
    {
        "rounds": Obj(
            {"rounds": Int(1, 1000), "at": Const("turn-start")},
            required=("rounds",),
        ),
        "text": Enum(("instant", "until-save")),
    },
    '"instant", "until-save" or { "rounds": N }',
)
_APPLIES = Arr(
    Obj(
        {
            "condition": Id(),
            "duration": _DURATION,
            "saveEnds": Obj(
                {"save": Id(), "at": Enum(("turn-end", "turn-start"))}, required=("save", "at")
            ),
            "endsAfter": Enum(("own-attack", "attacked", "own-save")),
        },
        required=("condition", "duration"),
    ),
    0,
    4,
    noun="condition",
)
_REACTION_OBJ = Obj(
    {
        "on": Enum(("aimed", "hit", "harmed", "used")),
        "at": Enum(("source", "chosen")),
        "cancels": Const(True),
        "against": Obj(
            {"catalogs": distinct(Arr(Id(), 1, 12, noun="catalog"), "catalog")},
            required=("catalogs",),
        ),
    },
    required=("on",),
)
_AREA = Obj(
    {"shape": Enum(("burst", "cone", "line")), "size": Num(hi=10000, above=0)},
    required=("shape", "size"),
)

FIGHT_MECHANICS: Mapping[str, Node] = {
    "range": Num(0, 10000),
    "area": _AREA,
    "targets": Enum(("self", "ally", "enemy", "any")),
    "friendlyFire": Bool(),
    "amount": _AMOUNT,
    "damageType": _TEXT,
    "plus": _PLUS,
    "attackRoll": Bool(),
    "save": Obj(
        {"save": Id(), "onSuccess": Enum(("none", "half", "negates"))},
        required=("save", "onSuccess"),
    ),
    "concentration": Bool(),
    "reaction": _check_choice(
        {"on": _REACTION_OBJ, "bool": Bool()}, 'true, false or { "on": ... }'
    ),
    "targetCount": Int(1, 20),
    "autoHit": Bool(),
    "applies": _APPLIES,
    "temporary": _AMOUNT,
    "scales": Obj({"from": VALUE_REF, "table": STEP_TABLE}, required=("from", "table")),
    "budget": Id(),
    "free": Const(True),
    "gives": Arr(
        Obj({"budget": Id(), "count": Int(1, 10)}, required=("budget", "count")),
        1,
        4,
        noun="budget",
    ),
    "standard": Obj(
        {
            "actions": distinct(Arr(Enum(STANDARD_ACTIONS), 1, 6, noun="action"), "action"),
            "budget": Id(),
        },
        required=("actions", "budget"),
    ),
    "rider": Obj(
        {
            "on": Const("hit"),
            "when": distinct(Arr(Enum(("advantage", "ally-adjacent")), 1, 2, noun="when")),
            "oncePer": Enum(("turn", "round")),
            "amount": _AMOUNT,
            "type": _TEXT,
            "sources": distinct(Arr(Id(), 1, 8, noun="source"), "source"),
            "requires": _COLUMN,
        },
        required=("on", "oncePer", "amount"),
    ),
}
"""The catalog ``mechanics`` keys a fight reads, by key (FIGHTS §2.3)."""

_DAMAGE_TYPE_OR_EXCEPT = _check_choice(
    {
        "type": Obj(
            {"type": _TEXT, "except": distinct(Arr(Id(), 1, 8, noun="tag"), "tag")},
            required=("type", "except"),
        ),
        "text": _TEXT,
    },
    'a damage type or { "type": ..., "except": [...] }',
)

_CREATURE_ACTION = Obj(
    {
        "id": Id(),
        "name": LABEL,
        "budget": Id(),
        "toHit": Int(-50, 100),
        "autoHit": Bool(),
        "damage": Obj(
            {"dice": DICE, "flat": Int(-1000, 10000), "type": _TEXT, "plus": _PLUS},
        ),
        "save": Obj(
            {
                "save": Id(),
                "difficulty": Int(0, 1000),
                "onSuccess": Enum(("none", "half", "negates")),
            },
            required=("save", "difficulty", "onSuccess"),
        ),
        "saveDifficulty": Int(0, 1000),
        "applies": _APPLIES,
        "targetCount": Int(1, 20),
        "reach": Num(0, 10000),
        "range": _check_choice(
            {
                "normal": Obj(
                    {"normal": Num(0, 10000), "long": Num(0, 10000)}, required=("normal",)
                ),
                "number": Num(0, 10000),
            },
            'a number or { "normal": N, "long": N }',
        ),
        "area": Obj(
            {
                "shape": Enum(("burst", "cone", "line")),
                "size": Num(hi=10000, above=0),
                "friendlyFire": Bool(),
            },
            required=("shape", "size"),
        ),
        "uses": Obj(
            {"per": Enum(("encounter", "day")), "count": Int(1, 20)}, required=("per", "count")
        ),
        "recharge": Obj({"dice": _DICE_PAIR, "from": Int(1, 1000)}, required=("dice", "from")),
        "sequence": Arr(
            Obj({"action": Id(), "times": Int(1, 10)}, required=("action",)),
            1,
            6,
            noun="step",
        ),
        "signature": Obj({"cost": Int(1, 20)}, required=("cost",)),
        "reaction": _REACTION_OBJ,
        "self": Const(True),
    },
    required=("id", "name", "budget"),
)

_SHEET_CELL = _check_choice(
    {"number": Num(), "text": Str(lo=0, hi=4000, one_line=False), "bool": Bool()},
    "a number, a string, or true or false",
)

CREATURE = Obj(
    {
        "tier": Id(),
        "health": _check_choice(
            {
                "dice": Obj({"dice": DICE, "flat": Int(-1000, 100000)}, required=("dice",)),
                "number": Int(1, 100000),
            },
            'a whole number or { "dice": ..., "flat": N }',
        ),
        "defense": Int(0, 1000),
        "initiativeModifier": Int(-50, 100),
        "speed": Num(0, 10000),
        "abilities": Map(Int(-1000, 1000), hi=40),
        "saves": Map(Int(-50, 50), hi=40),
        "checks": Map(Int(-100, 100), hi=12),
        "soak": Obj({"all": Int(0, 100), "byKind": Map(Int(0, 100), hi=6)}),
        "hardness": Int(0, 100),
        "resist": Arr(_DAMAGE_TYPE_OR_EXCEPT, 0, 30, noun="damage type"),
        "immune": Arr(_DAMAGE_TYPE_OR_EXCEPT, 0, 30, noun="damage type"),
        "vulnerable": Arr(_TEXT, 0, 30, noun="damage type"),
        "conditionImmunities": distinct(Arr(Id(), 0, 40, noun="condition"), "condition"),
        "traits": Arr(
            Obj({"name": Str(hi=60), "text": Str(hi=400)}, required=("name", "text")),
            0,
            8,
            noun="trait",
        ),
        "signaturePoints": Int(1, 20),
        "actions": Arr(_CREATURE_ACTION, 0, 12, unique_key="id", noun="action"),
        "riders": Arr(
            Obj(
                {
                    "id": Id(),
                    "name": LABEL,
                    "on": Const("hit"),
                    "when": distinct(Arr(Enum(("advantage", "ally-adjacent")), 1, 2, noun="when")),
                    "oncePer": Enum(("turn", "round")),
                    "amount": _AMOUNT,
                    "type": _TEXT,
                    "actions": distinct(Arr(Id(), 1, 12, noun="action"), "action"),
                },
                required=("id", "name", "on", "oncePer", "amount"),
            ),
            1,
            4,
            unique_key="id",
            noun="rider",
        ),
        "sheet": Obj(
            {
                "abilities": Map(Num(), hi=40),
                "skills": Map(_TEXT, hi=80),
                "saves": Map(_TEXT, hi=40),
                "bonuses": Map(Num(), hi=80),
                "fields": Map(_SHEET_CELL, hi=80),
                "lists": Map(Arr(Map(_SHEET_CELL, hi=40), 0, 500, noun="row"), hi=20),
            }
        ),
        "loot": Id(),
    },
    required=("tier",),
)
"""A bestiary creature (FIGHTS §2.4); which keys go beside ``sheet`` is a cross-check."""
