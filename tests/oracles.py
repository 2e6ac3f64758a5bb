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
from typing import Any, TypeVar

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


# -- dice-highest, written out from the page ------------------------------------------------


def bf_dice_highest(
    *,
    sides: int = 6,
    light: int,
    dark: int = 0,
    keep: int = 1,
    zero_dice: str = "lowest-of-two",
    critical: tuple[int, int] | None = None,
    dark_outcome: str = "all",
    dc: int = 4,
) -> dict[tuple[int, bool, bool, bool], Fraction]:
    """(total, success, critical success, dark highest) -> chance, every face tuple tried.

    ``critical`` is (count, face). The page: the highest ``keep`` dice add up; an empty
    pool throws two and keeps the lower (never a critical) or fails unrolled; dark dice
    are read with the rest, or with ``"light"`` only thrown beside them.
    """
    reads_all = dark_outcome == "all"
    empty = (light + dark == 0) if reads_all else light == 0
    light_thrown = (2 if zero_dice == "lowest-of-two" else 0) if empty else light
    out: dict[tuple[int, bool, bool, bool], Fraction] = defaultdict(Fraction)
    p = Fraction(1, sides ** (light_thrown + dark))
    for faces in itertools.product(range(1, sides + 1), repeat=light_thrown + dark):
        lights, darks = faces[:light_thrown], faces[light_thrown:]
        beats = bool(darks) and all(d < max(darks) for d in lights)
        if empty and zero_dice == "fail":
            out[(0, False, False, beats)] += p
            continue
        if empty:
            total = min(lights)
            out[(total, total >= dc, False, beats)] += p
            continue
        read = list(lights) + (list(darks) if reads_all else [])
        total = sum(sorted(read)[-keep:])
        crit = critical is not None and sum(1 for f in read if f >= critical[1]) >= critical[0]
        out[(total, crit or total >= dc, crit, beats)] += p
    return dict(out)


# -- roll-against, written out from the page ------------------------------------------------


def bf_roll_against(
    *,
    count: int = 1,
    sides: int = 100,
    target: int,
    against: str = "at-most",
    tens: int = 0,
    critical_success: Callable[[int, int], bool] = lambda roll, target: False,
    critical_failure: Callable[[int, int], bool] = lambda roll, target: False,
) -> dict[tuple[int, bool, bool, bool], Fraction]:
    """(roll, success, critical success, critical failure) -> chance.

    Tens dice: every tens digit of the d100 and the extra dice, each with the shared ones
    digit, 00 and 0 reading 100; bonus dice keep the best roll, penalty dice the worst.
    Criticals are predicates of (roll, target); a roll both match keeps its own side.
    """
    rolls: dict[int, Fraction] = defaultdict(Fraction)
    if tens:
        p = Fraction(1, 10 ** (abs(tens) + 2))
        for digits in itertools.product(range(10), repeat=abs(tens) + 2):
            ones, tens_digits = digits[0], digits[1:]
            values = [(10 * t + ones) or 100 for t in tens_digits]
            best = min if against == "at-most" else max
            worst = max if against == "at-most" else min
            rolls[(best if tens > 0 else worst)(values)] += p
    else:
        p = Fraction(1, sides**count)
        for faces in itertools.product(range(1, sides + 1), repeat=count):
            rolls[sum(faces)] += p
    out: dict[tuple[int, bool, bool, bool], Fraction] = defaultdict(Fraction)
    for roll, chance in rolls.items():
        made = roll <= target if against == "at-most" else roll >= target
        high, low = critical_success(roll, target), critical_failure(roll, target)
        if high and low:
            high, low = made, not made
        out[(roll, (made or high) and not low, high, low)] += chance
    return dict(out)


# -- dice-pool, written out from the page and docs/design/readings.md "Throw order" -------


def bf_dice_pool(
    *,
    sides: int,
    dice: int,
    target: int,
    needed: int,
    count: str = "at-least",
    explode: int | None = None,
    double: int | None = None,
    cancel: int | None = None,
    botch: int | None = None,
    botch_rule: str = "noSuccesses",
    exceptional: int | None = None,
    exact: bool | None = None,
    reroll: tuple[int, str] | None = None,
    auto: int = 0,
    max_extra: int = 0,
    max_rethrows: int = 100,
) -> dict[tuple[int, bool, bool, bool, bool, int], Fraction]:
    """(net, success, critical success, critical failure, complication, exact dice) ->
    chance, by following the throw on every face sequence, with no dicebound code."""

    def run(src: _PrefixDice) -> tuple[int, bool, bool, bool, bool, int]:
        if dice == 0:
            return (0, False, False, False, False, 0)
        standing: list[int] = [src.throw(sides) for _ in range(dice)]
        added = [0]

        def rolls_on(face: int) -> bool:
            return explode is not None and face >= explode

        def set_off() -> None:
            """One explosion: a die, and another while the last rolls on, within the cap."""
            while added[0] < max_extra:
                face = src.throw(sides)
                added[0] += 1
                standing.append(face)
                if not rolls_on(face):
                    return

        for face in list(standing):
            if rolls_on(face):
                set_off()
        if reroll is not None:
            up_to, mode = reroll
            spent = 0
            position = 0
            while position < len(standing) and spent < max_rethrows:
                if standing[position] <= up_to:
                    while True:
                        standing[position] = src.throw(sides)
                        spent += 1
                        if rolls_on(standing[position]):
                            set_off()
                        if mode == "once" or standing[position] > up_to or spent >= max_rethrows:
                            break
                position += 1
        hits = cancels = exacts = 0
        any_hit = any_low = False
        first_low = 0
        for index, face in enumerate(standing):
            if exact is not None and face == target:
                exacts += 1
                got = 1 if exact else 0
            elif count == "below":
                got = 1 if face < target else 0
            elif count == "above":
                got = 1 if face > target else 0
            elif face < target:
                got = 0
            else:
                got = 2 if double is not None and face >= double else 1
            hits += got
            any_hit = any_hit or got > 0
            if cancel is not None and face <= cancel:
                cancels += 1
            if botch is not None and face <= botch:
                any_low = True
                if index < dice:
                    first_low += 1
        net = max(hits - cancels, 0) + auto
        complication = False
        if botch is not None:
            if botch_rule == "halfOrMore" and first_low * 2 >= dice:
                if not any_hit:
                    return (net, False, False, True, False, exacts)
                complication = True
            if botch_rule == "noSuccesses" and any_low and not any_hit:
                return (net, False, False, True, False, exacts)
        won = net >= needed
        great = won and exceptional is not None and net >= exceptional
        return (net, won, great, False, complication, exacts)

    return enumerate_throws(run)


def bf_pool_check(check: Any) -> dict[tuple[int, bool, bool, bool, bool, int], Fraction]:
    """``bf_dice_pool`` on the rules a ``PoolCheck`` holds (read by name only)."""
    return bf_dice_pool(
        sides=check.sides,
        dice=check.dice,
        target=check.target,
        needed=check.needed,
        count=check.count,
        explode=check.explode_from,
        double=check.double_from,
        cancel=check.cancel_up_to,
        botch=check.botch_up_to,
        botch_rule=check.botch_rule,
        exceptional=check.exceptional,
        exact=check.exact,
        reroll=None if check.reroll is None else (check.reroll.up_to, check.reroll.mode),
        auto=check.auto,
        max_extra=check.max_extra,
        max_rethrows=check.max_rethrows,
    )


# -- step-pool, written out from the Advanced Resolution rule --------------------------------


def bf_step_effort(
    faces: Sequence[int], target: int, quality: int, tool: int, most: int = 0
) -> tuple[int, int]:
    """The most EFFORT one throw can make, and the fewest points that make it.

    The rule, step 6: one die may take the quality modifier, one die the tool's quality,
    one die up to ``most`` points; no die takes two; a modifier the player "can" apply
    may be left off. Every choice is tried, however useless, so nothing here assumes
    where a raise is worth placing.
    """
    n = len(faces)
    slots: list[int | None] = [None, *range(n)]
    best = (sum(1 for f in faces if f >= target), 0)
    for q in slots:
        for t in slots:
            if t is not None and t == q:
                continue
            for p in slots:
                if p is not None and p in (q, t):
                    continue
                for paid in range(1, most + 1) if p is not None else (0,):
                    final = list(faces)
                    if q is not None:
                        final[q] += quality
                    if t is not None:
                        final[t] += tool
                    if p is not None:
                        final[p] += paid
                    effort = sum(1 for f in final if f >= target)
                    if effort > best[0] or (effort == best[0] and paid < best[1]):
                        best = (effort, paid)
    return best


def bf_step_pool(
    dice: Sequence[int], target: int, quality: int = 0, tool: int = 0, most: int = 0
) -> dict[int, Fraction]:
    """EFFORT -> chance over every face tuple of ``dice`` (sides, in throw order)."""
    out: dict[int, Fraction] = defaultdict(Fraction)
    p = Fraction(1, math.prod(dice))
    for faces in itertools.product(*(range(1, s + 1) for s in dice)):
        out[bf_step_effort(faces, target, quality, tool, most)[0]] += p
    return dict(out)


# -- symbol-pool, written out from the page ----------------------------------------------


def bf_symbol_pool(
    dice: Sequence[Sequence[Sequence[str]]],
    symbols: Sequence[dict[str, str]],
    success: str,
    needed: int,
    critical_success: str | None = None,
    critical_failure: str | None = None,
) -> dict[tuple[int, bool, bool, bool], Fraction]:
    """(net successes, succeeded, critical success shown, critical failure shown) ->
    chance, over every face tuple of ``dice`` (each die its list of faces).

    The page: a symbol that ``counts`` adds one of another symbol before cancellation
    and remains itself; ``cancels`` pairs two symbols one for one (declared on either
    side); the check needs ``needed`` of the success symbol after cancellation; a
    critical symbol is marked on any face that shows it, and changes nothing else.
    """
    counts = {s["id"]: s.get("counts") for s in symbols}
    pairs = {(s["id"], s["cancels"]) for s in symbols if s.get("cancels")}
    out: dict[tuple[int, bool, bool, bool], Fraction] = defaultdict(Fraction)
    p = Fraction(1, math.prod(len(d) for d in dice))
    for faces in itertools.product(*dice):
        tally: dict[str, int] = defaultdict(int)
        for face in faces:
            for sid in face:
                tally[sid] += 1
                if counts.get(sid):
                    tally[str(counts[sid])] += 1
        for one, two in pairs:
            gone = min(tally[one], tally[two])
            tally[one] -= gone
            tally[two] -= gone
        shown = [sid for face in faces for sid in face]
        net = tally[success]
        key = (
            net,
            net >= needed,
            critical_success is not None and critical_success in shown,
            critical_failure is not None and critical_failure in shown,
        )
        out[key] += p
    return dict(out)
