"""Seeded dice-sum checks converge to the exact odds: a chi-square test per configuration.

Each configuration throws 4,000 checks from one fixed seed, so the test is deterministic;
it fails only when the statistic's p-value is below 1e-6, far past what chance gives.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import pytest

from dicebound.dice import SeededDice
from dicebound.kinds.dice_sum import OpenEnded, SumCheck, SumConfig, distribution, roll
from stats import ALPHA, THROWS, chi_square_p, upper_gamma_q

pytestmark = pytest.mark.stats

Key = tuple[int, bool, bool]  # total, critical success, critical failure


def test_the_p_value_helper_matches_known_values() -> None:
    # chi-square with 1 degree of freedom at 3.841 is p = 0.05; 10 dof at 18.307 too.
    assert upper_gamma_q(0.5, 3.841 / 2) == pytest.approx(0.05, abs=1e-4)
    assert upper_gamma_q(5.0, 18.307 / 2) == pytest.approx(0.05, abs=1e-4)
    assert upper_gamma_q(2.0, 0.1) == pytest.approx(math.exp(-0.1) * 1.1, rel=1e-9)


D20_ADV = SumConfig(advantage=True)
FATE = SumConfig(count=4, sides=3, faces=(-1, 0, 1), advantage=True)

CONFIGS: list[tuple[str, SumCheck]] = [
    ("1d20+5 vs 15", SumCheck(SumConfig(), 5, 15)),
    ("1d20+5 advantage vs 15", SumCheck(D20_ADV, 5, 15, "advantage")),
    ("1d20 disadvantage, naturals both", SumCheck(D20_ADV, 2, 12, "disadvantage", "both")),
    ("2d6+1 vs 8", SumCheck(SumConfig(count=2, sides=6), 1, 8)),
    ("2d6 advantage", SumCheck(SumConfig(count=2, sides=6, advantage=True), 0, 9, "advantage")),
    ("3d6", SumCheck(SumConfig(count=3, sides=6), 0, 11)),
    ("10d6", SumCheck(SumConfig(count=10, sides=6), 0, 35)),
    ("fate 4dF+3", SumCheck(FATE, 3, 5)),
    ("fate 4dF advantage", SumCheck(FATE, 0, 2, "advantage")),
    (
        "rolemaster d100 open-ended 96/5",
        SumCheck(SumConfig(count=1, sides=100, open_ended=OpenEnded(96, 5)), 0, 100),
    ),
    (
        "d100 unmodified 66 and 100",
        SumCheck(SumConfig(count=1, sides=100, unmodified=frozenset({66, 100})), 0, 50),
    ),
    (
        "d10 open-ended high 9",
        SumCheck(SumConfig(count=1, sides=10, open_ended=OpenEnded(high=9)), 0, 10),
    ),
    (
        "d6 faces 1,1,2,2,3,3 naturals both",
        SumCheck(SumConfig(count=1, sides=6, faces=(1, 1, 2, 2, 3, 3)), 0, 2, naturals="both"),
    ),
    (
        "d20 open-ended 20/1 with advantage",
        SumCheck(
            SumConfig(count=1, sides=20, open_ended=OpenEnded(20, 1), advantage=True),
            0,
            15,
            "advantage",
        ),
    ),
]


@pytest.mark.parametrize(
    ("seed", "check"), [(i, c[1]) for i, c in enumerate(CONFIGS)], ids=[c[0] for c in CONFIGS]
)
def test_seeded_checks_fit_the_exact_odds(seed: int, check: SumCheck) -> None:
    dice = SeededDice(f"dice-sum-stats-{seed}")
    observed: Counter[Key] = Counter()
    for _ in range(THROWS):
        r = roll(check, dice)
        observed[(r.total, r.critical_success, r.critical_failure)] += 1
    odds: dict[Key, Fraction] = {}
    for o, p in distribution(check).probabilities().items():
        key = (o.total, o.critical_success, o.critical_failure)
        odds[key] = odds.get(key, Fraction(0)) + p
    p_value, freedom = chi_square_p(observed, odds, THROWS)
    assert p_value >= ALPHA, f"p = {p_value:.3g} with {freedom} degrees of freedom"


def test_the_test_can_fail() -> None:
    # Advantage throws measured against plain odds must be caught.
    check = SumCheck(D20_ADV, 0, 10, "advantage")
    plain = SumCheck(D20_ADV, 0, 10)
    dice = SeededDice("dice-sum-stats-power")
    observed: Counter[Key] = Counter()
    for _ in range(THROWS):
        r = roll(check, dice)
        observed[(r.total, r.critical_success, r.critical_failure)] += 1
    odds = {
        (o.total, o.critical_success, o.critical_failure): p
        for o, p in distribution(plain).probabilities().items()
    }
    p_value, _ = chi_square_p(observed, odds, THROWS)
    assert p_value < ALPHA
