"""The plain arithmetic a sheet's numbers are read with: exact fractions, the ruleset's
rounding, step tables, ability modifiers and a skill's untrained rule. Kept apart from
``dicebound.sheet`` (which re-exports it) so that module holds the character and its
reading."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Literal, cast

from dicebound.errors import UsageError
from dicebound.ruleset.model import AbilityModifier, Rounding, SkillDef

__all__ = ["ability_modifier", "exact", "round_number", "step_table", "untrained_rule"]


_ZERO = Fraction(0)


def exact(number: float | int | Fraction) -> Fraction:
    """A JSON number as an exact fraction of the decimal it was written as (0.1 is 1/10)."""
    kind = type(number)  # before isinstance: Fraction's ABC makes that a slow question
    if kind is int or kind is float:
        return _exact_number(number)
    if kind is Fraction or isinstance(number, Fraction):
        return cast(Fraction, number)
    return _exact_number(number)


# A ruleset's numbers are few and read on every check: each made a Fraction once
# (a Fraction is immutable, so one serves every reader). 1, 1.0 and True share an
# entry, as they share a value.
@lru_cache(maxsize=4096)
def _exact_number(number: float | int) -> Fraction:
    if isinstance(number, bool):
        return Fraction(int(number))
    if isinstance(number, int):
        return Fraction(number)
    if not math.isfinite(number):
        raise UsageError(f"{number} is not a finite number, so the sheet cannot read it.")
    return Fraction(repr(number))


def round_number(value: Fraction, how: Rounding) -> int:
    """``down`` floors, ``up`` ceils, ``nearest`` rounds a half toward +infinity."""
    if how == "up":
        return math.ceil(value)
    if how == "nearest":
        return math.floor(value + Fraction(1, 2))
    return math.floor(value)


def step_table(table: Sequence[tuple[float, float]], x: Fraction) -> Fraction:
    """The value of the highest row whose threshold is at or below ``x``; an ``x`` below
    the first threshold takes the first row's value."""
    if not table:
        return _ZERO
    exact_thresholds, whole, values = _exact_rows(tuple(table))
    thresholds: tuple[Fraction | int, ...] = exact_thresholds
    at: Fraction | int = x
    if whole is not None and x.denominator == 1:  # whole on both sides: compared as ints
        thresholds, at = whole, x.numerator
    result = values[0]
    for threshold, value in zip(thresholds, values, strict=True):
        if at < threshold:
            break
        result = value
    return result


@lru_cache(maxsize=512)
def _exact_rows(
    table: tuple[tuple[float, float], ...],
) -> tuple[tuple[Fraction, ...], tuple[int, ...] | None, tuple[Fraction, ...]]:
    """A step table's thresholds and values as exact fractions, made once per table,
    and its thresholds as ints when every one is whole (None otherwise)."""
    thresholds = tuple(exact(threshold) for threshold, _ in table)
    whole = all(threshold.denominator == 1 for threshold in thresholds)
    values = tuple(exact(value) for _, value in table)
    return thresholds, tuple(int(t) for t in thresholds) if whole else None, values


def ability_modifier(rule: AbilityModifier, score: int | Fraction) -> Fraction:
    """A score made a modifier: itself, floor((score - 10) / 2), or a step table."""
    if rule.op == "identity":
        return exact(score)
    if rule.op == "floorHalfMinusTen":
        if type(score) is int:
            return exact((score - 10) // 2)  # floor division: the floor of the half
        return Fraction(math.floor(Fraction(score - 10, 2)))
    return step_table(rule.table, exact(score))


def untrained_rule(item: SkillDef) -> tuple[Literal["normal", "harder", "refuse", "by"], int]:
    """``SheetView.untrained_rule`` of a skill or save."""
    rule = item.untrained
    if rule is None:
        return "normal", 0
    return rule.rule, rule.by if rule.rule == "by" else 0
