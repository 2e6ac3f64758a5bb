"""The combat pass: a combat block is kept, not played; some kinds refuse one."""

from __future__ import annotations

from dicebound.problem_codes import (
    COMBAT_NOT_ALLOWED,
)
from dicebound.ruleset.passes.context import (
    Context,
)
from dicebound.ruleset.spec import describe

__all__ = ["run"]


def run(ctx: Context) -> None:
    """Refuse a combat block the ruleset's kind cannot have beside it."""
    _dice_highest_has_no_combat(ctx)
    _symbol_pool_fights_are_symbol_pool(ctx)


def _dice_highest_has_no_combat(ctx: Context) -> None:
    """The page: a dice-highest ruleset has no fight of its own."""
    if ctx.res_raw.get("kind") == "dice-highest" and "combat" in ctx.raw:
        ctx.add(
            ("combat",),
            COMBAT_NOT_ALLOWED,
            "a dice-highest ruleset has no fight of its own, so a combat block is refused "
            "beside it; remove combat.",
        )


def _symbol_pool_fights_are_symbol_pool(ctx: Context) -> None:
    """The page: a symbol pool's fights are a symbol-pool fight (1.382), which dicebound
    accepts and keeps; any other combat kind is refused beside it."""
    combat = ctx.raw.get("combat")
    if ctx.res_raw.get("kind") == "symbol-pool" and isinstance(combat, dict):
        fight = combat.get("kind")
        if fight != "symbol-pool":
            ctx.add(
                ("combat", "kind"),
                COMBAT_NOT_ALLOWED,
                f"{describe(fight)} is not a fight a symbol-pool ruleset can have; its "
                'fights are "symbol-pool" fights.',
            )
