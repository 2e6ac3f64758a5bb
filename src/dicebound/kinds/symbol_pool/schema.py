"""symbol-pool's own keys of the resolution block, as spec nodes."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from dicebound.ruleset.spec import Arr, Bool, Enum, Id, Int, Node, Obj, Str
from dicebound.spend import spend_node

if TYPE_CHECKING:
    pass
from dicebound.kinds.symbol_pool.model import MAX_BOOST, MAX_NEEDED, MAX_POOL

_SYMBOL = Obj(
    {"id": Id(), "label": Str(hi=80), "counts": Id(), "cancels": Id(), "text": Str(hi=200)},
    required=("id", "label"),
)
_DIE = Obj(
    {
        "id": Id(),
        "label": Str(hi=80),
        "faces": Arr(Arr(Id(), hi=3, noun="symbol"), lo=2, hi=20, noun="face"),
    },
    required=("id", "label", "faces"),
)
_STEP = Obj({"label": Str(hi=80), "dc": Int(0, MAX_POOL)}, required=("label", "dc"))

KEYS: Mapping[str, Node] = MappingProxyType(
    {
        "symbols": Arr(_SYMBOL, lo=2, hi=10, unique_key="id", noun="symbol"),
        "dice": Arr(_DIE, lo=2, hi=8, unique_key="id", noun="die"),
        "pool": Obj(
            {
                "die": Id(),
                "upgrade": Id(),
                "max": Int(1, MAX_POOL),
                "build": Enum(("larger-upgraded", "sum")),
            },
            required=("die",),
        ),
        "difficulty": Obj(
            {"die": Id(), "upgrade": Id(), "max": Int(1, MAX_POOL)}, required=("die",)
        ),
        "boost": Obj({"die": Id(), "max": Int(1, MAX_BOOST)}, required=("die",)),
        "setback": Obj({"die": Id(), "max": Int(1, MAX_BOOST)}, required=("die",)),
        "allowOwnUpgrade": Bool(),
        "success": Obj({"symbol": Id(), "needed": Int(1, MAX_NEEDED)}, required=("symbol",)),
        "criticalSuccess": Id(),
        "criticalFailure": Id(),
        "spend": spend_node("symbol-pool", dice_only=True),
        "difficultyLadder": Arr(_STEP, lo=1, hi=12, noun="step"),
    }
)
