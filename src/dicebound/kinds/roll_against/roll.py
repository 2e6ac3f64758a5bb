"""Throwing a roll-against check: the dice, or a d100 with its bonus or penalty tens dice."""

from __future__ import annotations

from dicebound.dice import DiceSource
from dicebound.kinds.base import Rolled
from dicebound.kinds.roll_against.model import AgainstCheck, keeps_lowest, outcome_of, percentile_of


def roll(check: AgainstCheck, dice: DiceSource) -> Rolled:
    """Throw the dice (with tens: the d100, then the extra tens dice) and read the roll."""
    config = check.config
    shown: list[str] = []
    if check.tens:
        face = dice.throw(100)
        ones = face % 10
        digits = [(face // 10) % 10]
        shown.append(str(face))
        for _ in range(abs(check.tens)):
            digit = dice.throw(10) % 10
            digits.append(digit)
            shown.append(str(10 * digit))
        rolls = [percentile_of(d, ones) for d in digits]
        kept = min(rolls) if keeps_lowest(check.tens, config.against) else max(rolls)
        dice_text = f"{config.dice_text}+{abs(check.tens)}d10"
    else:
        faces = [dice.throw(config.sides) for _ in range(config.count)]
        shown.extend(str(f) for f in faces)
        kept = sum(faces)
        dice_text = config.dice_text
    out = outcome_of(check, kept)
    return Rolled(
        rolls=tuple(shown),
        used=kept,
        modifier=0,
        total=kept,
        success=out.success,
        critical_success=out.critical_success,
        critical_failure=out.critical_failure,
        dice=dice_text,
        extras=(("against", config.against),),
        outcome=out,
    )
