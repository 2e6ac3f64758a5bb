"""An immutable mapping a character's live state is made of: hashable, compared by its
items in order, and cheap to build. Kept apart from ``dicebound.sheet``, which
re-exports it."""

from __future__ import annotations

from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from typing import Any, TypeVar

__all__ = ["FrozenMap", "empty_map", "frozen_map"]

K = TypeVar("K")
V = TypeVar("V")


class FrozenMap(Mapping[K, V]):
    """An immutable, hashable mapping: the maps inside a ``Character``, so a character is
    a value (equal by content, hashable, safe to share)."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[K, V] | Iterable[tuple[K, V]] = ()) -> None:
        self._items: dict[K, V] = dict(items)

    def __getitem__(self, key: K) -> V:
        return self._items[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(frozenset(self._items.items()))

    # The mixins' own ``get``, ``in``, views and ``==`` go through ``__getitem__`` key
    # by key in Python; the dict answers each in C (the same answers: its views are
    # read-only, and ``==`` compares the items as ``Mapping.__eq__`` does).

    def get(self, key: Any, default: Any = None) -> Any:
        return self._items.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def keys(self) -> KeysView[K]:
        return self._items.keys()

    def items(self) -> ItemsView[K, V]:
        return self._items.items()

    def values(self) -> ValuesView[V]:
        return self._items.values()

    def __eq__(self, other: object) -> bool:
        if type(other) is FrozenMap:
            return self._items == other._items
        if isinstance(other, Mapping):
            return self._items == dict(other.items())
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenMap({self._items!r})"


def frozen_map(items: Mapping[K, V] | Iterable[tuple[K, V]] = ()) -> Mapping[K, V]:
    """An immutable copy, so a value holding it stays immutable."""
    return FrozenMap(items)


def empty_map() -> Mapping[Any, Any]:
    return FrozenMap()
