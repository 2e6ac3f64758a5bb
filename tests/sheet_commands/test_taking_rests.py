"""Rests (docs/design/sheet-commands.md "Rests"): the moved value, the marks a wound
step clears, which rest a name means, and every rest fact of the reference rules."""

from __future__ import annotations

import pytest

from dicebound.ruleset.model import Rest, RestStep, Rounding
from dicebound.sheet_commands.rests import moved_value, wound_clear_count


def _by_fraction(fraction: float, how: Rounding = "down", least: int = 0) -> RestStep:
    return RestStep("pool", "p", by_fraction=fraction, round=how, by_min=least)


@pytest.mark.parametrize(
    ("step", "current", "maximum", "minimum", "moved"),
    [
        (RestStep("pool", "p", to="max"), 3, 9, 0, 9),
        (RestStep("track", "t", to="min"), 3, 9, -2, -2),
        (RestStep("track", "t", to=5), 3, 9, 0, 5),
        (RestStep("track", "t", to=-40), 3, 9, 0, -40),
        (RestStep("track", "t", by_const=-1), 3, 6, 0, 2),
        (RestStep("track", "t", by_const=50), 3, 6, 0, 53),
        (_by_fraction(0.5), 0, 5, 0, 2),
        (_by_fraction(0.5, least=1), 0, 1, 0, 1),
        (_by_fraction(0.25, "up", 1), 5, 12, 0, 8),
        (_by_fraction(0.5, "nearest"), 0, 5, 0, 3),
        (_by_fraction(0.5, "nearest"), 0, 3, 0, 2),
        (_by_fraction(0.5, "up"), 0, 3, 0, 2),
        (_by_fraction(0.5, "down"), 0, 3, 0, 1),
        (_by_fraction(0.07, "up"), 0, 100, 0, 7),
        (_by_fraction(1.0), 4, 6, 0, 10),
        (RestStep("state", "s", to="default"), 3, 9, 0, None),
    ],
    ids=[
        "to max is the maximum",
        "to min is the minimum",
        "to a number is that number",
        "to a number is not clamped here",
        "by const adds the constant",
        "by const is not clamped here",
        "half of five rounded down is 2",
        "half of one rounds to 0 and the minimum lifts it to 1",
        "a quarter of twelve rounded up with minimum 1 is 3",
        "nearest rounds a half up: 2.5 is 3",
        "nearest rounds 1.5 up to 2",
        "up ceils 1.5 to 2",
        "down floors 1.5 to 1",
        "the fraction is the decimal written: 7/100 of 100 is 7, not 8",
        "a whole fraction adds the maximum, unclamped",
        "a word that is not max or min moves no number",
    ],
)
def test_moved_value(
    step: RestStep, current: int, maximum: int, minimum: int, moved: int | None
) -> None:
    assert moved_value(step, current, maximum, minimum) == moved


@pytest.mark.parametrize(
    ("step", "filled", "levels", "overflow", "count"),
    [
        (RestStep("track", "harm", to="min"), 4, 4, 2, 6),
        (RestStep("track", "harm", to=2), 3, 4, 1, 2),
        (RestStep("track", "harm", to="max"), 4, 4, 3, 3),
        (RestStep("track", "harm", to="max"), 2, 4, 0, -2),
        (RestStep("track", "harm", to=9), 2, 4, 0, -2),
        (RestStep("track", "harm", to=-3), 2, 4, 1, 3),
        (RestStep("track", "harm", by_const=-2), 1, 4, 3, 2),
        (RestStep("track", "harm", by_const=2), 1, 4, 3, -2),
        (RestStep("track", "harm", by_fraction=0.5), 4, 4, 0, -2),
        (RestStep("track", "harm", by_fraction=0.5, round="up", by_min=1), 0, 0, 5, -1),
    ],
    ids=[
        "to min clears every mark and all overflow",
        "to 2 leaves two marks and no overflow",
        "to max on a full track with overflow clears exactly the overflow",
        "to max on a track with room clears nothing",
        "to a number past the levels is held to them and clears nothing",
        "to a number below 0 is held to 0",
        "by const -2 clears 2",
        "a positive constant clears nothing",
        "a fraction clears nothing",
        "a fraction on a zero-length track clears nothing",
    ],
)
def test_wound_clear_count(
    step: RestStep, filled: int, levels: int, overflow: int, count: int
) -> None:
    assert wound_clear_count(step, filled, levels, overflow) == count
