"""dice-highest's own keys of the resolution block, as spec nodes."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from dicebound.kinds.dice_highest.model import MAX_DARK, MAX_POOL, MAX_SIDES
from dicebound.ruleset.spec import Arr, Enum, Int, Node, Obj, Str
from dicebound.spend import spend_node

_STEP = Obj({"label": Str(hi=80), "dc": Int(-100, 1000)}, required=("label", "dc"))

KEYS: Mapping[str, Node] = MappingProxyType(
    {
        "die": Obj({"sides": Int(2, MAX_SIDES)}, required=("sides",)),
        "pool": Obj({"min": Int(0, MAX_POOL), "max": Int(1, 100)}, required=("min", "max")),
        "keep": Int(1, 3),
        "zeroDice": Enum(("lowest-of-two", "fail")),
        "critical": Obj({"count": Int(1, 30), "face": Int(2, MAX_SIDES)}, required=("count",)),
        "dark": Obj(
            {
                "label": Str(hi=80),
                "max": Int(1, MAX_DARK),
                "text": Str(hi=200),
                "outcome": Enum(("all", "light")),
            },
            required=("label", "max"),
        ),
        "situationalDice": Obj({"min": Int(-20, 0), "max": Int(0, 20)}, required=("min", "max")),
        "spend": spend_node("dice-highest", dice_only=True),
        "difficultyLadder": Arr(_STEP, lo=1, hi=12, noun="step"),
    }
)
