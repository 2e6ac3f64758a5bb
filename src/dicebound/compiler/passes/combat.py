"""The combat pass: a combat block is kept, not played; some kinds refuse one."""

from __future__ import annotations

from dicebound.compiler.passes.context import Context

__all__ = ["run"]


def run(ctx: Context) -> None:
    """Refuse a combat block the ruleset's kind cannot have beside it (the kind says
    which: ``refused_fights``)."""
    if ctx.kind is not None:
        ctx.problems.extend(ctx.kind.refused_fights(ctx.raw))
