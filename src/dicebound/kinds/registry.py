"""Which resolution kinds exist, and which of them dicebound builds.

A known kind that is not built yet has no compiler: the ruleset compiler refuses it
by name instead of guessing at its rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from dicebound.kinds import dice_highest, dice_pool, dice_sum, roll_against, step_pool, symbol_pool
from dicebound.kinds.base import KindCompiler, KindPlayer

__all__ = ["KNOWN_KINDS", "kind_compiler", "kind_player"]

KNOWN_KINDS: tuple[str, ...] = (
    "dice-sum",
    "dice-pool",
    "dice-highest",
    "roll-against",
    "symbol-pool",
    "step-pool",
)

_BUILT: Mapping[str, KindCompiler] = MappingProxyType(
    {
        dice_sum.KIND.name: dice_sum.KIND,
        dice_pool.KIND.name: dice_pool.KIND,
        dice_highest.KIND.name: dice_highest.KIND,
        roll_against.KIND.name: roll_against.KIND,
        step_pool.KIND.name: step_pool.KIND,
        symbol_pool.KIND.name: symbol_pool.KIND,
    }
)


def kind_compiler(name: str) -> KindCompiler | None:
    """The compiler of a built kind; None for a known kind not built yet (or unknown)."""
    return _BUILT.get(name)


_PLAYED: Mapping[str, KindPlayer] = MappingProxyType(
    {
        dice_sum.KIND.name: dice_sum.PLAYER,
        dice_pool.KIND.name: dice_pool.PLAYER,
        dice_highest.KIND.name: dice_highest.PLAYER,
        roll_against.KIND.name: roll_against.PLAYER,
        step_pool.KIND.name: step_pool.PLAYER,
        symbol_pool.KIND.name: symbol_pool.PLAYER,
    }
)


def kind_player(name: str) -> KindPlayer | None:
    """The play half of a kind whose checks dicebound throws; None where play is not built."""
    return _PLAYED.get(name)
