"""dice-pool: throw the dice and count them (skeleton; being built)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from dicebound.kinds.base import CompileContext
from dicebound.problems import Path, Problem
from dicebound.ruleset.model import LadderStep
from dicebound.ruleset.spec import Arr, Bool, Int, Node, Obj, Str

_STEP = Obj({"label": Str(hi=80), "dc": Int(-100, 1000)}, required=("label", "dc"))


class _DicePool:
    name = "dice-pool"
    keys: Mapping[str, Node] = {
        "dice": Obj({"count": Int(1, 10), "sides": Int(2, 1000)}),
        "advantage": Bool(),
        "difficultyLadder": Arr(_STEP, lo=1, hi=12, noun="step"),
    }
    required: tuple[str, ...] = ("difficultyLadder",)

    def ladder_step(self, raw: Mapping[str, Any]) -> LadderStep:
        return LadderStep(label=raw["label"], dc=int(raw["dc"]), raw=raw)

    def compile(self, block: Mapping[str, Any], ctx: CompileContext) -> tuple[Any, list[Problem]]:
        return dict(block), []

    def features(self, block: Mapping[str, Any]) -> Iterator[tuple[str, Path, str]]:
        yield from ()


KIND = _DicePool()
