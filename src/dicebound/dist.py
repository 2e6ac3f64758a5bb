"""Exact discrete distributions: integer weights inside, ``Fraction`` out (icepool's habit).

A ``Dist`` maps each outcome to a positive integer weight; the probability of an
outcome is its weight over the total. Weights are kept divided by their greatest common
divisor so the numbers stay small. Every operation returns a new ``Dist``.

Odds are computed, never sampled, so the hot paths (adding dice up, mixing the branches
of a chain) work on plain dicts of ints. Adding two large integer distributions packs
each one into a single big integer and multiplies them (Kronecker substitution), which
hands the convolution to CPython's big-integer multiplication.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import suppress
from fractions import Fraction
from functools import partial
from types import MappingProxyType
from typing import Any, Generic, TypeVar, cast

from dicebound.errors import LimitExceeded, UsageError

__all__ = ["MAX_OUTCOMES", "Dist", "blank_fraction", "ratio", "ratios"]

T = TypeVar("T", bound=Hashable)
U = TypeVar("U", bound=Hashable)

MAX_OUTCOMES = 1_000_000
"""The most distinct outcomes one distribution may hold; past it ``LimitExceeded``."""

_DIRECT_WORK = 2048  # below this many weight products a plain double loop is quicker


_NOUGHT = Fraction(0)
_ONE = Fraction(1)


def _blank_maker() -> Callable[[], Any] | None:
    """``blank_fraction``: where this Python's ``Fraction`` keeps its numerator and
    denominator in two slots (checked here once), a ``Fraction`` made without its
    constructor, whose slots its caller sets (what Python 3.12's
    ``Fraction._from_coprime_ints`` does); else None."""
    blank: Callable[[], Any] = partial(object.__new__, Fraction)  # quicker than a call
    try:
        made = blank()
        made._numerator, made._denominator = 2, 3
        same = made == Fraction(2, 3) and hash(made) == hash(Fraction(2, 3)) and str(made) == "2/3"
        same = same and not hasattr(made, "__dict__")  # the slots, not attributes of its own
    except (AttributeError, TypeError):  # pragma: no cover - another Python's Fraction
        same = False
    return blank if same else None


blank_fraction = _blank_maker()
"""A ``Fraction`` whose numerator and denominator slots its caller sets, reduced and the
denominator above 0 (``ratio``'s way, for a caller that makes several in one loop);
None on a Python whose ``Fraction`` keeps them otherwise."""

_NOUGHT = Fraction(0)
_ONE = Fraction(1)


def ratio(numerator: int, denominator: int) -> Fraction:
    """``Fraction(numerator, denominator)`` of whole numbers, the denominator above 0:
    the same value, made in a third of the time (the odds make one per band); nought
    and one are the same two values every time (a band a check never or always lands
    in)."""
    if numerator == 0:
        return _NOUGHT
    if numerator == denominator:
        return _ONE
    blank = blank_fraction
    if blank is None:  # pragma: no cover - another Python's Fraction
        return Fraction(numerator, denominator)
    g = math.gcd(numerator, denominator)
    made = blank()
    made._numerator, made._denominator = numerator // g, denominator // g
    reduced: Fraction = made
    return reduced


def ratios(numerators: Iterable[int], denominator: int) -> list[Fraction]:
    """``ratio`` of each numerator over one denominator (above 0), in one call: every
    outcome of a check's odds over its distribution's total."""
    return [ratio(numerator, denominator) for numerator in numerators]


def _reduce(weights: dict[Any, int]) -> tuple[dict[Any, int], int]:
    """Divide the weights by their gcd; give them back with their total."""
    g = math.gcd(*weights.values())
    if g > 1:
        weights = {k: w // g for k, w in weights.items()}
    return weights, sum(weights.values())


class Dist(Generic[T]):
    """An exact distribution over hashable outcomes. Immutable.

    Invariants: at least one outcome; every weight is a positive int; the weights have
    no common divisor above 1; ``total`` is their sum.
    """

    __slots__ = ("_total", "_w")

    _w: dict[T, int]
    _total: int

    def __init__(self, weights: Mapping[T, int] | Iterable[tuple[T, int]]) -> None:
        """Build from outcome weights; weights of a repeated outcome add up; zeros drop."""
        merged: dict[T, int] = {}
        pairs = weights.items() if isinstance(weights, Mapping) else weights
        for outcome, weight in pairs:
            if isinstance(weight, bool) or not isinstance(weight, int) or weight < 0:
                raise UsageError(f"a weight must be a whole number 0 or more, not {weight!r}")
            if weight:
                merged[outcome] = merged.get(outcome, 0) + weight
        if not merged:
            raise UsageError("a distribution needs at least one outcome with a weight above 0")
        self._set(*_reduce(merged))

    def _set(self, weights: dict[T, int], total: int) -> None:
        if len(weights) > MAX_OUTCOMES:
            raise LimitExceeded(
                f"a distribution of {len(weights)} outcomes is past the cap of {MAX_OUTCOMES}"
            )
        object.__setattr__(self, "_w", weights)
        object.__setattr__(self, "_total", total)

    @classmethod
    def from_positive(cls, weights: dict[U, int], total: int | None = None) -> Dist[U]:
        """Take over a dict of weights already known to be positive ints (not copied, not
        checked): the quick way in for code that built the weights itself.

        Give ``total`` only when it is the weights' sum and their gcd is already 1.
        """
        if total is None:
            return cls._raw(weights)
        out: Dist[U] = object.__new__(Dist)
        out._set(weights, total)
        return out

    @classmethod
    def _raw(cls, weights: dict[U, int], reduce: bool = True) -> Dist[U]:
        """Wrap weights already known to be positive ints (no copy, no checks)."""
        out: Dist[U] = object.__new__(Dist)
        if reduce:
            out._set(*_reduce(weights))
        else:
            out._set(weights, sum(weights.values()))
        return out

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Dist is immutable")

    # -- building ---------------------------------------------------------------------

    @classmethod
    def uniform(cls, outcomes: Iterable[U]) -> Dist[U]:
        """Each listed outcome once, equally likely (a repeated outcome counts twice)."""
        weights: dict[U, int] = {}
        for x in outcomes:
            weights[x] = weights.get(x, 0) + 1
        if not weights:
            raise UsageError("a distribution needs at least one outcome")
        return cls._raw(weights)

    @classmethod
    def die(cls, sides: int) -> Dist[int]:
        """A fair die numbered 1..sides."""
        if sides < 1:
            raise UsageError(f"a die needs at least one face, not {sides}")
        return cls._raw(dict.fromkeys(range(1, sides + 1), 1), reduce=False)

    @classmethod
    def constant(cls, outcome: U) -> Dist[U]:
        """One outcome, certain."""
        return cls._raw({outcome: 1}, reduce=False)

    @classmethod
    def mix(cls, parts: Sequence[tuple[Dist[U], int]]) -> Dist[U]:
        """Choose part i with chance weight_i / sum of weights, then follow its distribution.

        This is how a chain is written: each branch (a face that stops, a face that rolls
        on) is a part, weighted by how many faces lead into it.
        """
        live = [(d, w) for d, w in parts if w > 0]
        if not live:
            raise UsageError("a mixture needs at least one part with a weight above 0")
        if len(live) == 1:
            return live[0][0]
        lcm = math.lcm(*(d._total for d, _ in live))
        out: dict[U, int] = {}
        get = out.get
        for d, w in live:
            scale = w * (lcm // d._total)
            for k, v in d._w.items():
                out[k] = get(k, 0) + v * scale
        return cls._raw(out)

    @classmethod
    def chain(cls, levels: Sequence[tuple[Sequence[int], Sequence[int]]]) -> Dist[int]:
        """The sum of a chain of dice, one die per level, each face equally likely.

        Level i is ``(stop, going)``: the values of the faces that end the chain there
        and of those that throw the next level's die and add it. The last level's
        ``going`` must be empty (a chain is capped). An open-ended die after its first
        throw, or an exploding die, is such a chain.

        Worked as polynomials packed into big integers, last level first, so a chain of
        twenty d100 costs a few big-integer products rather than a dict per level.
        """
        if not levels or levels[-1][1]:
            raise UsageError("a chain needs at least one level, and its last may not go on")
        sizes = [len(stop) + len(going) for stop, going in levels]
        if not all(sizes):
            raise UsageError("every level of a chain needs at least one face")
        width = (math.prod(sizes).bit_length() + 8) // 8 * 8  # bits per slot, whole bytes
        poly, low, weight = 0, 0, 1  # the chain from the level after this one
        for (stop, going), size in zip(reversed(levels), reversed(sizes), strict=True):
            lows = [min(stop)] if stop else []
            if going:
                lows.append(min(going) + low)
            new_low = min(lows)
            acc = 0
            if stop:
                acc = _poly(stop, new_low, width) * weight
            if len(going) <= 16:  # a few shifted copies beat one unbalanced product
                for v in going:
                    acc += poly << ((v - new_low + low) * width)
            else:
                acc += _poly(going, new_low - low, width) * poly
            poly, low, weight = acc, new_low, weight * size
        nbytes = width // 8
        raw = poly.to_bytes((poly.bit_length() + width - 1) // width * nbytes, "little")
        from_bytes = int.from_bytes
        out: dict[int, int] = {}
        for i in range(len(raw) // nbytes):
            w = from_bytes(raw[i * nbytes : (i + 1) * nbytes], "little")
            if w:
                out[low + i] = w
        return cls._raw(out)

    # -- reading ----------------------------------------------------------------------

    @property
    def total(self) -> int:
        """The sum of the weights (the denominator of every probability)."""
        return self._total

    @property
    def weights(self) -> Mapping[T, int]:
        """The weights, read-only."""
        return MappingProxyType(self._w)

    def outcomes(self) -> list[T]:
        """The outcomes, sorted when they can be."""
        keys = list(self._w)
        with suppress(TypeError):
            cast(list[Any], keys).sort()
        return keys

    def items(self) -> Iterator[tuple[T, int]]:
        return iter(self._w.items())

    def __len__(self) -> int:
        return len(self._w)

    def __iter__(self) -> Iterator[T]:
        return iter(self._w)

    def __contains__(self, outcome: object) -> bool:
        return outcome in self._w

    def weight(self, outcome: T) -> int:
        return self._w.get(outcome, 0)

    def probability(self, outcome: T) -> Fraction:
        """The exact chance of one outcome."""
        return Fraction(self._w.get(outcome, 0), self._total)

    def probability_where(self, test: Callable[[T], bool]) -> Fraction:
        """The exact chance that an outcome passes ``test``."""
        return Fraction(sum(w for k, w in self._w.items() if test(k)), self._total)

    def at_least(self, x: float) -> Fraction:
        """The exact chance that a numeric outcome is x or more (a dc reached)."""
        numeric = cast(dict[float, int], self._w)
        return Fraction(sum(w for k, w in numeric.items() if k >= x), self._total)

    def probabilities(self) -> dict[T, Fraction]:
        """Every outcome's exact chance, outcomes sorted when they can be."""
        t = self._total
        return {k: Fraction(self._w[k], t) for k in self.outcomes()}

    def mean(self) -> Fraction:
        """The expected value of a numeric distribution."""
        numeric = cast(dict[int, int], self._w)
        return Fraction(sum(k * w for k, w in numeric.items()), self._total)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dist) and self._w == other._w

    def __hash__(self) -> int:
        return hash(frozenset(self._w.items()))

    def __repr__(self) -> str:
        shown = ", ".join(f"{k!r}: {w}" for k, w in list(self.items())[:8])
        more = ", ..." if len(self._w) > 8 else ""
        return f"Dist({{{shown}{more}}} / {self._total})"

    # -- transforming -----------------------------------------------------------------

    def map(self, fn: Callable[[T], U]) -> Dist[U]:
        """Apply ``fn`` to every outcome; outcomes that meet add their weights."""
        out: dict[U, int] = {}
        get = out.get
        for k, w in self._w.items():
            y = fn(k)
            out[y] = get(y, 0) + w
        return Dist._raw(out)

    def bind(self, fn: Callable[[T], Dist[U]]) -> Dist[U]:
        """Replace every outcome by a distribution of its own, weighted by the outcome."""
        return Dist.mix([(fn(k), w) for k, w in self._w.items()])

    def combine(self, other: Dist[U], fn: Callable[[T, U], Any]) -> Dist[Any]:
        """The distribution of ``fn(a, b)`` for independent ``a`` of self and ``b`` of other."""
        out: dict[Any, int] = {}
        get = out.get
        items = list(other._w.items())
        for a, wa in self._w.items():
            for b, wb in items:
                y = fn(a, b)
                out[y] = get(y, 0) + wa * wb
        return Dist._raw(out)

    def __add__(self, other: Dist[int] | int) -> Dist[int]:
        """The sum of two independent integer distributions, or a shift by a number."""
        if isinstance(other, int):
            return Dist._raw({k + other: w for k, w in self._w.items()}, reduce=False)  # type: ignore[operator]
        return _convolve(self._w, other._w)  # type: ignore[arg-type]

    __radd__ = __add__

    def __neg__(self) -> Dist[int]:
        return Dist._raw({-k: w for k, w in self._w.items()}, reduce=False)  # type: ignore[operator]

    def __sub__(self, other: Dist[int] | int) -> Dist[int]:
        return self + (-other)

    def sum_of(self, count: int) -> Dist[int]:
        """The sum of ``count`` independent copies (by doubling, so few convolutions)."""
        if count < 1:
            raise UsageError(f"a sum needs at least one copy, not {count}")
        result: Dist[int] | None = None
        power: Dist[int] = self  # type: ignore[assignment]
        while True:
            if count & 1:
                result = power if result is None else result + power
            count >>= 1
            if not count:
                break
            power = power + power
        assert result is not None
        return result


def _convolve(a: dict[int, int], b: dict[int, int]) -> Dist[int]:
    """Add two independent integer distributions."""
    if len(a) < len(b):
        a, b = b, a
    lo_a, hi_a, lo_b, hi_b = min(a), max(a), min(b), max(b)
    span = hi_a - lo_a + hi_b - lo_b + 1
    small = len(a) * len(b) <= _DIRECT_WORK or len(b) == 1
    if small or span > 64 * (len(a) + len(b)):  # small, or too sparse to pack: loop
        out: dict[int, int] = {}
        get = out.get
        b_items = list(b.items())
        for x, wx in a.items():
            for y, wy in b_items:
                s = x + y
                out[s] = get(s, 0) + wx * wy
        return Dist._raw(out)
    # Kronecker substitution: one big integer per side, one slot per value.
    width = max(a.values()).bit_length() + max(b.values()).bit_length()
    width += min(len(a), len(b)).bit_length() + 1
    nbytes = (width + 7) // 8
    packed_a = _pack(a, lo_a, hi_a, nbytes)
    packed_b = _pack(b, lo_b, hi_b, nbytes)
    raw = (packed_a * packed_b).to_bytes(span * nbytes, "little")
    base = lo_a + lo_b
    from_bytes = int.from_bytes
    out = {}
    for i in range(span):
        w = from_bytes(raw[i * nbytes : (i + 1) * nbytes], "little")
        if w:
            out[base + i] = w
    return Dist._raw(out)


def _poly(values: Sequence[int], low: int, width: int) -> int:
    """Values (each once; repeats add) as a polynomial packed with ``width`` bits a slot,
    the value ``low`` at slot 0."""
    out = 0
    for v in values:
        out += 1 << ((v - low) * width)
    return out


def _pack(weights: dict[int, int], lo: int, hi: int, nbytes: int) -> int:
    zero = bytes(nbytes)
    get = weights.get
    chunks = [w.to_bytes(nbytes, "little") if (w := get(v)) else zero for v in range(lo, hi + 1)]
    return int.from_bytes(b"".join(chunks), "little")
