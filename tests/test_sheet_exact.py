"""The sheet's exact numbers, made once and shared (``sheet.exact``, ``step_table``,
``ability_modifier``): whatever is remembered, each answer is the one the rule's words
give, worked out afresh in ``Fraction``s (docs/design/format.md "Shared keys": a number
is the decimal it was written as; a step table's row is the highest whose threshold is
at or below the value, read in the order written)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dicebound.errors import UsageError
from dicebound.ruleset.model import AbilityModifier
from dicebound.sheet import ability_modifier, exact, step_table

numbers = st.one_of(
    st.integers(-(10**12), 10**12),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
)


def _written(number: float | int) -> Fraction:
    """A JSON number as the decimal it was written as, worked out afresh."""
    if isinstance(number, bool | int):
        return Fraction(int(number))
    return Fraction(repr(number))


@given(st.lists(numbers, max_size=6))
def test_a_number_is_the_decimal_it_was_written_as_however_often_it_is_read(
    values: list[float | int],
) -> None:
    for value in [*values, *values]:  # the second reading is a remembered one
        assert exact(value) == _written(value)
        assert type(exact(value)) is Fraction


@pytest.mark.parametrize("number", [math.inf, -math.inf, math.nan])
def test_a_number_that_is_not_finite_is_refused_each_time(number: float) -> None:
    for _ in range(2):
        with pytest.raises(UsageError, match="not a finite number"):
            exact(number)


def _step(table: tuple[tuple[float, float], ...], x: Fraction) -> Fraction:
    """The highest row at or below ``x`` in the order written (the first row's value
    below the first threshold), each row read afresh."""
    if not table:
        return Fraction(0)
    result = _written(table[0][1])
    for threshold, value in table:
        if x < _written(threshold):
            break
        result = _written(value)
    return result


small = st.one_of(st.integers(-30, 30), st.sampled_from([0.5, -0.5, 1.25, 2.1, 0.1]))


@given(st.lists(st.tuples(small, small), max_size=6).map(tuple), st.integers(-40, 40))
def test_a_step_table_reads_its_rows_in_the_order_written(
    table: tuple[tuple[float, float], ...], x: int
) -> None:
    for _ in range(2):
        assert step_table(table, Fraction(x)) == _step(table, Fraction(x))


@given(st.integers(-1000, 1000))
def test_floor_half_minus_ten_is_the_floor_of_the_half_for_every_score(score: int) -> None:
    rule = AbilityModifier("floorHalfMinusTen")
    assert ability_modifier(rule, score) == math.floor(Fraction(score - 10, 2))
    half = Fraction(score, 2)  # a score worked out of fractions is floored as well
    assert ability_modifier(rule, half) == math.floor((half - 10) / 2)
    assert ability_modifier(AbilityModifier("identity"), score) == score
