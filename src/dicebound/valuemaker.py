"""A quicker way to build the frozen values a check makes every time it is thrown.

A ``@frozen`` class's ``__init__`` takes keywords and fills defaults; ``maker(cls)``
gives a function that takes every field positionally, in the class's field order, and
sets each slot through its own descriptor with nothing else around it. It is for the
few values the check's hot path builds (the result, the tag match, the report), and
only for classes with no ``__post_init__``, so nothing the constructor checks is
skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from dicebound.values import fields

__all__ = ["maker"]

T = TypeVar("T")


def maker(cls: type[T]) -> Callable[..., T]:
    """A builder of ``cls`` taking every field positionally, in field order.

    Raises:
        TypeError: ``cls`` is not a ``@frozen`` value class without ``__post_init__``.
    """
    if "__value_fields__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a @frozen value class")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} checks itself in __post_init__: use its constructor")
    names = [f.name for f in fields(cls)]
    scope: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    for name in names:
        scope[f"_set_{name}"] = cls.__dict__[name].__set__
    args = ", ".join(names)
    sets = "".join(f"    _set_{name}(value, {name})\n" for name in names)
    source = f"def make({args}):\n    value = _new(_cls)\n{sets}    return value\n"
    exec(source, scope)  # the source is made of the class's own field names alone
    made: Callable[..., T] = scope["make"]
    made.__doc__ = f"Build a {cls.__name__} from every field, in field order."
    return made
