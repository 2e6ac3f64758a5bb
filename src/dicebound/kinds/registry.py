"""Which resolution kinds exist, and which of them dicebound builds.

A known kind that is not built yet has no compiler: the ruleset compiler refuses it
by name instead of guessing at its rules. A kind's module is imported the first time a
ruleset names it, so a ruleset of one kind never pays for the others.
"""

from __future__ import annotations

import importlib
from types import ModuleType

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

_MODULES: dict[str, str] = {
    "dice-sum": "dicebound.kinds.dice_sum",
    "dice-pool": "dicebound.kinds.dice_pool",
    "dice-highest": "dicebound.kinds.dice_highest",
    "roll-against": "dicebound.kinds.roll_against",
    "step-pool": "dicebound.kinds.step_pool",
    "symbol-pool": "dicebound.kinds.symbol_pool",
}
"""The module of each built kind: its ``KIND`` compiles, its ``PLAYER`` plays."""

_LOADED: dict[str, ModuleType] = {}


def _module(name: str) -> ModuleType | None:
    module = _LOADED.get(name)
    if module is None:
        where = _MODULES.get(name)
        if where is None:
            return None
        module = importlib.import_module(where)
        assert module.KIND.name == name, where
        _LOADED[name] = module
    return module


def kind_compiler(name: str) -> KindCompiler | None:
    """The compiler of a built kind; None for a known kind not built yet (or unknown)."""
    module = _module(name)
    return None if module is None else module.KIND


def kind_player(name: str) -> KindPlayer | None:
    """The play half of a kind whose checks dicebound throws; None where play is not built."""
    module = _module(name)
    return None if module is None else getattr(module, "PLAYER", None)
