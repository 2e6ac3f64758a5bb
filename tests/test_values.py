"""``@frozen`` behaves as ``@dataclass(frozen=True, slots=True)`` wherever dicebound
relies on it: construction, defaults and factories, ``__post_init__``, equality, hash,
repr, ``__match_args__``, ``fields`` and ``replace`` (``dicebound.values``' own, beside
``dataclasses``'), pickling, and refusing assignment. Each test builds the same class
both ways and compares."""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from dicebound import values
from dicebound.values import frozen


def _make(decorate: Callable[[type], type], field: Callable[..., Any]) -> type:
    class Point:
        """A value."""

        a: int
        b: str = "x"
        c: Mapping[str, int] = field(default_factory=dict)
        d: tuple[int, ...] = field(default=(), compare=False)
        e: int = field(init=False, repr=False, compare=False)

        def __post_init__(self) -> None:
            object.__setattr__(self, "e", self.a * 2)

    return decorate(Point)


Plain: Any = _make(dataclass(frozen=True, slots=True), dataclasses.field)
Plain.__qualname__ = "Plain"
Fast: Any = _make(frozen, values.field)
Fast.__qualname__ = "Fast"

ARGS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((1,), {}),
    ((1, "y"), {}),
    ((1,), {"c": {"k": 2}, "d": (3,)}),
    ((), {"a": 4, "b": "z", "d": (5, 6)}),
]


@pytest.mark.parametrize(("args", "kwargs"), ARGS)
def test_the_same_value_both_ways(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    plain, fast = Plain(*args, **kwargs), Fast(*args, **kwargs)
    assert repr(fast) == repr(plain).replace("Plain(", "Fast(")
    as_dict = {f.name: getattr(fast, f.name) for f in values.fields(fast)}
    assert as_dict == dataclasses.asdict(plain)
    assert [f.name for f in values.fields(Fast)] == [f.name for f in dataclasses.fields(plain)]
    assert values.replace(fast, a=9).e == dataclasses.replace(plain, a=9).e == 18
    assert values.replace(fast, b="w") == Fast(fast.a, "w", fast.c, fast.d)
    assert fast.e == plain.e
    assert pickle.loads(pickle.dumps(fast)) == fast
    assert pickle.loads(pickle.dumps(fast)).e == fast.e


def test_equality_and_hash_read_the_compared_fields_as_a_dataclass_does() -> None:
    assert Fast(1, d=(1,)) == Fast(1, d=(2,))  # d is not compared
    assert Fast(1) != Fast(2)
    assert Fast(1) != Plain(1)
    nan = float("nan")
    assert Fast(nan, c=()) == Fast(nan, c=())  # the fields' tuple: identity first
    for a, b in [(1, "y"), (2, "")]:
        assert hash(Fast(a, b, ())) == hash(Plain(a, b, ()))
    with pytest.raises(TypeError):
        hash(Fast(1))  # a dict field is unhashable, as in the dataclass


def test_the_class_looks_like_the_dataclass() -> None:
    assert Fast.__match_args__ == Plain.__match_args__ == ("a", "b", "c", "d")
    assert Fast.__slots__ == ("a", "b", "c", "d", "e")
    assert not hasattr(Fast(1), "__dict__")
    # not a dataclasses dataclass: a library that reads dataclasses (dataclasses.fields,
    # pydantic) would find no fields in it, so it does not claim to be one
    assert not dataclasses.is_dataclass(Fast)
    assert Fast.__doc__ == "A value."


def test_a_field_cannot_be_assigned_or_deleted() -> None:
    value = Fast(1)
    with pytest.raises(values.FrozenInstanceError):
        value.a = 2
    with pytest.raises(AttributeError):  # as dataclasses' own error is
        del value.a
    with pytest.raises(TypeError):
        Fast()  # a is required
    with pytest.raises(TypeError):
        Fast(1, e=3)  # e is not an argument


def test_refused_shapes() -> None:
    with pytest.raises(TypeError, match="non-default argument"):

        @frozen
        class Bad:
            a: int = 0
            b: int

    with pytest.raises(ValueError, match="both default and default_factory"):
        values.field(default=1, default_factory=list)

    with pytest.raises(TypeError, match="not a @frozen value class"):
        values.fields(Plain)

    with pytest.raises(ValueError, match="init=False"):
        values.replace(Fast(1), e=3)

    with pytest.raises(TypeError, match="no base class"):

        @frozen
        class Child(Exception):
            a: int
