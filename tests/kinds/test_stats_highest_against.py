"""Seeded dice-highest and roll-against checks converge to the exact odds: a chi-square
test per configuration, dark dice and tens dice included.

Each configuration throws 4,000 checks from one fixed seed, so the test is deterministic;
it fails only when the statistic's p-value is below 1e-6, far past what chance gives.
The chi-square helper is the dice-sum statistics module's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from typing import Any, cast

import pytest

from dicebound.dice import SeededDice
from dicebound.kinds import dice_highest, roll_against
from dicebound.kinds.dice_highest import CriticalRule, Dark, HighestCheck, HighestConfig
from dicebound.kinds.roll_against import AgainstCheck, AgainstConfig, CritRule
from stats import ALPHA, THROWS, chi_square_p

pytestmark = pytest.mark.stats

Key = tuple[int, bool, bool, bool]


def _highest_key(o: Any) -> Key:
    return (o.total, o.success, o.critical_success, o.dark_highest)


def _against_key(o: Any) -> Key:
    return (o.total, o.success, o.critical_success, o.critical_failure)


BLADES = HighestConfig(sides=6, pool_min=0, pool_max=6, critical=CriticalRule(2, 6))
TROPHY_ALL = HighestConfig(sides=6, pool_min=0, pool_max=6, dark=Dark("Dark", 3))
TROPHY_LIGHT = HighestConfig(
    sides=6,
    pool_min=0,
    pool_max=6,
    critical=CriticalRule(2, 6),
    dark=Dark("Dark", 3, None, "light"),
)
COC = AgainstConfig(
    critical_success=(CritRule(1, 1),),
    critical_failure=(CritRule(100, 100), CritRule(96, None, target_below=50)),
    tens_max=2,
)
GURPS = AgainstConfig(
    count=3,
    sides=6,
    critical_success=(CritRule(3, 4), CritRule(5, 5, target_at_least=15)),
    critical_failure=(CritRule(18, None), CritRule(past_target=10)),
)

Throw = Callable[[Any, SeededDice], Any]
Odds = Callable[[Any], Any]

CONFIGS: list[tuple[str, Any, Throw, Odds, Callable[[Any], Key]]] = [
    (
        "blades 3 dice, two sixes critical",
        HighestCheck(BLADES, 3, 4),
        dice_highest.roll,
        dice_highest.distribution,
        _highest_key,
    ),
    (
        "blades zero dice, lowest of two",
        HighestCheck(BLADES, 0, 4),
        dice_highest.roll,
        dice_highest.distribution,
        _highest_key,
    ),
    (
        "trophy fight, keep 2 of 5",
        HighestCheck(HighestConfig(sides=6, keep=2), 5, 9),
        dice_highest.roll,
        dice_highest.distribution,
        _highest_key,
    ),
    (
        "trophy dark all, 2 light and 2 dark",
        HighestCheck(TROPHY_ALL, 2, 4, dark=2),
        dice_highest.roll,
        dice_highest.distribution,
        _highest_key,
    ),
    (
        "trophy dark light, 3 light and 3 dark",
        HighestCheck(TROPHY_LIGHT, 3, 6, dark=3),
        dice_highest.roll,
        dice_highest.distribution,
        _highest_key,
    ),
    (
        "trophy dark light, no light dice and 2 dark",
        HighestCheck(TROPHY_LIGHT, 0, 4, dark=2),
        dice_highest.roll,
        dice_highest.distribution,
        _highest_key,
    ),
    (
        "coc skill 55",
        AgainstCheck(COC, 55),
        roll_against.roll,
        roll_against.distribution,
        _against_key,
    ),
    (
        "coc skill 40, two bonus dice",
        AgainstCheck(COC, 40, 2),
        roll_against.roll,
        roll_against.distribution,
        _against_key,
    ),
    (
        "coc skill 35, one penalty die",
        AgainstCheck(COC, 35, -1),
        roll_against.roll,
        roll_against.distribution,
        _against_key,
    ),
    (
        "gurps 3d6 against 15",
        AgainstCheck(GURPS, 15),
        roll_against.roll,
        roll_against.distribution,
        _against_key,
    ),
    (
        "d100 at least, two bonus dice",
        AgainstCheck(AgainstConfig(against="at-least", tens_max=2), 60, 2),
        roll_against.roll,
        roll_against.distribution,
        _against_key,
    ),
]


def _p_value(observed: Counter[Key], odds: dict[Key, Fraction]) -> tuple[float, int]:
    """The dice-sum module's chi-square, whose keys are typed for its own outcomes."""
    return chi_square_p(cast(Any, observed), cast(Any, odds), THROWS)


def _observed(check: Any, throw: Throw, key: Callable[[Any], Key], seed: str) -> Counter[Key]:
    dice = SeededDice(seed)
    return Counter(key(throw(check, dice).outcome) for _ in range(THROWS))


def _odds(check: Any, odds: Odds, key: Callable[[Any], Key]) -> dict[Key, Fraction]:
    out: dict[Key, Fraction] = {}
    for o, p in odds(check).probabilities().items():
        out[key(o)] = out.get(key(o), Fraction(0)) + p
    return out


@pytest.mark.parametrize(
    ("seed", "check", "throw", "odds", "key"),
    [(i, *c[1:]) for i, c in enumerate(CONFIGS)],
    ids=[c[0] for c in CONFIGS],
)
def test_seeded_checks_fit_the_exact_odds(
    seed: int, check: Any, throw: Throw, odds: Odds, key: Callable[[Any], Key]
) -> None:
    observed = _observed(check, throw, key, f"highest-against-stats-{seed}")
    p_value, freedom = _p_value(observed, _odds(check, odds, key))
    assert p_value >= ALPHA, f"p = {p_value:.3g} with {freedom} degrees of freedom"


def test_the_test_can_fail() -> None:
    # Bonus dice thrown, measured against the odds of a plain roll, must be caught.
    observed = _observed(AgainstCheck(COC, 50, 2), roll_against.roll, _against_key, "power")
    plain = _odds(AgainstCheck(COC, 50), roll_against.distribution, _against_key)
    p_value, _ = _p_value(observed, plain)
    assert p_value < ALPHA
    # Three dice measured against the odds of two must be caught too.
    observed = _observed(HighestCheck(BLADES, 3, 4), dice_highest.roll, _highest_key, "power-3")
    two = _odds(HighestCheck(BLADES, 2, 4), dice_highest.distribution, _highest_key)
    p_value, _ = _p_value(observed, two)
    assert p_value < ALPHA
