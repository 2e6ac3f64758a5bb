"""Reading JSON text the way an author means it.

Python's ``json`` keeps the last of two values written under one key and says nothing;
an author who wrote a key twice lost the first value without a word. These helpers
remember such keys while parsing and name them afterwards, each at its path.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from dicebound.problem_codes import DUPLICATE_KEY
from dicebound.problems import Path, PathPart, Problem

__all__ = [
    "MAX_DEPTH",
    "Unreadable",
    "keyed_twice",
    "keys_written_twice",
    "line_of",
    "places_of",
    "read_json",
    "too_long_a_number",
    "where_unreadable",
]


class _KeyedTwice(dict[str, Any]):
    """A JSON object that remembers the keys its text wrote more than once."""

    twice: tuple[str, ...] = ()


def keyed_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An ``object_pairs_hook`` for ``json.loads``: the object, marked when a key repeats."""
    seen: dict[str, Any] = {}
    twice: dict[str, None] = {}  # a dict, so a key's second look is not a list scan
    for key, value in pairs:
        if key in seen:
            twice[key] = None
        seen[key] = value
    if not twice:
        return seen
    marked = _KeyedTwice(seen)
    marked.twice = tuple(twice)
    return marked


def keys_written_twice(value: object, path: Path = ()) -> Iterator[Problem]:
    """A problem for every key written twice in one object, at the key's path, in the
    order the file writes them. Walked without recursion: a problem costs no climb
    through the generators of every object above it."""
    stack: list[tuple[Path, object]] = [(path, value)]
    while stack:
        here, node = stack.pop()
        if isinstance(node, dict):
            for key in getattr(node, "twice", ()):
                yield Problem(
                    (*here, key),
                    DUPLICATE_KEY,
                    f'"{key}" is written twice in this object; JSON keeps only the last, so '
                    "the first would be lost without a word. Keep one.",
                )
            below: list[tuple[PathPart, object]] = list(node.items())
        elif isinstance(node, list):
            below = list(enumerate(node))
        else:
            continue
        stack.extend(
            ((*here, part), item) for part, item in reversed(below) if isinstance(item, dict | list)
        )


# ── reading JSON a person or a model wrote ────────────────────────────────────


class Unreadable(ValueError):
    """Text that is not JSON dicebound reads; the message completes "the file ..."."""


MAX_DEPTH = 100
"""How deep objects and lists may nest in a file dicebound reads. A ruleset nests about
ten deep; bounded, a path is never longer than this, so a file of thousands of problems
deep down costs no more than one near the top."""

_TOO_DEEP = f"is nested too deeply to read (more than {MAX_DEPTH} objects and lists deep)."


def _nests_deeper(value: object, most: int) -> bool:
    """Whether ``value`` nests more than ``most`` objects and lists, walked without
    recursion."""
    if not isinstance(value, dict | list):
        return False
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        for item in node.values() if isinstance(node, dict) else node:  # type: ignore[attr-defined]
            if isinstance(item, dict | list):
                if depth >= most:
                    return True
                stack.append((item, depth + 1))
    return False


class _Constant(Exception):
    def __init__(self, word: str) -> None:
        super().__init__(word)
        self.word = word


def _refuse_constant(word: str) -> Any:
    raise _Constant(word)


def read_json(text: str) -> tuple[Any, list[Problem]]:
    """Parse JSON text as an author means it: the value, and a problem for every key
    written twice. ``NaN`` and ``Infinity`` are not JSON; nesting deeper than
    ``MAX_DEPTH``, and numbers longer than Python reads, are refused with a sentence.

    Raises:
        Unreadable: the text is not JSON dicebound reads (the message says why).
    """
    twice = False

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal twice
        value = dict(pairs)
        if len(value) == len(pairs):
            return value
        twice = True
        return keyed_twice(pairs)

    try:
        value = json.loads(
            text.removeprefix("\ufeff"),
            parse_constant=_refuse_constant,
            object_pairs_hook=pairs_hook,
        )
    except json.JSONDecodeError as exc:
        raise Unreadable(
            f"is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}."
        ) from None
    except _Constant as exc:
        raise Unreadable(f"is not JSON: {exc.word} is not a JSON number.") from None
    except RecursionError:
        raise Unreadable(_TOO_DEEP) from None
    except ValueError:  # the one other refusal: a number with more digits than Python reads
        raise Unreadable(too_long_a_number(text)) from None
    if _nests_deeper(value, MAX_DEPTH):
        raise Unreadable(_TOO_DEEP)
    # the walk for keys written twice only when some object wrote one
    return value, list(keys_written_twice(value)) if twice else []


def where_unreadable(text: str) -> tuple[int, int] | None:
    """Where ``text`` stops being JSON that ``read_json`` reads, as (line, column) from
    1, the place its refusal's sentence names; None when it reads, or when the refusal
    has no one place (nesting too deep). Parsed again: only a refused file asks."""
    try:
        json.loads(text.removeprefix("\ufeff"), parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        return exc.lineno, exc.colno
    except _Constant as exc:
        found = re.search(rf"(?<![\w\"]){re.escape(exc.word)}", text)
        return _line_column(text, found.start()) if found else None
    except RecursionError:
        return None
    except ValueError:
        most = sys.get_int_max_str_digits()
        long = re.search(rf"[0-9]{{{most + 1},}}", text)
        return _line_column(text, long.start()) if long else None
    return None


def too_long_a_number(text: str = "") -> str:
    """That ``text`` writes a number too long to read, and where, in dicebound's words
    (Python's own sentence names a function of its interpreter); completes "the file
    ..." or "the body ..."."""
    most = sys.get_int_max_str_digits()
    found = re.search(rf"[0-9]{{{most + 1},}}", text)
    where = ""
    if found is not None:
        line, column = _line_column(text, found.start())
        where = f" at line {line}, column {column}"
    return f"holds a number of more than {most:,} digits{where}, longer than dicebound reads."


# ── where a path is written ──────────────────────────────────────────────────

_SPACE = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"')
_TOKEN = re.compile(r"[^ \t\r\n,\]}]+")
_DEEPEST = 200


class _Wanted(dict[PathPart, "_Wanted"]):
    """The paths to place, as a tree of their parts: the scanner records a value's
    offset only where the tree goes, so it builds no path for the rest of the text.
    ``asked`` marks a path asked for, not only an ancestor of one."""

    asked = False


class _Every(_Wanted):
    """Every path is wanted (``line_of``'s one path, found among all)."""

    def get(self, key: PathPart, default: object = None) -> _Wanted:
        return self


class _Scanner:
    """Walks JSON text once and notes the offset where each wanted path's value (or, in
    an object, its key) is first written. It never raises: where the text stops being
    JSON it stops, so a broken file still gives the places of everything before the
    break."""

    def __init__(self, text: str, wanted: _Wanted, limit: int, asked: int = -1) -> None:
        self.text = text
        self.at = 0
        self.limit = limit
        self.wanted = wanted
        self.found: dict[Path, int] = {}
        self.left = asked  # paths asked for and not found yet: at 0 the scan is done

    def _note(self, path: Path, wanted: _Wanted, at: int) -> None:
        if path not in self.found:
            self.found[path] = at
            if wanted.asked:
                self.left -= 1

    def _skip(self) -> None:
        self.at = _SPACE.match(self.text, self.at).end()  # type: ignore[union-attr]

    def _string(self) -> str | None:
        """The string at ``at`` as JSON reads it (None where it is not one), moving past."""
        match = _STRING.match(self.text, self.at)
        if match is None:
            return None
        self.at = match.end()
        raw = match.group()
        if "\\" not in raw:
            return raw[1:-1]
        decoded: str = json.loads(raw)
        return decoded

    def value(self, path: Path, wanted: _Wanted | None, depth: int = 0) -> bool:
        """Scan one value at ``path``; False where the text stops being JSON. Offsets
        are noted only while ``wanted`` (the tree below ``path``) is not None."""
        self._skip()
        if self.at >= len(self.text) or len(self.found) >= self.limit or depth > _DEEPEST:
            return False
        if wanted is not None:
            self._note(path, wanted, self.at)
            if self.left == 0:
                return False
        ch = self.text[self.at]
        if ch == "{":
            return self._object(path, wanted, depth)
        if ch == "[":
            return self._array(path, wanted, depth)
        if ch == '"':
            return self._string() is not None
        token = _TOKEN.match(self.text, self.at)
        if token is None:
            return False
        self.at = token.end()
        return True

    def _object(self, path: Path, wanted: _Wanted | None, depth: int) -> bool:
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
            below = None if wanted is None else wanted.get(key)
            here = path if below is None else (*path, key)
            if below is not None:
                self._note(here, below, key_at)
                if self.left == 0:
                    return False
            self._skip()
            if not self.text.startswith(":", self.at):
                return False
            self.at += 1
            if not self.value(here, below, depth + 1):
                return False
            self._skip()
            if self.text.startswith(",", self.at):
                self.at += 1
                continue
            if self.text.startswith("}", self.at):
                self.at += 1
                return True
            return False

    def _array(self, path: Path, wanted: _Wanted | None, depth: int) -> bool:
        self.at += 1
        self._skip()
        if self.text.startswith("]", self.at):
            self.at += 1
            return True
        index = 0
        while True:
            below = None if wanted is None else wanted.get(index)
            here = path if below is None else (*path, index)
            if not self.value(here, below, depth + 1):
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


def _nearest(found: Mapping[Path, int], path: Path) -> int | None:
    """The offset of ``path``, or of its nearest ancestor the text writes."""
    for cut in range(len(path), -1, -1):
        offset = found.get(path[:cut])
        if offset is not None:
            return offset
    return None


def places_of(text: str, paths: Iterable[Path]) -> dict[Path, tuple[int, int]]:
    """Where each of ``paths`` is written in the JSON ``text``, as (line, column), both
    from 1, as ``line_of`` places one, in one pass over the text however many paths
    there are: their offsets in one scan, then every offset's line in one sweep."""
    paths = list(dict.fromkeys(paths))
    wanted = _Wanted()
    for path in paths:
        node = wanted
        for part in path:
            node = node.setdefault(part, _Wanted())
        node.asked = True
    scanner = _Scanner(text, wanted, limit=len(text) + 1, asked=len(paths))
    scanner.value((), wanted)  # it stops once every path asked for is found
    offsets = {path: _nearest(scanner.found, path) for path in paths}
    lines: dict[int, tuple[int, int]] = {}
    line, line_start, previous = 1, 0, 0
    for offset in sorted({o for o in offsets.values() if o is not None}):
        line += text.count("\n", previous, offset)
        line_start = text.rfind("\n", previous, offset) + 1 or line_start
        lines[offset] = (line, offset - line_start + 1)
        previous = offset
    return {path: (1, 1) if o is None else lines[o] for path, o in offsets.items()}


def line_of(text: str, path: Path, *, limit: int = 100_000) -> tuple[int, int]:
    """Where ``path`` is written in the JSON ``text``, as (line, column), both from 1:
    the key of an object's member, or the value itself in an array or at the top. A path
    the text does not hold gives the place of its nearest written ancestor (a missing
    key's object); a text that is not JSON still places what comes before the break.
    It scans the text for this one path: ``places_of`` places many in one pass."""
    scanner = _Scanner(text, _Every(), limit)
    scanner.value((), scanner.wanted)
    offset = _nearest(scanner.found, path)
    return (1, 1) if offset is None else _line_column(text, offset)


def _line_column(text: str, offset: int) -> tuple[int, int]:
    """The (line, column) of ``offset`` in ``text``, both from 1."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
