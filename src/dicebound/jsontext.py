"""Reading JSON text the way an author means it.

Python's ``json`` keeps the last of two values written under one key and says nothing;
an author who wrote a key twice lost the first value without a word. These helpers
remember such keys while parsing and name them afterwards, each at its path.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dicebound.problems import Path, Problem

__all__ = ["keyed_twice", "keys_written_twice"]


class _KeyedTwice(dict[str, Any]):
    """A JSON object that remembers the keys its text wrote more than once."""

    twice: tuple[str, ...] = ()


def keyed_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An ``object_pairs_hook`` for ``json.loads``: the object, marked when a key repeats."""
    seen: dict[str, Any] = {}
    twice: list[str] = []
    for key, value in pairs:
        if key in seen and key not in twice:
            twice.append(key)
        seen[key] = value
    if not twice:
        return seen
    marked = _KeyedTwice(seen)
    marked.twice = tuple(twice)
    return marked


def keys_written_twice(value: object, path: Path = ()) -> Iterator[Problem]:
    """A problem for every key written twice in one object, at the key's path."""
    if isinstance(value, dict):
        for key in getattr(value, "twice", ()):
            yield Problem(
                (*path, key),
                "duplicate-key",
                f'"{key}" is written twice in this object; JSON keeps only the last, so the '
                "first would be lost without a word. Keep one.",
            )
        for key, item in value.items():
            yield from keys_written_twice(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from keys_written_twice(item, (*path, i))
