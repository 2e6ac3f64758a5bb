"""Throwing a symbol-pool check."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dicebound.dice import DiceSource
from dicebound.kinds.base import Rolled

if TYPE_CHECKING:
    pass
from dicebound.kinds.symbol_pool.details import details_of
from dicebound.kinds.symbol_pool.model import (
    Effect,
    SymbolCheck,
    add_symbols,
    dice_text,
    net_symbols,
    outcome_of,
    symbols_text,
)


def roll(check: SymbolCheck, dice: DiceSource) -> Rolled:
    """Throw every die in order, count and cancel the symbols, and read the result."""
    config = check.config
    numbers: list[int] = []
    faces: list[tuple[str, ...]] = []
    total = Effect(0, False, False)
    for die_id in check.thrown:
        die = config.die(die_id)
        number = dice.throw(die.sides)
        face = die.faces[number - 1]
        numbers.append(number)
        faces.append(face)
        total = add_symbols(total, config.face_effects[die_id][number - 1])
    out = outcome_of(check, total)
    net = net_symbols(config, faces)
    extras = (
        ("symbols", symbols_text(net)),
        ("thrown", "|".join(check.thrown)),
        ("symbolDetails", details_of(config, check.thrown, faces)),
    )
    return Rolled(
        rolls=tuple(str(n) for n in numbers),
        used=out.total,
        modifier=0,
        total=out.total,
        success=out.success,
        critical_success=out.critical_success,
        critical_failure=out.critical_failure,
        dice=dice_text(check.thrown, check.vs_at),
        extras=extras,
        outcome=out,
    )
