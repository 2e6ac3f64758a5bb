"""The chi-square test every kind's statistics tests share: seeded checks against the
exact odds, sparse tails bucketed, the p-value from the regularized gamma function
(no SciPy needed)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable
from fractions import Fraction
from typing import TypeVar

Key = TypeVar("Key", bound=Hashable)

THROWS = 4000
ALPHA = 1e-6
MIN_EXPECTED = 5.0


def upper_gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma Q(a, x) (series or continued fraction)."""
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return 1.0 - total * math.exp(log_front)
    # Lentz's continued fraction.
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return math.exp(log_front) * h


def chi_square_p(observed: Counter[Key], odds: dict[Key, Fraction], n: int) -> tuple[float, int]:
    """The p-value of the observed counts against exact odds, sparse tails bucketed.

    Outcomes are taken in order and gathered into buckets until each expects at least
    five; a short last bucket joins the one before it.
    """
    assert set(observed) <= set(odds), "a thrown result the odds say cannot happen"
    buckets: list[tuple[float, int]] = []
    expected, seen = 0.0, 0
    for key in sorted(odds):
        expected += float(odds[key]) * n
        seen += observed.get(key, 0)
        if expected >= MIN_EXPECTED:
            buckets.append((expected, seen))
            expected, seen = 0.0, 0
    if expected or seen:
        last_e, last_o = buckets.pop()
        buckets.append((last_e + expected, last_o + seen))
    statistic = sum((o - e) ** 2 / e for e, o in buckets)
    freedom = len(buckets) - 1
    assert freedom >= 1, "too few buckets to test"
    return upper_gamma_q(freedom / 2, statistic / 2), freedom
