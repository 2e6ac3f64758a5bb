"""Reading JSON text the way an author means it.

Python's ``json`` keeps the last of two values written under one key and says nothing;
an author who wrote a key twice lost the first value without a word. These helpers
remember such keys while parsing and name them afterwards, each at its path.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from dicebound.problems import Path, Problem

__all__ = ["Unreadable", "keyed_twice", "keys_written_twice", "line_of", "read_json"]


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


# ── reading JSON a person or a model wrote ────────────────────────────────────


class Unreadable(ValueError):
    """Text that is not JSON dicebound reads; the message completes "the file ..."."""


class _Constant(Exception):
    def __init__(self, word: str) -> None:
        super().__init__(word)
        self.word = word


def _refuse_constant(word: str) -> Any:
    raise _Constant(word)


def read_json(text: str) -> tuple[Any, list[Problem]]:
    """Parse JSON text as an author means it: the value, and a problem for every key
    written twice. ``NaN`` and ``Infinity`` are not JSON; nesting deeper than Python
    reads, and numbers longer than it reads, are refused with a sentence.

    Raises:
        Unreadable: the text is not JSON dicebound reads (the message says why).
    """
    try:
        value = json.loads(
            text.removeprefix("\ufeff"),
            parse_constant=_refuse_constant,
            object_pairs_hook=keyed_twice,
        )
        return value, list(keys_written_twice(value))
    except json.JSONDecodeError as exc:
        raise Unreadable(
            f"is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}."
        ) from None
    except _Constant as exc:
        raise Unreadable(f"is not JSON: {exc.word} is not a JSON number.") from None
    except RecursionError:
        raise Unreadable("is nested too deeply to read.") from None
    except ValueError as exc:  # a number with more digits than Python reads
        raise Unreadable(f"is not JSON dicebound can read: {exc}.") from None


# ── where a path is written ──────────────────────────────────────────────────

_WHITESPACE = " \t\r\n"


class _Scanner:
    """Walks JSON text and notes the offset where each path's value (or, in an object,
    its key) is written. It never raises: where the text stops being JSON it stops, so
    a broken file still gives the lines of everything before the break."""

    def __init__(self, text: str, limit: int) -> None:
        self.text = text
        self.at = 0
        self.limit = limit
        self.found: dict[Path, int] = {}

    def _skip(self) -> None:
        while self.at < len(self.text) and self.text[self.at] in _WHITESPACE:
            self.at += 1

    def _string(self) -> str | None:
        start = self.at + 1
        end = start
        while end < len(self.text):
            ch = self.text[end]
            if ch == "\\":
                end += 2
                continue
            if ch == '"':
                self.at = end + 1
                try:
                    decoded: str = json.loads(self.text[start - 1 : end + 1])
                except ValueError:
                    return None
                return decoded
            end += 1
        self.at = len(self.text)
        return None

    def value(self, path: Path, depth: int = 0) -> bool:
        """Scan one value at ``path``; False where the text stops being JSON."""
        self._skip()
        if self.at >= len(self.text) or len(self.found) >= self.limit or depth > 200:
            return False
        self.found.setdefault(path, self.at)
        ch = self.text[self.at]
        if ch == "{":
            return self._object(path, depth)
        if ch == "[":
            return self._array(path, depth)
        if ch == '"':
            return self._string() is not None
        start = self.at
        while self.at < len(self.text) and self.text[self.at] not in _WHITESPACE + ",]}":
            self.at += 1
        return self.at > start

    def _object(self, path: Path, depth: int) -> bool:
        self.at += 1
        self._skip()
        if self.text.startswith("}", self.at):
            self.at += 1
            return True
        while True:
            self._skip()
            if not self.text.startswith('"', self.at):
                return False
            key_at = self.at
            key = self._string()
            if key is None:
                return False
            self.found.setdefault((*path, key), key_at)
            self._skip()
            if not self.text.startswith(":", self.at):
                return False
            self.at += 1
            self._skip()
            value_at = self.at
            if not self.value((*path, key), depth + 1):
                return False
            self.found[(*path, key)] = min(self.found[(*path, key)], value_at, key_at)
            self._skip()
            if self.text.startswith(",", self.at):
                self.at += 1
                continue
            if self.text.startswith("}", self.at):
                self.at += 1
                return True
            return False

    def _array(self, path: Path, depth: int) -> bool:
        self.at += 1
        self._skip()
        if self.text.startswith("]", self.at):
            self.at += 1
            return True
        index = 0
        while True:
            if not self.value((*path, index), depth + 1):
                return False
            index += 1
            self._skip()
            if self.text.startswith(",", self.at):
                self.at += 1
                continue
            if self.text.startswith("]", self.at):
                self.at += 1
                return True
            return False


def line_of(text: str, path: Path, *, limit: int = 100_000) -> tuple[int, int]:
    """Where ``path`` is written in the JSON ``text``, as (line, column), both from 1:
    the key of an object's member, or the value itself in an array or at the top. A path
    the text does not hold gives the place of its nearest written ancestor (a missing
    key's object); a text that is not JSON still places what comes before the break."""
    scanner = _Scanner(text, limit)
    scanner.value(())
    for cut in range(len(path), -1, -1):
        offset = scanner.found.get(path[:cut])
        if offset is not None:
            line = text.count("\n", 0, offset) + 1
            column = offset - (text.rfind("\n", 0, offset) + 1) + 1
            return line, column
    return 1, 1
