"""Small spec nodes the ruleset file's shape is built from: dice notation, step tables,
lists whose items may not repeat, objects whose shape one key picks, and the like.

They live apart from ``compiler.schema`` so the shapes of the larger blocks (the
``combat`` block, bestiary creatures) can be written in modules of their own that the
whole file's shape then imports.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from dicebound.problem_codes import (
    BAD_DICE,
    BAD_TEXT,
    DUPLICATE_VALUE,
    MISSING_KEY,
    NOT_ASCENDING,
    TOO_FEW,
    TOO_LONG,
    TOO_MANY,
    WRONG_TYPE,
)
from dicebound.problems import Path, Problem
from dicebound.ruleset.spec import (
    Arr,
    Custom,
    Enum,
    Id,
    Int,
    JsonSchema,
    Map,
    Node,
    Num,
    Obj,
    Str,
    describe,
    is_number,
)

__all__ = [
    "ANYTHING",
    "BOX_TABLE",
    "DICE",
    "DICE_PATTERN",
    "HIDE_WHEN",
    "LABEL",
    "SCALAR",
    "STEP_TABLE",
    "UNTRAINED",
    "Tagged",
    "accept_anything",
    "distinct",
    "no_quote",
    "nonempty",
    "step_table",
    "wrong_type_of",
]

DICE_PATTERN = r"^[1-9]\d{0,2}d(?:[2-9]|[1-9]\d{1,3})(?:[+-]\d{1,4})?$"


def wrong_type_of(path: Path, wanted: str, value: object) -> Problem:
    return Problem(path, WRONG_TYPE, f"must be {wanted}, not {describe(value)}.")


def accept_anything(value: object, path: Path) -> Iterator[Problem]:
    return iter(())


ANYTHING: Node = Custom(accept_anything, {})
"""Any JSON value (keys of ``mechanics`` dicebound keeps but does not read)."""


def distinct(node: Arr, noun: str = "value") -> Custom:
    """A list whose scalar items may not repeat."""

    def check(value: object, path: Path) -> Iterator[Problem]:
        yield from node.check(value, path)
        if not isinstance(value, list):
            return
        seen: dict[object, int] = {}
        for i, item in enumerate(value):
            if isinstance(item, str):
                if item in seen:
                    yield Problem(
                        (*path, i),
                        DUPLICATE_VALUE,
                        f"{describe(item)} is already item {seen[item]}; each {noun} is listed "
                        "once.",
                    )
                else:
                    seen[item] = i

    json = node.schema()
    json["uniqueItems"] = True
    return Custom(check, json)


def nonempty(node: Map, noun: str) -> Custom:
    """A map with at least one entry."""

    def check(value: object, path: Path) -> Iterator[Problem]:
        yield from node.check(value, path)
        if isinstance(value, dict) and not [k for k in value if k != "$comment"]:
            yield Problem(path, TOO_FEW, f"needs at least one {noun}.")

    json = node.schema()
    json["minProperties"] = 1
    return Custom(check, json)


def no_quote(node: Str) -> Custom:
    """A one-line text that also holds no double quote (the sheet command quotes it)."""

    def check(value: object, path: Path) -> Iterator[Problem]:
        problems = list(node.check(value, path))
        yield from problems
        if not problems and isinstance(value, str) and '"' in value:
            yield Problem(
                path,
                BAD_TEXT,
                "may not contain a double quote, which the sheet command uses to quote it.",
            )

    json = node.schema()
    json["pattern"] = '^[^"]*$'
    return Custom(check, json)


class Tagged(Node):
    """An object whose shape one key picks: a field's ``type``, a derived value's ``op``.

    Each option is a strict ``Obj`` holding the tag as a ``Const``; a missing or unknown
    tag is one problem at the tag, with a "did you mean".
    """

    def __init__(self, tag: str, options: Mapping[str, Node]) -> None:
        self.tag = tag
        self.options = options

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        if not isinstance(value, dict):
            yield wrong_type_of(path, "an object", value)
            return
        if self.tag not in value:
            names = ", ".join(f'"{k}"' for k in self.options)
            yield Problem(
                path, MISSING_KEY, f'the key "{self.tag}" is required here: one of {names}.'
            )
            return
        picked = value[self.tag]
        node = self.options.get(picked) if isinstance(picked, str) else None
        if node is None:
            yield from Enum(tuple(self.options)).check(picked, (*path, self.tag))
            return
        yield from node.check(value, path)

    def schema(self) -> JsonSchema:
        return {"anyOf": [node.schema() for node in self.options.values()]}


def step_table(value_node: Node, hi: int) -> Custom:
    """``[[threshold, value], ...]``: 1..hi rows, thresholds strictly ascending (§5.6)."""
    threshold_node = Num()

    def check(value: object, path: Path) -> Iterator[Problem]:
        if not isinstance(value, list):
            yield wrong_type_of(path, "a list of [threshold, value] rows", value)
            return
        if not value:
            yield Problem(path, TOO_FEW, "needs at least 1 row, not 0.")
        if len(value) > hi:
            yield Problem(path, TOO_MANY, f"takes at most {hi} rows, not {len(value)}.")
        previous: float | None = None
        for i, row in enumerate(value):
            here = (*path, i)
            if not isinstance(row, list) or len(row) != 2:
                shown = f"{len(row)} values" if isinstance(row, list) else describe(row)
                yield Problem(here, WRONG_TYPE, f"must be a [threshold, value] pair, not {shown}.")
                continue
            threshold, number = row
            yield from threshold_node.check(threshold, (*here, 0))
            yield from value_node.check(number, (*here, 1))
            if not is_number(threshold):
                continue
            assert isinstance(threshold, int | float)
            if previous is not None and threshold <= previous:
                yield Problem(
                    (*here, 0),
                    NOT_ASCENDING,
                    f"{describe(threshold)} is not above the threshold before it, "
                    f"{describe(previous)}; thresholds must rise strictly.",
                )
            previous = threshold

    json: JsonSchema = {
        "type": "array",
        "minItems": 1,
        "maxItems": hi,
        "items": {
            "type": "array",
            "minItems": 2,
            "maxItems": 2,
            "items": [threshold_node.schema(), value_node.schema()],
        },
    }
    return Custom(check, json)


STEP_TABLE = step_table(Num(), 100)
BOX_TABLE = step_table(Int(-1000, 0), 40)

LABEL = Str(hi=80)


def _check_scalar(value: object, path: Path) -> Iterator[Problem]:
    if isinstance(value, bool) or is_number(value):
        return
    if isinstance(value, str):
        if len(value) > 80:
            yield Problem(path, TOO_LONG, f"must be at most 80 characters, not {len(value)}.")
        return
    yield wrong_type_of(path, "a string, a number, or true or false", value)


SCALAR = Custom(
    _check_scalar,
    {"anyOf": [{"type": "string", "maxLength": 80}, {"type": "number"}, {"type": "boolean"}]},
)

HIDE_WHEN = Obj(
    {"field": Id(), "equals": SCALAR, "notEquals": SCALAR, "in": Arr(SCALAR, 1, 24)},
    required=("field",),
    exactly_one=("equals", "notEquals", "in"),
)

_UNTRAINED_WORDS = Enum(("normal", "harder", "refuse"))
_UNTRAINED_BY = Obj({"by": Int(-20, 20)}, required=("by",))


def _check_untrained(value: object, path: Path) -> Iterator[Problem]:
    if isinstance(value, dict):
        yield from _UNTRAINED_BY.check(value, path)
    elif isinstance(value, str):
        yield from _UNTRAINED_WORDS.check(value, path)
    else:
        yield wrong_type_of(path, '"normal", "harder", "refuse" or { "by": N }', value)


UNTRAINED = Custom(_check_untrained, {"anyOf": [_UNTRAINED_WORDS.schema(), _UNTRAINED_BY.schema()]})


def _check_dice(value: object, path: Path) -> Iterator[Problem]:
    if not isinstance(value, str):
        yield wrong_type_of(path, "dice notation such as 2d6", value)
    elif len(value) > 40 or not re.match(DICE_PATTERN, value):
        yield Problem(
            path, BAD_DICE, f"{describe(value)} is not dice notation such as 2d6 or 1d8+2."
        )


DICE = Custom(_check_dice, {"type": "string", "maxLength": 40, "pattern": DICE_PATTERN})
