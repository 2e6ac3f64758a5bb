"""The layers pass: optional rule layers, their conflicts, guidance and ladders."""

from __future__ import annotations

from typing import Any

from dicebound.compiler.passes.context import (
    Context,
    as_dict,
)
from dicebound.kinds.base import CompileContext
from dicebound.problem_codes import (
    CONFLICTS_ITSELF,
    TOO_LONG,
)
from dicebound.problems import (
    Problem,
    unknown_id,
)
from dicebound.ruleset.model import (
    LadderStep,
    Layer,
)

__all__ = ["run"]


def run(ctx: Context) -> None:
    """Compile the layers into ``ctx.layers``."""
    ctx.layers = _build_layers(ctx)


def _build_layers(ctx: Context) -> tuple[Layer, ...]:
    out = []
    for i, layer, here in ctx.items(ctx.raw.get("layers"), ("layers",)):
        ident = str(layer["id"])
        for j, other in enumerate(layer.get("conflicts", ())):
            if other == ident:
                ctx.add(
                    (*here, "conflicts", j),
                    CONFLICTS_ITSELF,
                    f'"{other}" is this layer; a layer conflicts only with others.',
                )
            elif other not in ctx.names["layers"]:
                ctx.problems.append(
                    unknown_id((*here, "conflicts", j), str(other), "a layer", ctx.names["layers"])
                )
        gm = as_dict(layer.get("gm"))
        length = len(str(gm.get("guidance", ""))) + len(str(gm.get("worldGuidance", "")))
        if length > 4000:
            ctx.add(
                (*here, "gm"),
                TOO_LONG,
                f"holds {length} characters of guidance, counting both texts; a layer holds "
                "at most 4000.",
            )
        ladder = _layer_ladder(ctx, layer, i)
        out.append(
            Layer(
                ident,
                str(layer["label"]),
                summary=layer.get("summary"),
                conflicts=tuple(str(c) for c in layer.get("conflicts", ())),
                ladder=ladder,
                guidance=gm.get("guidance"),
                world_guidance=gm.get("worldGuidance"),
            )
        )
    return tuple(out)


def _layer_ladder(ctx: Context, layer: dict[str, Any], index: int) -> tuple[LadderStep, ...] | None:
    """A layer's ladder is held to exactly the checks the ruleset's own ladder is."""
    steps = layer.get("difficultyLadder")
    kind = ctx.kind
    if steps is None or kind is None:
        return None
    if not ctx.clean(("resolution",)):
        return None
    _, problems = kind.compile(
        {**ctx.res_raw, "difficultyLadder": steps}, CompileContext(sheet=ctx.sheet)
    )
    prefix = ("resolution", "difficultyLadder")
    for problem in problems:
        if problem.path[:2] == prefix:
            path = ("layers", index, "difficultyLadder", *problem.path[2:])
            ctx.problems.append(Problem(path, problem.code, problem.message))
    return tuple(kind.ladder_step(step) for step in steps)
