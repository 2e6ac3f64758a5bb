"""What the compiler's passes share: the file, its problems, and what earlier passes built.

The structure is checked first, over the whole file (``compiler.schema``); the passes
then read only the parts whose structure is sound (``Context.clean``), so a broken
file never crashes them and one fault is reported once. Items with a faulty shape still
declare their ids (``Context.names``), so a reference to them is not reported again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, cast

from dicebound.kinds.base import KindCompiler
from dicebound.problem_codes import WRONG_COLUMN_TYPE
from dicebound.problems import Path, Problem, not_a_column
from dicebound.ruleset.combat import Battle, Combat
from dicebound.ruleset.model import (
    Catalog,
    Field,
    HideWhen,
    Layer,
    ListColumn,
    Resolution,
    Rest,
    Sheet,
    Untrained,
    ValueRef,
)
from dicebound.ruleset.refs import RefScope, compile_ref
from dicebound.ruleset.spec import ID_PATTERN, describe, is_int, is_number

__all__ = [
    "PLACEHOLDER",
    "ColumnLike",
    "Context",
    "Ids",
    "as_dict",
    "as_list",
    "declared_ids",
    "hide_rule",
    "misfit",
    "number",
    "untrained_rule",
]

PLACEHOLDER = ValueRef("const", value=0)
"""Stands in for a maximum while the sheet is only being checked (never played)."""

ColumnLike = Field | ListColumn


def as_dict(value: object) -> dict[str, Any]:
    """The value if it is an object, else an empty one (a faulty part reads as empty)."""
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list[Any]:
    """The value if it is a list, else an empty one."""
    return value if isinstance(value, list) else []


class Ids(list[str]):
    """Ids in the order they are declared, with a set beside them: whether a reference
    names one is one lookup, not a scan (thousands of references to thousands of ids
    were quadratic)."""

    def __init__(self, ids: Iterable[str]) -> None:
        super().__init__(ids)
        self.held = frozenset(self)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.held


def declared_ids(items: object) -> Ids:
    """The well-formed ids of a list of declarations, first occurrence kept."""
    out: dict[str, None] = {}  # a dict keeps the order and looks an id up at once
    for item in as_list(items):
        ident = item.get("id") if isinstance(item, dict) else None
        if isinstance(ident, str) and ident not in out and re.match(ID_PATTERN, ident):
            out[ident] = None
    return Ids(out)


def number(value: Any) -> float:
    """A JSON number the structure already checked, as a float."""
    return float(value)


def hide_rule(raw: object) -> HideWhen | None:
    """An item's ``hideWhen``, or None when it has none. ``in`` wins over ``notEquals``,
    which wins over ``equals`` (docs/design/format.md "The sheet")."""
    if not isinstance(raw, dict):
        return None
    name = str(raw["field"])
    if "in" in raw:
        return HideWhen(name, "in", tuple(as_list(raw["in"])))
    if "notEquals" in raw:
        return HideWhen(name, "notEquals", (raw["notEquals"],))
    return HideWhen(name, "equals", (raw.get("equals"),))


def untrained_rule(raw: object) -> Untrained | None:
    """A section's, skill's or save's ``untrained`` rule, or None when it gives none."""
    if raw is None:
        return None
    if isinstance(raw, dict):
        return Untrained("by", int(raw["by"]))
    return Untrained(cast(Literal["normal", "harder", "refuse"], raw))


def misfit(decl: ColumnLike, value: object) -> str | None:
    """Why ``value`` is not one a field or column could hold, or None."""
    if decl.type == "number":
        if isinstance(value, bool) or not is_number(value):
            return "it holds a number"
        assert isinstance(value, int | float)
        if (decl.min is not None and value < decl.min) or (
            decl.max is not None and value > decl.max
        ):
            return f"it holds {describe(decl.min)} to {describe(decl.max)}"
        if decl.integer and not is_int(value):
            return "it holds whole numbers"
        return None
    if decl.type == "boolean":
        return None if isinstance(value, bool) else "it holds true or false"
    if decl.type == "enum":
        if isinstance(value, str) and value in decl.values:
            return None
        shown = ", ".join(f'"{v}"' for v in decl.values[:12])
        return f"its values are {shown}"
    if not isinstance(value, str):
        return "it holds text"
    limit = decl.max_length if decl.max_length is not None else 40
    if len(value) > limit:
        return f"it holds at most {limit} characters"
    return None


def _at_or_above(paths: Iterable[Path]) -> set[Path]:
    """Every path at or above one of ``paths``, so whether a part holds a problem is one
    lookup however many problems a file has (a scan of them per part was quadratic). A
    path's walk up stops at the first prefix already held: its own are held too."""
    held: set[Path] = set()
    for path in paths:
        while path not in held:
            held.add(path)
            if not path:
                break
            path = path[:-1]
    return held


class Context:
    """The one state the passes share, each reading what the ones before it built.

    ``dirty`` holds every path at or above a structural problem; ``problems`` collects
    the passes' own, in the order they are found; ``sheet`` grows pass by pass.
    """

    def __init__(
        self, raw: dict[str, Any], structure: Sequence[Problem], kind: KindCompiler | None
    ) -> None:
        self.raw = raw
        self.bad: list[Path] = [p.path for p in structure]
        self.dirty = _at_or_above(self.bad)
        self.kind = kind
        self.problems: list[Problem] = []
        self.sheet_raw = as_dict(raw.get("sheet"))
        self.res_raw = as_dict(raw.get("resolution"))
        live = as_dict(self.sheet_raw.get("live"))
        self.live_raw = live
        self.names: dict[str, Ids] = {
            "sections": declared_ids(self.sheet_raw.get("sections")),
            "abilities": declared_ids(self.sheet_raw.get("abilities")),
            "skills": declared_ids(self.sheet_raw.get("skills")),
            "saves": declared_ids(self.sheet_raw.get("saves")),
            "fields": declared_ids(self.sheet_raw.get("fields")),
            "derived": declared_ids(self.sheet_raw.get("derived")),
            "lists": declared_ids(self.sheet_raw.get("lists")),
            "pools": declared_ids(live.get("pools")),
            "tracks": declared_ids(live.get("tracks")),
            "text": declared_ids(live.get("text")),
            "conditions": declared_ids(live.get("conditions")),
            "states": declared_ids(live.get("states")),
            "tiers": declared_ids(self.res_raw.get("proficiencyTiers")),
            "layers": declared_ids(raw.get("layers")),
        }
        self.sheet = Sheet(version=1)
        self.indexes: dict[int, dict[str, int]] = {}  # index_of's, by the list's id()
        # what the later passes build, for the Ruleset put together at the end
        self.resolution: Resolution | None = None
        self.catalogs: tuple[Catalog, ...] = ()
        self.layers: tuple[Layer, ...] = ()
        self.rests: tuple[Rest, ...] = ()
        self.combat: Combat | None = None
        self.battle: Battle | None = None

    def clean(self, path: Path) -> bool:
        """No structural problem stands at or below ``path``: the part may be read."""
        return path not in self.dirty

    def add(self, path: Path, code: str, message: str) -> None:
        """Report a problem (``code`` one of ``problem_codes``)."""
        self.problems.append(Problem(path, code, message))

    def items(self, raw: object, path: Path) -> list[tuple[int, dict[str, Any], Path]]:
        """The structurally clean items of a list, with their index and path."""
        out = []
        for i, item in enumerate(as_list(raw)):
            if isinstance(item, dict):
                here = (*path, i)
                if here not in self.dirty:
                    out.append((i, item, here))
        return out

    def scope(self) -> RefScope:
        """What a value reference may name, as the sheet stands now."""
        return RefScope(self.sheet, self.names)

    def ref(
        self, raw: Mapping[str, Any], path: Path, scope: RefScope | None = None
    ) -> ValueRef | None:
        """Compile a value reference, reporting what it names wrongly (None then)."""
        ref, problems = compile_ref(raw, path, scope or self.scope())
        self.problems.extend(problems)
        return ref

    def index_of(self, items: object, ident: str) -> int:
        """Where the first item of a list declares ``ident``: each list's ids are read
        once (a scan per item asked for was quadratic in a long list)."""
        found = self.indexes.get(id(items))
        if found is None:
            found = self.indexes[id(items)] = {}
            for i, item in enumerate(as_list(items)):
                declared = as_dict(item).get("id")
                if isinstance(declared, str):
                    found.setdefault(declared, i)
        return found[ident]

    def check_columns(
        self, list_id: str, wanted: Sequence[tuple[str | int, Any, Sequence[str]]], here: Path
    ) -> None:
        """Each named column exists in the list and has one of the wanted types."""
        decl = next((lst for lst in self.sheet.lists if lst.id == list_id), None)
        if decl is None:
            return
        by_id = {c.id: c for c in decl.columns}
        for key, name, types in wanted:
            role = key if isinstance(key, str) else "a summary column"
            column = by_id.get(str(name))
            if column is None:
                self.problems.append(not_a_column((*here, key), str(name), list_id, by_id))
            elif types and column.type not in types:
                said = " or ".join(types)
                self.add(
                    (*here, key),
                    WRONG_COLUMN_TYPE,
                    f'"{name}" is a {column.type} column; {role} names a {said} column.',
                )
