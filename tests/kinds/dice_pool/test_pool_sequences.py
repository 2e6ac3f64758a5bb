"""The odds of an exploding pool counted as sequences (``kinds/dice_pool/sequences.py``): the same
weights as the state machine and as brute force written from the rules, on every small
pool, with a "once" or "until" re-throw or none; and pools of 100 dice with 100 added
and 100 re-throws answered, where the state machine refused them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.dist import Dist
from dicebound.errors import UsageError
from dicebound.kinds.dice_pool import PoolCheck, PoolOutcome, distribution
from dicebound.kinds.dice_pool import sequences as pool_sequences
from dicebound.kinds.dice_pool.odds import _counted_weights, _Machine
from dicebound.spend import Reroll
from dicebound.values import replace
from oracles import bf_pool_check


def machine(check: PoolCheck) -> Dist[PoolOutcome]:
    """The state machine's odds, die by die (what ``distribution`` took before)."""
    return Dist.from_positive(_counted_weights(check, _Machine.of(check)))


def sequences(check: PoolCheck) -> Dist[PoolOutcome]:
    return Dist.from_positive(pool_sequences.weights(check))


ONCE = Reroll(2, "once")
UNTIL = Reroll(2, "until")


@pytest.mark.parametrize(
    ("check", "answers"),
    [
        (PoolCheck(10, 5, 6, 1, explode_from=10, max_extra=5, reroll=ONCE), True),
        (PoolCheck(10, 5, 6, 1, explode_from=8, max_extra=5, reroll=ONCE, botch_up_to=1), True),
        (PoolCheck(10, 5, 6, 1, explode_from=10, max_extra=5), True),
        (PoolCheck(10, 5, 6, 1, explode_from=10, max_extra=5, reroll=Reroll(2, "until")), True),
        (PoolCheck(10, 5, 6, 1, reroll=ONCE), False),
        (PoolCheck(10, 5, 6, 1, explode_from=9, double_from=10, max_extra=5, reroll=ONCE), True),
        (PoolCheck(10, 5, 6, 1, explode_from=2, max_extra=5, reroll=ONCE), False),
        (PoolCheck(10, 5, 6, 1, explode_from=10, max_extra=5, reroll=ONCE, exact=True), False),
        (
            PoolCheck(
                10,
                5,
                6,
                1,
                explode_from=10,
                max_extra=5,
                reroll=ONCE,
                botch_up_to=1,
                botch_rule="halfOrMore",
            ),
            False,
        ),
        (PoolCheck(10, 0, 6, 1, explode_from=10, max_extra=5, reroll=ONCE), False),
    ],
    ids=[
        "explosions beside a once re-throw",
        "several exploding faces that count alike, a noSuccesses botch",
        "explosions alone (a re-throw cap of none)",
        "an until re-throw",
        "no explosions",
        "exploding faces that count apart (9 once, 10 twice)",
        "a face both exploding and thrown again",
        "exact dice",
        "a halfOrMore botch (the pool's own dice told apart)",
        "an empty pool",
    ],
)
def test_which_pools_the_sequences_answer(check: PoolCheck, answers: bool) -> None:
    assert pool_sequences.applies(check) is answers
    if not answers:
        with pytest.raises(UsageError, match="not a pool these sequences count"):
            pool_sequences.weights(check)


SMALL = [
    # both caps binding
    PoolCheck(4, 3, 3, 1, explode_from=4, max_extra=3, reroll=ONCE, max_rethrows=1),
    PoolCheck(4, 2, 3, 2, explode_from=3, max_extra=2, reroll=ONCE, cancel_up_to=1),
    PoolCheck(6, 2, 4, 2, explode_from=5, max_extra=3, reroll=ONCE, max_rethrows=1, botch_up_to=1),
    # no room for explosions, no re-throws allowed
    PoolCheck(6, 3, 4, 1, explode_from=6, max_extra=0, reroll=ONCE, cancel_up_to=1),
    PoolCheck(6, 3, 4, 1, explode_from=6, max_extra=3, reroll=ONCE, max_rethrows=0),
    # successes nobody rolled, an exceptional count, doubled exploding faces
    PoolCheck(
        6,
        2,
        4,
        3,
        explode_from=6,
        double_from=6,
        max_extra=3,
        reroll=Reroll(1, "once"),
        auto=1,
        exceptional=3,
        cancel_up_to=1,
        botch_up_to=1,
    ),
    # explosions alone
    PoolCheck(4, 3, 3, 2, explode_from=3, max_extra=3, cancel_up_to=1, botch_up_to=1),
    # "until": both caps binding, the cap cutting a die off on a re-throw face
    PoolCheck(4, 2, 3, 1, explode_from=4, max_extra=2, reroll=UNTIL, max_rethrows=2),
    PoolCheck(4, 3, 3, 2, explode_from=4, max_extra=2, reroll=UNTIL, max_rethrows=1, botch_up_to=1),
    PoolCheck(
        6, 2, 4, 1, explode_from=6, max_extra=3, reroll=UNTIL, max_rethrows=0, cancel_up_to=1
    ),
    PoolCheck(3, 2, 2, 1, explode_from=3, max_extra=2, reroll=Reroll(1, "until"), max_rethrows=3),
]


@pytest.mark.parametrize("check", SMALL)
def test_the_sequences_equal_brute_force_written_from_the_rules(check: PoolCheck) -> None:
    chances = sequences(check).probabilities()
    assert {tuple(o): p for o, p in chances.items()} == bf_pool_check(check)


@st.composite
def exploding_rethrown(draw: st.DrawFn) -> PoolCheck:
    """Explosions beside a re-throw (or none) with caps small enough to bind, every other
    rule the sequences take drawn (exploding faces that count apart among them)."""
    sides = draw(st.integers(3, 10))
    up_to = draw(st.integers(1, sides - 2))
    target = draw(st.integers(1, sides))
    under = st.none() | st.integers(1, sides - 1)
    return PoolCheck(
        sides=sides,
        dice=draw(st.integers(1, 8)),
        target=target,
        needed=draw(st.integers(1, 5)),
        explode_from=draw(st.integers(up_to + 1, sides)),
        double_from=draw(st.none() | st.integers(2, sides)),
        cancel_up_to=draw(under),
        botch_up_to=draw(under),
        exceptional=draw(st.none() | st.integers(1, 8)),
        reroll=draw(
            st.none() | st.builds(Reroll, st.just(up_to), st.sampled_from(["once", "until"]))
        ),
        auto=draw(st.integers(0, 2)),
        max_extra=draw(st.integers(0, 8)),
        max_rethrows=draw(st.integers(0, 12)),
    )


@settings(max_examples=examples(300), deadline=None)
@given(exploding_rethrown())
def test_any_exploding_pool_with_a_re_throw_counts_as_the_machine_does(
    check: PoolCheck,
) -> None:
    assert pool_sequences.applies(check)
    assert sequences(check) == machine(check)


@pytest.mark.parametrize(
    "check",
    [
        PoolCheck(10, 24, 6, 3, explode_from=10, max_extra=24, reroll=ONCE, cancel_up_to=1),
        PoolCheck(
            10,
            20,
            7,
            4,
            explode_from=8,
            max_extra=40,
            reroll=Reroll(1, "once"),
            max_rethrows=20,
            botch_up_to=1,
            exceptional=9,
        ),
        PoolCheck(6, 30, 5, 6, explode_from=6, max_extra=30, reroll=Reroll(3, "once")),
        PoolCheck(
            10,
            20,
            6,
            3,
            explode_from=10,
            max_extra=20,
            reroll=UNTIL,
            cancel_up_to=1,
            botch_up_to=1,
        ),
        PoolCheck(6, 12, 4, 5, explode_from=6, max_extra=12, reroll=UNTIL, max_rethrows=9),
        PoolCheck(
            10,
            10,
            7,
            3,
            explode_from=9,
            double_from=10,
            max_extra=10,
            reroll=UNTIL,
            max_rethrows=12,
            cancel_up_to=1,
            botch_up_to=1,
        ),
    ],
    ids=[
        "24d10, both caps its size",
        "20d10, 40 added, 20 re-throws",
        "30d6 thrown again on 3",
        "20d10 thrown again until past 2 (1.1 s by the machine)",
        "12d6 until, 9 re-throws",
        "10d10, nines exploding once and tens twice, until",
    ],
)
def test_bigger_pools_count_as_the_machine_does(check: PoolCheck) -> None:
    assert sequences(check) == machine(check)


@pytest.mark.parametrize("mode", ["once", "until"])
def test_a_100_die_pool_with_100_added_and_100_re_throws_is_answered(mode: str) -> None:
    """The state machine refused it (dice × explosion cap × the dice past the re-throw
    cap, 1,000,000 > 200,000; "until": dice × explosion cap, 10,000 > 1,600); every die
    may explode, so 200 successes is the most."""
    check = PoolCheck(
        10,
        100,
        6,
        30,
        explode_from=10,
        max_extra=100,
        reroll=Reroll(1, mode),  # type: ignore[arg-type]
        cancel_up_to=1,
        botch_up_to=1,
        exceptional=60,
    )
    dist = distribution(check)
    chances = dist.probabilities()
    assert sum(chances.values()) == 1
    assert max(o.total for o in dist.weights) == 200
    assert any(o.critical_failure for o in dist.weights)  # every die a one: a botch
    # the re-throw cap binds only where more than 100 re-throws are thrown: one more
    # allowed changes the odds, but only past the 40th decimal place (about 1e-78
    # "once", 3e-45 "until")
    looser = distribution(replace(check, max_rethrows=101)).probabilities()
    assert looser != chances
    assert max(abs(looser.get(o, 0) - p) for o, p in chances.items()) < 1e-40
