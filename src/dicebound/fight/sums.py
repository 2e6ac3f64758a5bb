"""Exact distributions of dice sums as whole counts of equally likely face sequences,
shared by the forecast and the odds so both weigh a throw alike.

A distribution is ``Ways``: how many face sequences give each value, and how many there
are in all. Whole numbers keep the arithmetic exact and quick; a chance becomes a
``Fraction`` only when it is written. The sums a fight asks for repeat (the same weapon
against every target, every option of a menu), so they are remembered by their dice.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

__all__ = ["Ways", "add", "add_chances", "dice_sum", "kept_sum", "partial_sums", "point", "shift"]


class Ways(NamedTuple):
    """``counts[value]`` face sequences of ``total`` give ``value``."""

    counts: Mapping[int, int]
    total: int


def point(value: int) -> Ways:
    """A sure value."""
    return Ways({value: 1}, 1)


def shift(ways: Ways, by: int) -> Ways:
    """Every value moved by ``by``."""
    return Ways({v + by: n for v, n in ways.counts.items()}, ways.total)


def add(a: Ways, b: Ways) -> Ways:
    """The sum of two independent values."""
    out: dict[int, int] = {}
    for x, n in a.counts.items():
        for y, m in b.counts.items():
            out[x + y] = out.get(x + y, 0) + n * m
    return Ways(out, a.total * b.total)


def partial_sums(count: int, sides: int) -> int:
    """How many values the running sums of ``count`` dice pass through while they are
    counted (one die at a time): the work ``dice_sum`` does, known before it is done."""
    return sum(k * (sides - 1) + 1 for k in range(1, count + 1))


@lru_cache(maxsize=512)
def _sum_counts(count: int, sides: int) -> tuple[int, ...]:
    """Counts of the sums ``count .. count * sides``, one die added at a time through a
    running window (each new count is the sum of ``sides`` earlier ones)."""
    counts: list[int] = [1]
    for _ in range(count):
        grown: list[int] = []
        window = 0
        for j in range(len(counts) + sides - 1):
            if j < len(counts):
                window += counts[j]
            if j >= sides:
                window -= counts[j - sides]
            grown.append(window)
        counts = grown
    return tuple(counts)


def dice_sum(count: int, sides: int) -> Ways:
    """The sum of ``count`` dice of ``sides`` faces (0 dice: a sure 0)."""
    if count <= 0 or sides <= 0:
        return point(0)
    counts = _sum_counts(count, sides)
    return Ways({count + i: n for i, n in enumerate(counts)}, sides**count)


@lru_cache(maxsize=512)
def _kept(count: int, sides: int, mode: str) -> Ways:
    one = dice_sum(count, sides)
    if mode == "normal":
        return one
    values = sorted(one.counts)
    if mode == "disadvantage":
        values.reverse()
    # Advantage keeps the higher sum: P(kept <= v) = P(one <= v)^2 (disadvantage, >=).
    kept: dict[int, int] = {}
    below = 0
    for v in values:
        reached = below + one.counts[v]
        kept[v] = reached * reached - below * below
        below = reached
    return Ways(dict(sorted(kept.items())), one.total * one.total)


def kept_sum(count: int, sides: int, mode: str) -> Ways:
    """The kept sum of an attack roll: one throw, or the better (``advantage``) or worse
    (``disadvantage``) of two by their sums."""
    return _kept(count, sides, mode)


def add_chances(a: Mapping[int, Fraction], b: Mapping[int, Fraction]) -> dict[int, Fraction]:
    """The chances of the sum of two independent amounts, each given by its chances."""
    out: dict[int, Fraction] = {}
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] = out.get(x + y, Fraction(0)) + p * q
    return out
