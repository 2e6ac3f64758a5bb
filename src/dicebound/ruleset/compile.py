"""The ruleset compiler: raw JSON in, an immutable ``Ruleset`` out, or every problem.

Two phases. Structure first, over the whole file, with the spec nodes of ``schema``.
Then the cross-checks the file format (docs/design/format.md) and the page name (ids
that must exist, with a "did you mean"; order; live reads that may not feed a maximum;
rules that could never fire; the kind's own checks), run only on the parts whose
structure is sound, so a broken file never crashes the compiler and one fault is
reported once. Every problem is collected; ``RulesetInvalid`` carries them all, ordered
by where they stand in the file.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import islice
from types import MappingProxyType
from typing import Any, Literal, cast

from dicebound.bands import compile_bands, naturals_none, single_die_of
from dicebound.errors import RulesetInvalid
from dicebound.jsontext import Unreadable, read_json
from dicebound.kinds.base import CompileContext, KindCompiler
from dicebound.kinds.registry import kind_compiler
from dicebound.overrides import Override, compile_overrides
from dicebound.problem_codes import (
    ASSET_PATH,
    BAD_NUMBER,
    BONUS_READS_CHECK_NUMBER,
    CAP_READS_CHECK_NUMBER,
    CHECK_NEEDS_POOL,
    COMBAT_NOT_ALLOWED,
    CONFLICTS_ITSELF,
    DEFAULT_DOES_NOT_FIT,
    DOES_NOT_FIT,
    DUPLICATE_ID,
    DUPLICATE_SEVERITY,
    EXTRA_NEEDS_LEVELS,
    FEEDS_NOT_ROWS,
    GROUP_IS_POOL,
    INDEXED_REFUSES,
    KINDS_NEED_MARKS,
    LEVELS_AND_BOXES,
    LEVELS_LENGTH,
    MECHANICS_NOT_ALLOWED,
    NEEDS_BONUS,
    NEEDS_KINDS,
    NEVER_HARDER,
    NEVER_MATCHES,
    NOT_A_VALUE,
    NOT_AN_ENUM,
    NOT_FED,
    NOT_JSON,
    NOT_WOUND_TRACK,
    OUTSIDE_RULE,
    OUTSIDE_TARGET,
    READS_LIVE,
    REROLLS_EVERY_FACE,
    RULE_HAS_NO_MIN,
    SCALED_NEEDS_VALUE,
    SCALED_NOT_ALONE,
    SCALED_READS_LIST,
    SECTION_ORDER,
    TOO_LARGE,
    TOO_LONG,
    TOO_MANY,
    UNKNOWN_ID,
    WOUND_TRACK_HIDDEN,
    WOUND_TRACK_MIN,
    WRONG_COLUMN_TYPE,
    WRONG_ENTRY,
    WRONG_TYPE,
)
from dicebound.problems import (
    Path,
    PathPart,
    Problem,
    did_you_mean,
    hints_bounded,
    min_above_max,
    missing_key,
    not_a_column,
    out_of_range,
    path_order,
    sort_problems,
    unknown_id,
)
from dicebound.ruleset.capability import capability_problems, ruleset_features, version_problem
from dicebound.ruleset.model import (
    Ability,
    AbilityModifier,
    Adjust,
    Catalog,
    CatalogEntry,
    Condition,
    CostTerm,
    Derived,
    Field,
    Gm,
    LadderStep,
    Layer,
    ListColumn,
    ListDecl,
    ListPools,
    LivePool,
    LiveState,
    Resolution,
    Ruleset,
    Section,
    Sheet,
    SkillDef,
    Tier,
    Track,
    TrackKind,
    TrackLevel,
    Untrained,
    ValueRef,
)
from dicebound.ruleset.refs import LIVE_READS, RefScope, compile_ref, describe_chain, trace
from dicebound.ruleset.schema import MAX_RULESET_BYTES, NOT_PLAYED, ruleset_node
from dicebound.ruleset.spec import ID_PATTERN, describe, is_int, is_number
from dicebound.values import replace

__all__ = ["compile_ruleset", "load_ruleset_text", "run_to_end"]

_PLACEHOLDER = ValueRef("const", value=0)
"""Stands in for a maximum while the sheet is only being checked (never played)."""

ColumnLike = Field | ListColumn
_DOUBLE_MAX = int(sys.float_info.max)


def run_to_end() -> None:
    """The checkpoint of work that is never abandoned (the default)."""


def load_ruleset_text(
    text: str, *, capability_api: str | None = None, checkpoint: Callable[[], None] = run_to_end
) -> Ruleset:
    """Parse a ruleset file's text and compile it.

    A file over 256 KB, or text that is not JSON (reported with its line and column),
    is a problem like any other. ``checkpoint`` is as ``compile_ruleset`` takes it.

    Raises:
        RulesetInvalid: every problem found.
    """
    size = len(text.encode("utf-8", errors="replace"))
    if size > MAX_RULESET_BYTES:
        raise RulesetInvalid(
            [
                Problem(
                    (),
                    TOO_LARGE,
                    f"is {size:,} bytes; a ruleset file may be at most "
                    f"{MAX_RULESET_BYTES:,} bytes (256 KB).",
                )
            ]
        )
    try:
        raw, twice = read_json(text)
    except Unreadable as exc:
        raise RulesetInvalid([Problem((), NOT_JSON, str(exc))]) from None
    if twice:
        raise RulesetInvalid(twice)
    checkpoint()
    return compile_ruleset(raw, capability_api=capability_api, checkpoint=checkpoint)


def compile_ruleset(
    raw: object, *, capability_api: str | None = None, checkpoint: Callable[[], None] = run_to_end
) -> Ruleset:
    """Check a parsed ruleset file and compile it.

    Args:
        raw: the file's parsed JSON.
        capability_api: check the file as a packaged ruleset declaring this Capability
            API version (``"1.38"``): every feature above it is refused. None checks it
            as a community ruleset, which needs no version.
        checkpoint: called between the steps of the work (and every thousand or so
            problems); it raises to abandon the work, as a service does for a client
            that is gone or a check past its time.

    Raises:
        RulesetInvalid: every problem found, in document order.
    """
    with hints_bounded():  # a file of thousands of unknown names costs no more to hint
        return _compile(raw, capability_api, checkpoint)


def _compile(raw: object, capability_api: str | None, checkpoint: Callable[[], None]) -> Ruleset:
    problems: list[Problem] = []
    declared_problem = None if capability_api is None else version_problem(capability_api)
    if declared_problem is not None:
        problems.append(declared_problem)
    if not isinstance(raw, dict):
        problems.append(
            Problem(
                (), WRONG_TYPE, f"must be a JSON object holding a ruleset, not {describe(raw)}."
            )
        )
        raise RulesetInvalid(problems)
    faults = _json_faults(raw)
    if faults:
        raise RulesetInvalid(_in_document_order(raw, [*problems, *faults]))
    checkpoint()
    res = raw.get("resolution")
    kind_name = res.get("kind") if isinstance(res, dict) else None
    kind = kind_compiler(kind_name) if isinstance(kind_name, str) else None
    structure: list[Problem] = []
    found = ruleset_node(kind.name if kind is not None else None).check(raw, ())
    while chunk := list(islice(found, 1024)):
        structure += chunk
        checkpoint()
    builder = _Builder(raw, structure, kind)
    ruleset = builder.build()
    checkpoint()
    problems.extend(structure)
    problems.extend(builder.problems)
    if capability_api is not None and declared_problem is None:
        block = res if kind is not None and builder.clean(("resolution",)) else None
        features = ruleset_features(raw, kind, block if isinstance(block, dict) else None)
        problems.extend(capability_problems(features, capability_api))
    if problems or ruleset is None:
        raise RulesetInvalid(_in_document_order(raw, problems))
    return ruleset


def _in_document_order(raw: dict[str, Any], problems: Sequence[Problem]) -> list[Problem]:
    """Each problem once, in the order its place comes in the file (keys as written),
    then by path. A path's place is its parent's and one step more, and each parent is
    found once, so the problems of one long list or object cost no walk from the top
    (nor a scan of its keys) each."""
    orders: dict[int, dict[str, int]] = {}  # each object's keys by place, made once
    parents: dict[Path, tuple[object, tuple[int, ...]]] = {}

    def step(node: object, out: tuple[int, ...], part: PathPart) -> tuple[object, tuple[int, ...]]:
        if isinstance(node, dict) and isinstance(part, str) and part in node:
            keys = orders.get(id(node))
            if keys is None:
                keys = orders[id(node)] = {key: i for i, key in enumerate(node)}
            return node[part], (*out, keys[part])
        if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            return node[part], (*out, part)
        # a place the file does not hold: after everything it does
        return None, (*out, len(node) if isinstance(node, dict | list) else 0)

    def place(path: Path) -> tuple[int, ...]:
        if not path:
            return ()
        parent = path[:-1]
        found = parents.get(parent)
        if found is None:
            node: object = raw
            out: tuple[int, ...] = ()
            for part in parent:
                node, out = step(node, out, part)
            found = parents[parent] = (node, out)
        return step(*found, path[-1])[1]

    unique = list(dict.fromkeys(problems))
    places = [place(p.path) for p in unique]
    if len(set(places)) < len(places):  # paths the file does not hold may share a place
        unique.sort(key=lambda p: path_order(p.path))
        places = [place(p.path) for p in unique]
    return [unique[i] for _, i in sorted(zip(places, range(len(unique)), strict=True))]


# -- helpers ---------------------------------------------------------------------------

_MAX_FAULTS = 50


def _json_faults(raw: object) -> list[Problem]:
    """Values no JSON number or text can be: a number too large for a double (JSON
    numbers are doubles to every reader), a non-finite number, or a non-JSON object;
    the first 50 found.

    Walked without recursion, so no depth of nesting can stop it, and a value's path is
    built only for a container or a fault (not for each of a long list's numbers).
    """
    out: list[Problem] = []
    stack: list[tuple[Path, object]] = [((), raw)]
    while stack and len(out) < _MAX_FAULTS:
        path, value = stack.pop()
        if not isinstance(value, dict | list):
            _fault(value, path, out)
            continue
        keyed = isinstance(value, dict)
        pairs: Iterable[tuple[Any, object]] = (
            value.items() if isinstance(value, dict) else enumerate(value)
        )
        for key, item in pairs:
            if keyed and not isinstance(key, str):
                out.append(Problem(path, WRONG_TYPE, "has a key that is not a string."))
            elif isinstance(item, dict | list):
                stack.append(((*path, key), item))
            elif type(item) is int:  # the common case, checked here: no call per number
                if not -_DOUBLE_MAX <= item <= _DOUBLE_MAX:
                    _fault(item, (*path, key), out)
            elif not (item is None or isinstance(item, str | bool)):
                _fault(item, (*path, key), out)
    return sort_problems(out)


def _fault(value: object, path: Path, out: list[Problem]) -> None:
    """A problem for a scalar no JSON value can be, if ``value`` is one."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if abs(value) > _DOUBLE_MAX:
            out.append(
                Problem(path, BAD_NUMBER, "is too large to be a number: JSON numbers are doubles.")
            )
    elif isinstance(value, float):
        if not math.isfinite(value):
            out.append(Problem(path, BAD_NUMBER, "is not a finite number."))
    else:
        out.append(Problem(path, WRONG_TYPE, f"is a {type(value).__name__}, not a JSON value."))


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


class _Ids(list[str]):
    """Ids in the order they are declared, with a set beside them: whether a reference
    names one is one lookup, not a scan (thousands of references to thousands of ids
    were quadratic)."""

    def __init__(self, ids: Iterable[str]) -> None:
        super().__init__(ids)
        self.held = frozenset(self)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.held


def _ids(items: object) -> _Ids:
    """The well-formed ids of a list of declarations, first occurrence kept."""
    out: dict[str, None] = {}  # a dict keeps the order and looks an id up at once
    for item in _list(items):
        ident = item.get("id") if isinstance(item, dict) else None
        if isinstance(ident, str) and ident not in out and re.match(ID_PATTERN, ident):
            out[ident] = None
    return _Ids(out)


def _num(value: Any) -> float:
    return float(value)


def _untrained(raw: object) -> Untrained | None:
    if raw is None:
        return None
    if isinstance(raw, dict):
        return Untrained("by", int(raw["by"]))
    return Untrained(cast(Literal["normal", "harder", "refuse"], raw))


def _fit(decl: ColumnLike, value: object) -> str | None:
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


class _Builder:
    """Runs the cross-checks over a structurally checked file and builds the Ruleset.

    ``bad`` holds the paths of every structural problem; a part is read only when no
    problem stands at or below it (``clean``). Items with a faulty shape still declare
    their ids (``names``), so a reference to them is not reported a second time.
    """

    def __init__(
        self, raw: dict[str, Any], structure: Sequence[Problem], kind: KindCompiler | None
    ):
        self.raw = raw
        self.bad: list[Path] = [p.path for p in structure]
        self.dirty = _at_or_above(self.bad)
        self.kind = kind
        self.problems: list[Problem] = []
        self.sheet_raw = _dict(raw.get("sheet"))
        self.res_raw = _dict(raw.get("resolution"))
        live = _dict(self.sheet_raw.get("live"))
        self.live_raw = live
        self.names: dict[str, _Ids] = {
            "sections": _ids(self.sheet_raw.get("sections")),
            "abilities": _ids(self.sheet_raw.get("abilities")),
            "skills": _ids(self.sheet_raw.get("skills")),
            "saves": _ids(self.sheet_raw.get("saves")),
            "fields": _ids(self.sheet_raw.get("fields")),
            "derived": _ids(self.sheet_raw.get("derived")),
            "lists": _ids(self.sheet_raw.get("lists")),
            "pools": _ids(live.get("pools")),
            "tracks": _ids(live.get("tracks")),
            "text": _ids(live.get("text")),
            "conditions": _ids(live.get("conditions")),
            "states": _ids(live.get("states")),
            "tiers": _ids(self.res_raw.get("proficiencyTiers")),
            "layers": _ids(raw.get("layers")),
        }
        self.sheet = Sheet(version=1)
        self.indexes: dict[int, dict[str, int]] = {}  # index_of's, by the list's id()

    # -- bookkeeping -----------------------------------------------------------------

    def clean(self, path: Path) -> bool:
        return path not in self.dirty

    def add(self, path: Path, code: str, message: str) -> None:
        self.problems.append(Problem(path, code, message))

    def items(self, raw: object, path: Path) -> list[tuple[int, dict[str, Any], Path]]:
        """The structurally clean items of a list, with their index and path."""
        out = []
        for i, item in enumerate(_list(raw)):
            if isinstance(item, dict):
                here = (*path, i)
                if here not in self.dirty:
                    out.append((i, item, here))
        return out

    def scope(self) -> RefScope:
        return RefScope(self.sheet, self.names)

    def ref(
        self, raw: Mapping[str, Any], path: Path, scope: RefScope | None = None
    ) -> ValueRef | None:
        ref, problems = compile_ref(raw, path, scope or self.scope())
        self.problems.extend(problems)
        return ref

    # -- the whole file --------------------------------------------------------------

    def build(self) -> Ruleset | None:
        self.build_sheet()
        resolution = self.build_resolution()
        if self.res_raw.get("kind") == "dice-highest" and "combat" in self.raw:
            # The page: a ruleset of this kind has no fight of its own.
            self.add(
                ("combat",),
                COMBAT_NOT_ALLOWED,
                "a dice-highest ruleset has no fight of its own, so a combat block is refused "
                "beside it; remove combat.",
            )
        combat = self.raw.get("combat")
        if self.res_raw.get("kind") == "symbol-pool" and isinstance(combat, dict):
            fight = combat.get("kind")
            if fight != "symbol-pool":
                # The page: a symbol pool's fights are a symbol-pool fight (1.382), which
                # dicebound accepts and keeps; any other combat kind is refused beside it.
                self.add(
                    ("combat", "kind"),
                    COMBAT_NOT_ALLOWED,
                    f"{describe(fight)} is not a fight a symbol-pool ruleset can have; its "
                    'fights are "symbol-pool" fights.',
                )
        self.check_gm()
        catalogs = self.build_catalogs()
        layers = self.build_layers()
        if self.bad or self.problems or resolution is None:
            return None
        raw = self.raw
        gm = raw["gm"]
        present = tuple(block for block in NOT_PLAYED if block in raw)
        return Ruleset(
            id=str(raw["id"]),
            version=int(raw["version"]),
            name=str(raw["name"]),
            resolution=resolution,
            sheet=self.sheet,
            gm=Gm(
                check_guidance=str(gm["checkGuidance"]),
                sheet_guidance=gm.get("sheetGuidance"),
                world_guidance=gm.get("worldGuidance"),
                sheet_summary=MappingProxyType(dict(gm.get("sheetSummary", {}))),
            ),
            catalogs=catalogs,
            layers=layers,
            edition=raw.get("edition"),
            coverage=MappingProxyType(dict(raw["coverage"])),
            not_played=present,
            raw=MappingProxyType(raw),
        )

    # -- the sheet -------------------------------------------------------------------

    def build_sheet(self) -> None:
        s = self.sheet_raw
        at: Path = ("sheet",)
        version = int(s["version"]) if self.clean((*at, "version")) and "version" in s else 1
        self.sheet = Sheet(version=version)
        sections = tuple(
            Section(str(item["id"]), str(item["label"]), _untrained(item.get("untrained")))
            for _, item, _ in self.items(s.get("sections"), (*at, "sections"))
        )
        self.sheet = replace(self.sheet, sections=sections)
        abilities = tuple(
            self.ability(item, here)
            for _, item, here in self.items(s.get("abilities"), (*at, "abilities"))
        )
        fields = tuple(
            self.field(item, here) for _, item, here in self.items(s.get("fields"), (*at, "fields"))
        )
        lists = tuple(
            self.list_decl(item, here)
            for _, item, here in self.items(s.get("lists"), (*at, "lists"))
        )
        live: Path = (*at, "live")
        states = tuple(
            self.state(item, here)
            for _, item, here in self.items(self.live_raw.get("states"), (*live, "states"))
        )
        conditions = tuple(
            Condition(str(item["id"]), str(item["label"]))
            for _, item, _ in self.items(self.live_raw.get("conditions"), (*live, "conditions"))
        )
        text = tuple(
            (str(item["id"]), str(item["label"]), int(item["maxLength"]))
            for _, item, _ in self.items(self.live_raw.get("text"), (*live, "text"))
        )
        skills = tuple(
            self.skill(item, here, "skill")
            for _, item, here in self.items(s.get("skills"), (*at, "skills"))
        )
        saves = tuple(
            self.skill(item, here, "save")
            for _, item, here in self.items(s.get("saves"), (*at, "saves"))
        )
        self.sheet = replace(
            self.sheet,
            abilities=abilities,
            fields=fields,
            lists=lists,
            states=states,
            conditions=conditions,
            text=text,
            skills=skills,
            saves=saves,
        )
        pools = tuple(
            self.pool_shell(item, here)
            for _, item, here in self.items(self.live_raw.get("pools"), (*live, "pools"))
        )
        tracks = tuple(
            self.track_shell(item, here)
            for _, item, here in self.items(self.live_raw.get("tracks"), (*live, "tracks"))
        )
        self.sheet = replace(self.sheet, pools=pools, tracks=tracks)
        self.build_derived()
        self.check_tiers_and_bonus()
        # The maxima and caps read derived values, so they compile once those exist.
        self.sheet = replace(
            self.sheet,
            skills=tuple(self.with_cap(item, "skills") for item in self.sheet.skills),
            saves=tuple(self.with_cap(item, "saves") for item in self.sheet.saves),
        )
        self.sheet = replace(
            self.sheet,
            pools=tuple(self.with_max(p, "pools") for p in self.sheet.pools),
            tracks=tuple(self.with_max(t, "tracks") for t in self.sheet.tracks),
        )
        self.check_caps_and_maxima()
        self.check_sections()
        self.check_hide_whens()
        self.check_skill_save_ids()

    def ability(self, item: dict[str, Any], here: Path) -> Ability:
        lo, hi, default = int(item["min"]), int(item["max"]), int(item["default"])
        if lo > hi:
            self.problems.append(min_above_max((*here, "min"), lo, hi, "a score"))
        elif not lo <= default <= hi:
            self.problems.append(
                out_of_range((*here, "default"), default, lo, hi, "the default score")
            )
        return Ability(
            str(item["id"]),
            str(item["label"]),
            item.get("short"),
            lo,
            hi,
            default,
            item.get("section"),
        )

    def typed(
        self,
        item: dict[str, Any],
        here: Path,
        factory: Callable[..., ColumnLike],
        extra: Mapping[str, Any],
    ) -> ColumnLike:
        """A field or a list column, with the checks its type brings."""
        kind = item["type"]
        values = tuple(str(v) for v in item.get("values", ()))
        max_length = item.get("maxLength")
        if kind == "dice":
            max_length = 40
        decl = factory(
            id=str(item["id"]),
            label=str(item["label"]),
            type=kind,
            min=None if "min" not in item else _num(item["min"]),
            max=None if "max" not in item else _num(item["max"]),
            default=item.get("default"),
            integer=bool(item.get("integer", True)),
            values=values,
            max_length=None if max_length is None else int(max_length),
            **extra,
        )
        if (
            kind == "number"
            and decl.min is not None
            and decl.max is not None
            and decl.min > decl.max
        ):
            self.problems.append(
                min_above_max((*here, "min"), describe(decl.min), describe(decl.max), "the value")
            )
        elif "default" in item:
            why = _fit(decl, item["default"])
            if why is not None:
                self.add(
                    (*here, "default"),
                    DEFAULT_DOES_NOT_FIT,
                    f"{describe(item['default'])} is not a value this {kind} can hold: {why}.",
                )
        for key in _dict(item.get("valueLabels")):
            if key != "$comment" and key not in values:
                self.add(
                    (*here, "valueLabels", key),
                    NOT_A_VALUE,
                    f'"{key}" is not one of the values, so it needs no label.'
                    f"{did_you_mean(key, values)}",
                )
        return decl

    def field(self, item: dict[str, Any], here: Path) -> Field:
        decl = self.typed(item, here, Field, {})
        assert isinstance(decl, Field)
        return decl

    def list_decl(self, item: dict[str, Any], here: Path) -> ListDecl:
        columns = []
        for _, col, col_here in self.items(item["columns"], (*here, "columns")):
            decl = self.typed(
                col, col_here, ListColumn, {"required": bool(col.get("required", False))}
            )
            assert isinstance(decl, ListColumn)
            columns.append(decl)
        pools = None
        spec = item.get("pools")
        if isinstance(spec, dict) and self.clean((*here, "pools")):
            by_id = {c.id: c for c in columns}
            all_ids = _ids(item["columns"])
            wanted = {
                "nameColumn": ("text", "enum"),
                "maxColumn": ("number",),
                "rechargeColumn": ("text", "enum"),
            }
            for key, types in wanted.items():
                if key not in spec:
                    continue
                name = str(spec[key])
                column = by_id.get(name)
                if name not in all_ids:
                    self.add(
                        (*here, "pools", key),
                        UNKNOWN_ID,
                        f'"{name}" is not a column of this list.{did_you_mean(name, all_ids)}',
                    )
                elif column is not None and column.type not in types:
                    said = " or ".join(types)
                    self.add(
                        (*here, "pools", key),
                        WRONG_COLUMN_TYPE,
                        f'"{name}" is a {column.type} column; {key} names a {said} column.',
                    )
            pools = ListPools(
                str(spec["nameColumn"]),
                str(spec["maxColumn"]),
                None if "rechargeColumn" not in spec else str(spec["rechargeColumn"]),
            )
        return ListDecl(
            str(item["id"]), str(item["label"]), int(item["maxItems"]), tuple(columns), pools
        )

    def state(self, item: dict[str, Any], here: Path) -> LiveState:
        values = tuple(str(v) for v in item["values"])
        default = item.get("default", values[0])
        if default not in values:
            shown = ", ".join(f'"{v}"' for v in values)
            self.add(
                (*here, "default"),
                NOT_A_VALUE,
                f"{describe(default)} is not one of this state's values: {shown}."
                f"{did_you_mean(str(default), values)}",
            )
        for key in _dict(item.get("valueLabels")):
            if key != "$comment" and key not in values:
                self.add(
                    (*here, "valueLabels", key),
                    NOT_A_VALUE,
                    f'"{key}" is not one of the values, so it needs no label.{did_you_mean(key, values)}',
                )
        return LiveState(str(item["id"]), str(item["label"]), values, str(default))

    def skill(self, item: dict[str, Any], here: Path, group: Literal["skill", "save"]) -> SkillDef:
        ability = item.get("ability")
        if ability is not None and ability not in self.names["abilities"]:
            self.problems.append(
                unknown_id((*here, "ability"), str(ability), "an ability", self.names["abilities"])
            )
        section_id = item.get("section")
        untrained = _untrained(item.get("untrained"))
        if untrained is None and section_id is not None:
            section = next((s for s in self.sheet.sections if s.id == section_id), None)
            untrained = section.untrained if section is not None else None
        return SkillDef(
            str(item["id"]),
            str(item["label"]),
            group,
            ability=None if ability is None else str(ability),
            section=None if section_id is None else str(section_id),
            untrained=untrained,
        )

    def pool_shell(self, item: dict[str, Any], here: Path) -> LivePool:
        group = item.get("group")
        if group is not None and group in self.names["pools"]:
            self.add(
                (*here, "group"),
                GROUP_IS_POOL,
                f'"{group}" is also a pool id; a cost names a pool or a group, so the two may not '
                "share a name.",
            )
        return LivePool(
            str(item["id"]),
            str(item["label"]),
            _PLACEHOLDER,
            allow_temp=bool(item.get("allowTemp", False)),
            group=None if group is None else str(group),
            start=item.get("start", "full"),
        )

    def track_shell(self, item: dict[str, Any], here: Path) -> Track:
        levels = tuple(
            TrackLevel(str(lv["label"]), int(lv["penalty"])) for lv in item.get("levels", ())
        )
        kinds = tuple(
            TrackKind(str(k["id"]), str(k["label"]), int(k["severity"]))
            for k in item.get("kinds", ())
        )
        boxes = _dict(_dict(item.get("boxes")).get("penalty"))
        lo = int(item["min"])
        top = item["max"]
        fixed_max = int(top) if is_int(top) else None
        default = item.get("default")
        self.check_track(item, here, lo, fixed_max, levels, kinds)
        extra = _dict(item.get("extra"))
        return Track(
            str(item["id"]),
            str(item["label"]),
            lo,
            ValueRef("const", value=fixed_max) if fixed_max is not None else _PLACEHOLDER,
            default=None if default is None else int(default),
            levels=levels,
            kinds=kinds,
            boxes_by=boxes.get("by"),
            boxes_table=tuple((float(a), float(b)) for a, b in boxes.get("table", ())),
            fill=item.get("fill", "sequential"),
            on_full=item.get("onFull", "upgrade"),
            extra=(str(extra["list"]), str(extra["countColumn"]), str(extra["penaltyColumn"]))
            if extra
            else None,
        )

    def check_track(
        self,
        item: dict[str, Any],
        here: Path,
        lo: int,
        fixed_max: int | None,
        levels: tuple[TrackLevel, ...],
        kinds: tuple[TrackKind, ...],
    ) -> None:
        has = {key: key in item for key in ("levels", "boxes", "kinds", "extra", "fill", "onFull")}
        if has["levels"] and has["boxes"]:
            self.add((*here, "boxes"), LEVELS_AND_BOXES, "a track has levels or boxes, never both.")
        if has["kinds"] and not (has["levels"] or has["boxes"]):
            self.add(
                (*here, "kinds"),
                KINDS_NEED_MARKS,
                "kinds need levels or boxes to be marked on; give the track one of them.",
            )
        for key in ("levels", "boxes", "fill", "onFull"):
            if has[key] and not has["kinds"]:
                self.add(
                    (*here, key),
                    NEEDS_KINDS,
                    f"{key} needs kinds: a mark on a wound track has to be of some kind.",
                )
        if has["extra"] and not has["levels"]:
            self.add(
                (*here, "extra"),
                EXTRA_NEEDS_LEVELS,
                "extra lengthens a track with named levels, and this one has none.",
            )
        if item.get("fill") == "indexed" and item.get("onFull") != "refuse":
            if "onFull" in item:
                self.add(
                    (*here, "onFull"),
                    INDEXED_REFUSES,
                    'an indexed track always refuses a mark with no box free; write "refuse".',
                )
            else:
                self.add(
                    here,
                    INDEXED_REFUSES,
                    'an indexed track always refuses a mark with no box free; add "onFull": "refuse".',
                )
        wound = has["kinds"] and (has["levels"] or has["boxes"])
        if wound:
            if lo != 0:
                self.add(
                    (*here, "min"),
                    WOUND_TRACK_MIN,
                    f"{lo} is not 0; a wound track starts unmarked, so its min is 0.",
                )
            if has["levels"] and fixed_max != len(levels):
                shown = describe(item["max"]) if fixed_max is not None else "a value off the sheet"
                self.add(
                    (*here, "max"),
                    LEVELS_LENGTH,
                    f"{shown} is not {len(levels)}, the number of levels; a track with named "
                    "levels is as long as its levels.",
                )
            if has["boxes"] and fixed_max is not None and fixed_max > 64:
                self.add(
                    (*here, "max"),
                    TOO_MANY,
                    f"{fixed_max} boxes is more than the 64 a track may have.",
                )
            seen: dict[int, int] = {}
            for i, kind in enumerate(kinds):
                if kind.severity in seen:
                    self.add(
                        (*here, "kinds", i, "severity"),
                        DUPLICATE_SEVERITY,
                        f"{kind.severity} is already the severity of kind {seen[kind.severity]}; "
                        "severities are distinct, since marks are ordered by them.",
                    )
                else:
                    seen[kind.severity] = i
            if "hideWhen" in item:
                self.add(
                    (*here, "hideWhen"),
                    WOUND_TRACK_HIDDEN,
                    "a wound track cannot be hidden: rolls and fights read it whatever the sheet shows.",
                )
        if fixed_max is not None and lo > fixed_max:
            self.problems.append(min_above_max((*here, "min"), lo, fixed_max, "a track"))
        elif "default" in item:
            default = int(item["default"])
            if default < lo or (fixed_max is not None and default > fixed_max):
                top = fixed_max if fixed_max is not None else "its max"
                self.problems.append(
                    out_of_range((*here, "default"), default, lo, top, "a track's default")
                )
        if has["extra"] and self.clean((*here, "extra")):
            self.check_extra(_dict(item["extra"]), (*here, "extra"))

    def check_extra(self, extra: dict[str, Any], here: Path) -> None:
        list_id = str(extra["list"])
        if list_id not in self.names["lists"]:
            self.problems.append(
                unknown_id((*here, "list"), list_id, "a list", self.names["lists"])
            )
            return
        self.check_columns(
            list_id, [(k, extra[k], ("number",)) for k in ("countColumn", "penaltyColumn")], here
        )

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

    def build_derived(self) -> None:
        at: Path = ("sheet", "derived")
        order = self.names["derived"]
        for _, item, here in self.items(self.sheet_raw.get("derived"), at):
            ident = str(item["id"])
            index = order.index(ident)
            scope = self.scope().with_derived(index)
            op = item["op"]
            of: tuple[ValueRef, ...] = ()
            source: ValueRef | None = None
            enum_from: tuple[Literal["field", "liveState"], str] | None = None
            enum_table: dict[str, float] = {}
            if op in ("sum", "min", "max"):
                refs = [self.ref(r, (*here, "of", j), scope) for j, r in enumerate(item["of"])]
                of = tuple(r for r in refs if r is not None)
            elif op == "scale":
                one = self.ref(item["of"], (*here, "of"), scope)
                of = (one,) if one is not None else ()
            elif op == "stepTable":
                source = self.ref(item["from"], (*here, "from"), scope)
            else:
                enum_from, enum_table = self.enum_table(item, here)
            derived = Derived(
                ident,
                str(item["label"]),
                op,
                of=of,
                source=source,
                multiplier=_num(item.get("multiplier", 1)),
                round=item.get("round", "down"),
                table=tuple((float(a), float(b)) for a, b in item.get("table", ()))
                if op == "stepTable"
                else (),
                enum_from=enum_from,
                enum_table=MappingProxyType(enum_table),
                default=_num(item.get("default", 0)),
            )
            self.sheet = replace(self.sheet, derived=(*self.sheet.derived, derived))

    def enum_table(
        self, item: dict[str, Any], here: Path
    ) -> tuple[tuple[Literal["field", "liveState"], str] | None, dict[str, float]]:
        source = item["from"]
        where: Literal["field", "liveState"] = "field" if "field" in source else "liveState"
        name = str(source[where])
        table = {k: float(v) for k, v in item["table"].items() if k != "$comment"}
        values: Sequence[str] | None = None
        if where == "field":
            if name not in self.names["fields"]:
                self.problems.append(
                    unknown_id((*here, "from", "field"), name, "a field", self.names["fields"])
                )
                return None, table
            decl = next((f for f in self.sheet.fields if f.id == name), None)
            if decl is not None and decl.type != "enum":
                self.add(
                    (*here, "from", "field"),
                    NOT_AN_ENUM,
                    f'"{name}" is a {decl.type} field; an enum table reads an enum field or a live state.',
                )
                return None, table
            values = decl.values if decl is not None else None
        else:
            if name not in self.names["states"]:
                self.problems.append(
                    unknown_id(
                        (*here, "from", "liveState"), name, "a live state", self.names["states"]
                    )
                )
                return None, table
            state = next((s for s in self.sheet.states if s.id == name), None)
            values = state.values if state is not None else None
        if values is not None:
            for key in table:
                if key not in values:
                    self.add(
                        (*here, "table", key),
                        NOT_A_VALUE,
                        f'"{key}" is not a value "{name}" can hold, so the row could never be read.'
                        f"{did_you_mean(key, values)}",
                    )
        return (where, name), table

    def with_cap(self, item: SkillDef, group: str) -> SkillDef:
        index = self.index_of(self.sheet_raw.get(group), item.id)
        raw = _dict(_list(self.sheet_raw.get(group))[index]).get("cap")
        if not isinstance(raw, dict):
            return item
        cap = self.ref(raw, ("sheet", group, index, "cap"))
        return replace(item, cap=cap)

    def with_max(self, item: Any, group: str) -> Any:
        index = self.index_of(self.live_raw.get(group), item.id)
        raw = _dict(_list(self.live_raw.get(group))[index]).get("max")
        if not isinstance(raw, dict):
            return item
        top = self.ref(raw, ("sheet", "live", group, index, "max"))
        return replace(item, max=top if top is not None else _PLACEHOLDER)

    def index_of(self, items: object, ident: str) -> int:
        """Where the first item of a list declares ``ident``: each list's ids are read
        once (a scan per item asked for was quadratic in a long list)."""
        found = self.indexes.get(id(items))
        if found is None:
            found = self.indexes[id(items)] = {}
            for i, item in enumerate(_list(items)):
                declared = _dict(item).get("id")
                if isinstance(declared, str):
                    found.setdefault(declared, i)
        return found[ident]

    def check_caps_and_maxima(self) -> None:
        for group, items in (("skills", self.sheet.skills), ("saves", self.sheet.saves)):
            for item in items:
                if item.cap is None:
                    continue
                chain = trace(item.cap, self.sheet, lambda r: r.source in ("skillMod", "saveMod"))
                if chain is not None:
                    index = self.index_of(self.sheet_raw.get(group), item.id)
                    self.add(
                        ("sheet", group, index, "cap"),
                        CAP_READS_CHECK_NUMBER,
                        f"{describe_chain(chain)}; a cap cannot read a skill or save modifier, "
                        "even through a derived value, so the sheet is worked out once, top to bottom.",
                    )
        for group, decls in (("pools", self.sheet.pools), ("tracks", self.sheet.tracks)):
            for decl in decls:
                chain = trace(decl.max, self.sheet, lambda r: r.source in LIVE_READS)
                if chain is not None:
                    index = self.index_of(self.live_raw.get(group), decl.id)
                    self.add(
                        ("sheet", "live", group, index, "max"),
                        READS_LIVE,
                        f"{describe_chain(chain)}, which changes in play; a maximum is worked "
                        "out before there is any live state.",
                    )

    def check_sections(self) -> None:
        s = self.sheet_raw
        order = list(s)
        declared_at = order.index("sections") if "sections" in order else None
        for group in ("abilities", "skills", "saves", "fields", "derived", "lists"):
            for _, item, here in self.items(s.get(group), ("sheet", group)):
                if "section" not in item:
                    continue
                name = str(item["section"])
                if name not in self.names["sections"]:
                    self.problems.append(
                        unknown_id((*here, "section"), name, "a section", self.names["sections"])
                    )
                elif declared_at is not None and order.index(group) < declared_at:
                    self.add(
                        (*here, "section"),
                        SECTION_ORDER,
                        f'"{name}" is named here before sheet.sections declares it; a section is '
                        f'declared before anything names it, so put "sections" above "{group}".',
                    )

    def check_hide_whens(self) -> None:
        sites: list[tuple[object, Path]] = [
            (self.sheet_raw.get(g), ("sheet", g)) for g in ("fields", "derived", "lists")
        ]
        sites += [
            (self.live_raw.get(g), ("sheet", "live", g)) for g in ("pools", "tracks", "states")
        ]
        fields = {f.id: f for f in self.sheet.fields}
        for raw, at in sites:
            for _, item, here in self.items(raw, at):
                hide = item.get("hideWhen")
                if not isinstance(hide, dict):
                    continue
                name = str(hide["field"])
                where = (*here, "hideWhen")
                if name not in self.names["fields"]:
                    self.problems.append(
                        unknown_id((*where, "field"), name, "a field", self.names["fields"])
                    )
                    continue
                decl = fields.get(name)
                if decl is None:
                    continue
                compared: list[tuple[Path, object]] = []
                for key in ("equals", "notEquals"):
                    if key in hide:
                        compared.append(((*where, key), hide[key]))
                compared += [((*where, "in", i), v) for i, v in enumerate(_list(hide.get("in")))]
                for path, value in compared:
                    why = _fit(decl, value)
                    if why is not None:
                        self.add(
                            path,
                            NEVER_MATCHES,
                            f'{describe(value)} is not a value the field "{name}" can hold '
                            f"({why}), so the rule could never match.",
                        )

    def check_skill_save_ids(self) -> None:
        skills = set(self.names["skills"])
        for _, item, here in self.items(self.sheet_raw.get("saves"), ("sheet", "saves")):
            if item["id"] in skills:
                self.add(
                    (*here, "id"),
                    DUPLICATE_ID,
                    f'"{item["id"]}" is already a skill; skills and saves share one bonuses map, '
                    "so their ids differ.",
                )

    def check_tiers_and_bonus(self) -> None:
        s = self.sheet_raw
        for key in ("skillTiers", "saveTiers"):
            if not self.clean(("sheet", key)):
                continue
            for i, tier in enumerate(_list(s.get(key))):
                if tier not in self.names["tiers"]:
                    self.problems.append(
                        unknown_id(
                            ("sheet", key, i), str(tier), "a proficiency tier", self.names["tiers"]
                        )
                    )
        tiers = (
            tuple(str(t) for t in _list(s.get("skillTiers"))),
            tuple(str(t) for t in _list(s.get("saveTiers"))),
        )
        bonus = _dict(s.get("bonusRange"))
        lo, hi = -20, 40
        if bonus and self.clean(("sheet", "bonusRange")):
            lo, hi = int(bonus["min"]), int(bonus["max"])
            if lo > hi:
                self.problems.append(
                    min_above_max(("sheet", "bonusRange", "min"), lo, hi, "the bonus")
                )
        self.sheet = replace(
            self.sheet, skill_tiers=tiers[0], save_tiers=tiers[1], bonus_min=lo, bonus_max=hi
        )

    # -- resolution ------------------------------------------------------------------

    def build_resolution(self) -> Resolution | None:
        res = self.res_raw
        at: Path = ("resolution",)
        if not isinstance(self.raw.get("resolution"), dict):
            return None
        ability_modifier = None
        if self.clean((*at, "abilityModifier")) and "abilityModifier" in res:
            spec = res["abilityModifier"]
            ability_modifier = AbilityModifier(
                spec["op"], tuple((float(a), float(b)) for a, b in spec.get("table", ()))
            )
        tiers = tuple(
            Tier(
                str(t["id"]),
                str(t["label"]),
                multiplier=_num(t.get("multiplier", 0)),
                round=t.get("round", "down"),
                flat=int(t.get("flat", 0)),
            )
            for _, t, _ in self.items(res.get("proficiencyTiers"), (*at, "proficiencyTiers"))
        )
        if "proficiency" not in res:
            for _, t, here in self.items(res.get("proficiencyTiers"), (*at, "proficiencyTiers")):
                if t.get("multiplier", 0) != 0:
                    self.add(
                        (*here, "multiplier"),
                        NEEDS_BONUS,
                        f"{describe(t['multiplier'])} multiplies the proficiency bonus, and "
                        'resolution.proficiency names none; add "proficiency": { "bonus": ... } '
                        "or drop the multiplier.",
                    )
        bonus = self.proficiency_bonus()
        penalty_from = self.penalty_from()
        adjust = self.adjust()
        self.check_untrained_harder()
        kind = self.kind
        if kind is None or not self.clean(at):
            return None
        ctx = CompileContext(sheet=self.sheet, path=at)
        config, problems = kind.compile(res, ctx)
        self.problems.extend(problems)
        ladder = tuple(kind.ladder_step(step) for step in res["difficultyLadder"])
        outcomes = None
        if "outcomes" in res:
            outcomes, problems = compile_bands(
                res["outcomes"],
                (*at, "outcomes"),
                kind=kind.name,
                single_die=single_die_of(kind.name, res),
                resolution_naturals_none=naturals_none(res),
                against=res.get("against"),
            )
            self.problems.extend(problems)
        overrides: tuple[Override, ...] = ()
        if "overrides" in res:
            overrides, problems = compile_overrides(
                res["overrides"],
                (*at, "overrides"),
                resolution_block=res,
                kind_compiler=kind,
                ctx=ctx,
                scope=self.scope(),
            )
            self.problems.extend(problems)
        if ability_modifier is None:
            return None
        return Resolution(
            kind=kind.name,
            ability_modifier=ability_modifier,
            tiers=tiers,
            ladder=ladder,
            config=config,
            proficiency_bonus=bonus,
            penalty_from=penalty_from,
            adjust=adjust,
            outcomes=outcomes,
            overrides=overrides,
            raw=MappingProxyType(res),
        )

    def proficiency_bonus(self) -> ValueRef | None:
        path: Path = ("resolution", "proficiency", "bonus")
        raw = _dict(self.res_raw.get("proficiency")).get("bonus")
        if not isinstance(raw, dict) or not self.clean(path):
            return None
        bonus = self.ref(raw, path)
        if bonus is None:
            return None
        chain = trace(bonus, self.sheet, lambda r: r.source in ("skillMod", "saveMod"))
        if chain is not None:
            self.add(
                path,
                BONUS_READS_CHECK_NUMBER,
                f"{describe_chain(chain)}; the proficiency bonus feeds every skill and save "
                "modifier, so it cannot read one.",
            )
        chain = trace(bonus, self.sheet, lambda r: r.source in LIVE_READS)
        if chain is not None:
            self.add(
                path,
                READS_LIVE,
                f"{describe_chain(chain)}, which changes in play; the proficiency bonus is "
                "worked out before there is any live state.",
            )
        return bonus

    def penalty_from(self) -> str | None:
        path: Path = ("resolution", "penaltyFrom")
        name = self.res_raw.get("penaltyFrom")
        if name is None or not self.clean(path):
            return None
        name = str(name)
        if name not in self.names["tracks"]:
            self.problems.append(unknown_id(path, name, "a live track", self.names["tracks"]))
            return None
        track = next((t for t in self.sheet.tracks if t.id == name), None)
        if track is not None and not track.is_wound_track:
            self.add(
                path,
                NOT_WOUND_TRACK,
                f'"{name}" is a plain track, which carries no penalty; penaltyFrom names a wound '
                "track (one with kinds and levels or boxes).",
            )
        return name

    def adjust(self) -> tuple[Adjust, ...]:
        out = []
        for _, item, here in self.items(self.res_raw.get("adjust"), ("resolution", "adjust")):
            value = self.ref(item["value"], (*here, "value"))
            abilities = tuple(str(a) for a in item.get("abilities", ()))
            for j, name in enumerate(abilities):
                if name not in self.names["abilities"]:
                    self.problems.append(
                        unknown_id(
                            (*here, "abilities", j), name, "an ability", self.names["abilities"]
                        )
                    )
            if value is not None:
                out.append(Adjust(value, abilities))
        return tuple(out)

    def check_untrained_harder(self) -> None:
        """The page: "harder" raises a pool's per-die target, so it needs a target that can
        move; on a pool whose target is fixed it could never change a roll."""
        if self.kind is None or self.kind.name != "dice-pool":
            return
        target = self.res_raw.get("target")
        if not self.clean(("resolution", "target")) or not isinstance(target, dict):
            return
        if target.get("min") != target.get("max"):
            return
        for group in ("sections", "skills", "saves"):
            for _, item, here in self.items(self.sheet_raw.get(group), ("sheet", group)):
                if item.get("untrained") == "harder":
                    self.add(
                        (*here, "untrained"),
                        NEVER_HARDER,
                        f'"harder" raises the per-die target, and this pool\'s target is fixed at '
                        f"{describe(target.get('min'))}, so it could never change a roll.",
                    )

    # -- gm --------------------------------------------------------------------------

    def check_gm(self) -> None:
        at: Path = ("gm", "sheetSummary")
        summary = _dict(_dict(self.raw.get("gm")).get("sheetSummary"))
        for key, what, names in (
            ("fields", "a field", self.names["fields"]),
            ("derived", "a derived value", self.names["derived"]),
        ):
            if not self.clean((*at, key)):
                continue
            for i, name in enumerate(_list(summary.get(key))):
                if name not in names:
                    self.problems.append(unknown_id((*at, key, i), str(name), what, names))
        for _, item, here in self.items(summary.get("lists"), (*at, "lists")):
            list_id = str(item["list"])
            if list_id not in self.names["lists"]:
                self.problems.append(
                    unknown_id((*here, "list"), list_id, "a list", self.names["lists"])
                )
                continue
            wanted: list[tuple[str | int, Any, Sequence[str]]] = [
                ("nameColumn", item["nameColumn"], ("text", "enum"))
            ]
            if "groupBy" in item:
                wanted.append(("groupBy", item["groupBy"], ()))
            if "onlyWhen" in item:
                wanted.append(("onlyWhen", item["onlyWhen"], ("boolean",)))
            self.check_columns(list_id, wanted, here)
            for j, column in enumerate(item.get("columns", ())):
                self.check_columns(list_id, [(j, column, ())], (*here, "columns"))

    # -- catalogs --------------------------------------------------------------------

    def build_catalogs(self) -> tuple[Catalog, ...]:
        out = []
        for _, cat, here in self.items(self.raw.get("catalogs"), ("catalogs",)):
            out.append(self.catalog(cat, here))
        return tuple(out)

    def catalog(self, cat: dict[str, Any], here: Path) -> Catalog:
        ident = str(cat["id"])
        holds = cat.get("holds", "rows")
        feeds = [str(f) for f in cat.get("feeds", ())]
        if holds == "rows" and "feeds" not in cat:
            self.problems.append(
                missing_key(
                    here, "feeds", where="on a catalog of rows: the lists its entries write into"
                )
            )
        if holds != "rows" and "feeds" in cat:
            self.add(
                (*here, "feeds"),
                FEEDS_NOT_ROWS,
                f"a catalog of {holds} writes nothing onto a sheet, so it declares no feeds.",
            )
        for i, name in enumerate(feeds):
            if name not in self.names["lists"]:
                self.problems.append(
                    unknown_id((*here, "feeds", i), name, "a list", self.names["lists"])
                )
        filters = {str(f["id"]): str(f["type"]) for f in cat.get("filters", ())}
        for i, spec in enumerate(cat.get("filters", ())):
            start = spec.get("startFrom")
            if start is not None and start["field"] not in self.names["fields"]:
                self.problems.append(
                    unknown_id(
                        (*here, "filters", i, "startFrom", "field"),
                        str(start["field"]),
                        "a field",
                        self.names["fields"],
                    )
                )
        asset = cat.get("asset")
        if asset is not None and asset != f"catalogs/{ident}.json":
            self.add(
                (*here, "asset"),
                ASSET_PATH,
                f'{describe(asset)} is not "catalogs/{ident}.json"; a catalog\'s asset is named '
                "after the catalog.",
            )
        entries = []
        for _, entry, at in self.items(cat.get("entries"), (*here, "entries")):
            entries.append(self.entry(entry, at, holds, feeds, filters))
        return Catalog(ident, str(cat["label"]), holds, tuple(entries), asset)

    def entry(
        self,
        entry: dict[str, Any],
        here: Path,
        holds: str,
        feeds: Sequence[str],
        filters: Mapping[str, str],
    ) -> CatalogEntry:
        want = {"rows": "rows", "creatures": "creature", "items": "item"}[holds]
        have = next(key for key in ("rows", "creature", "item") if key in entry)
        if have != want:
            self.add(
                (*here, have),
                WRONG_ENTRY,
                f'a catalog that holds {holds} takes entries with "{want}", not "{have}".',
            )
        if have != "rows" and "mechanics" in entry:
            self.add(
                (*here, "mechanics"),
                MECHANICS_NOT_ALLOWED,
                f"an entry with {have} says what it does in its own block, so it carries no mechanics.",
            )
        for key, value in _dict(entry.get("filters")).items():
            if key == "$comment":
                continue
            kind = filters.get(key)
            if kind is None:
                self.problems.append(
                    unknown_id((*here, "filters", key), key, "a filter of this catalog", filters)
                )
                continue
            fits = {
                "number": is_number(value),
                "text": isinstance(value, str),
                "tags": isinstance(value, list),
            }[kind]
            if not fits:
                said = {"number": "a number", "text": "one string", "tags": "a list of strings"}[
                    kind
                ]
                self.add(
                    (*here, "filters", key),
                    WRONG_TYPE,
                    f'must be {said} for the {kind} filter "{key}", not {describe(value)}.',
                )
        if have == "rows":
            self.rows(entry["rows"], (*here, "rows"), feeds)
        mechanics = _dict(entry.get("mechanics"))
        cost: tuple[CostTerm, ...] = ()
        if mechanics and self.clean((*here, "mechanics")):
            cost = self.cost(mechanics, (*here, "mechanics"))
            if "check" in mechanics:
                self.entry_check(mechanics["check"], (*here, "mechanics", "check"))
        return CatalogEntry(
            str(entry["id"]),
            str(entry["label"]),
            kind=mechanics.get("kind"),
            cost=cost,
            per_cost_step=None
            if "perCostStep" not in mechanics
            else MappingProxyType(mechanics["perCostStep"]),
            check=None if "check" not in mechanics else MappingProxyType(mechanics["check"]),
            raw=MappingProxyType(entry),
        )

    def rows(self, rows: list[dict[str, Any]], here: Path, feeds: Sequence[str]) -> None:
        lists_written: dict[str, int] = {}
        for row in rows:
            lists_written[str(row["list"])] = lists_written.get(str(row["list"]), 0) + 1
        for i, row in enumerate(rows):
            at = (*here, i)
            list_id = str(row["list"])
            if list_id not in self.names["lists"]:
                self.problems.append(
                    unknown_id((*at, "list"), list_id, "a list", self.names["lists"])
                )
                continue
            if feeds and list_id not in feeds:
                shown = ", ".join(f'"{f}"' for f in feeds)
                self.add(
                    (*at, "list"),
                    NOT_FED,
                    f'"{list_id}" is not one of this catalog\'s feeds ({shown}); an entry writes '
                    "only into the lists its catalog feeds.",
                )
                continue
            decl = next((lst for lst in self.sheet.lists if lst.id == list_id), None)
            if decl is None:
                continue
            columns = {c.id: c for c in decl.columns}
            for key, value in row["values"].items():
                if key == "$comment":
                    continue
                column = columns.get(key)
                if column is None:
                    self.problems.append(not_a_column((*at, "values", key), key, list_id, columns))
                    continue
                why = _fit(column, value)
                if why is not None:
                    self.add(
                        (*at, "values", key),
                        DOES_NOT_FIT,
                        f'{describe(value)} does not fit the column "{key}": {why}.',
                    )
            scaled = _dict(row.get("scaled"))
            if scaled and lists_written[list_id] > 1:
                self.add(
                    (*at, "scaled"),
                    SCALED_NOT_ALONE,
                    f'a row with scaled columns is the entry\'s only row for "{list_id}", so a '
                    "marked row on a sheet matches one spec.",
                )
            for key, spec in scaled.items():
                if key == "$comment":
                    continue
                self.scaled(key, spec, (*at, "scaled", key), columns, row["values"], list_id)

    def scaled(
        self,
        key: str,
        spec: dict[str, Any],
        here: Path,
        columns: Mapping[str, ListColumn],
        values: Mapping[str, Any],
        list_id: str,
    ) -> None:
        column = columns.get(key)
        if column is None:
            self.problems.append(not_a_column(here, key, list_id, columns))
            return
        if column.type != "number":
            self.add(
                here,
                WRONG_COLUMN_TYPE,
                f'"{key}" is a {column.type} column; a scaled column is a number column.',
            )
            return
        if not is_number(values.get(key)) or isinstance(values.get(key), bool):
            self.add(
                here,
                SCALED_NEEDS_VALUE,
                f'"{key}" also needs a plain number in the row\'s values: what the row holds '
                "before any sheet is known.",
            )
        source = self.ref(spec["from"], (*here, "from"))
        if source is None:
            return
        chain = trace(source, self.sheet, lambda r: r.source in LIVE_READS)
        if chain is not None:
            self.add(
                (*here, "from"),
                READS_LIVE,
                f"{describe_chain(chain)}, which changes in play; a scaled column is worked out "
                "when the sheet is edited, before there is any live state.",
            )
        chain = trace(source, self.sheet, lambda r: r.source == "listSum")
        if chain is not None:
            self.add(
                (*here, "from"),
                SCALED_READS_LIST,
                f"{describe_chain(chain)}; a scaled column cannot read a list sum, since a list "
                "may hold scaled cells and the recompute would never settle.",
            )

    def cost(self, mechanics: dict[str, Any], here: Path) -> tuple[CostTerm, ...]:
        groups = [p.group for p in self.sheet.pools if p.group is not None]
        known = list(dict.fromkeys([*self.names["pools"], *groups]))
        out = []
        for i, term in enumerate(mechanics.get("cost", ())):
            pool = str(term["pool"])
            if pool not in known:
                self.add(
                    (*here, "cost", i, "pool"),
                    UNKNOWN_ID,
                    f'"{pool}" is neither a live pool nor a pool group of this ruleset.'
                    f"{did_you_mean(pool, known)}",
                )
            out.append(CostTerm(pool, int(term["amount"])))
        return tuple(out)

    def entry_check(self, check: dict[str, Any], here: Path) -> None:
        """The page: only a dice-pool ruleset honours an entry's check; its faces must be
        faces the pool can use."""
        kind = self.kind.name if self.kind is not None else self.res_raw.get("kind")
        if kind != "dice-pool":
            self.add(
                here,
                CHECK_NEEDS_POOL,
                f"only a dice-pool ruleset can honour an entry's check, and this ruleset is "
                f"{describe(kind)}.",
            )
            return
        res = self.res_raw
        if not self.clean(("resolution",)):
            return
        sides = int(_dict(res.get("die")).get("sides", 10))
        target = res["target"]
        if "reroll" in check and int(check["reroll"]["upTo"]) >= sides:
            self.add(
                (*here, "reroll", "upTo"),
                REROLLS_EVERY_FACE,
                f"{check['reroll']['upTo']} is not below the die's top face {sides}; a re-throw "
                "of every face would never stop.",
            )
        if "threshold" in check:
            value = int(check["threshold"])
            lo, hi = int(target["min"]), int(target["max"])
            if not lo <= value <= hi:
                self.add(
                    (*here, "threshold"),
                    OUTSIDE_TARGET,
                    f"{value} is outside the target's range {lo}..{hi}; an entry sets the "
                    "per-die target only inside it.",
                )
        for key in ("explode", "double"):
            if key not in check:
                continue
            value = int(check[key])
            rule = _dict(res.get(key))
            if "min" not in rule:
                self.add(
                    (*here, key),
                    RULE_HAS_NO_MIN,
                    f"resolution.{key} has no min, so nothing may move its face; give the rule "
                    "a min to let an entry move it.",
                )
            elif not int(rule["min"]) <= value <= sides:
                self.add(
                    (*here, key),
                    OUTSIDE_RULE,
                    f"{value} is outside {rule['min']}..{sides}; an entry moves the {key} face "
                    "only down to the rule's min and up to the die's top face.",
                )

    # -- layers ----------------------------------------------------------------------

    def build_layers(self) -> tuple[Layer, ...]:
        out = []
        for i, layer, here in self.items(self.raw.get("layers"), ("layers",)):
            ident = str(layer["id"])
            for j, other in enumerate(layer.get("conflicts", ())):
                if other == ident:
                    self.add(
                        (*here, "conflicts", j),
                        CONFLICTS_ITSELF,
                        f'"{other}" is this layer; a layer conflicts only with others.',
                    )
                elif other not in self.names["layers"]:
                    self.problems.append(
                        unknown_id(
                            (*here, "conflicts", j), str(other), "a layer", self.names["layers"]
                        )
                    )
            gm = _dict(layer.get("gm"))
            length = len(str(gm.get("guidance", ""))) + len(str(gm.get("worldGuidance", "")))
            if length > 4000:
                self.add(
                    (*here, "gm"),
                    TOO_LONG,
                    f"holds {length} characters of guidance, counting both texts; a layer holds "
                    "at most 4000.",
                )
            ladder = self.layer_ladder(layer, i)
            out.append(
                Layer(
                    ident,
                    str(layer["label"]),
                    summary=layer.get("summary"),
                    conflicts=tuple(str(c) for c in layer.get("conflicts", ())),
                    ladder=ladder,
                    guidance=gm.get("guidance"),
                    world_guidance=gm.get("worldGuidance"),
                )
            )
        return tuple(out)

    def layer_ladder(self, layer: dict[str, Any], index: int) -> tuple[LadderStep, ...] | None:
        """A layer's ladder is held to exactly the checks the ruleset's own ladder is."""
        steps = layer.get("difficultyLadder")
        kind = self.kind
        if steps is None or kind is None:
            return None
        if not self.clean(("resolution",)):
            return None
        _, problems = kind.compile(
            {**self.res_raw, "difficultyLadder": steps}, CompileContext(sheet=self.sheet)
        )
        prefix = ("resolution", "difficultyLadder")
        for problem in problems:
            if problem.path[:2] == prefix:
                path = ("layers", index, "difficultyLadder", *problem.path[2:])
                self.problems.append(Problem(path, problem.code, problem.message))
        return tuple(kind.ladder_step(step) for step in steps)
