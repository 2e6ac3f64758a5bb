"""A small declarative spec for JSON shapes, used twice: to check a file and to print
its JSON Schema.

Each node checks a value and yields ``Problem``s with one plain sentence each; the
walker adds the path on the way down (as jsonschema's ``descend`` does). Objects are
strict: an unknown key is refused with a "did you mean", and ``$comment`` is allowed
on every object. Cross-checks that a shape cannot express live in the compilers.
"""

from __future__ import annotations

import abc
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any

from dicebound.problem_codes import (
    BAD_ID,
    BAD_TEXT,
    DUPLICATE_ID,
    MISSING_KEY,
    NOT_ALLOWED,
    ONE_SOURCE,
    TOO_FEW,
    TOO_LONG,
    TOO_MANY,
    TOO_SHORT,
    WRONG_TYPE,
)
from dicebound.problems import (
    Path,
    Problem,
    did_you_mean,
    missing_key,
    too_large,
    too_small,
    unknown_key,
    wrong_type,
)

__all__ = [
    "ID_PATTERN",
    "KEBAB_PATTERN",
    "Arr",
    "Bool",
    "Const",
    "Custom",
    "Enum",
    "Id",
    "Int",
    "Kebab",
    "Loose",
    "Map",
    "Named",
    "Node",
    "Num",
    "Obj",
    "OneOf",
    "Str",
    "describe",
    "is_int",
    "is_number",
    "text_fault",
]

ID_PATTERN = r"^[a-z][a-z0-9_]*$"
KEBAB_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")

JsonSchema = dict[str, Any]


def is_int(value: object) -> bool:
    """A JSON integer (a whole float such as 3.0 counts; a boolean does not)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value) and value.is_integer()


def is_number(value: object) -> bool:
    """A finite JSON number (not a boolean)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value)


def describe(value: object) -> str:
    """A short rendering of a value for an error sentence."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return '"' + shown.replace("\n", "\\n") + '"'
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


_SURROGATE = re.compile("[\ud800-\udfff]")


def text_fault(text: str) -> str | None:
    """Why a single-line text that can reach the model is refused, or None."""
    if _CONTROL.search(text):
        return "must be a single line with no line breaks or control characters"
    if "[" in text or "]" in text:
        return "may not contain square brackets, which the Game Master's tags use"
    if "{{" in text or "}}" in text:
        return "may not contain double curly braces, which are macro syntax"
    return None


class Node(abc.ABC):
    """One shape. ``check`` yields problems; ``schema`` gives its JSON Schema.

    ``needs``, when set, is the one JSON type the shape takes and how a refusal names
    it: a value of another type gets only that refusal, so a list of thousands of such
    values is refused item by item without a check (and its generator) per item."""

    needs: tuple[type, str] | None = None

    @abc.abstractmethod
    def check(self, value: object, path: Path) -> Iterator[Problem]:
        """Yield every problem of ``value``, which stands at ``path``."""

    @abc.abstractmethod
    def schema(self) -> JsonSchema:
        """The JSON Schema of this shape."""


def _wrong_type(path: Path, wanted: str, value: object) -> Problem:
    if (
        value is None
        or isinstance(value, bool | float)
        or (isinstance(value, int | str) and len(str(value)) <= 40)
    ):
        return Problem(path, WRONG_TYPE, _wrong_scalar(wanted, value))
    return wrong_type(path, wanted, describe(value))


def _short_scalar(value: object) -> bool:
    if value is None or isinstance(value, bool | float):
        return True
    if isinstance(value, int):
        return -(10**40) < value < 10**40
    return isinstance(value, str) and len(value) <= 40


@lru_cache(maxsize=256, typed=True)
def _wrong_scalar(wanted: str, value: object) -> str:
    """The sentence for a scalar of the wrong type, made once for a file that writes
    the same wrong value thousands of times (typed: ``1`` and ``true`` differ)."""
    return f"must be {wanted}, not {describe(value)}."


class Int(Node):
    def __init__(self, lo: int | None = None, hi: int | None = None) -> None:
        self.lo = lo
        self.hi = hi

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        if not is_int(value):
            yield _wrong_type(path, "a whole number", value)
            return
        assert isinstance(value, int | float)
        if self.lo is not None and value < self.lo:
            yield too_small(path, self.lo, describe(value))
        if self.hi is not None and value > self.hi:
            yield too_large(path, self.hi, describe(value))

    def schema(self) -> JsonSchema:
        out: JsonSchema = {"type": "integer"}
        if self.lo is not None:
            out["minimum"] = self.lo
        if self.hi is not None:
            out["maximum"] = self.hi
        return out


class Num(Node):
    def __init__(
        self, lo: float | None = None, hi: float | None = None, above: float | None = None
    ) -> None:
        self.lo = lo
        self.hi = hi
        self.above = above

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        if not is_number(value):
            yield _wrong_type(path, "a number", value)
            return
        assert isinstance(value, int | float)
        if self.lo is not None and value < self.lo:
            yield too_small(path, self.lo, describe(value))
        if self.hi is not None and value > self.hi:
            yield too_large(path, self.hi, describe(value))
        if self.above is not None and value <= self.above:
            yield too_small(path, self.above, describe(value), above=True)

    def schema(self) -> JsonSchema:
        out: JsonSchema = {"type": "number"}
        if self.lo is not None:
            out["minimum"] = self.lo
        if self.hi is not None:
            out["maximum"] = self.hi
        if self.above is not None:
            out["exclusiveMinimum"] = self.above
        return out


class Bool(Node):
    needs = (bool, "true or false")

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        if not isinstance(value, bool):
            yield _wrong_type(path, "true or false", value)

    def schema(self) -> JsonSchema:
        return {"type": "boolean"}


class Str(Node):
    """A string. ``one_line`` applies the text hygiene every model-facing text follows."""

    needs = (str, "a string")

    def __init__(
        self,
        lo: int = 1,
        hi: int | None = None,
        pattern: str | None = None,
        pattern_says: str = "",
        one_line: bool = True,
    ) -> None:
        self.lo = lo
        self.hi = hi
        self.pattern = pattern
        self.pattern_says = pattern_says
        self.one_line = one_line

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        if not isinstance(value, str):
            yield _wrong_type(path, "a string", value)
            return
        lone = _SURROGATE.search(value)
        if lone is not None:
            yield Problem(
                path,
                BAD_TEXT,
                f"holds U+{ord(lone.group()):04X}, half of a character (a lone surrogate), "
                "which no text can be written out with.",
            )
            return
        if len(value) < self.lo:
            what = "may not be empty" if self.lo == 1 else f"must be at least {self.lo} characters"
            yield Problem(path, TOO_SHORT, f"{what}.")
        if self.hi is not None and len(value) > self.hi:
            yield Problem(
                path, TOO_LONG, f"must be at most {self.hi} characters, not {len(value)}."
            )
        if self.pattern is not None and value and not re.match(self.pattern, value):
            says = self.pattern_says or f"must match {self.pattern}"
            yield Problem(path, BAD_ID, f"{describe(value)} {says}.")
        elif self.one_line and value:
            fault = text_fault(value)
            if fault:
                yield Problem(path, BAD_TEXT, f"{fault}.")

    def schema(self) -> JsonSchema:
        out: JsonSchema = {"type": "string", "minLength": self.lo}
        if self.hi is not None:
            out["maxLength"] = self.hi
        if self.pattern is not None:
            out["pattern"] = self.pattern
        return out


def Id(hi: int = 40) -> Str:  # noqa: N802 - reads as a node type in specs
    """A sheet id: snake case starting with a letter."""
    return Str(
        lo=1,
        hi=hi,
        pattern=ID_PATTERN,
        pattern_says="is not an id: use lower-case letters, digits and _ , starting with a letter",
    )


def Kebab(hi: int = 80) -> Str:  # noqa: N802
    """A kebab-case id (ruleset and catalog entry ids)."""
    return Str(
        lo=1,
        hi=hi,
        pattern=KEBAB_PATTERN,
        pattern_says="is not an id: use lower-case words and digits joined by single hyphens",
    )


class Enum(Node):
    def __init__(self, values: Sequence[object]) -> None:
        self.values = values

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        if isinstance(value, bool) or value not in self.values:
            choices = ", ".join(describe(v) for v in self.values)
            hint = (
                did_you_mean(value, [str(v) for v in self.values]) if isinstance(value, str) else ""
            )
            yield Problem(
                path, NOT_ALLOWED, f"must be one of {choices}, not {describe(value)}.{hint}"
            )

    def schema(self) -> JsonSchema:
        return {"enum": list(self.values)}


class Const(Node):
    def __init__(self, value: object) -> None:
        self.value = value

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        if isinstance(value, bool) != isinstance(self.value, bool) or value != self.value:
            yield Problem(
                path, NOT_ALLOWED, f"must be {describe(self.value)}, not {describe(value)}."
            )

    def schema(self) -> JsonSchema:
        return {"const": self.value}


class Arr(Node):
    needs = (list, "a list")

    def __init__(
        self,
        item: Node,
        lo: int = 0,
        hi: int | None = None,
        unique_key: str | None = None,
        noun: str = "item",
    ) -> None:
        self.item = item
        self.lo = lo
        self.hi = hi
        self.unique_key = unique_key  # e.g. "id": items must not repeat it
        self.noun = noun

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        if not isinstance(value, list):
            yield _wrong_type(path, "a list", value)
            return
        if len(value) < self.lo:
            yield Problem(
                path, TOO_FEW, f"needs at least {self.lo} {self.noun}(s), not {len(value)}."
            )
        if self.hi is not None and len(value) > self.hi:
            yield Problem(
                path, TOO_MANY, f"takes at most {self.hi} {self.noun}(s), not {len(value)}."
            )
        seen: dict[object, int] = {}
        needs = self.item.needs
        for i, item in enumerate(value):
            if needs is not None and not isinstance(item, needs[0]):
                yield _wrong_type((*path, i), needs[1], item)
            else:
                yield from self.item.check(item, (*path, i))
            if self.unique_key is not None and isinstance(item, dict):
                key = item.get(self.unique_key)
                if isinstance(key, str | int) and not isinstance(key, bool):
                    if key in seen:
                        yield Problem(
                            (*path, i, self.unique_key),
                            DUPLICATE_ID,
                            f"{describe(key)} is already used by item {seen[key]}; each "
                            f"{self.unique_key} must be unique.",
                        )
                    else:
                        seen[key] = i

    def schema(self) -> JsonSchema:
        out: JsonSchema = {"type": "array", "items": self.item.schema()}
        if self.lo:
            out["minItems"] = self.lo
        if self.hi is not None:
            out["maxItems"] = self.hi
        return out


class Obj(Node):
    """A strict object. ``required`` keys must be present; others are optional."""

    needs = (dict, "an object")

    def __init__(
        self,
        props: Mapping[str, Node],
        required: Sequence[str] = (),
        at_least_one: Sequence[str] = (),
        exactly_one: Sequence[str] = (),
        root: bool = False,
        extra: Node | None = None,
        key_pattern: str | None = None,
        missing: Mapping[str, str] | None = None,
    ) -> None:
        self.props = props
        self.required = required
        self.missing = missing or {}  # a required key's own sentence, where it has one
        self.at_least_one = at_least_one
        self.exactly_one = exactly_one
        self.root = root  # the document root also allows "$schema"
        self.extra = extra  # a node for keys not in props (then any key is allowed)
        self.key_pattern = key_pattern

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        if not isinstance(value, dict):
            yield _wrong_type(path, "an object", value)
            return
        for key in self.required:
            if key not in value:
                said = self.missing.get(key)
                yield missing_key(path, key) if said is None else Problem(path, MISSING_KEY, said)
        for key, item in value.items():
            if key == "$comment" or (self.root and key == "$schema"):
                if key == "$schema" and not isinstance(item, str):
                    yield _wrong_type((*path, key), "a string", item)
                continue
            node = self.props.get(key)
            if node is not None:
                yield from node.check(item, (*path, key))
            elif self.extra is not None:
                if self.key_pattern is not None and not re.match(self.key_pattern, key):
                    yield Problem((*path, key), BAD_ID, f"{describe(key)} is not a valid key here.")
                yield from self.extra.check(item, (*path, key))
            else:
                yield unknown_key((*path, key), key, self.props)
        if self.at_least_one and not any(k in value for k in self.at_least_one):
            names = ", ".join(f'"{k}"' for k in self.at_least_one)
            yield Problem(path, MISSING_KEY, f"needs at least one of {names}.")
        if self.exactly_one:
            present = [k for k in self.exactly_one if k in value]
            if len(present) != 1:
                names = ", ".join(f'"{k}"' for k in self.exactly_one)
                yield Problem(
                    path,
                    ONE_SOURCE,
                    f"needs exactly one of {names}, not {len(present)}.",
                )

    def schema(self) -> JsonSchema:
        props: JsonSchema = {k: v.schema() for k, v in self.props.items()}
        props["$comment"] = {}
        if self.root:
            props["$schema"] = {"type": "string"}
        out: JsonSchema = {"type": "object", "properties": props}
        if self.required:
            out["required"] = list(self.required)
        if self.extra is None:
            out["additionalProperties"] = False
        else:
            out["additionalProperties"] = self.extra.schema()
        if self.exactly_one:
            out["oneOf"] = [{"required": [k]} for k in self.exactly_one]
        elif self.at_least_one:
            out["anyOf"] = [{"required": [k]} for k in self.at_least_one]
        return out


class Map(Node):
    """An object used as a map from ids to values."""

    needs = (dict, "an object")

    def __init__(self, value: Node, hi: int | None = None, key_pattern: str | None = None) -> None:
        self.value = value
        self.hi = hi
        self.key_pattern = key_pattern

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        if not isinstance(value, dict):
            yield _wrong_type(path, "an object", value)
            return
        if self.hi is not None and len(value) > self.hi:
            yield Problem(path, TOO_MANY, f"takes at most {self.hi} entries, not {len(value)}.")
        for key, item in value.items():
            if key == "$comment":
                continue
            if self.key_pattern is not None and not re.match(self.key_pattern, key):
                yield Problem((*path, key), BAD_ID, f"{describe(key)} is not a valid key here.")
            needs = self.value.needs
            if needs is not None and not isinstance(item, needs[0]):
                yield _wrong_type((*path, key), needs[1], item)
            else:
                yield from self.value.check(item, (*path, key))

    def schema(self) -> JsonSchema:
        out: JsonSchema = {"type": "object", "additionalProperties": self.value.schema()}
        if self.hi is not None:
            out["maxProperties"] = self.hi
        return out


class OneOf(Node):
    """Alternatives told apart by ``pick``, which names the option for a value (or None)."""

    def __init__(
        self,
        options: Mapping[str, Node],
        pick: Callable[[object], str | None],
        wanted: str = "one of the allowed shapes",
    ) -> None:
        self.options = options
        self.pick = pick
        self.wanted = wanted

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        name = self.pick(value)
        if name is None or name not in self.options:
            yield _wrong_type(path, self.wanted, value)
            return
        yield from self.options[name].check(value, path)

    def schema(self) -> JsonSchema:
        return {"anyOf": [n.schema() for n in self.options.values()]}


class Loose(Node):
    """A block accepted and kept but not played: only its JSON type is checked."""

    def __init__(self, json_type: str = "object") -> None:
        self.json_type = json_type

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        wanted = {"object": dict, "array": list}[self.json_type]
        if not isinstance(value, wanted):
            yield _wrong_type(
                path, f"an {self.json_type}" if self.json_type == "object" else "a list", value
            )

    def schema(self) -> JsonSchema:
        return {"type": self.json_type}


class Custom(Node):
    """A node whose check is a function (for shapes like ``[[n, v], ...]``)."""

    def __init__(
        self, fn: Callable[[object, Path], Iterator[Problem]], json: JsonSchema | None = None
    ) -> None:
        self.fn = fn
        self.json: JsonSchema = {} if json is None else json

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        yield from self.fn(value, path)

    def schema(self) -> JsonSchema:
        return dict(self.json)


class Named(Node):
    """A node whose wrong-type sentence names the value it checks: ``The sheet must be an
    object, not 3.``, as the character file words its problems. ``show`` renders the
    value in that sentence; a value of the right type goes on to ``node``."""

    def __init__(
        self,
        subject: str,
        node: Node,
        wanted: str | None = None,
        show: Callable[[object], str] = describe,
    ) -> None:
        assert node.needs is not None, "a named node checks one JSON type"
        self.subject = subject
        self.node = node
        self.kind = node.needs[0]
        self.wanted = wanted if wanted is not None else node.needs[1]
        self.show = show

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        if not isinstance(value, self.kind):
            said = f"{self.subject} must be {self.wanted}, not {self.show(value)}."
            return iter((Problem(path, WRONG_TYPE, said),))
        return self.node.check(value, path)  # no generator of its own: files check many

    def schema(self) -> JsonSchema:
        return self.node.schema()
