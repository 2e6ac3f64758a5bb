"""The event streams' keep-alive interval (docs/service.md "The event stream"): 15
seconds, or ``DICEBOUND_KEEPALIVE`` seconds; a value that is not one is refused with a
sentence naming the variable, before the service opens anything."""

from __future__ import annotations

import pytest

from dicebound.edge.http import create_app
from dicebound.edge.http.events import KEEPALIVE_SECONDS, keepalive_seconds
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
