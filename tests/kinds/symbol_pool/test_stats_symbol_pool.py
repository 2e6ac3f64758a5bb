"""Seeded symbol-pool checks converge to the exact odds: a chi-square test per
configuration, over net successes, success and both critical markers.

Each configuration throws 4,000 checks from one fixed seed, so the test is deterministic;
it fails only when the statistic's p-value is below 1e-6, far past what chance gives.
The chi-square helper is the dice-sum statistics module's.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any, cast

import pytest
from test_kind_symbol_pool import CONFIG, GENESYS, KELL

from dicebound.dice import SeededDice
from dicebound.engine import prepare_check
from dicebound.kinds.symbol_pool import SymbolCheck, SymbolOutcome, distribution, roll
from dicebound.tags.parse import parse_tags
from stats import ALPHA, THROWS, chi_square_p

pytestmark = pytest.mark.stats

Key = tuple[int, bool, bool, bool]


def _key(o: SymbolOutcome) -> Key:
    return (o.total, o.success, o.marked_success, o.marked_failure)


def _check(thrown: str, needed: int = 1) -> SymbolCheck:
    return SymbolCheck(CONFIG, tuple(thrown.split()), needed)


CONFIGS: list[tuple[str, SymbolCheck]] = [
    (
        "2 ability 1 proficiency vs 2 difficulty",
        _check("ability ability proficiency difficulty difficulty"),
    ),
    ("3 proficiency vs 3 challenge", _check("proficiency " * 3 + "challenge " * 3)),
    ("boost and setback only", _check("boost boost setback setback setback")),
    (
        "the largest check: 6 pool, 3 boost, 5 difficulty, 3 setback",
        _check(
            "ability ability proficiency proficiency proficiency proficiency boost boost boost "
            "difficulty difficulty challenge challenge challenge setback setback setback"
        ),
    ),
    ("needing 3 successes", _check("ability proficiency proficiency boost difficulty", 3)),
]


def _fit(check: SymbolCheck, seed: str) -> float:
    dice = SeededDice(seed)
    observed: Counter[Key] = Counter(_key(roll(check, dice).outcome) for _ in range(THROWS))
    odds: dict[Key, Fraction] = {}
    for o, p in distribution(check).probabilities().items():
        odds[_key(o)] = odds.get(_key(o), Fraction(0)) + p
    p_value, _ = chi_square_p(cast(Any, observed), cast(Any, odds), THROWS)
    return p_value


@pytest.mark.parametrize(
    ("seed", "check"), [(i, c[1]) for i, c in enumerate(CONFIGS)], ids=[c[0] for c in CONFIGS]
)
def test_seeded_checks_fit_the_exact_odds(seed: int, check: SymbolCheck) -> None:
    p_value = _fit(check, f"symbol-pool-stats-{seed}")
    assert p_value >= ALPHA, f"p = {p_value:.3g}"


def test_a_whole_check_fits_its_odds() -> None:
    """The check the engine prepares from a tag, thrown from seeds as the engine does."""
    (match,) = parse_tags('[skill_check: skill="Stealth" dc="3" upgrade="1" bonus="1" setback="1"]')
    prepared = prepare_check(GENESYS, [KELL], match)
    check = prepared.prepared.check
    assert isinstance(check, SymbolCheck) and len(check.thrown) == 8
    assert _fit(check, "symbol-pool-stats-engine") >= ALPHA


def test_the_test_can_fail() -> None:
    """Throws of one pool measured against the odds of a slightly different pool are caught."""
    thrown = _check("ability ability proficiency difficulty difficulty")
    other = _check("ability proficiency proficiency difficulty difficulty")
    dice = SeededDice("symbol-pool-stats-power")
    observed: Counter[Key] = Counter(_key(roll(thrown, dice).outcome) for _ in range(THROWS))
    odds: dict[Key, Fraction] = {}
    for o, p in distribution(other).probabilities().items():
        odds[_key(o)] = odds.get(_key(o), Fraction(0)) + p
    p_value, _ = chi_square_p(cast(Any, observed), cast(Any, odds), THROWS)
    assert p_value < ALPHA
