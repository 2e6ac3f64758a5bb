"""step-pool's compile half: the cross-checks of a structurally valid block."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from dicebound.kinds.base import CompileContext, KindCompiler
from dicebound.kinds.step_pool.model import (
    BANDS,
    CAPABILITY_VERSION,
    DIE_SIZES,
    SpendRate,
    StepConfig,
)
from dicebound.kinds.step_pool.schema import KEYS
from dicebound.problem_codes import (
    DUPLICATE_POOL,
    MIN_ABOVE_MAX,
    NOT_A_DIE,
    NOT_ASCENDING,
    NOT_FOR_KIND,
    OUTSIDE_TARGET,
    POOL_STARTS_EMPTY,
)
from dicebound.problems import Path, Problem, unknown_id
from dicebound.ruleset.model import LadderStep
from dicebound.ruleset.spec import Node

Add = Callable[[Problem], None]
"""Where a step reports a problem (the compile's list's ``append``)."""


class StepPoolKind(KindCompiler):
    """The compile half of step-pool (the play half is ``PLAYER``)."""

    name = "step-pool"
    keys: Mapping[str, Node] = KEYS
    required: tuple[str, ...] = ("steps", "talent", "training", "target", "difficultyLadder")
    bands = BANDS

    def ladder_step(self, raw: Mapping[str, Any]) -> LadderStep:
        return LadderStep(label=str(raw["label"]), dc=int(raw["dc"]), raw=raw)

    def compile(
        self, block: Mapping[str, Any], ctx: CompileContext
    ) -> tuple[StepConfig | None, list[Problem]]:
        """Cross-check a structurally valid block and build its config, in named steps
        whose order is the order the problems are reported in."""
        problems: list[Problem] = []
        add = problems.append
        steps = _steps(block, ctx.path, add)
        t_default, t_min, t_max = _target(block, ctx.path, add)
        _no_number(block, ctx.path, add)
        spend = _spends(block, ctx, add)
        if problems:
            return None, problems
        after = block.get("afterRoll", {})
        quality = after.get("quality")
        tool = after.get("tool")
        config = StepConfig(
            steps=steps,
            training_count=int(block["training"]["count"]),
            target_default=t_default,
            target_min=t_min,
            target_max=t_max,
            talent_label=str(block["talent"]["label"]),
            training_label=str(block["training"]["label"]),
            quality_label=None if quality is None else str(quality["label"]),
            tool_label=None if tool is None else str(tool["label"]),
            tool_max=0 if tool is None else int(tool["max"]),
            spend=spend,
        )
        return config, []

    def features(self, block: Mapping[str, Any]) -> Iterator[tuple[str, Path, str]]:
        """The kind itself is dicebound's: a packaged ruleset declares 1.200 to use it."""
        yield CAPABILITY_VERSION, ("resolution", "kind"), "step-pool"


KIND = StepPoolKind()


def _steps(block: Mapping[str, Any], at: Path, add: Add) -> tuple[int, ...]:
    """``steps``: die sizes, smallest first, each larger than the last."""
    sizes = ", ".join(str(s) for s in DIE_SIZES[:-1]) + f" or {DIE_SIZES[-1]}"
    steps = tuple(int(s) for s in block["steps"])
    for i, size in enumerate(steps):
        if size not in DIE_SIZES:
            add(
                Problem(
                    (*at, "steps", i),
                    NOT_A_DIE,
                    f"{size} is not a die size; a step is a die of {sizes} sides.",
                )
            )
        elif i and size <= steps[i - 1]:
            add(
                Problem(
                    (*at, "steps", i),
                    NOT_ASCENDING,
                    f"{size} is not above {steps[i - 1]}, the step before it; steps run "
                    "smallest first, each larger than the last.",
                )
            )
    return steps


def _target(block: Mapping[str, Any], at: Path, add: Add) -> tuple[int, int, int]:
    """``target``'s default, min and max, in order, and every ladder step's dc within them."""
    target = block["target"]
    t_default, t_min, t_max = int(target["default"]), int(target["min"]), int(target["max"])
    if t_min > t_max:
        add(
            Problem(
                (*at, "target", "min"),
                MIN_ABOVE_MAX,
                f"{t_min} is above target.max {t_max}; the target is held to min..max.",
            )
        )
        return t_default, t_min, t_max
    if not t_min <= t_default <= t_max:
        add(
            Problem(
                (*at, "target", "default"),
                OUTSIDE_TARGET,
                f"{t_default} is outside the target's range {t_min}..{t_max}; the default "
                "target lies inside it.",
            )
        )
    for i, step in enumerate(block["difficultyLadder"]):
        dc = int(step["dc"])
        if not t_min <= dc <= t_max:
            add(
                Problem(
                    (*at, "difficultyLadder", i, "dc"),
                    OUTSIDE_TARGET,
                    f"{dc} is outside the target's range {t_min}..{t_max}; a ladder "
                    "step's dc is a target number, so it lies inside that range.",
                )
            )
    return t_default, t_min, t_max


def _no_number(block: Mapping[str, Any], at: Path, add: Add) -> None:
    """``penaltyFrom`` and ``adjust``, which a check that adds no number cannot use."""
    for key, what in (
        ("penaltyFrom", "a wound penalty"),
        ("adjust", "an adjustment"),
    ):
        if key in block:
            add(
                Problem(
                    (*at, key),
                    NOT_FOR_KIND,
                    f"a step-pool check adds no number to its dice, so {what} has nothing "
                    f"to change; remove {key}.",
                )
            )


def _spends(block: Mapping[str, Any], ctx: CompileContext, add: Add) -> tuple[SpendRate, ...]:
    """``afterRoll.spend``: live pools that start full, each named once."""
    at = ctx.path
    spend: list[SpendRate] = []
    live = {p.id: p for p in ctx.sheet.pools}
    seen: dict[str, int] = {}
    for i, raw in enumerate(block.get("afterRoll", {}).get("spend", ())):
        here = (*at, "afterRoll", "spend", i, "pool")
        pool = str(raw["pool"])
        decl = live.get(pool)
        if decl is None:
            add(unknown_id(here, pool, "a live pool", live))
        elif decl.start == "empty":
            add(
                Problem(
                    here,
                    POOL_STARTS_EMPTY,
                    f'"{pool}" starts empty, so there would be nothing in it to spend when '
                    "play begins; name a pool that starts full.",
                )
            )
        if pool in seen:
            add(
                Problem(
                    here,
                    DUPLICATE_POOL,
                    f'"{pool}" is already spent by entry {seen[pool]}; two entries may not '
                    "name the same pool, or a spend could not say which rate it meant.",
                )
            )
            continue
        seen[pool] = i
        spend.append(SpendRate(pool, int(raw["rate"])))
    return tuple(spend)
