"""Throwing a dice-sum check: each set of dice, open-ended chains, and the set advantage keeps."""

from __future__ import annotations

from dicebound.dice import DiceSource
from dicebound.kinds.base import Rolled
from dicebound.kinds.dice_sum.model import (
    Natural,
    SetResult,
    SumCheck,
    SumConfig,
    first_marks,
    keeps_first,
    outcomes,
    rolls_on,
)
from dicebound.values import new_tuple


def _throw_set(config: SumConfig, dice: DiceSource, shown: list[str]) -> SetResult:
    """Throw one set in throw order (an open-ended die's chain right after it)."""
    used = 0
    marks: tuple[Natural, int | None] = (None, None)
    sides, faces, open_ended = config.sides, config.faces, config.open_ended
    throw = dice.throw
    for i in range(config.count):
        face = throw(sides)
        value = face if faces is None else faces[face - 1]
        shown.append(str(value))
        if i == 0:
            marks = first_marks(config, face)
        if open_ended is None:  # no die rolls on: the usual check
            used += value
            continue
        sign = rolls_on(config, 1, value)
        position, chain, going = 1, 0, sign != 0
        while going:
            position += 1
            extra = config.value(throw(sides))
            shown.append(str(extra))
            chain += extra
            going = rolls_on(config, position, extra) != 0
        used += value + sign * chain
    return SetResult(used, *marks)


def roll(check: SumCheck, dice: DiceSource) -> Rolled:
    """Throw the check: the first set, then (advantage) the second, and read the result."""
    config = check.config
    shown: list[str] = []
    kept = _throw_set(config, dice, shown)
    if check.mode != "normal":
        second = _throw_set(config, dice, shown)
        if not keeps_first(check.mode, kept.used, second.used):
            kept = second
    (out,) = outcomes(check, kept.natural, kept.unmodified, (kept.used,))
    extras = () if kept.unmodified is None else (("unmodified", str(kept.unmodified)),)
    rolled: Rolled = new_tuple(  # the record's numbers in Rolled's field order
        Rolled,
        (
            tuple(shown),
            kept.used,
            check.modifier,
            out.total,
            out.success,
            out.critical_success,
            out.critical_failure,
            config.dice_text,
            check.mode,
            "sum",
            extras,
            out,
            (),
        ),
    )
    return rolled
