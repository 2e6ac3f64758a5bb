"""Where each built kind lives, imported the first time a ruleset names it.

Kept apart from ``registry`` and free of any dicebound import, so a module the kinds
themselves import (``dicebound.bands``) can reach a kind by name without a cycle.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["kind_module"]

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


def kind_module(name: str) -> ModuleType | None:
    """The module of a built kind, imported on first use; None for any other name."""
    module = _LOADED.get(name)
    if module is None:
        where = _MODULES.get(name)
        if where is None:
            return None
        module = importlib.import_module(where)
        assert module.KIND.name == name, where
        _LOADED[name] = module
    return module
