"""The exact odds of a roll-against check."""

from __future__ import annotations

from dicebound.dist import Dist
from dicebound.kinds.roll_against.model import (
    AgainstCheck,
    AgainstOutcome,
    keeps_lowest,
    outcome_of,
    percentile_of,
)


def roll_distribution(check: AgainstCheck) -> Dist[int]:
    """The exact distribution of the roll a check keeps, before it is read."""
    config = check.config
    if not check.tens:
        return Dist.die(config.sides).sum_of(config.count)
    # Each of the n tens digits is uniform over 0..9 and the ones die is shared: for one
    # ones digit, the kept roll is the i-th lowest of ten values with weight
    # (10-i)^n - (9-i)^n (keeping the lowest) or (i+1)^n - i^n (keeping the highest).
    n = abs(check.tens) + 1
    lowest = keeps_lowest(check.tens, config.against)
    weights: dict[int, int] = {}
    for ones in range(10):
        values = sorted(percentile_of(d, ones) for d in range(10))
        for i, value in enumerate(values):
            w = (10 - i) ** n - (9 - i) ** n if lowest else (i + 1) ** n - i**n
            weights[value] = weights.get(value, 0) + w
    return Dist(weights)


def distribution(check: AgainstCheck) -> Dist[AgainstOutcome]:
    """The exact distribution of what ``roll`` gives for this check."""
    return roll_distribution(check).map(lambda r: outcome_of(check, r))
