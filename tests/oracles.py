"""Brute-force references the fast odds are compared with, exactly (icepool's ``bf_*``).

Two kinds of oracle:

- ``enumerate_throws(run)`` runs a check's own roll function on every face sequence it
  can throw (a prefix tree: a sequence grows only when the roll asks for one more die)
  and weighs each by 1/sides per die. "The odds equal what ``check`` does" is then a
  plain equality.
- ``bf_dice_sum(...)`` is the dice-sum rules written out again from the page, with no
  code shared with ``dicebound``, so the roll function is checked against the rules too.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import TypeVar

R = TypeVar("R", bound=Hashable)


class _NeedMore(Exception):
    def __init__(self, sides: int) -> None:
        super().__init__(sides)
        self.sides = sides


class _PrefixDice:
    """A dice source that reads a fixed prefix and asks for more when it runs out."""

    def __init__(self, prefix: tuple[int, ...]) -> None:
        self.prefix = prefix
        self.sides: list[int] = []

    def throw(self, sides: int) -> int:
        if len(self.sides) == len(self.prefix):
            raise _NeedMore(sides)
        self.sides.append(sides)
        return self.prefix[len(self.sides) - 1]


def enumerate_throws(run: Callable[[_PrefixDice], R], limit: int = 200_000) -> dict[R, Fraction]:
    """Every face sequence ``run`` can throw, with its exact chance, grouped by result."""
    out: dict[R, Fraction] = defaultdict(Fraction)
    stack: list[tuple[int, ...]] = [()]
    seen = 0
    while stack:
        prefix = stack.pop()
        dice = _PrefixDice(prefix)
        try:
            result = run(dice)
        except _NeedMore as more:
            stack.extend((*prefix, face) for face in range(1, more.sides + 1))
            continue
        seen += 1
        if seen > limit:
            raise AssertionError(f"more than {limit} face sequences: make the case smaller")
        out[result] += Fraction(1, math.prod(dice.sides))
    return dict(out)


# -- dice-sum, written out from the page -------------------------------------------------


def _chain(values: Sequence[int], high: int | None, dice_left: int) -> list[tuple[Fraction, int]]:
    """A die thrown after the first: it rolls on while it shows high or more."""
    p = Fraction(1, len(values))
    out: list[tuple[Fraction, int]] = []
    for v in values:
        if high is not None and v >= high and dice_left > 1:
            out.extend((p * q, v + rest) for q, rest in _chain(values, high, dice_left - 1))
        else:
            out.append((p, v))
    return out


def _one_set(
    count: int,
    values: Sequence[int],
    high: int | None,
    low: int | None,
    cap: int,
) -> list[tuple[Fraction, int, int]]:
    """(chance, total, first face number) of one thrown set."""
    sides = len(values)
    out: list[tuple[Fraction, int, int]] = []
    if high is None and low is None:
        p = Fraction(1, sides**count)
        for faces in itertools.product(range(1, sides + 1), repeat=count):
            out.append((p, sum(values[f - 1] for f in faces), faces[0]))
        return out
    assert count == 1
    p = Fraction(1, sides)
    for face in range(1, sides + 1):
        v = values[face - 1]
        if low is not None and v <= low and cap > 1:
            # Rolemaster's low end: the first face stays, the chain is taken away from it.
            out.extend((p * q, v - rest, face) for q, rest in _chain(values, high, cap - 1))
        elif high is not None and v >= high and cap > 1:
            out.extend((p * q, v + rest, face) for q, rest in _chain(values, high, cap - 1))
        else:
            out.append((p, v, face))
    return out


def bf_dice_sum(
    *,
    count: int = 1,
    sides: int = 20,
    faces: Sequence[int] | None = None,
    high: int | None = None,
    low: int | None = None,
    unmodified: Sequence[int] = (),
    cap: int = 20,
    mode: str = "normal",
    modifier: int = 0,
    dc: int = 10,
    naturals: str = "none",
) -> dict[tuple[int, bool, bool, bool, int | None], Fraction]:
    """(total, success, critical success, critical failure, unmodified face) -> chance."""
    values = list(faces) if faces is not None else list(range(1, sides + 1))
    one = _one_set(count, values, high, low, cap)
    if mode == "normal":
        kept = one
    else:
        kept = []
        for (pa, ta, fa), (pb, tb, fb) in itertools.product(one, one):
            better_first = ta >= tb if mode == "advantage" else ta <= tb
            kept.append((pa * pb, ta, fa) if better_first else (pa * pb, tb, fb))
    out: dict[tuple[int, bool, bool, bool, int | None], Fraction] = defaultdict(Fraction)
    for p, used, first in kept:
        total = used + modifier
        value = values[first - 1]
        mark = value if count == 1 and value in unmodified else None
        top = count == 1 and first == sides
        bottom = count == 1 and first == 1
        if top and naturals in ("both", "max-only"):
            key = (total, True, True, False, mark)
        elif bottom and naturals in ("both", "min-only"):
            key = (total, False, False, True, mark)
        else:
            key = (total, total >= dc, False, False, mark)
        out[key] += p
    return dict(out)
