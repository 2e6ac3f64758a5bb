"""``plain_json`` writes exactly what ``dumps(plain(...))`` writes: the event stream
sends the first and the routes answer the second, and a client reads both alike."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dicebound.app.plain import plain, plain_json
from dicebound.store.models import dumps
from dicebound.values import frozen


@frozen
class Inner:
    when: datetime
    items: tuple[Any, ...]


@frozen
class Outer:
    name: str
    inner: Inner | None
    table: dict[str, Any]


_TIMES = st.datetimes(
    min_value=datetime(1970, 1, 2), max_value=datetime(9999, 1, 1), timezones=st.just(UTC)
) | st.builds(
    lambda t, hours: t.replace(tzinfo=timezone(timedelta(hours=hours))),
    st.datetimes(min_value=datetime(1970, 1, 2), max_value=datetime(9998, 1, 1)),
    st.integers(-12, 12),
)
_SCALARS = st.none() | st.booleans() | st.integers() | st.text() | st.floats(allow_nan=False)


def _values(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    inner = st.builds(Inner, _TIMES, st.tuples(children, children))
    return (
        st.lists(children, max_size=4)
        | st.tuples(children)
        | st.dictionaries(st.text(max_size=5), children, max_size=4)
        | inner
        | st.builds(Outer, st.text(), st.none() | inner, st.dictionaries(st.text(), children))
    )


@given(st.recursive(_SCALARS | _TIMES, _values, max_leaves=30))
def test_plain_json_writes_what_dumps_of_plain_writes(value: Any) -> None:
    assert plain_json(value) == dumps(plain(value))


def test_a_value_json_cannot_write_is_refused_with_its_type() -> None:
    with pytest.raises(TypeError, match="set is not a value the application answers"):
        plain_json({"odd": {1, 2}})
