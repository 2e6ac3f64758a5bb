"""A pool's odds with each state's counts packed into one big integer, round by round
and with each state visited once (the re-throws thrown forgotten once their cap cannot
bind), against the rounds with a dict of counts per state: the very same weights, on
pools far past what brute force reaches (the brute-force tests in
test_kind_dice_pool_play.py hold every path to the rules on small pools)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.dist import Dist
from dicebound.kinds.dice_pool import PoolCheck, PoolOutcome
from dicebound.kinds.dice_pool.odds import (
    _counted_weights,
    _Machine,
    _ordered_weights,
    _packed_weights,
    _visits_once,
)
from dicebound.spend import Reroll
from oracles import bf_pool_check


def every_path(check: PoolCheck) -> list[dict[PoolOutcome, int]]:
    """The weights of every path, whichever ``distribution`` takes for the check."""
    return [
        _counted_weights(check, _Machine.of(check)),
        _packed_weights(check, _Machine.of(check)),
        _ordered_weights(check, _Machine.of(check, ordered=True)),
    ]


def assert_same_weights(check: PoolCheck) -> None:
    counted, *packed = every_path(check)
    assert packed == [counted, counted]


# both caps binding, "once": re-throws counted until the dice left can no longer reach the cap
MERGING = PoolCheck(
    10, 14, 6, 2, explode_from=9, max_extra=10, reroll=Reroll(6, "once"), max_rethrows=12
)
BIG = [
    PoolCheck(10, 30, 6, 3, explode_from=10, max_extra=30, cancel_up_to=1, botch_up_to=1),
    PoolCheck(10, 25, 7, 4, explode_from=9, double_from=10, max_extra=25, exceptional=8),
    PoolCheck(10, 30, 6, 2, reroll=Reroll(2, "until"), max_rethrows=12, cancel_up_to=1),
    PoolCheck(10, 12, 6, 1, explode_from=10, max_extra=12, reroll=Reroll(6, "once")),
    PoolCheck(6, 10, 5, 2, explode_from=6, max_extra=4, reroll=Reroll(2, "until"), max_rethrows=5),
    PoolCheck(10, 20, 6, 1, botch_up_to=2, botch_rule="halfOrMore", cancel_up_to=1),
    PoolCheck(10, 16, 6, 1, explode_from=10, max_extra=3, auto=2, exceptional=5),
    MERGING,
    PoolCheck(
        10,
        12,
        6,
        1,
        explode_from=10,
        max_extra=12,
        reroll=Reroll(6, "once"),
        max_rethrows=15,
        cancel_up_to=1,
        botch_up_to=1,
    ),
    PoolCheck(
        6,
        10,
        4,
        1,
        explode_from=3,
        double_from=6,
        max_extra=6,
        reroll=Reroll(3, "once"),
        max_rethrows=9,
        botch_up_to=1,
        botch_rule="halfOrMore",
    ),
    PoolCheck(10, 8, 6, 1, explode_from=10, max_extra=8, reroll=Reroll(6, "until"), max_rethrows=9),
    PoolCheck(
        10,
        10,
        7,
        3,
        explode_from=9,
        max_extra=10,
        reroll=Reroll(2, "until"),
        max_rethrows=12,
        cancel_up_to=1,
        botch_up_to=1,
    ),
]


@pytest.mark.parametrize("check", BIG)
def test_big_pools_pack_to_the_same_weights(check: PoolCheck) -> None:
    assert_same_weights(check)


@st.composite
def pools(draw: st.DrawFn) -> PoolCheck:
    """Pools of up to 8 dice of up to 10 sides, every rule but exact dice drawn."""
    sides = draw(st.integers(2, 10))
    target = draw(st.integers(2, sides))
    face, under = st.none() | st.integers(2, sides), st.none() | st.integers(1, target - 1)
    rules = draw(
        st.fixed_dictionaries(
            {
                "dice": st.integers(1, 8),
                "needed": st.integers(1, 6),
                "explode_from": face,
                "double_from": face,
                "cancel_up_to": under,
                "botch_up_to": under,
                "botch_rule": st.sampled_from(["noSuccesses", "halfOrMore"]),
                "exceptional": st.none() | st.integers(1, 8),
                "reroll": st.none()
                | st.builds(Reroll, st.integers(1, sides - 1), st.sampled_from(["once", "until"])),
                "auto": st.integers(0, 2),
                "max_rethrows": st.integers(0, 6),
            }
        )
    )
    extra = draw(st.integers(0, 6)) if rules["explode_from"] is not None else 0
    return PoolCheck(sides=sides, target=target, max_extra=extra, **rules)


@settings(max_examples=examples(200), deadline=None)
@given(pools())
def test_any_pool_packs_to_the_same_weights(check: PoolCheck) -> None:
    assert_same_weights(check)


def test_states_merge_once_the_re_throw_cap_cannot_bind() -> None:
    check = MERGING
    merged = _Machine.of(check, ordered=True)
    assert merged.merge
    _ordered_weights(check, merged)
    kept = _Machine.of(check)
    _packed_weights(check, kept)
    assert len(merged.known) < len(kept.known)
    assert any(control[4] == -1 for control in merged.known)  # re-throws thrown forgotten


@st.composite
def capped_pools(draw: st.DrawFn) -> PoolCheck:
    """Explosions and a re-throw with caps small enough to bind, every other rule but
    exact dice drawn: the states the merging path forgets re-throws in."""
    sides = draw(st.integers(2, 8))
    target = draw(st.integers(2, sides))
    under = st.none() | st.integers(1, target - 1)
    return PoolCheck(
        sides=sides,
        dice=draw(st.integers(1, 9)),
        target=target,
        needed=draw(st.integers(1, 4)),
        explode_from=draw(st.integers(2, sides)),
        double_from=draw(st.none() | st.integers(2, sides)),
        cancel_up_to=draw(under),
        botch_up_to=draw(under),
        botch_rule=draw(st.sampled_from(["noSuccesses", "halfOrMore"])),
        reroll=draw(
            st.builds(Reroll, st.integers(1, sides - 1), st.sampled_from(["once", "until"]))
        ),
        max_extra=draw(st.integers(0, 8)),
        max_rethrows=draw(st.integers(0, 12)),
    )


@settings(max_examples=examples(150), deadline=None)
@given(capped_pools())
def test_a_pool_with_both_caps_packs_to_the_same_weights(check: PoolCheck) -> None:
    assert_same_weights(check)


SMALL = [
    # "until", both caps binding: round by round
    PoolCheck(4, 2, 3, 1, explode_from=3, max_extra=2, reroll=Reroll(2, "until"), max_rethrows=2),
    PoolCheck(
        3,
        2,
        2,
        1,
        explode_from=3,
        max_extra=2,
        reroll=Reroll(1, "until"),
        max_rethrows=3,
        cancel_up_to=1,
        botch_up_to=1,
    ),
    # "once", a cap below half the dice: round by round
    PoolCheck(4, 3, 3, 1, explode_from=4, max_extra=3, reroll=Reroll(2, "once"), max_rethrows=1),
    # "once", a cap at least half the dice, binding: each state once, merging
    PoolCheck(
        4,
        3,
        3,
        1,
        explode_from=4,
        max_extra=2,
        reroll=Reroll(2, "once"),
        max_rethrows=3,
        botch_up_to=1,
        botch_rule="halfOrMore",
    ),
    # "once", a cap that cannot bind: each state once, no re-throws counted
    PoolCheck(4, 2, 3, 2, explode_from=3, max_extra=2, reroll=Reroll(2, "once"), cancel_up_to=1),
]


@pytest.mark.parametrize("check", SMALL)
def test_every_path_equals_brute_force_on_small_pools(check: PoolCheck) -> None:
    rules = bf_pool_check(check)
    for weights in every_path(check):
        chances = Dist.from_positive(weights).probabilities()
        assert {tuple(o): p for o, p in chances.items()} == rules


@pytest.mark.parametrize(
    ("check", "once"),
    [(check, index >= 3) for index, check in enumerate(SMALL)]
    + [
        (PoolCheck(10, 20, 6, 1, explode_from=10, max_extra=20), False),
        (PoolCheck(10, 20, 6, 1, reroll=Reroll(6, "once"), exact=True), False),
        (PoolCheck(10, 100, 6, 1, reroll=Reroll(6, "once"), max_rethrows=50), True),
    ],
)
def test_distribution_visits_each_state_once_only_where_that_is_faster(
    check: PoolCheck, once: bool
) -> None:
    """ "once" with a cap at least half the dice and added dice (bench/odds_bounds.py):
    never "until", no re-throw, exact dice, or a cap the re-throws soon reach."""
    assert _visits_once(check) is once
