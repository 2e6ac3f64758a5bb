"""The shape of a character file, as the spec nodes of ``ruleset.spec``.

The ruleset's shape is ``compiler.schema``; this is the character file's
(docs/design/format.md "Characters"). The parts whose shape needs no ruleset are nodes
made once (``FILE``, ``SHEET``, ``BUILD``, ``LIVE``...); the parts a ruleset names and
words (a field's type and range, a pool's label) are made from its declarations when the
loader reaches them (``field_value``, ``pool``, ``wounds``...). What a file must be beyond its
shape, against the ruleset (ids it declares, maxima the build gives), is the loader's
cross-checks in ``character``. Every sentence names what it is about: ``The sheet must
be an object, not 3.``
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache

from dicebound.problem_codes import (
    BAD_TEXT,
    NOT_WHOLE,
    TOO_LARGE,
    TOO_LONG,
    TOO_SHORT,
    TOO_SMALL,
    UNKNOWN_VALUE,
    WRONG_TYPE,
)
from dicebound.problems import Path, Problem, did_you_mean
from dicebound.ruleset.model import Field, ListColumn
from dicebound.ruleset.spec import (
    Arr,
    Bool,
    Custom,
    JsonSchema,
    Named,
    Node,
    Obj,
    describe,
    is_int,
    is_number,
)

__all__ = [
    "BUILD",
    "CONDITIONS",
    "FILE",
    "LIVE",
    "NAME_MAX",
    "OVERFLOW",
    "PARTS",
    "SHEET",
    "VERSION",
    "Number",
    "choice",
    "field_value",
    "holds",
    "number",
    "pool",
    "row",
    "rows",
    "show",
    "text",
    "wounds",
]

NAME_MAX = 100
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]")
_TEXT_CAP = {"text": 500, "longtext": 4000, "dice": 40}


def show(value: object) -> str:
    """``describe``, safe for numbers too long to print."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
        return "a very large number"
    return describe(value)


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


class Number(Node):
    """A number (a whole one unless ``whole`` is False) within ``lo``..``hi``, ``what``
    naming it in each sentence."""

    def __init__(
        self, what: str, lo: float | None = None, hi: float | None = None, whole: bool = True
    ) -> None:
        self.what = what
        self.lo = lo
        self.hi = hi
        self.whole = whole

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        problem = self.problem(value, path)
        return iter(()) if problem is None else iter((problem,))

    def problem(self, value: object, path: Path) -> Problem | None:
        """The one thing wrong with ``value``, or None."""
        what = self.what
        said = "a whole number" if self.whole else "a number"
        if not is_number(value):
            return Problem(path, WRONG_TYPE, f"{what} must be {said}, not {show(value)}.")
        if self.whole and not is_int(value):
            return Problem(path, NOT_WHOLE, f"{what} must be {said}, not {show(value)}.")
        assert isinstance(value, int | float)
        number = int(value) if self.whole else value
        if self.lo is not None and number < self.lo:
            said = f"{show(number)} is below {what}'s minimum {_num(self.lo)}."
            return Problem(path, TOO_SMALL, said)
        if self.hi is not None and number > self.hi:
            said = f"{show(number)} is above {what}'s maximum {_num(self.hi)}."
            return Problem(path, TOO_LARGE, said)
        return None

    def schema(self) -> JsonSchema:
        out: JsonSchema = {"type": "integer" if self.whole else "number"}
        if self.lo is not None:
            out["minimum"] = self.lo
        if self.hi is not None:
            out["maximum"] = self.hi
        return out


class _Text(Node):
    """A string of at most ``cap`` characters, ``what`` naming it (no cap: any string,
    what it must name being the ruleset's to say)."""

    needs = (str, "a string")

    def __init__(self, what: str = "", cap: int | None = None) -> None:
        self.what = what
        self.cap = cap

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        if self.cap is not None and isinstance(value, str) and len(value) > self.cap:
            said = f"{self.what} takes at most {self.cap} characters, not {len(value)}."
            yield Problem(path, TOO_LONG, said)

    def schema(self) -> JsonSchema:
        return {"type": "string"} if self.cap is None else {"type": "string", "maxLength": self.cap}


class _Choice(Node):
    """One of ``values``, ``what`` naming the field, column or state."""

    needs = (str, "a string")

    def __init__(self, what: str, values: Sequence[str]) -> None:
        self.what = what
        self.values = values

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        if isinstance(value, str) and value not in self.values:
            choices = ", ".join(f'"{v}"' for v in self.values)
            said = f"{show(value)} is not one of {self.what}'s values ({choices})."
            yield Problem(path, UNKNOWN_VALUE, said + did_you_mean(value, self.values))

    def schema(self) -> JsonSchema:
        return {"enum": list(self.values)}


@lru_cache(maxsize=4096)
def text(what: str, cap: int) -> Named:
    """A live text or a text cell of at most ``cap`` characters."""
    return Named(what, _Text(what, cap), show=show)


@lru_cache(maxsize=4096)
def choice(what: str, values: tuple[str, ...]) -> Named:
    """An enum's or a live state's value."""
    return Named(what, _Choice(what, values), show=show)


def field_value(decl: Field | ListColumn, label: str) -> Node:
    """What a field or a list column holds, by its declaration."""
    if decl.type == "number":
        return number(label, decl.min, decl.max, whole=decl.integer)
    if decl.type == "boolean":
        return _true_or_false(label)
    if decl.type == "enum":
        return choice(label, decl.values)
    cap = decl.max_length if decl.max_length is not None else _TEXT_CAP.get(decl.type, 4000)
    return text(label, cap)


@lru_cache(maxsize=4096)
def number(
    what: str, lo: float | None = None, hi: float | None = None, whole: bool = True
) -> Number:
    """A ``Number``, made once for each wording and range (a file's values are checked
    by the same few nodes, not a node each)."""
    return Number(what, lo, hi, whole)


@lru_cache(maxsize=4096)
def _true_or_false(what: str) -> Named:
    return Named(what, Bool(), show=show)


def _name(value: object, path: Path) -> Iterator[Problem]:
    """A character's name: one line of 1 to ``NAME_MAX`` characters."""
    if not isinstance(value, str):
        yield Problem(path, WRONG_TYPE, f"The name must be a string, not {show(value)}.")
    elif not value.strip():
        yield Problem(path, TOO_SHORT, "The name may not be empty.")
    elif len(value) > NAME_MAX:
        yield Problem(path, TOO_LONG, f"The name has {len(value)} characters; at most {NAME_MAX}.")
    elif _CONTROL.search(value):
        yield Problem(path, BAD_TEXT, f"The name {show(value)} must be a single line.")


class _ReadOn(Node):
    """A value the loader reads on, against the ruleset: its shape holds no more."""

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        return iter(())

    def schema(self) -> JsonSchema:
        return {}


READ_ON = _ReadOn()


class _Entries(Node):
    """An object of ids the ruleset declares: which it may hold is a cross-check."""

    needs = (dict, "an object")

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        return iter(())

    def schema(self) -> JsonSchema:
        return {"type": "object"}


def obj(
    subject: str,
    keys: Mapping[str, Node] | Sequence[str],
    missing: Mapping[str, str] | None = None,
) -> Named:
    """An object of these keys (the ``missing`` ones required, each with its sentence)."""
    props = dict(keys) if isinstance(keys, Mapping) else dict.fromkeys(keys, READ_ON)
    required = tuple(missing or ())
    return Named(subject, Obj(props, required=required, missing=missing), show=show)


def id_map(subject: str) -> Named:
    """An object of ids the ruleset declares (or does not: a cross-check)."""
    return Named(subject, _Entries(), show=show)


def texts(subject: str, wanted: str, item: str, item_wanted: str) -> Named:
    """A list of strings, each naming something the ruleset declares."""
    each = Named(item, _Text(), wanted=item_wanted, show=show)
    return Named(subject, Arr(each), wanted=wanted, show=show)


FILE = obj(
    "A character file",
    {"name": Custom(_name, {"type": "string"}), "sheet": READ_ON, "live": READ_ON},
    missing={"name": 'A character needs a "name".'},
)
VERSION = Number("The sheet version", 1)
SHEET = obj(
    "The sheet",
    {"v": VERSION, "build": READ_ON},
    missing={
        "v": 'The sheet needs "v", the sheet version of its build.',
        "build": 'The sheet needs a "build".',
    },
)
BUILD_PARTS = ("abilities", "skills", "saves", "bonuses", "fields", "lists")
LIVE_PARTS = ("pools", "tracks", "wounds", "text", "conditions", "states")
BUILD = obj("The build", BUILD_PARTS)
LIVE = obj("The live state", LIVE_PARTS)
PARTS = {
    name: id_map(name)
    for name in (*BUILD_PARTS, *LIVE_PARTS)
    if name != "conditions"  # a list, not a map
}
CONDITIONS = texts("conditions", "a list of condition ids", "A condition", "a condition id")
OVERFLOW = Number("overflow", 0)


def holds(node: Node, value: object) -> bool:
    """``value`` has no problem of ``node``'s."""
    return next(node.check(value, ()), None) is None


@lru_cache(maxsize=4096)
def pool(key: str, label: str) -> Named:
    """A pool's entry in the live state: its value, and temporary points."""
    return obj(
        f"The pool {key}", ("value", "temp"), {"value": f'The pool {label} needs a "value".'}
    )


@lru_cache(maxsize=4096)
def wounds(label: str) -> Named:
    """A wound track's entry in the live state: its marks, and overflow."""
    marks = texts("marks", "a list of kind ids", "A mark", "a kind id")
    return obj(
        f"The wounds of {label}",
        {"marks": marks, "overflow": OVERFLOW},
        {"marks": f'The wounds of {label} need "marks".'},
    )


@lru_cache(maxsize=4096)
def rows(label: str) -> Named:
    """A list's rows on the build."""
    return Named(f"The list {label}", Arr(READ_ON), "a list of rows", show)


@lru_cache(maxsize=4096)
def row(label: str) -> Named:
    """One row of a list: its cells by column id."""
    return id_map(f"A row of {label}")
