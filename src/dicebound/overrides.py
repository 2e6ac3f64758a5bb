"""Checks that roll their own way: ``resolution.overrides`` (Capability API 1.140).

An override names skills, saves or abilities and the resolution keys of the ruleset's
own kind they roll with instead (``set``; ``null`` takes a key away). The kind, the sheet
math and the difficulty ladder are locked, and a symbol pool also locks its symbols and
dice. The resolution an override makes is checked like the ruleset's own: its keys by
the kind's nodes, then the whole block by the kind's compiler (and the bands beside it),
so a face it names has to be on its dice. The first override that names a check and
whose ``when`` holds is the one used.

Readings where the page is silent:

- ``set`` replaces whole keys (``"dice": {...}`` replaces ``dice``; it is not merged).
- ``outcomes`` is shared by every kind, not a key of the kind's own, so an override
  cannot change the bands; the bands are checked again against the resolution it makes
  (a ``naturals: "shift"`` needs that resolution to throw one die too).
- Refused as rules that could never fire: an empty ``set``, a ``null`` for a key the
  resolution does not have, a ``when`` that is a constant (``when`` reads the roller's
  sheet), a check named twice by one override, and a check named by an override after
  one that names it without ``when`` (that one always applies first).
- A problem the override's resolution shares with the ruleset's own, at a key the
  override does not set, is reported once, at the ruleset's own key. One that the
  override brings at a key it does not set is reported at its ``set``, naming where.
- At most 20 overrides, each naming at most 120 skills and 40 saves or abilities; an
  override's ``text`` is one line of at most 200 characters, as a band's is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal

from dicebound.bands import naturals_none
from dicebound.kinds import registry
from dicebound.kinds.bands import compile_bands, single_die_of
from dicebound.kinds.base import CompileContext, KindCompiler
from dicebound.problem_codes import (
    DUPLICATE_CHECK,
    EMPTY_SET,
    LOCKED_KEY,
    NEVER_APPLIES,
    REMOVES_NOTHING,
    REQUIRED_KEY,
    TWO_WITHOUT_WHEN,
    WHEN_NOT_ON_SHEET,
)
from dicebound.problems import Path, Problem, render_path, unknown_id, unknown_key
from dicebound.ruleset.model import Sheet, ValueRef
from dicebound.ruleset.refs import VALUE_REF, RefScope, compile_ref
from dicebound.ruleset.spec import Arr, Custom, Id, JsonSchema, Node, Obj, Str, describe
from dicebound.values import field, frozen

__all__ = [
    "LOCKED_KEYS",
    "OVERRIDES",
    "CheckGroup",
    "Override",
    "compile_overrides",
    "features",
    "overrides_node",
    "select_override",
]

CheckGroup = Literal["skill", "save", "ability"]

SHEET_MATH: tuple[str, ...] = (
    "abilityModifier",
    "proficiency",
    "proficiencyTiers",
    "penaltyFrom",
    "spend",
    "adjust",
)
LOCKED_KEYS: tuple[str, ...] = ("kind", *SHEET_MATH, "difficultyLadder")
"""Resolution keys no override may set, whatever the kind (the page)."""

_SHARED: tuple[str, ...] = ("outcomes", "overrides")
_GROUP_KEYS: Mapping[CheckGroup, str] = MappingProxyType(
    {"skill": "skills", "save": "saves", "ability": "abilities"}
)
_NAMESPACES = ("fields", "derived", "abilities", "skills", "saves", "tracks", "pools", "lists")


@frozen
class Override:
    """One compiled override. Immutable.

    ``config`` is the kind's compiled config of the resolution the override makes, and
    ``block`` that resolution as raw JSON (the ruleset's block with ``set`` applied,
    ``overrides`` left out). ``removes`` lists the keys ``set`` takes away.
    """

    id: str
    label: str
    skills: tuple[str, ...]
    saves: tuple[str, ...]
    abilities: tuple[str, ...]
    config: Any
    set: Mapping[str, Any] = field(default_factory=dict)
    removes: tuple[str, ...] = ()
    when: ValueRef | None = None
    text: str | None = None
    block: Mapping[str, Any] = field(default_factory=dict)

    def names(self, group: CheckGroup, item_id: str) -> bool:
        """Whether this override names that check."""
        items: tuple[str, ...] = getattr(self, _GROUP_KEYS[group])
        return item_id in items


def select_override(
    overrides: Sequence[Override],
    group: CheckGroup,
    item_id: str,
    read_when: Callable[[ValueRef], float],
) -> Override | None:
    """The first override that names the check and whose ``when`` is absent or not 0.

    ``read_when`` reads a value reference off the roller's sheet; it is called only for
    the overrides that name the check, in order, until one holds.
    """
    for override in overrides:
        if not override.names(group, item_id):
            continue
        if override.when is None or read_when(override.when) != 0:
            return override
    return None


# -- the shape ------------------------------------------------------------------------------


def _refuse(code: str, sentence: Callable[[str], str]) -> Custom:
    """A key that is refused wherever it is written; the path's last part is the key."""

    def check(value: object, path: Path) -> Iterator[Problem]:
        yield Problem(path, code, sentence(str(path[-1])))

    schema: JsonSchema = {"not": {}}
    return Custom(check, schema)


class _Nullable(Node):
    """A key of ``set``: its kind's shape, or ``null`` to take the key away."""

    def __init__(self, node: Node) -> None:
        self.node = node

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        if value is not None:
            yield from self.node.check(value, path)

    def schema(self) -> JsonSchema:
        return {"anyOf": [{"type": "null"}, self.node.schema()]}


class _SetNode(Node):
    """``set``: a non-empty object of the kind's unlocked keys."""

    def __init__(self, obj: Obj) -> None:
        self.obj = obj

    def check(self, value: object, path: Path) -> Iterator[Problem]:
        yield from self.obj.check(value, path)
        if isinstance(value, dict) and not [k for k in value if k != "$comment"]:
            yield Problem(
                path,
                EMPTY_SET,
                "sets no key, so the override would change nothing; name the resolution keys "
                "its checks roll with instead.",
            )

    def schema(self) -> JsonSchema:
        out = self.obj.schema()
        out["minProperties"] = 1
        return out


def _locked_sentence(kind: KindCompiler | None) -> Callable[[str], str]:
    def sentence(key: str) -> str:
        if key == "kind":
            return (
                '"kind" cannot be changed by an override: its checks roll the ruleset\'s own '
                "kind, with other keys."
            )
        if key == "difficultyLadder":
            return (
                '"difficultyLadder" cannot be changed by an override: the Game Master picks '
                "every check's difficulty from the one ladder."
            )
        own = None if kind is None else kind.override_lock_sentence(key)
        if own is not None:
            return own
        if key == "outcomes":
            return (
                '"outcomes" is not a key of the kind\'s own: the bands are read the same way '
                "for every check, so an override cannot change them."
            )
        if key == "overrides":
            return '"overrides" cannot be set inside an override.'
        return f'"{key}" is part of the sheet math, which an override cannot change.'

    return sentence


def _set_node(kind: KindCompiler | None) -> Node:
    if kind is None:
        locked = _refuse(LOCKED_KEY, _locked_sentence(None))
        props: dict[str, Node] = dict.fromkeys((*LOCKED_KEYS, *_SHARED), locked)
        return _SetNode(Obj(props, extra=Custom(lambda v, p: iter(()), {})))
    # The kind's own locks are read off the kind the registry builds by that name, so a
    # compiler that names a built kind (a test's stand-in) locks what the kind locks.
    own = registry.kind_compiler(kind.name)
    sentence = _locked_sentence(own)
    locked = _refuse(LOCKED_KEY, sentence)
    lock = {*LOCKED_KEYS, *_SHARED}
    if own is not None:
        lock.update(own.override_locks)
    props = dict.fromkeys(sorted(lock), locked)
    for key, node in kind.keys.items():
        if key not in lock:
            props[key] = _Nullable(node)
    known = [key for key in kind.keys if key not in lock]

    def unknown(value: object, path: Path) -> Iterator[Problem]:
        key = str(path[-1])
        yield unknown_key(path, key, known, takes=f"a resolution key of {kind.name}")

    return _SetNode(Obj(props, extra=Custom(unknown, {"not": {}})))


def overrides_node(kind: KindCompiler | None = None) -> Node:
    """The shape of ``resolution.overrides``; with a kind, ``set`` holds its keys."""
    entry = Obj(
        {
            "id": Id(),
            "label": Str(hi=80),
            "skills": Arr(Id(), lo=1, hi=120, noun="skill"),
            "saves": Arr(Id(), lo=1, hi=40, noun="save"),
            "abilities": Arr(Id(), lo=1, hi=40, noun="ability"),
            "text": Str(hi=200),
            "set": _set_node(kind),
            "when": VALUE_REF,
        },
        required=("id", "label", "set"),
        at_least_one=("skills", "saves", "abilities"),
    )
    return Arr(entry, lo=1, hi=20, unique_key="id", noun="override")


OVERRIDES: Node = overrides_node()
"""The shape of ``resolution.overrides`` for any kind (``set`` only has its locks)."""


# -- compiling -------------------------------------------------------------------------------


def _scope(sheet: Sheet) -> RefScope:
    names = {ns: [item.id for item in getattr(sheet, ns)] for ns in _NAMESPACES}
    return RefScope(sheet, names, reader="this override's when")


def _made_block(
    base: Mapping[str, Any], set_: Mapping[str, Any]
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The resolution an override makes, and the keys it takes away."""
    made = {k: v for k, v in base.items() if k != "overrides"}
    removes: list[str] = []
    for key, value in set_.items():
        if key == "$comment":
            continue
        if value is None:
            made.pop(key, None)
            removes.append(key)
        else:
            made[key] = value
    return made, tuple(removes)


def _remap(problem: Problem, block_path: Path, set_path: Path, set_: Mapping[str, Any]) -> Problem:
    """A problem of the made resolution, placed in the override where it can be."""
    n = len(block_path)
    rel = problem.path[n:] if problem.path[:n] == block_path else None
    if rel and isinstance(rel[0], str) and set_.get(rel[0]) is not None:
        return Problem((*set_path, *rel), problem.code, problem.message)
    return Problem(
        set_path,
        problem.code,
        f"in the resolution this override makes, {render_path(problem.path)}: {problem.message}",
    )


def _bands_problems(block: Mapping[str, Any], kind: str, at: Path) -> list[Problem]:
    if "outcomes" not in block:
        return []
    against = block.get("against")
    _, found = compile_bands(
        block["outcomes"],
        (*at, "outcomes"),
        kind=kind,
        single_die=single_die_of(kind, block),
        resolution_naturals_none=naturals_none(block),
        against=against if against in ("at-most", "at-least") else None,
    )
    return found


def compile_overrides(
    raw_list: object,
    path: Path,
    *,
    resolution_block: Mapping[str, Any],
    kind_compiler: KindCompiler,
    ctx: CompileContext,
    scope: RefScope | None = None,
) -> tuple[tuple[Override, ...], list[Problem]]:
    """Check ``resolution.overrides`` (its shape first) and compile every override.

    ``resolution_block`` is the ruleset's own resolution as written (structurally
    valid); ``ctx.path`` is where it stands. ``scope`` is what ``when`` may name (by
    default everything ``ctx.sheet`` declares). Every problem is collected; the
    overrides are given only when there are none.
    """
    problems = list(overrides_node(kind_compiler).check(raw_list, path))
    if not isinstance(raw_list, list):
        return (), problems
    broken = {p.path[len(path)] for p in problems if len(p.path) > len(path)}
    scope = scope or _scope(ctx.sheet)
    sheet = ctx.sheet
    known: Mapping[CheckGroup, list[str]] = {
        "skill": [s.id for s in sheet.skills],
        "save": [s.id for s in sheet.saves],
        "ability": [a.id for a in sheet.abilities],
    }
    what = {"skill": "a skill", "save": "a save", "ability": "an ability"}
    always: dict[tuple[CheckGroup, str], str] = {}  # checks held by an override without when
    base_found: list[set[Problem]] = []  # the ruleset's own problems, worked out once

    def base_problems() -> set[Problem]:
        if not base_found:
            base = {k: v for k, v in resolution_block.items() if k != "overrides"}
            _, own = kind_compiler.compile(base, ctx)
            own.extend(_bands_problems(base, kind_compiler.name, ctx.path))
            base_found.append(set(own))
        return base_found[0]

    out: list[Override] = []
    for i, raw in enumerate(raw_list):
        if i in broken or not isinstance(raw, dict):
            continue
        here = (*path, i)
        found: list[Problem] = []
        names: dict[CheckGroup, tuple[str, ...]] = {}
        for group, key in _GROUP_KEYS.items():
            items = tuple(str(x) for x in raw.get(key, ()))
            names[group] = items
            seen: set[str] = set()
            for j, item in enumerate(items):
                at = (*here, key, j)
                if item not in known[group]:
                    found.append(unknown_id(at, item, what[group], known[group], of="this sheet"))
                    continue
                if item in seen:
                    found.append(
                        Problem(
                            at,
                            DUPLICATE_CHECK,
                            f'"{item}" is already named by this override; name each check once.',
                        )
                    )
                    continue
                seen.add(item)
                holder = always.get((group, item))
                if holder is not None and "when" not in raw:
                    found.append(
                        Problem(
                            at,
                            TWO_WITHOUT_WHEN,
                            f'"{item}" is already in override "{holder}" without when; a check '
                            "appears in at most one override without when.",
                        )
                    )
                elif holder is not None:
                    found.append(
                        Problem(
                            at,
                            NEVER_APPLIES,
                            f'"{item}" is already in override "{holder}", which has no when '
                            "and so always applies first; this override could never apply to "
                            "it, so put the override with when first.",
                        )
                    )
                elif "when" not in raw:
                    always[(group, item)] = str(raw["id"])

        when: ValueRef | None = None
        if "when" in raw:
            if "const" in raw["when"]:
                found.append(
                    Problem(
                        (*here, "when", "const"),
                        WHEN_NOT_ON_SHEET,
                        f"{describe(raw['when']['const'])} is a constant, but when reads a value "
                        "off the roller's sheet; leave when out for an override that always "
                        "applies.",
                    )
                )
            else:
                when, bad = compile_ref(raw["when"], (*here, "when"), scope)
                found.extend(bad)

        set_: Mapping[str, Any] = raw["set"]
        set_path = (*here, "set")
        made, removes = _made_block(resolution_block, set_)
        set_ok = True
        for key in removes:
            if key not in resolution_block:
                found.append(
                    Problem(
                        (*set_path, key),
                        REMOVES_NOTHING,
                        f'null takes "{key}" away, but the ruleset\'s resolution has no '
                        f'"{key}"; leave it out of set.',
                    )
                )
                set_ok = False
            elif key in kind_compiler.required:
                found.append(
                    Problem(
                        (*set_path, key),
                        REQUIRED_KEY,
                        f'"{key}" is required by {kind_compiler.name}, so an override cannot '
                        "take it away.",
                    )
                )
                set_ok = False

        config: Any = None
        if set_ok:
            config, made_problems = kind_compiler.compile(made, ctx)
            made_problems.extend(_bands_problems(made, kind_compiler.name, ctx.path))
            if made_problems:
                own = base_problems()
                for p in made_problems:
                    rel = p.path[len(ctx.path) :]
                    in_set = bool(rel) and isinstance(rel[0], str) and rel[0] in set_
                    if p in own and not in_set:
                        continue  # the ruleset's own resolution reports it
                    found.append(_remap(p, ctx.path, set_path, set_))
        problems.extend(found)
        if found:
            continue
        out.append(
            Override(
                id=str(raw["id"]),
                label=str(raw["label"]),
                skills=names["skill"],
                saves=names["save"],
                abilities=names["ability"],
                config=config,
                set=MappingProxyType(dict(set_)),
                removes=removes,
                when=when,
                text=raw.get("text"),
                block=MappingProxyType(made),
            )
        )
    if problems:
        return (), problems
    return tuple(out), []


def features(
    raw: object,
    path: Path = ("resolution", "overrides"),
    *,
    kind_compiler: KindCompiler | None = None,
    resolution_block: Mapping[str, Any] | None = None,
) -> Iterator[tuple[str, Path, str]]:
    """The capabilities a packaged ruleset with overrides needs.

    Overrides themselves are 1.140. With the kind and the ruleset's structurally valid
    resolution, a gated key an override sets is named at its place in ``set`` too (an
    override that sets ``openEnded`` needs 1.136 as the ruleset's own would).
    """
    if raw is None:
        return
    yield "1.140", path, "overrides"
    if kind_compiler is None or resolution_block is None or not isinstance(raw, list):
        return
    for i, entry in enumerate(raw):
        set_ = entry.get("set") if isinstance(entry, dict) else None
        if not isinstance(set_, dict):
            continue
        made, _ = _made_block(resolution_block, set_)
        for version, where, name in kind_compiler.features(made):
            if len(where) >= 2 and set_.get(str(where[1])) is not None:
                yield version, (*path, i, "set", *where[1:]), f"{name} in an override"
