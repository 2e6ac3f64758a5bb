"""The event streams' keep-alive interval (docs/service.md "The event stream"): 15
seconds, or ``DICEBOUND_KEEPALIVE`` seconds; a value that is not one is refused with a
sentence naming the variable, before the service opens anything. And how long a feed
holds its next round (docs/design/store-and-service.md "Fan-out"): not at all while
commits come slowly; past 30 a second, until a round carries enough events."""

from __future__ import annotations

from collections import deque

import pytest

from dicebound.edge.http import create_app
from dicebound.edge.http.events import KEEPALIVE_SECONDS, keepalive_seconds, round_hold
from dicebound.errors import UsageError


@pytest.mark.parametrize(
    ("given", "seconds"),
    [(None, KEEPALIVE_SECONDS), ("", KEEPALIVE_SECONDS), ("0.5", 0.5), (" 30 ", 30.0)],
    ids=["unset: 15 seconds", "empty: 15 seconds", "a fraction", "spaces around"],
)
def test_the_keepalive_is_15_seconds_or_the_variables(given: str | None, seconds: float) -> None:
    environ = {} if given is None else {"DICEBOUND_KEEPALIVE": given}
    assert keepalive_seconds(environ) == seconds


@pytest.mark.parametrize(
    "given",
    ["0", "-1", "soon", "nan", "inf", "3600"],
    ids=["zero", "negative", "a word", "nan", "infinite", "an hour"],
)
def test_a_keepalive_that_is_no_interval_is_refused_naming_the_variable(
    given: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = (
        "DICEBOUND_KEEPALIVE must be a number of seconds above 0 and under an hour; "
        f'it is "{given}".'
    )
    with pytest.raises(UsageError) as refused:
        keepalive_seconds({"DICEBOUND_KEEPALIVE": given})
    assert str(refused.value) == expected
    monkeypatch.setenv("DICEBOUND_KEEPALIVE", given)
    with pytest.raises(UsageError, match="DICEBOUND_KEEPALIVE"):
        create_app("sqlite:///nowhere-opened.db")


def test_a_round_is_not_held_while_commits_come_at_most_thirty_a_second() -> None:
    counts: deque[tuple[float, int]] = deque()
    # twenty a second, one a round, each round 3 ms of CPU (200 streams): never held
    holds = [round_hold(counts, i * 0.05, 1, 0.003) for i in range(100)]
    assert holds == [0.0] * 100
    assert len(counts) <= 21, "the rounds older than a second are forgotten"


def test_past_thirty_commits_a_second_a_round_waits_to_carry_enough_events() -> None:
    counts: deque[tuple[float, int]] = deque()
    # a hundred a second, ten a round: 0.75 ms a round is 0.05 ms for 15 events, 150 ms
    holds = [round_hold(counts, i * 0.1, 10, 0.00075) for i in range(20)]
    assert holds[-1] == pytest.approx(0.15)
    # a cheap round (a few streams) waits less: 0.15 ms for 3 events, 30 ms
    assert round_hold(counts, 2.0, 10, 0.00015) == pytest.approx(0.03)
    # however dear the round, never more than 150 ms
    assert round_hold(counts, 2.1, 10, 0.05) == pytest.approx(0.15)


def test_a_burst_that_ends_lets_the_rounds_go_at_once_again() -> None:
    counts: deque[tuple[float, int]] = deque()
    for i in range(10):
        round_hold(counts, i * 0.1, 10, 0.003)
    assert round_hold(counts, 2.5, 1, 0.003) == 0.0
