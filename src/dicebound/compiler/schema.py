"""The shape of a whole ruleset file, as spec nodes (docs/design/format.md).

One set of nodes serves twice: ``ruleset_node`` checks a submitted file (strict objects,
"did you mean" for unknown keys, every limit of docs/design/format.md "Limits", the
one-line text hygiene on every label and every text the Game Master reads), and
``ruleset_json_schema`` prints the JSON Schema of the same shape. The resolution block
is the shared sheet-math keys merged with the keys of the file's own kind, which the
kind's module names. Cross-checks a shape cannot express live in ``compile``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from dicebound.bands import OUTCOMES
from dicebound.compiler.combat.shapes import BATTLE, COMBAT_BLOCK, CREATURE, FIGHT_MECHANICS
from dicebound.compiler.nodes import (
    ANYTHING,
    BOX_TABLE,
    DICE,
    DICE_PATTERN,
    HIDE_WHEN,
    LABEL,
    STEP_TABLE,
    UNTRAINED,
    Tagged,
    accept_anything,
    distinct,
    no_quote,
    nonempty,
    wrong_type_of,
)
from dicebound.kinds.base import KindCompiler
from dicebound.kinds.registry import KNOWN_KINDS, kind_compiler
from dicebound.overrides import overrides_node
from dicebound.problem_codes import (
    KIND_NOT_BUILT,
    MISSING_KEY,
    NOT_ALLOWED,
    NOT_FOR_TARGET,
    ONE_SOURCE,
    RESERVED_ID,
    TOO_LONG,
    UNKNOWN_KIND,
)
from dicebound.problems import Path, Problem, did_you_mean, missing_key
from dicebound.ruleset.refs import VALUE_REF
from dicebound.ruleset.spec import (
    KEBAB_PATTERN,
    Arr,
    Bool,
    Const,
    Custom,
    Enum,
    Id,
    Int,
    JsonSchema,
    Kebab,
    Loose,
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
    "ANYTHING",
    "DICE_PATTERN",
    "MAX_RULESET_BYTES",
    "NOT_PLAYED",
    "RESERVED_IDS",
    "REST_TARGETS",
    "SHARED_RESOLUTION_KEYS",
    "Tagged",
    "built_kinds",
    "resolution_obj",
    "ruleset_json_schema",
    "ruleset_node",
]

MAX_RULESET_BYTES = 256 * 1024
"""A ruleset file is at most 256 KB (``RULESET_MAX_BYTES``; docs/design/format.md "The
file as a whole")."""

RESERVED_IDS: tuple[str, ...] = ("engine-legacy", "traditional")
NOT_PLAYED: tuple[str, ...] = ("items", "battle", "combat")
"""Top-level blocks accepted and kept with a type check only, in the key order of
docs/design/format.md "Top-level keys"."""

ASSET_PATTERN = r"^catalogs/[a-z][a-z0-9_]{0,39}\.json$"
ROUNDING: tuple[str, ...] = ("down", "up", "nearest")
FIELD_TYPES: tuple[str, ...] = ("number", "text", "longtext", "boolean", "enum", "dice")


def _check_track_max(value: object, path: Path) -> Iterator[Problem]:
    if is_int(value):
        return
    if isinstance(value, dict):
        yield from VALUE_REF.check(value, path)
        return
    yield wrong_type_of(path, "a whole number or a value reference", value)


TRACK_MAX = Custom(_check_track_max, {"anyOf": [{"type": "integer"}, VALUE_REF.schema()]})


# -- the sheet (docs/design/format.md "The sheet") -------------------------------------

_ENUM_VALUES = distinct(Arr(Str(hi=80), lo=1, hi=40, noun="value"))


def _typed(common: Mapping[str, Node], required: Sequence[str]) -> Tagged:
    """Fields and list columns: the six types with their own keys (§5.4, §5.8)."""

    def one(kind: str, own: Mapping[str, Node], needs: Sequence[str] = ()) -> Obj:
        return Obj({**common, "type": Const(kind), **own}, required=(*required, "type", *needs))

    text_default = Str(lo=0, hi=500, one_line=False)
    long_default = Str(lo=0, hi=4000, one_line=False)
    short_text = Str(lo=0, hi=40, one_line=False)
    return Tagged(
        "type",
        {
            "number": one(
                "number",
                {"min": Num(), "max": Num(), "default": Num(), "integer": Bool()},
                ("min", "max"),
            ),
            "text": one(
                "text", {"maxLength": Int(1, 500), "default": text_default}, ("maxLength",)
            ),
            "longtext": one(
                "longtext", {"maxLength": Int(1, 4000), "default": long_default}, ("maxLength",)
            ),
            "boolean": one("boolean", {"default": Bool()}),
            "enum": one(
                "enum",
                {
                    "values": _ENUM_VALUES,
                    "valueLabels": Map(LABEL),
                    "default": Str(lo=0, hi=80, one_line=False),
                },
                ("values",),
            ),
            "dice": one("dice", {"default": short_text, "example": short_text}),
        },
    )


FIELD = _typed(
    {"id": Id(), "label": LABEL, "section": Id(), "hideWhen": HIDE_WHEN}, ("id", "label")
)
COLUMN = _typed({"id": Id(), "label": LABEL, "required": Bool()}, ("id", "label"))


def _derived_node() -> Tagged:
    common: dict[str, Node] = {"id": Id(), "label": LABEL, "section": Id(), "hideWhen": HIDE_WHEN}
    req = ("id", "label", "op")

    def one(op: str, own: Mapping[str, Node], needs: Sequence[str]) -> Obj:
        return Obj({**common, "op": Const(op), **own}, required=(*req, *needs))

    return Tagged(
        "op",
        {
            "sum": one("sum", {"of": Arr(VALUE_REF, 1, 12, noun="value")}, ("of",)),
            "min": one("min", {"of": Arr(VALUE_REF, 2, 12, noun="value")}, ("of",)),
            "max": one("max", {"of": Arr(VALUE_REF, 2, 12, noun="value")}, ("of",)),
            "scale": one(
                "scale",
                {"of": VALUE_REF, "multiplier": Num(), "round": Enum(ROUNDING)},
                ("of", "multiplier"),
            ),
            "stepTable": one(
                "stepTable", {"from": VALUE_REF, "table": STEP_TABLE}, ("from", "table")
            ),
            "enumTable": one(
                "enumTable",
                {
                    "from": Obj(
                        {"field": Id(), "liveState": Id()}, exactly_one=("field", "liveState")
                    ),
                    "table": nonempty(Map(Num(), hi=40), "row"),
                    "default": Num(),
                },
                ("from", "table"),
            ),
        },
    )


DERIVED = _derived_node()

SECTION = Obj({"id": Id(), "label": LABEL, "untrained": UNTRAINED}, required=("id", "label"))
ABILITY = Obj(
    {
        "id": Id(),
        "label": LABEL,
        "short": Str(hi=8),
        "min": Int(),
        "max": Int(),
        "default": Int(),
        "section": Id(),
    },
    required=("id", "label", "min", "max", "default"),
)
SKILL = Obj(
    {
        "id": Id(),
        "label": LABEL,
        "ability": Id(),
        "cap": VALUE_REF,
        "section": Id(),
        "untrained": UNTRAINED,
    },
    required=("id", "label"),
)
LIST = Obj(
    {
        "id": Id(),
        "label": LABEL,
        "section": Id(),
        "hideWhen": HIDE_WHEN,
        "maxItems": Int(1, 500),
        "columns": Arr(COLUMN, 1, 12, unique_key="id", noun="column"),
        "pools": Obj(
            {"nameColumn": Id(), "maxColumn": Id(), "rechargeColumn": Id()},
            required=("nameColumn", "maxColumn"),
        ),
    },
    required=("id", "label", "maxItems", "columns"),
)
POOL = Obj(
    {
        "id": Id(),
        "label": LABEL,
        "max": VALUE_REF,
        "allowTemp": Bool(),
        "group": Id(),
        "start": Enum(("full", "empty")),
        "hideWhen": HIDE_WHEN,
    },
    required=("id", "label", "max"),
)
TRACK = Obj(
    {
        "id": Id(),
        "label": LABEL,
        "min": Int(),
        "max": TRACK_MAX,
        "default": Int(),
        "levels": Arr(
            Obj({"label": LABEL, "penalty": Int(-1000, 0)}, required=("label", "penalty")),
            1,
            16,
            noun="level",
        ),
        "kinds": Arr(
            Obj(
                {"id": Id(), "label": Str(hi=16), "severity": Int(-100, 100)},
                required=("id", "label", "severity"),
            ),
            1,
            6,
            unique_key="id",
            noun="kind",
        ),
        "boxes": Obj(
            {
                "penalty": Obj(
                    {"by": Enum(("filled", "remaining")), "table": BOX_TABLE},
                    required=("by", "table"),
                )
            },
            required=("penalty",),
        ),
        "fill": Enum(("sequential", "indexed")),
        "onFull": Enum(("upgrade", "refuse")),
        "extra": Obj(
            {"list": Id(), "countColumn": Id(), "penaltyColumn": Id()},
            required=("list", "countColumn", "penaltyColumn"),
        ),
        "alwaysShow": Bool(),
        "hideWhen": HIDE_WHEN,
    },
    required=("id", "label", "min", "max"),
)
LIVE_TEXT = Obj(
    {"id": Id(), "label": LABEL, "maxLength": Int(1, 500)}, required=("id", "label", "maxLength")
)
CONDITION = Obj({"id": Id(), "label": LABEL}, required=("id", "label"))
STATE = Obj(
    {
        "id": Id(),
        "label": LABEL,
        "values": distinct(Arr(no_quote(Str(hi=80)), 2, 40, noun="value")),
        "valueLabels": Map(LABEL),
        "default": Str(lo=0, hi=80, one_line=False),
        "hideWhen": HIDE_WHEN,
    },
    required=("id", "label", "values"),
)
LIVE = Obj(
    {
        "pools": Arr(POOL, hi=60, unique_key="id", noun="pool"),
        "tracks": Arr(TRACK, hi=30, unique_key="id", noun="track"),
        "text": Arr(LIVE_TEXT, hi=12, unique_key="id", noun="text"),
        "conditions": Arr(CONDITION, hi=80, unique_key="id", noun="condition"),
        "states": Arr(STATE, hi=12, unique_key="id", noun="state"),
    }
)
SHEET = Obj(
    {
        "version": Int(1),
        "sections": Arr(SECTION, hi=20, unique_key="id", noun="section"),
        "abilities": Arr(ABILITY, hi=20, unique_key="id", noun="ability"),
        "skills": Arr(SKILL, hi=120, unique_key="id", noun="skill"),
        "saves": Arr(SKILL, hi=40, unique_key="id", noun="save"),
        "skillTiers": distinct(Arr(Id(), 1, 12, noun="tier"), "tier"),
        "saveTiers": distinct(Arr(Id(), 1, 12, noun="tier"), "tier"),
        "bonusRange": Obj({"min": Int(lo=-100), "max": Int(hi=100)}, required=("min", "max")),
        "fields": Arr(FIELD, hi=160, unique_key="id", noun="field"),
        "derived": Arr(DERIVED, hi=60, unique_key="id", noun="derived value"),
        "lists": Arr(LIST, hi=20, unique_key="id", noun="list"),
        "live": LIVE,
    },
    required=("version",),
)


# -- the resolution block: shared keys + the kind's own (format.md "Shared keys") -------

ABILITY_MODIFIER = Tagged(
    "op",
    {
        "identity": Obj({"op": Const("identity")}, required=("op",)),
        "floorHalfMinusTen": Obj({"op": Const("floorHalfMinusTen")}, required=("op",)),
        "stepTable": Obj({"op": Const("stepTable"), "table": STEP_TABLE}, required=("op", "table")),
    },
)
TIER = Obj(
    {
        "id": Id(),
        "label": LABEL,
        "multiplier": Num(0, 10),
        "round": Enum(ROUNDING),
        "flat": Int(-50, 50),
    },
    required=("id", "label"),
)
SHARED_RESOLUTION_KEYS: Mapping[str, Node] = {
    "abilityModifier": ABILITY_MODIFIER,
    "proficiency": Obj({"bonus": VALUE_REF}, required=("bonus",)),
    "proficiencyTiers": Arr(TIER, 1, 12, unique_key="id", noun="tier"),
    "penaltyFrom": Id(),
    "adjust": Arr(
        Obj(
            {"value": VALUE_REF, "abilities": distinct(Arr(Id(), 1, 12, noun="ability"))},
            required=("value",),
        ),
        hi=8,
        noun="adjustment",
    ),
}
_SHARED_REQUIRED = ("kind", "abilityModifier", "proficiencyTiers")


def built_kinds() -> list[str]:
    """The kinds this version of dicebound plays, in the page's order."""
    return [name for name in KNOWN_KINDS if kind_compiler(name) is not None]


def resolution_obj(kind: KindCompiler) -> Obj:
    """The resolution block of one kind: the shared keys merged with the kind's."""
    props: dict[str, Node] = {
        "kind": Const(kind.name),
        **SHARED_RESOLUTION_KEYS,
        **kind.keys,
        "outcomes": OUTCOMES,
        "overrides": overrides_node(kind),
    }
    required = tuple(dict.fromkeys((*_SHARED_REQUIRED, *kind.required)))
    return Obj(props, required=required)


def _kind_problem(kind: object, path: Path) -> Problem | None:
    """Why ``resolution.kind`` names no kind dicebound plays, or None."""
    if not isinstance(kind, str):
        return wrong_type_of(path, "a string naming a resolution kind", kind)
    if kind not in KNOWN_KINDS:
        names = ", ".join(f'"{k}"' for k in KNOWN_KINDS)
        return Problem(
            path,
            UNKNOWN_KIND,
            f"{describe(kind)} is not a resolution kind; the kinds are {names}."
            f"{did_you_mean(kind, KNOWN_KINDS)}",
        )
    if kind_compiler(kind) is None:
        played = [f'"{k}"' for k in built_kinds()]
        built = played[0] if len(played) == 1 else ", ".join(played[:-1]) + " and " + played[-1]
        return Problem(
            path,
            KIND_NOT_BUILT,
            f"{describe(kind)} is a resolution kind this version of dicebound does not build "
            f"yet; it plays {built}.",
        )
    return None


def _check_resolution(value: object, path: Path) -> Iterator[Problem]:
    if not isinstance(value, dict):
        yield wrong_type_of(path, "an object", value)
        return
    kind = value.get("kind")
    compiler = kind_compiler(kind) if isinstance(kind, str) else None
    if compiler is not None:
        yield from resolution_obj(compiler).check(value, path)
        return
    if "kind" not in value:
        yield missing_key(path, "kind")
    else:
        problem = _kind_problem(kind, (*path, "kind"))
        if problem is not None:
            yield problem
    # Without a kind it plays, its own keys cannot be judged; the shared ones still can.
    shared = Obj(
        {"kind": ANYTHING, **SHARED_RESOLUTION_KEYS},
        required=("abilityModifier", "proficiencyTiers"),
        extra=ANYTHING,
    )
    yield from shared.check(value, path)


def _resolution_schema() -> JsonSchema:
    options = []
    for name in built_kinds():
        compiler = kind_compiler(name)
        assert compiler is not None
        options.append(resolution_obj(compiler).schema())
    return {"anyOf": options}


class _Resolution(Node):
    """The resolution block: checked by its kind; its JSON Schema, every built kind's,
    made only when asked for (making it imports every kind)."""

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        return _check_resolution(value, path)

    def schema(self) -> JsonSchema:
        return _resolution_schema()


RESOLUTION: Node = _Resolution()


# -- gm, catalogs, layers (docs/design/format.md) -------------------------------------

GM = Obj(
    {
        "checkGuidance": Str(hi=1500),
        "sheetGuidance": Str(hi=1500),
        "worldGuidance": Str(hi=1500),
        "sheetSummary": Obj(
            {
                "fields": Arr(Id(), hi=24, noun="field"),
                "derived": Arr(Id(), hi=24, noun="derived value"),
                "lists": Arr(
                    Obj(
                        {
                            "list": Id(),
                            "nameColumn": Id(),
                            "columns": Arr(Id(), 1, 3, noun="column"),
                            "groupBy": Id(),
                            "onlyWhen": Id(),
                        },
                        required=("list", "nameColumn"),
                    ),
                    hi=8,
                    noun="list",
                ),
            }
        ),
    },
    required=("checkGuidance",),
)


def _check_filter_value(value: object, path: Path) -> Iterator[Problem]:
    if is_number(value):
        return
    if isinstance(value, str):
        if len(value) > 80:
            yield Problem(path, TOO_LONG, f"must be at most 80 characters, not {len(value)}.")
        return
    if isinstance(value, list):
        yield from Arr(Str(lo=0, hi=80, one_line=False), hi=24, noun="tag").check(value, path)
        return
    yield wrong_type_of(path, "a number, a string or a list of strings", value)


def _check_row_value(value: object, path: Path) -> Iterator[Problem]:
    if isinstance(value, bool) or is_number(value):
        return
    if isinstance(value, str):
        if len(value) > 4000:
            yield Problem(path, TOO_LONG, f"must be at most 4000 characters, not {len(value)}.")
        return
    yield wrong_type_of(path, "a number, a string, or true or false", value)


ENTRY_CHECK = Obj(
    {
        "reroll": Obj(
            {"upTo": Int(1, 999), "mode": Enum(("once", "until"))}, required=("upTo", "mode")
        ),
        "dice": Int(1, 10),
        "successes": Int(1, 10),
        "threshold": Int(2, 1000),
        "explode": Int(2, 1000),
        "double": Int(2, 1000),
    },
    at_least_one=("reroll", "dice", "successes", "threshold", "explode", "double"),
)
MECHANICS = Obj(
    {
        **FIGHT_MECHANICS,
        "kind": Enum(("attack", "heal", "buff", "debuff", "utility", "rider")),
        "cost": Arr(
            Obj({"pool": Id(), "amount": Int(1)}, required=("pool", "amount")),
            hi=4,
            noun="cost term",
        ),
        "perCostStep": Obj({"dice": DICE, "flat": Int()}),
        "check": ENTRY_CHECK,
    },
    required=("kind",),
)
ROW = Obj(
    {
        "list": Id(),
        "values": Map(Custom(_check_row_value, {"type": ["number", "string", "boolean"]})),
        "scaled": nonempty(
            Map(Obj({"from": VALUE_REF, "table": STEP_TABLE}, required=("from",)), hi=4),
            "scaled column",
        ),
    },
    required=("list", "values"),
)
ENTRY = Obj(
    {
        "id": Kebab(80),
        "label": Str(hi=120),
        "summary": Str(lo=0, hi=300),
        "filters": Map(Custom(_check_filter_value, {})),
        "rows": Arr(ROW, 1, 6, noun="row"),
        "mechanics": MECHANICS,
        "creature": CREATURE,
        "item": Loose("object"),
    },
    required=("id", "label"),
    exactly_one=("rows", "creature", "item"),
)
CATALOG = Obj(
    {
        "id": Id(),
        "label": LABEL,
        "holds": Enum(("rows", "creatures", "items")),
        "feeds": distinct(Arr(Id(), 1, 8, noun="list"), "list"),
        "filters": Arr(
            Obj(
                {
                    "id": Id(),
                    "label": LABEL,
                    "type": Enum(("number", "text", "tags")),
                    "startFrom": Obj({"field": Id()}, required=("field",)),
                },
                required=("id", "label", "type"),
            ),
            hi=8,
            unique_key="id",
            noun="filter",
        ),
        "units": Obj(
            {
                "distance": Obj(
                    {"label": Str(hi=12), "perCell": Num(above=0)}, required=("label", "perCell")
                )
            }
        ),
        "entries": Arr(ENTRY, hi=2000, unique_key="id", noun="entry"),
        "asset": Str(
            hi=240,
            pattern=ASSET_PATTERN,
            pattern_says='is not a catalog asset path; write "catalogs/<catalog id>.json"',
        ),
    },
    required=("id", "label"),
    exactly_one=("entries", "asset"),
)


def _layer(ladder: Node) -> Obj:
    return Obj(
        {
            "id": Id(),
            "label": LABEL,
            "summary": Str(hi=300),
            "conflicts": distinct(Arr(Id(), hi=12, noun="layer"), "layer"),
            "gm": Obj({"guidance": Str(hi=4000), "worldGuidance": Str(hi=4000)}),
            "fields": Loose("array"),
            "difficultyLadder": ladder,
            "catalogs": Loose("array"),
            "currencies": Loose("object"),
        },
        required=("id", "label"),
    )


def _layer_ladder(kind: str | None, for_schema: bool) -> Node:
    compiler = kind_compiler(kind) if kind is not None else None
    if compiler is not None:
        return compiler.keys["difficultyLadder"]
    if for_schema:
        ladders = []
        for name in built_kinds():
            built = kind_compiler(name)
            assert built is not None
            ladders.append(built.keys["difficultyLadder"].schema())
        return Custom(accept_anything, {"anyOf": ladders})
    return Loose("array")  # without a kind it plays, a ladder's steps cannot be judged


# -- the whole file -------------------------------------------------------------------


def _check_ruleset_id(value: object, path: Path) -> Iterator[Problem]:
    problems = list(Kebab(64).check(value, path))
    yield from problems
    if not problems and value in RESERVED_IDS:
        yield Problem(
            path,
            RESERVED_ID,
            f"{describe(value)} is reserved for the Engine's own rules; pick another id.",
        )


# -- rests (docs/design/format.md "Rests") ---------------------------------------------

REST_TARGETS: tuple[str, ...] = ("pool", "poolGroup", "listPools", "track", "state")
"""What a restore step may name, exactly one per step."""

_TARGET_OF_KEY: Mapping[str, str] = {"recharge": "listPools", "kind": "track"}
"""Keys a step takes only beside one target: the listPools filter, the wound kind."""


def _check_step_to(value: object, path: Path) -> Iterator[Problem]:
    if is_int(value):
        return
    if isinstance(value, str):
        yield from Str(hi=80, one_line=False).check(value, path)
        return
    yield wrong_type_of(path, '"max", "min", a whole number or a state\'s value', value)


_STEP_TO = Custom(
    _check_step_to,
    {"anyOf": [{"type": "integer"}, {"type": "string", "minLength": 1, "maxLength": 80}]},
)
_BY_CONST = Obj({"const": Int()}, required=("const",))
_BY_FRACTION = Obj(
    {"fractionOfMax": Num(hi=1, above=0), "round": Enum(ROUNDING), "min": Int(lo=0)},
    required=("fractionOfMax",),
)


def _pick_by(value: object) -> str | None:
    if not isinstance(value, dict):
        return None
    if "const" in value:
        return "const"
    return "fraction" if "fractionOfMax" in value else None


_STEP_BY = OneOf(
    {"const": _BY_CONST, "fraction": _BY_FRACTION},
    _pick_by,
    '{ "const": n } or { "fractionOfMax": f }',
)
_STEP_KEYS = Obj(
    {
        **dict.fromkeys(REST_TARGETS, Id()),
        "recharge": Arr(Str(hi=80, one_line=False), 1, 12, noun="recharge value"),
        "kind": Id(),
        "to": _STEP_TO,
        "by": _STEP_BY,
    },
    exactly_one=REST_TARGETS,
)


def _check_step(value: object, path: Path) -> Iterator[Problem]:
    """A restore step: its keys, then the rules that tie them to its one target."""
    yield from _STEP_KEYS.check(value, path)
    if not isinstance(value, dict):
        return
    targets = [k for k in REST_TARGETS if k in value]
    for key, target in _TARGET_OF_KEY.items():
        if key in value and target not in value:
            yield Problem(
                (*path, key),
                NOT_FOR_TARGET,
                f'{key} belongs to a "{target}" step; this step names '
                f"{_said(targets)}, so nothing would read it.",
            )
    to = value.get("to")
    if "state" in value:
        if "by" in value:
            yield Problem(
                (*path, "by"),
                NOT_FOR_TARGET,
                'a state has no number to move by; write "to": "default" or one of its values.',
            )
        if "to" not in value:
            yield Problem(
                path,
                MISSING_KEY,
                'a state step needs "to": "default" or one of the state\'s values.',
            )
        elif not isinstance(to, str):
            yield wrong_type_of((*path, "to"), '"default" or one of the state\'s values', to)
        return
    if ("to" in value) == ("by" in value):
        count = 2 if "to" in value else 0
        yield Problem(path, ONE_SOURCE, f'needs exactly one of "to", "by", not {count}.')
    if isinstance(to, str) and to not in ("max", "min"):
        yield Problem(
            (*path, "to"),
            NOT_ALLOWED,
            f'must be "max", "min" or a whole number, not {describe(to)}; only a state step '
            f"takes a value by name.{did_you_mean(to, ('max', 'min'))}",
        )


def _said(targets: Sequence[str]) -> str:
    return " and ".join(f'"{t}"' for t in targets) if targets else "no target"


def _step_schema() -> JsonSchema:
    out = _STEP_KEYS.schema()
    out["dependencies"] = {key: [target] for key, target in _TARGET_OF_KEY.items()}
    out["allOf"] = [
        {
            "if": {"required": ["state"]},
            "then": {
                "required": ["to"],
                "properties": {"to": {"type": "string"}},
                "not": {"required": ["by"]},
            },
            "else": {
                "oneOf": [{"required": ["to"]}, {"required": ["by"]}],
                "properties": {"to": {"anyOf": [{"enum": ["max", "min"]}, {"type": "integer"}]}},
            },
        }
    ]
    return out


REST_STEP = Custom(_check_step, _step_schema())


def _check_clear_conditions(value: object, path: Path) -> Iterator[Problem]:
    if isinstance(value, list):
        yield from Arr(Id(), hi=80, noun="condition").check(value, path)
    elif value != "all":
        yield wrong_type_of(path, '"all" or a list of condition ids', value)


REST = Obj(
    {
        "id": Id(),
        "label": no_quote(LABEL),
        "restore": Arr(REST_STEP, hi=40, noun="restore step"),
        "clear": Obj(
            {
                "text": Arr(Id(), hi=12, noun="text"),
                "conditions": Custom(
                    _check_clear_conditions,
                    {
                        "anyOf": [
                            {"const": "all"},
                            {"type": "array", "items": Id().schema(), "maxItems": 80},
                        ]
                    },
                ),
            }
        ),
    },
    required=("id", "label"),
)


def ruleset_node(kind: str | None, *, for_schema: bool = False) -> Obj:
    """The whole file's shape for a ruleset whose ``resolution.kind`` is ``kind``.

    The kind picks the shape of a layer's ``difficultyLadder``; the resolution block
    picks its own shape from the value it holds.
    """
    license_text = Str(lo=0, hi=4000, one_line=False)
    built = kind_compiler(kind) if kind is not None and not for_schema else None
    fights = built is None or built.fights  # beside a kind with no fights, refused whole
    return Obj(
        {
            "schemaVersion": Const(1),
            "id": Custom(
                _check_ruleset_id,
                {"type": "string", "maxLength": 64, "pattern": KEBAB_PATTERN},
            ),
            "version": Int(1),
            "name": Str(hi=80),
            "edition": Str(hi=160),
            "license": Obj({"spdx": Str(lo=0, hi=64, one_line=False), "attribution": license_text}),
            "coverage": Obj(
                {
                    **dict.fromkeys(
                        ("checks", "saves", "sheet", "resources", "rests", "combat"), Bool()
                    ),
                    "summary": Str(hi=400),
                },
                required=("summary",),
            ),
            "resolution": RESOLUTION,
            "sheet": SHEET,
            "gm": GM,
            "rests": Arr(REST, hi=12, unique_key="id", noun="rest"),
            "catalogs": Arr(CATALOG, hi=12, unique_key="id", noun="catalog"),
            "items": Loose("object"),
            "battle": BATTLE,
            "combat": COMBAT_BLOCK if fights else Loose("object"),
            "layers": Arr(
                _layer(_layer_ladder(kind, for_schema)), hi=12, unique_key="id", noun="layer"
            ),
        },
        required=(
            "schemaVersion",
            "id",
            "version",
            "name",
            "coverage",
            "resolution",
            "sheet",
            "gm",
        ),
        root=True,
    )


def ruleset_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft-07) of a ruleset file, every kind dicebound plays included.

    Cross-checks (ids that must exist, order, rules that could never fire) are beyond
    JSON Schema; ``compile_ruleset`` makes them.
    """
    body = ruleset_node(None, for_schema=True).schema()
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "dicebound ruleset (Marinara Engine's format)",
        **body,
    }
