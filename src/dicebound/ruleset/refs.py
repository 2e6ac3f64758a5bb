"""Value references (docs/design/format.md "Value references"): the shape, the compile,
and what one reads.

A value reference is an object with exactly one source key. Structure is checked by
``VALUE_REF``; ``compile_ref`` then checks that the id it names exists (with a "did you
mean"), that a derived value reads only derived values declared above it, that a field
reference reads a number, and so on. ``trace`` follows a reference through derived
values and skill caps, so a maximum that would read live state, or a proficiency bonus
that would read a skill modifier, is refused with the chain that leads there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple, cast, get_args

from dicebound.problem_codes import (
    DERIVED_ORDER,
    NOT_A_NUMBER,
    NOT_AN_ENUM,
    NOT_WOUND_TRACK,
    ONE_SOURCE,
    READ_NEEDS_TRACK,
    WRONG_COLUMN_TYPE,
    WRONG_TYPE,
)
from dicebound.problems import Path, Problem, not_a_column, unknown_id, unknown_key
from dicebound.ruleset.model import Sheet, ValueRef, ValueSource
from dicebound.ruleset.spec import (
    Custom,
    Enum,
    Id,
    JsonSchema,
    Node,
    Num,
    Obj,
    describe,
)
from dicebound.values import frozen

__all__ = [
    "ID_SOURCES",
    "LIVE_READS",
    "SOURCES",
    "VALUE_REF",
    "Read",
    "RefScope",
    "compile_ref",
    "describe_chain",
    "ref_source",
    "trace",
]

SOURCES: tuple[str, ...] = get_args(ValueSource)  # one list: the model's

ID_SOURCES: Mapping[str, str] = {
    "field": "fields",
    "derived": "derived",
    "abilityScore": "abilities",
    "abilityMod": "abilities",
    "abilityModFromField": "fields",
    "skillMod": "skills",
    "saveMod": "saves",
    "liveTrack": "tracks",
    "livePool": "pools",
}
"""Sources that name one id, and the namespace the id lives in."""

_WHAT: Mapping[str, str] = {
    "fields": "a field",
    "derived": "a derived value",
    "abilities": "an ability",
    "skills": "a skill",
    "saves": "a save",
    "tracks": "a live track",
    "pools": "a live pool",
    "lists": "a list",
}

LIVE_READS: frozenset[str] = frozenset({"livePool", "liveTrack", "liveState", "itemStat"})
"""Reads of what changes in play. The page holds ``itemStat`` to the same rule."""

_LIST_SUM = Obj({"list": Id(), "column": Id(), "onlyWhen": Id()}, required=("list", "column"))
_ITEM_STAT = Obj(
    {
        "stat": Id(),
        "from": Enum(("worn", "carried", "all")),
        "pick": Enum(("sum", "max", "min", "count")),
        "slot": Id(),
        "category": Id(),
        "tag": Id(),
        "default": Num(),
    },
    required=("from", "pick"),
)
_SOURCE_NODES: Mapping[str, Node] = {
    "const": Num(),
    **{key: Id() for key in ID_SOURCES},
    "listSum": _LIST_SUM,
    "itemStat": _ITEM_STAT,
}
_READ = Enum(("value", "filled", "remaining", "penalty"))


def _check_value_ref(value: object, path: Path) -> Iterator[Problem]:
    if not isinstance(value, dict):
        yield Problem(
            path,
            WRONG_TYPE,
            'must be a value reference, an object with one source such as { "derived": "id" }, '
            f"not {describe(value)}.",
        )
        return
    present = [key for key in SOURCES if key in value]
    for key, item in value.items():
        if key == "$comment":
            continue
        if key == "read":
            yield from _READ.check(item, (*path, key))
            if "liveTrack" not in value:
                yield Problem(
                    (*path, key),
                    READ_NEEDS_TRACK,
                    '"read" goes only with a "liveTrack" reference.',
                )
            continue
        node = _SOURCE_NODES.get(key)
        if node is None:
            known = [*SOURCES, "read"]
            yield unknown_key((*path, key), key, known, takes="a source a value reference takes")
            continue
        yield from node.check(item, (*path, key))
    if not present:
        names = ", ".join(SOURCES)
        yield Problem(
            path, ONE_SOURCE, f"names no source; a value reference names exactly one of {names}."
        )
    elif len(present) > 1:
        names = ", ".join(f'"{k}"' for k in present)
        yield Problem(
            path,
            ONE_SOURCE,
            f"names {len(present)} sources ({names}); a value reference names exactly one.",
        )


def _value_ref_schema() -> JsonSchema:
    props: JsonSchema = {key: node.schema() for key, node in _SOURCE_NODES.items()}
    props["read"] = _READ.schema()
    props["$comment"] = {}
    return {
        "type": "object",
        "properties": props,
        "additionalProperties": False,
        "oneOf": [{"required": [key]} for key in SOURCES],
        "dependencies": {"read": ["liveTrack"]},
    }


VALUE_REF: Node = Custom(_check_value_ref, _value_ref_schema())
"""A value reference: exactly one source (docs/design/format.md "Value references")."""


def ref_source(raw: Mapping[str, Any]) -> str:
    """The one source key of a structurally valid value reference."""
    return next(key for key in SOURCES if key in raw)


# -- compiling a reference -------------------------------------------------------------


@frozen
class RefScope:
    """What a reference may name.

    ``names`` holds every id the file declares per namespace (also of items whose own
    shape is faulty, so one fault is not reported twice); ``sheet`` holds the items that
    compiled, for the checks that need their type. ``derived_before`` is set while a
    derived value compiles: it may read only the derived values declared above it,
    which are the first ``derived_before`` ids of ``names["derived"]``.
    """

    sheet: Sheet
    names: Mapping[str, Sequence[str]]
    derived_before: int | None = None
    reader: str = "this value"

    def with_derived(self, index: int) -> RefScope:
        return RefScope(self.sheet, self.names, index, "this derived value")


def compile_ref(
    raw: Mapping[str, Any], path: Path, scope: RefScope
) -> tuple[ValueRef | None, list[Problem]]:
    """Compile a structurally valid value reference, checking what it names.

    Gives None (and the problems) when it names something the sheet lacks.
    """
    problems: list[Problem] = []
    source = ref_source(raw)
    sheet = scope.sheet
    if source == "const":
        return ValueRef("const", value=float(raw["const"])), []
    if source == "itemStat":
        spec = raw["itemStat"]
        return ValueRef("itemStat", spec.get("stat"), value=float(spec.get("default", 0))), []
    if source == "listSum":
        return _compile_list_sum(raw["listSum"], (*path, "listSum"), scope)
    name = str(raw[source])
    namespace = ID_SOURCES[source]
    known = scope.names.get(namespace, ())  # not copied: one lookup, not a scan
    here = (*path, source)
    if name not in known:
        return None, [unknown_id(here, name, _WHAT[namespace], known)]
    if source == "derived" and scope.derived_before is not None:
        index = known.index(name)
        if index >= scope.derived_before:
            said = (
                "is this derived value itself"
                if index == scope.derived_before
                else "is declared below this one"
            )
            problems.append(
                Problem(
                    here,
                    DERIVED_ORDER,
                    f'"{name}" {said}; a derived value reads only derived values declared '
                    "above it.",
                )
            )
            return None, problems
    if source == "field":
        decl = next((f for f in sheet.fields if f.id == name), None)
        if decl is not None and decl.type not in ("number", "boolean"):
            problems.append(
                Problem(
                    here,
                    NOT_A_NUMBER,
                    f'"{name}" is a {decl.type} field, which holds no number; a field reference '
                    'reads a number or boolean field (use "abilityModFromField" or an '
                    '"enumTable" derived value for an enum).',
                )
            )
            return None, problems
    if source == "abilityModFromField":
        decl = next((f for f in sheet.fields if f.id == name), None)
        if decl is not None and decl.type != "enum":
            problems.append(
                Problem(
                    here,
                    NOT_AN_ENUM,
                    f'"{name}" is a {decl.type} field; abilityModFromField names an enum field '
                    "whose value is an ability id.",
                )
            )
            return None, problems
    read = raw.get("read", "value")
    if source == "liveTrack" and read == "penalty":
        track = next((t for t in sheet.tracks if t.id == name), None)
        if track is not None and not track.is_wound_track:
            problems.append(
                Problem(
                    (*path, "read"),
                    NOT_WOUND_TRACK,
                    f'"{name}" is a plain track, which carries no penalty; "read": "penalty" '
                    "reads a wound track (one with kinds and levels or boxes).",
                )
            )
            return None, problems
    return ValueRef(cast(ValueSource, source), name, read=read), problems


def _compile_list_sum(
    spec: Mapping[str, Any], path: Path, scope: RefScope
) -> tuple[ValueRef | None, list[Problem]]:
    problems: list[Problem] = []
    list_id = str(spec["list"])
    known = scope.names.get("lists", ())
    if list_id not in known:
        return None, [unknown_id((*path, "list"), list_id, _WHAT["lists"], known)]
    decl = next((lst for lst in scope.sheet.lists if lst.id == list_id), None)
    if decl is None:  # declared, but its own shape is faulty: nothing more to check
        return None, []
    columns = {c.id: c for c in decl.columns}
    for key, wanted in (("column", "number"), ("onlyWhen", "boolean")):
        if key not in spec:
            continue
        col_id = str(spec[key])
        column = columns.get(col_id)
        if column is None:
            problems.append(not_a_column((*path, key), col_id, list_id, list(columns)))
        elif column.type != wanted:
            role = "adds up" if key == "column" else "filters the rows by"
            problems.append(
                Problem(
                    (*path, key),
                    WRONG_COLUMN_TYPE,
                    f'"{col_id}" is a {column.type} column; listSum {role} a {wanted} column.',
                )
            )
    if problems:
        return None, problems
    only_when = spec.get("onlyWhen")
    return (
        ValueRef(
            "listSum",
            list_id,
            column=str(spec["column"]),
            only_when=None if only_when is None else str(only_when),
        ),
        [],
    )


# -- what a reference reads, through derived values and caps ---------------------------


class Read(NamedTuple):
    """One thing a value reads: a reference's source and id, or an enum table's key."""

    source: str
    name: str | None

    def __str__(self) -> str:
        return self.source if self.name is None else f'{self.source} "{self.name}"'


def _as_read(ref: ValueRef) -> Read:
    return Read(ref.source, ref.name)


def _children(read: Read, sheet: Sheet) -> list[Read]:
    if read.source == "derived":
        decl = None if read.name is None else sheet.derived_value(read.name)
        if decl is None:
            return []
        out = [_as_read(ref) for ref in decl.of]
        if decl.source is not None:
            out.append(_as_read(decl.source))
        if decl.enum_from is not None:
            where, name = decl.enum_from
            out.append(Read(where, name))
        return out
    if read.source in ("skillMod", "saveMod"):
        name = read.name or ""
        item = sheet.skill(name) if read.source == "skillMod" else sheet.save(name)
        if item is not None and item.cap is not None:
            return [_as_read(item.cap)]
    return []


def trace(ref: ValueRef, sheet: Sheet, flagged: Callable[[Read], bool]) -> tuple[Read, ...] | None:
    """The chain of reads from ``ref`` to the first one ``flagged`` picks, or None.

    Derived values are followed to what they read, and a skill or save modifier to its
    cap (a capped check number is only known once the cap is).
    """
    seen: set[Read] = set()

    def walk(read: Read) -> tuple[Read, ...] | None:
        if flagged(read):
            return (read,)
        if read in seen:
            return None
        seen.add(read)
        for child in _children(read, sheet):
            found = walk(child)
            if found is not None:
                return (read, *found)
        return None

    return walk(_as_read(ref))


def describe_chain(chain: Sequence[Read]) -> str:
    """``reads livePool "resolve"`` or ``reads livePool "resolve" through derived "x"``."""
    last = chain[-1]
    said = "the live state" if last.source == "liveState" else str(last.source)
    target = f'{said} "{last.name}"' if last.name is not None else said
    if len(chain) == 1:
        return f"reads {target}"
    through = ", ".join(str(r) for r in chain[:-1])
    return f"reads {target} through {through}"


_SHEET_NAMESPACES = (
    "fields",
    "derived",
    "abilities",
    "skills",
    "saves",
    "tracks",
    "pools",
    "lists",
)


def sheet_ref(
    raw: Mapping[str, Any], path: Path, sheet: Sheet
) -> tuple[ValueRef | None, list[Problem]]:
    """Compile a value reference a resolution key holds (``target.from``,
    ``spend.perCheck``) against the compiled sheet, as the ruleset compiler does."""
    names = {ns: [item.id for item in getattr(sheet, ns)] for ns in _SHEET_NAMESPACES}
    return compile_ref(raw, path, RefScope(sheet, names, reader="this reference"))
