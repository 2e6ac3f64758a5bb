"""Seeded pool checks converge to the exact odds: a chi-square test per configuration.

Each configuration throws 4,000 checks from one fixed seed, so the test is deterministic;
it fails only when the statistic's p-value is below 1e-6, far past what chance gives.
The p-value helper is the dice-sum statistics' own.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from dicebound.dice import SeededDice
from dicebound.kinds.dice_pool import PoolCheck, PoolOutcome, distribution, roll
from dicebound.spend import Reroll
from stats import ALPHA, THROWS, chi_square_p

pytestmark = pytest.mark.stats

CONFIGS: list[tuple[str, PoolCheck]] = [
    (
        "Gravewatch-like: 7d10 at 7, tens explode, ones cancel and botch, 5 exceptional",
        PoolCheck(
            sides=10,
            target=7,
            dice=7,
            needed=2,
            explode_from=10,
            cancel_up_to=1,
            botch_up_to=1,
            exceptional=5,
            max_extra=15,
        ),
    ),
    (
        "the same, thrown again carefully (6 and under, once)",
        PoolCheck(
            sides=10,
            target=7,
            dice=7,
            needed=3,
            explode_from=10,
            cancel_up_to=1,
            botch_up_to=1,
            exceptional=5,
            reroll=Reroll(6, "once"),
            max_extra=15,
        ),
    ),
    (
        "both caps binding, counted as sequences: 5d6 exploding on 5, 1-2 thrown again once",
        PoolCheck(
            sides=6,
            target=4,
            dice=5,
            needed=3,
            explode_from=5,
            cancel_up_to=1,
            botch_up_to=1,
            reroll=Reroll(2, "once"),
            max_extra=4,
            max_rethrows=2,
        ),
    ),
    (
        "ones and twos thrown again until they show more, beside explosions",
        PoolCheck(
            sides=10,
            target=7,
            dice=5,
            needed=2,
            explode_from=10,
            reroll=Reroll(2, "until"),
            max_extra=15,
        ),
    ),
    (
        "a World of Darkness-like pool at 6 with a halfOrMore botch",
        PoolCheck(
            sides=10,
            target=6,
            dice=4,
            needed=2,
            cancel_up_to=1,
            botch_up_to=1,
            botch_rule="halfOrMore",
        ),
    ),
    (
        "a Shadowrun-like 12d6 hitting on 5 with a glitch",
        PoolCheck(sides=6, target=5, dice=12, needed=4, botch_up_to=1, botch_rule="halfOrMore"),
    ),
    (
        "Lasers & Feelings: 3d6 under 3, the exact number counts",
        PoolCheck(sides=6, target=3, dice=3, needed=2, count="below", exact=True),
    ),
    (
        "a Feelings stance: 2d6 over 4, the exact number counts nothing",
        PoolCheck(sides=6, target=4, dice=2, needed=1, count="above", exact=False),
    ),
    (
        "an Exalted-like 10d10 at 7, tens count twice",
        PoolCheck(sides=10, target=7, dice=10, needed=5, double_from=10, exceptional=10),
    ),
    (
        "a spend and a charm: two successes nobody rolled, ones thrown again",
        PoolCheck(
            sides=10,
            target=7,
            dice=6,
            needed=4,
            explode_from=10,
            cancel_up_to=1,
            botch_up_to=1,
            reroll=Reroll(1, "once"),
            auto=2,
            max_extra=15,
        ),
    ),
    (
        "explosions that often reach their cap: 4d6 exploding on 4",
        PoolCheck(sides=6, target=4, dice=4, needed=3, explode_from=4, max_extra=4),
    ),
    (
        "exploding faces that are thrown again too",
        PoolCheck(
            sides=6,
            target=4,
            dice=3,
            needed=3,
            explode_from=5,
            reroll=Reroll(5, "once"),
            max_extra=3,
        ),
    ),
]


def _observed(check: PoolCheck, seed: str) -> Counter[PoolOutcome]:
    dice = SeededDice(seed)
    observed: Counter[PoolOutcome] = Counter()
    for _ in range(THROWS):
        outcome = roll(check, dice).outcome
        assert isinstance(outcome, PoolOutcome)
        observed[outcome] += 1
    return observed


@pytest.mark.parametrize(
    ("seed", "check"), [(i, c[1]) for i, c in enumerate(CONFIGS)], ids=[c[0] for c in CONFIGS]
)
def test_seeded_checks_fit_the_exact_odds(seed: int, check: PoolCheck) -> None:
    odds: dict[PoolOutcome, Fraction] = distribution(check).probabilities()
    p_value, freedom = chi_square_p(_observed(check, f"dice-pool-stats-{seed}"), odds, THROWS)  # type: ignore[arg-type]
    assert p_value >= ALPHA, f"p = {p_value:.3g} with {freedom} degrees of freedom"


def test_the_test_can_fail() -> None:
    # Throws that explode measured against odds that do not must be caught.
    check = PoolCheck(sides=6, target=4, dice=4, needed=3, explode_from=5, max_extra=4)
    plain = PoolCheck(sides=6, target=4, dice=4, needed=3, explode_from=6, max_extra=4)
    observed = _observed(check, "dice-pool-stats-power")
    odds = distribution(plain).probabilities()
    p_value, _ = chi_square_p(observed, odds, THROWS)  # type: ignore[arg-type]
    assert p_value < ALPHA
