"""step-pool's own keys of the resolution block, as spec nodes."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType

from dicebound.kinds.step_pool.model import (
    DIE_SIZES,
    MAX_TRAINING,
    RATE_MAX,
    TARGET_RANGE,
    TOOL_MAX,
)
from dicebound.problem_codes import MISPLACED_KEY
from dicebound.problems import Path, Problem
from dicebound.ruleset.spec import Arr, Custom, Id, Int, JsonSchema, Node, Obj, Str


def _refused_here(message: str, code: str) -> Custom:
    def check(value: object, path: Path) -> Iterator[Problem]:
        yield Problem(path, code, message)

    schema: JsonSchema = {"not": {}}
    return Custom(check, schema)


_STEP = Obj({"label": Str(hi=80), "dc": Int(-100, 1000)}, required=("label", "dc"))
_TARGET = Int(*TARGET_RANGE)

KEYS: Mapping[str, Node] = MappingProxyType(
    {
        "steps": Arr(Int(2, 1000), lo=1, hi=len(DIE_SIZES), noun="step"),
        "talent": Obj({"label": Str(hi=80)}, required=("label",)),
        "training": Obj(
            {"label": Str(hi=80), "count": Int(1, MAX_TRAINING)}, required=("label", "count")
        ),
        "target": Obj(
            {"default": _TARGET, "min": _TARGET, "max": _TARGET},
            required=("default", "min", "max"),
        ),
        "afterRoll": Obj(
            {
                "quality": Obj({"label": Str(hi=80)}, required=("label",)),
                "tool": Obj(
                    {"label": Str(hi=80), "max": Int(1, TOOL_MAX)}, required=("label", "max")
                ),
                "spend": Arr(
                    Obj({"pool": Id(), "rate": Int(1, RATE_MAX)}, required=("pool", "rate")),
                    lo=1,
                    hi=4,
                    noun="spend entry",
                ),
            },
            at_least_one=("quality", "tool", "spend"),
        ),
        "spend": _refused_here(
            "a step-pool check spends after the roll, on one die: put the pools in "
            "afterRoll.spend as { pool, rate }.",
            MISPLACED_KEY,
        ),
        "difficultyLadder": Arr(_STEP, lo=1, hi=12, noun="step"),
    }
)
