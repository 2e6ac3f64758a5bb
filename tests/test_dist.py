"""Dist: exact distributions, integer weights inside, Fraction out."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dicebound.dist as dist_module
from budget import examples
from dicebound.dist import Dist
from dicebound.errors import LimitExceeded, UsageError


def _brute_sum(values: list[list[int]]) -> dict[int, Fraction]:
    """Every combination of faces, counted."""
    counts = Counter(sum(combo) for combo in itertools.product(*values))
    total = sum(counts.values())
    return {k: Fraction(v, total) for k, v in sorted(counts.items())}


def test_a_die_is_uniform_and_probabilities_are_fractions() -> None:
    d6 = Dist.die(6)
    assert d6.total == 6
    assert d6.probability(3) == Fraction(1, 6)
    assert d6.probability(7) == 0
    assert d6.probabilities() == {k: Fraction(1, 6) for k in range(1, 7)}


def test_weights_are_divided_by_their_gcd_to_stay_small() -> None:
    d = Dist({"a": 4, "b": 6})
    assert dict(d.weights) == {"a": 2, "b": 3}
    assert d.total == 5


def test_repeated_outcomes_add_and_zero_weights_drop() -> None:
    d = Dist([("x", 1), ("x", 2), ("y", 0)])
    assert dict(d.weights) == {"x": 1}
    assert Dist.uniform([1, 1, 2]).probability(1) == Fraction(2, 3)


@pytest.mark.parametrize(
    ("weights", "why"),
    [({}, "no outcome"), ({"a": -1}, "negative weight"), ({"a": 1.5}, "not a whole number")],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_a_distribution_refuses_bad_weights(weights: dict[str, object], why: str) -> None:
    with pytest.raises(UsageError):
        Dist(weights)  # type: ignore[arg-type]


def test_a_dist_is_immutable() -> None:
    d = Dist.die(4)
    with pytest.raises(AttributeError):
        d._w = {}
    with pytest.raises(TypeError):
        d.weights[1] = 5  # type: ignore[index]


def test_two_d6_sum_to_the_triangle() -> None:
    assert (Dist.die(6) + Dist.die(6)).probabilities() == _brute_sum([list(range(1, 7))] * 2)


def test_fate_four_df_is_exactly_fate() -> None:
    fate = Dist.uniform([-1, 0, 1]).sum_of(4)
    assert fate.probabilities() == _brute_sum([[-1, 0, 1]] * 4)
    assert fate.probability(4) == Fraction(1, 81)
    assert fate.probability(0) == Fraction(19, 81)


def test_shift_negate_and_subtract() -> None:
    d = Dist.die(4)
    assert (d + 10).outcomes() == [11, 12, 13, 14]
    assert (-d).outcomes() == [-4, -3, -2, -1]
    assert (d - d).probability(0) == Fraction(4, 16)


def test_at_least_reads_a_dc() -> None:
    two_d6 = Dist.die(6) + Dist.die(6)
    assert two_d6.at_least(7) == Fraction(21, 36)
    assert two_d6.at_least(13) == 0
    assert two_d6.at_least(-5) == 1


def test_map_merges_outcomes_that_meet() -> None:
    parity = Dist.die(6).map(lambda x: x % 2)
    assert parity.probabilities() == {0: Fraction(1, 2), 1: Fraction(1, 2)}


def test_mixture_weighs_each_part_by_its_share() -> None:
    # One face in four rolls on to a d6; the other three stop at 0.
    mixed = Dist.mix([(Dist.constant(0), 3), (Dist.die(6), 1)])
    assert mixed.probability(0) == Fraction(3, 4)
    assert mixed.probability(6) == Fraction(1, 24)
    assert sum(mixed.probabilities().values()) == 1


def test_bind_is_a_chain() -> None:
    # Throw a d4, then that many coins (0/1): brute force over all faces.
    chained = Dist.die(4).bind(lambda n: Dist.uniform([0, 1]).sum_of(n))
    expected: Counter[int] = Counter()
    for n in range(1, 5):
        for coins in itertools.product([0, 1], repeat=n):
            expected[sum(coins)] += 2 ** (4 - n)
    total = sum(expected.values())
    assert chained.probabilities() == {k: Fraction(v, total) for k, v in sorted(expected.items())}


def test_combine_takes_the_better_of_two() -> None:
    best = Dist.die(20).combine(Dist.die(20), max)
    assert best.probability(20) == Fraction(39, 400)
    assert best.probability_where(lambda x: x >= 10) == 1 - Fraction(81, 400)


def test_mean_and_equality() -> None:
    assert Dist.die(6).mean() == Fraction(7, 2)
    assert Dist({1: 2, 2: 2}) == Dist({1: 1, 2: 1})
    assert hash(Dist({1: 2, 2: 2})) == hash(Dist({1: 1, 2: 1}))
    assert Dist.die(3) != Dist.die(4)


def test_packed_convolution_equals_the_plain_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    # Large sums go through one big-integer multiplication; it must agree exactly.
    a = Dist({v: (v * 7919) % 1013 + 1 for v in range(-40, 160)})
    b = Dist({v: 3 ** (v % 50) for v in range(0, 300, 2)})
    packed = a + b
    monkeypatch.setattr(dist_module, "_DIRECT_WORK", 10**12)
    assert packed == a + b
    assert sum(packed.probabilities().values()) == 1


def _brute_chain(levels: list[tuple[list[int], list[int]]]) -> dict[int, Fraction]:
    """Walk every face of every level, each face 1/size of its level."""
    out: dict[int, Fraction] = {}

    def walk(i: int, acc: int, p: Fraction) -> None:
        stop, going = levels[i]
        face = p / (len(stop) + len(going))
        for v in stop:
            out[acc + v] = out.get(acc + v, Fraction(0)) + face
        for v in going:
            walk(i + 1, acc + v, face)

    walk(0, 0, Fraction(1))
    return dict(sorted(out.items()))


@pytest.mark.parametrize(
    "levels",
    [
        [([1, 2, 3], [4]), ([1, 2, 3], [4]), ([1, 2, 3, 4], [])],
        [([-1, 0], [1]), ([-1, 0], [1]), ([-1, 0, 1], [])],
        [([5], [])],
        [([], [2, 3]), ([1, 1], [7, 9]), ([0, 10, 20], [])],
    ],
    ids=["d4 exploding on 4, three dice", "dF rolling on +", "one level", "all go on first"],
)
def test_chain_equals_brute_force(levels: list[tuple[list[int], list[int]]]) -> None:
    assert Dist.chain(levels).probabilities() == _brute_chain(levels)


def test_chain_refuses_a_last_level_that_goes_on() -> None:
    with pytest.raises(UsageError):
        Dist.chain([([1], [2])])
    with pytest.raises(UsageError):
        Dist.chain([])


def test_ten_d1000_is_quick_and_exact() -> None:
    d = Dist.die(1000).sum_of(10)
    assert len(d) == 9991
    assert d.probability(10) == Fraction(1, 1000**10)
    assert d.mean() == Fraction(10 * 1001, 2)


def test_the_outcome_cap_raises_limit_exceeded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dist_module, "MAX_OUTCOMES", 10)
    with pytest.raises(LimitExceeded):
        Dist.die(6) + Dist.die(6)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(
        st.lists(st.integers(-5, 12), min_size=1, max_size=6),
        min_size=1,
        max_size=4,
    )
)
def test_adding_dice_equals_brute_force(dice: list[list[int]]) -> None:
    total = Dist.uniform(dice[0])
    for faces in dice[1:]:
        total = total + Dist.uniform(faces)
    assert total.probabilities() == _brute_sum(dice)
    assert sum(total.probabilities().values()) == 1


@given(st.lists(st.integers(-(10**30), 10**30), max_size=8), st.integers(1, 10**30))
def test_ratio_and_ratios_are_fractions_exactly(numerators: list[int], denominator: int) -> None:
    """``ratio`` and ``ratios`` make the very ``Fraction`` the constructor makes: equal,
    reduced, hashed alike, of the same type (the odds make one per band this way)."""
    made = [dist_module.ratio(n, denominator) for n in numerators]
    assert dist_module.ratios(numerators, denominator) == made
    for n, fraction in zip(numerators, made, strict=True):
        expected = Fraction(n, denominator)
        assert type(fraction) is Fraction
        assert (fraction.numerator, fraction.denominator) == (
            expected.numerator,
            expected.denominator,
        )
        assert hash(fraction) == hash(expected)
        assert str(fraction) == str(expected)
