"""dice-pool's own keys of the resolution block, as spec nodes."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from dicebound.ruleset.refs import VALUE_REF
from dicebound.ruleset.spec import Arr, Bool, Enum, Id, Int, Node, Obj, Str
from dicebound.spend import spend_node

_FACE = Int(2, 100)


_FACE_RULE = Obj({"from": _FACE, "min": _FACE}, at_least_one=("from", "min"))


_REROLL_MODE = Enum(("once", "until"))


_STEP = Obj(
    {"label": Str(hi=80), "successes": Int(1, 100), "target": _FACE},
    required=("label", "successes"),
)


KEYS: Mapping[str, Node] = MappingProxyType(
    {
        "die": Obj({"sides": Int(2, 100)}, required=("sides",)),
        "pool": Obj(
            {"min": Int(0, 100), "max": Int(1, 100), "abilityPlusAbility": Bool()},
            required=("min", "max"),
        ),
        "target": Obj(
            {"default": _FACE, "min": _FACE, "max": _FACE, "from": VALUE_REF},
            required=("default", "min", "max"),
        ),
        "double": _FACE_RULE,
        "explode": _FACE_RULE,
        "cancel": Obj({"upTo": Int(1, 99)}, required=("upTo",)),
        "botch": Obj(
            {"upTo": Int(1, 99), "rule": Enum(("noSuccesses", "halfOrMore"))},
            required=("upTo",),
        ),
        "exceptional": Obj({"successes": Int(1, 100)}, required=("successes",)),
        "situationalDice": Obj({"min": Int(-20, 0), "max": Int(0, 20)}, required=("min", "max")),
        "reroll": Arr(
            Obj(
                {"id": Id(), "upTo": Int(1, 999), "mode": _REROLL_MODE},
                required=("id", "upTo", "mode"),
            ),
            lo=1,
            hi=6,
            unique_key="id",
            noun="re-throw",
        ),
        "stances": Arr(
            Obj(
                {
                    "id": Id(),
                    "label": Str(hi=80),
                    "count": Enum(("below", "above")),
                    "skills": Arr(Id(), lo=1, hi=120, noun="skill"),
                },
                required=("id", "label", "count", "skills"),
            ),
            lo=1,
            hi=6,
            unique_key="id",
            noun="stance",
        ),
        "exact": Obj(
            {"label": Str(hi=80), "text": Str(hi=200), "counts": Bool()}, required=("label",)
        ),
        "spend": spend_node("dice-pool", dice_only=False),
        "difficultyLadder": Arr(_STEP, lo=1, hi=12, noun="step"),
    }
)
