"""The exact odds of an exploding pool, re-throw or not, by counting sequences.

``dice_pool.distribution`` walks a state machine die by die; with explosions beside a
re-throw its states multiply (dice left, added dice owed, room under the explosion
cap, re-throws thrown) and a 100-die pool is past any bound. This module counts the
same throws another way, fast enough for 100 dice with 100 added and 100 re-throws.

**One sequence.** Take the dice in the order the re-throw pass visits them: the pool's,
then the added ones in the order they were thrown. Each is one *letter*: its first face
and, when that is a re-throw face and the re-throw cap still allows, its throws again.
Every die that stands on an exploding face owes exactly one added die, so the throw
ends at the N-th die that does not stand on one (N the pool's size), or when the
explosion cap is full: the sequence is ``N + E`` letters long at most. The re-throw cap
is spent in that order, so once it is spent every later die whose first face is a
re-throw face stands on it. (``dice_pool.roll`` is the authority: the tests hold every
small pool to brute force and to the state machine, and the roller to these odds.)

**Letters** (``s`` the die's sides, ``λ`` its re-throw faces; ``m``, ``x``, ``l`` the
count polynomials of the middle, exploding and re-throw faces): a die not thrown again
is ``m`` or ``x``; one thrown again weighs λ for each re-throw face it showed and then
its last face; one past the cap stands as ``l``. Which faces stand decides the counts,
and a standing face is uniform in its class, so the whole throw is a sum of
``m^i x^j l^k`` over how many dice stand in each class, each weighed by the ways its
letters can be ordered: binomial counts, the re-throw cap read off a truncated binomial
sum (``Pd``) or, once it is spent, shared out by Vandermonde's identity (``At``, ``Bt``,
and ``C(r + t - 2, ·)`` for "until"). The sums are then formed as packed polynomials
(one big integer, a slot per net success) by Horner's rule, each step a product by a
class's few faces.

No face may both explode and be thrown again, and there are no exact dice or
``halfOrMore`` botch (the pool's own dice told apart, or a second count): ``applies``
says when; the state machine answers the rest.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from math import comb
from typing import NamedTuple

from dicebound.errors import UsageError
from dicebound.kinds.dice_pool.model import PoolCheck, PoolOutcome, face_effect, pool_outcome
from dicebound.kinds.dice_pool.packed import Packed, packed_slots, packed_sum

_Kernel = tuple[tuple[int, int], ...]
"""A class of faces: (slot shift, faces giving it) pairs, lowest shift first."""


class _Classes(NamedTuple):
    """The three classes of faces as one run of the count reads them."""

    middle: _Kernel
    exploding: _Kernel
    low: _Kernel


def applies(check: PoolCheck) -> bool:
    """Whether ``weights`` answers this check: explosions (with or without a re-throw), no
    face both exploding and thrown again, and neither exact dice nor a ``halfOrMore``
    botch."""
    if check.explode_from is None:
        return False
    if check.exact is not None or check.dice == 0:
        return False
    if check.botch_up_to is not None and check.botch_rule == "halfOrMore":
        return False
    return not any(
        effect.explodes and effect.rethrow
        for effect in map(partial(face_effect, check), range(1, check.sides + 1))
    )


def weights(check: PoolCheck) -> dict[PoolOutcome, int]:
    """The weight of each outcome, over ``sides ** (dice + explosion cap + re-throw cap)``
    (a "once" cap held to the dice and explosion cap; none without a re-throw)."""
    if not applies(check):
        raise UsageError(f"{check.dice_text}: not a pool these sequences count")
    effects = [face_effect(check, face) for face in range(1, check.sides + 1)]
    low_faces = sum(1 for e in effects if e.rethrow)
    if check.reroll is None:  # nothing thrown again: "until" with a cap of none
        tables = _Tables.until(check.dice, check.max_extra, 0, check.sides, 0)
    else:
        count = _Tables.once if check.reroll.mode == "once" else _Tables.until
        tables = count(check.dice, check.max_extra, check.max_rethrows, check.sides, low_faces)
    total = check.sides**tables.throws
    width = (total.bit_length() + 8) // 8 * 8

    def classes(keep: Iterable[bool], *, counted: bool) -> _Classes:
        found: dict[str, dict[int, int]] = {"middle": {}, "exploding": {}, "low": {}}
        for effect, kept in zip(effects, keep, strict=True):
            if not kept:
                continue
            name = "exploding" if effect.explodes else "low" if effect.rethrow else "middle"
            shift = effect.successes - effect.cancels if counted else 0
            found[name][shift] = found[name].get(shift, 0) + 1
        return _Classes(*(tuple(sorted(found[n].items())) for n in ("middle", "exploding", "low")))

    everything = tables.assemble(classes([True] * len(effects), counted=True), width)
    out: dict[PoolOutcome, int] = {}
    floor = 0  # the weight of every throw whose counted successes are 0 or fewer
    for net, weight in packed_slots(everything, width):
        if net > 0:
            _add(out, pool_outcome(check, net, True, False, 0, 0), weight)
        else:
            floor += weight
    if check.botch_up_to is not None:  # noSuccesses: a botch face, and no die succeeded
        unsucceeded = [not e.successes for e in effects]
        calm = [not e.successes and not e.low for e in effects]
        botched = _mass(tables.assemble(classes(unsucceeded, counted=False), width))
        botched -= _mass(tables.assemble(classes(calm, counted=False), width))
        if botched:
            _add(out, pool_outcome(check, 0, False, True, 0, 0), botched)
        floor -= botched
    if floor:
        _add(out, pool_outcome(check, 0, True, False, 0, 0), floor)
    if sum(out.values()) != total:  # cannot happen: every throw is counted once
        raise AssertionError(f"{check.dice_text}: the sequences do not add up")
    return out


def _add(into: dict[PoolOutcome, int], outcome: PoolOutcome, weight: int) -> None:
    into[outcome] = into.get(outcome, 0) + weight


class _Tables(NamedTuple):
    """The scalar counts of one check's sequences, shared by every run of the count:
    how many ways, weighed, each number of dice can come to stand in each class.

    ``ends[k][j]``: the throws that end at the pool's N-th die off an exploding face,
    with j dice on exploding faces and k on re-throw faces (N - k on middle ones).
    ``fills[k] · C(longest - k, i)``: the throws that fill the explosion cap with fewer
    than N dice off exploding faces, k on re-throw faces, i on middle ones (the rest
    exploding). All over ``s ** throws``.
    """

    n: int
    longest: int
    throws: int
    ends: list[list[int]]
    fills: list[int]

    @staticmethod
    def once(n: int, e: int, r: int, s: int, lam: int) -> _Tables:
        """A "once" re-throw: every throw is over ``s ** (longest + r)``, a short one
        times s for each letter and each re-throw it did not use. No more dice than
        letters can be thrown again, so a cap past ``longest`` is held to it (the same
        odds, narrower slots)."""
        longest = n + e
        r = min(r, longest)
        s_to, lam_to = _powers(s, longest + r), _powers(lam, max(r, n))
        # Pd(q, u): the ways q letters can each be thrown again or not, at most u of them
        # thrown again, weighed λ a re-throw and s each of the u not used:
        # Σ_{v≤u} C(q, v) λ^v s^(u-v).
        pd = [s_to[: r + 1]]
        for _ in range(longest):
            last = pd[-1]
            pd.append([last[0]] + [last[u] + lam * last[u - 1] for u in range(1, r + 1)])
        # At(M, k) = Σ_{c<k} C(r, c) C(M, r+k-c); Bt(M, k) = Σ_{c<k} C(r, c) C(M, r+k-c-1):
        # past the re-throw cap, the c of k dice standing on re-throw faces that were
        # thrown again and the k - c that were not, among M places.
        choose_r = [comb(r, c) for c in range(n + 1)]
        at = [[0] * (n + 1)]
        bt = [[0] + [choose_r[k - 1] * (1 if r == 0 else 0) for k in range(1, n + 1)]]
        for places in range(1, longest + 1):
            a = [0] + [at[-1][k] + bt[-1][k] for k in range(1, n + 1)]
            r_among = comb(places, r)
            b = [0] + [a[k - 1] + choose_r[k - 1] * r_among for k in range(1, n + 1)]
            at.append(a)
            bt.append(b)
        ends = []
        for k in range(n + 1):
            row = []
            for j in range(e + 1):
                weight = 0
                if k <= r:  # within the re-throw cap: C(N+j-1, j) orders, Pd the re-throws
                    weight = comb(n + j - 1, j) * comb(n, k) * lam_to[k] * pd[n - k + j][r - k]
                if k and n + j > r:  # past it: r thrown again, the other low dice stand
                    ways = bt[n + j - 1][k] * comb(n - k + j, j)
                    if k < n:
                        ways += at[n + j - 1][k] * comb(n - k - 1 + j, j)
                    weight += lam_to[r] * ways
                row.append(weight * s_to[e - j])
            ends.append(row)
        fills = []
        for k in range(n):
            factor = comb(longest, k) * lam_to[k] * pd[longest - k][r - k] if k <= r else 0
            if k and longest > r:
                factor += lam_to[r] * at[longest][k]
            fills.append(factor)
        return _Tables(n, longest, longest + r, ends, fills)

    @staticmethod
    def until(n: int, e: int, r: int, s: int, lam: int) -> _Tables:
        """An "until" re-throw: a die thrown again g times until it leaves the re-throw
        faces weighs λ^g times its last face, and the cap is on all the throws again
        (G of them): every throw is over ``s ** (longest + r)``, a short one times s for
        each letter and each re-throw it did not use.

        Before the cap is reached every die thrown again ends on a middle or exploding
        face, as a die not thrown again does, so only how many were thrown again counts
        (``spare[t]``: t letters, any of them thrown again, G ≤ r - 1). Once the r-th
        re-throw is thrown, by the z-th die thrown again (it may stand on a re-throw
        face, cut off), every later die whose first face is a re-throw face stands on it;
        the ways to share r re-throws among z dice, C(r-1, z-1), meet the places of the
        z + d low dice by Vandermonde's identity: C(r + t - 2, ·).
        """
        longest = n + e
        s_to, lam_to = _powers(s, longest + r), _powers(lam, r)
        if r == 0:  # nothing is thrown again: every die stands on its first face
            ends = [
                [_choose(n + j - 1, j) * comb(n, k) * s_to[e - j] for j in range(e + 1)]
                for k in range(n + 1)
            ]
            fills = [comb(longest, k) for k in range(n)]
            return _Tables(n, longest, longest, ends, fills)
        # spare_by[z]: z dice thrown again, G ≤ r - 1 throws again shared among them
        spare_by = [s_to[r]] + [
            sum(comb(g - 1, z - 1) * lam_to[g] * s_to[r - g] for g in range(z, r))
            for z in range(1, r)
        ]
        spare = [
            sum(comb(t, z) * w for z, w in enumerate(spare_by[: t + 1])) for t in range(longest + 1)
        ]
        ends = []
        for k in range(n + 1):
            row = []
            i = n - k
            for j in range(e + 1):
                t, q = n + j, n - k + j
                cut = 0
                for d in (k, k - 1):  # the r-th re-throw ends on another face, or is cut
                    if d >= 1:  # the last die a low one past the cap
                        cut += _choose(r + t - 2, t - 1 - d) * comb(q, j)
                    if d >= 0 and i >= 1:  # the last die a middle one not thrown again
                        cut += _choose(r + t - 2, t - 2 - d) * comb(q - 1, j)
                if k == 1:  # the last die the one the cap cut off
                    cut += _choose(r + t - 2, t - 1) * comb(q, j)
                if k == 0 and i >= 1:  # the last die the one the cap stopped, on a middle face
                    cut += _choose(r + t - 2, t - 1) * comb(q - 1, j)
                weight = lam_to[r] * cut
                if k == 0:
                    weight += comb(n + j - 1, j) * spare[t]
                row.append(weight * s_to[e - j])
            ends.append(row)
        fills = []
        for k in range(n):
            factor = spare[longest] if k == 0 else 0
            for d in (k, k - 1):
                if d >= 0:
                    factor += lam_to[r] * _choose(r - 1 + longest, longest - 1 - d)
            fills.append(factor)
        return _Tables(n, longest, longest + r, ends, fills)

    def assemble(self, classes: _Classes, width: int) -> Packed:
        """Σ weight · m^i x^j l^k over every way the throw can end, as a packed polynomial
        (Horner's rule: each step one product by a class's faces)."""
        n, e = self.n, self.longest - self.n
        middle, exploding, low = classes
        # the throws that end: Σ_k m^(N-k) l^k C_k, C_k = Σ_j ends[k][j] x^j
        parts = [_powers_of(row, exploding, width) for row in self.ends]
        ended = _halves(parts, 0, n, middle, low, width)
        # the throws that fill the cap: Σ_k l^k fills[k] Σ_{i<N-k} C(T-k, i) m^i x^(T-k-i).
        # Split each word at its (E+1)-th exploding die, a middle ones before it: the inner
        # sum is x^(E+1) H(N-1-k), H(d) = Σ_{a≤d} C(a+E, E) m^a (m+x)^(d-a).
        either = _merged(middle, exploding)
        first: list[Packed] = [(0, 1)]
        middles: Packed = (0, 1)
        for d in range(1, n):
            middles = _times(middles, middle, width)
            first.append(
                packed_sum(
                    _times(first[-1], either, width), _scaled(middles, comb(d + e, e)), width
                )
            )
        filled: Packed = (0, 0)
        for k in range(n - 1, -1, -1):
            filled = packed_sum(
                _times(filled, low, width), _scaled(first[n - 1 - k], self.fills[k]), width
            )
        for _ in range(e + 1):
            filled = _times(filled, exploding, width)
        return packed_sum(ended, filled, width)


def _powers_of(coefficients: list[int], kernel: _Kernel, width: int) -> Packed:
    """Σ_j coefficients[j] · kernel^j, by Horner's rule (the hot loop: with no shift below
    0, every step stays on the same slots and is three or four big-integer operations)."""
    if not kernel or kernel[0][0] < 0:
        out: Packed = (0, 0)
        for weight in reversed(coefficients):
            out = packed_sum(_times(out, kernel, width), (0, weight), width)
        return out
    steps = [(shift * width, count) for shift, count in kernel]
    packed = 0
    if len(steps) == 1:
        ((at, count),) = steps
        for weight in reversed(coefficients):
            packed = ((packed * count) << at) + weight
    elif len(steps) == 2:
        (at, count), (at2, count2) = steps
        for weight in reversed(coefficients):
            packed = ((packed * count) << at) + ((packed * count2) << at2) + weight
    else:
        for weight in reversed(coefficients):
            packed = sum((packed * count) << at for at, count in steps) + weight
    return (0, packed)


def _halves(
    parts: list[Packed], lo: int, hi: int, first: _Kernel, second: _Kernel, width: int
) -> Packed:
    """Σ_{lo≤k≤hi} a^(hi-k) b^(k-lo) parts[k] (a, b the ``first`` and ``second`` classes),
    halved: a^(hi-mid) times the lower half plus b^(mid+1-lo) times the upper one, about
    (hi - lo) log (hi - lo) products rather than one chain a part."""
    if lo == hi:
        return parts[lo]
    mid = (lo + hi) // 2
    lower = _halves(parts, lo, mid, first, second, width)
    upper = _halves(parts, mid + 1, hi, first, second, width)
    for _ in range(hi - mid):
        lower = _times(lower, first, width)
    for _ in range(mid + 1 - lo):
        upper = _times(upper, second, width)
    return packed_sum(lower, upper, width)


def _choose(n: int, k: int) -> int:
    """C(n, k), 0 where k is out of 0..n."""
    return comb(n, k) if 0 <= k <= n else 0


def _powers(base: int, most: int) -> list[int]:
    """``base ** 0`` to ``base ** most``."""
    out = [1]
    for _ in range(most):
        out.append(out[-1] * base)
    return out


def _times(poly: Packed, kernel: _Kernel, width: int) -> Packed:
    """``poly`` times a class of faces: one shifted product a distinct shift."""
    low, packed = poly
    if not packed or not kernel:
        return (0, 0)
    base = kernel[0][0]
    out = 0
    for shift, count in kernel:
        out += (packed * count) << ((shift - base) * width)
    return (low + base, out)


def _scaled(poly: Packed, factor: int) -> Packed:
    """``poly`` times a number."""
    return (poly[0], poly[1] * factor)


def _merged(a: _Kernel, b: _Kernel) -> _Kernel:
    """Two classes of faces as one."""
    counts: dict[int, int] = {}
    for shift, faces in (*a, *b):
        counts[shift] = counts.get(shift, 0) + faces
    return tuple(sorted(counts.items()))


def _mass(poly: Packed) -> int:
    """The sum of a one-slot polynomial's coefficient (a run that counts nothing)."""
    return poly[1]
