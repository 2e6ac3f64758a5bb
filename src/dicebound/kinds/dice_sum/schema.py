"""dice-sum's own keys of the resolution block, as spec nodes."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType

from dicebound.kinds.dice_sum.model import FACE_VALUE_LIMIT, NATURAL_RULES
from dicebound.problem_codes import MISPLACED_KEY
from dicebound.problems import Path, Problem
from dicebound.ruleset.spec import Arr, Bool, Custom, Enum, Int, JsonSchema, Node, Obj, Str


def _misplaced(name: str) -> Custom:
    def check(value: object, path: Path) -> Iterator[Problem]:
        yield Problem(
            path,
            MISPLACED_KEY,
            f'"{name}" belongs in resolution beside "dice", not inside it.',
        )

    schema: JsonSchema = {"not": {}}
    return Custom(check, schema)


_FACE = Int(-FACE_VALUE_LIMIT, FACE_VALUE_LIMIT)

_STEP = Obj({"label": Str(hi=80), "dc": Int(-100, 1000)}, required=("label", "dc"))

KEYS: Mapping[str, Node] = MappingProxyType(
    {
        "dice": Obj(
            {
                "count": Int(1, 10),
                "sides": Int(2, 1000),
                "faces": Arr(_FACE, lo=2, hi=1000, noun="face value"),
                "openEnded": _misplaced("openEnded"),
                "unmodified": _misplaced("unmodified"),
            },
            required=("count", "sides"),
        ),
        "advantage": Bool(),
        "naturals": Obj({"check": Enum(NATURAL_RULES), "save": Enum(NATURAL_RULES)}),
        "openEnded": Obj({"high": _FACE, "low": _FACE}, at_least_one=("high", "low")),
        "unmodified": Arr(_FACE, lo=1, hi=100, noun="face"),
        "difficultyLadder": Arr(_STEP, lo=1, hi=12, noun="step"),
    }
)
