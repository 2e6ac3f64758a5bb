"""Capability API versions: which version each feature of a ruleset file needs.

A packaged ruleset declares a Capability API version outside the file (Marinara puts it
in the package manifest); every feature the file uses must be at or below it. A
community ruleset declares none and needs none. Versions compare part by part, as
numbers: 1.137 is above 1.38.

``ruleset_features`` lists what a file uses, with the version each feature needs and
where it stands; the kind's own keys come from the kind (``KindCompiler.features``).
The versions are the table docs/design/format.md "Capability API versions" describes
(``data/capability.json``), made precise by Marinara's authoring guide where it says
which key a version brought (sections on abilities, skills and saves are 1.41;
sections on fields, derived values and lists are older). Inside the blocks dicebound
accepts but does not play (``battle``, ``items``), only the block itself and the few
item keys the guide dates are gated; the ``combat`` block, creatures and the mechanics a
fight reads are gated key by key (``compiler.combat.features``). ``rests`` came with rulesets
themselves and gate nothing of their own (a state step names a state, which is gated
where it is declared).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from itertools import chain
from typing import Any

from dicebound.bands import features as bands_features
from dicebound.compiler.combat.features import (
    combat_features,
    creature_features,
    mechanics_features,
)
from dicebound.kinds.base import KindCompiler
from dicebound.overrides import features as overrides_features
from dicebound.problem_codes import (
    BAD_CAPABILITY_API,
    NEEDS_CAPABILITY,
)
from dicebound.problems import Path, Problem
from dicebound.ruleset.spec import describe
from dicebound.values import frozen

__all__ = [
    "Feature",
    "capability_problems",
    "is_above",
    "parse_version",
    "ruleset_features",
    "version_problem",
]

_VERSION = re.compile(r"^[0-9]{1,9}(?:\.[0-9]{1,9}){0,3}$")

_ITEM_KEYS: tuple[tuple[str, str, str], ...] = (
    ("worn", "1.53", "item.worn"),
    ("carried", "1.53", "item.carried"),
    ("requires", "1.54", "item.requires"),
    ("attack", "1.55", "item.attack"),
    ("use", "1.59", "item.use"),
    ("charges", "1.59", "item.charges"),
    ("sold", "1.65", "item.sold"),
    ("service", "1.65", "item.service"),
)
_ITEMS_BLOCK_KEYS: tuple[tuple[str, str, str], ...] = (
    ("rarityCaps", "1.51", "items.rarityCaps"),
    ("propose", "1.51", "items.propose"),
    ("lootTables", "1.63", "items.lootTables"),
    ("market", "1.65", "items.market"),
)


@frozen
class Feature:
    """One feature a file uses: the version it needs, where it stands, and its name."""

    version: str
    path: Path
    name: str


def parse_version(text: object) -> tuple[int, ...] | None:
    """``"1.38"`` → ``(1, 38)``; None for anything that is not a dotted version."""
    if not isinstance(text, str) or not _VERSION.match(text):
        return None
    parts = [int(p) for p in text.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def is_above(version: str, declared: str) -> bool:
    """Whether ``version`` is above ``declared``, part by part as numbers."""
    a, b = parse_version(version), parse_version(declared)
    if a is None or b is None:
        raise ValueError(f"not a version: {version!r} or {declared!r}")
    width = max(len(a), len(b))
    return a + (0,) * (width - len(a)) > b + (0,) * (width - len(b))


def _dict(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> Sequence[Any]:
    return value if isinstance(value, list) else []


def _ref_sites(raw: Mapping[str, Any]) -> Iterator[tuple[Path, Mapping[str, Any]]]:
    """Every value reference the file holds, with its path."""
    res = _dict(raw.get("resolution"))
    bonus = _dict(res.get("proficiency")).get("bonus")
    if isinstance(bonus, dict):
        yield ("resolution", "proficiency", "bonus"), bonus
    for i, adj in enumerate(_list(res.get("adjust"))):
        value = _dict(adj).get("value")
        if isinstance(value, dict):
            yield ("resolution", "adjust", i, "value"), value
    for i, spend in enumerate(_list(res.get("spend"))):
        per = _dict(spend).get("perCheck")
        if isinstance(per, dict):
            yield ("resolution", "spend", i, "perCheck"), per
    target_from = _dict(res.get("target")).get("from")
    if isinstance(target_from, dict):
        yield ("resolution", "target", "from"), target_from
    sheet = _dict(raw.get("sheet"))
    for group in ("skills", "saves"):
        for i, item in enumerate(_list(sheet.get(group))):
            cap = _dict(item).get("cap")
            if isinstance(cap, dict):
                yield ("sheet", group, i, "cap"), cap
    for i, item in enumerate(_list(sheet.get("derived"))):
        decl = _dict(item)
        of = decl.get("of")
        if isinstance(of, dict):
            yield ("sheet", "derived", i, "of"), of
        for j, ref in enumerate(_list(of)):
            if isinstance(ref, dict):
                yield ("sheet", "derived", i, "of", j), ref
        source = decl.get("from")
        if isinstance(source, dict) and decl.get("op") != "enumTable":
            yield ("sheet", "derived", i, "from"), source
    live = _dict(sheet.get("live"))
    for group in ("pools", "tracks"):
        for i, item in enumerate(_list(live.get(group))):
            top = _dict(item).get("max")
            if isinstance(top, dict):
                yield ("sheet", "live", group, i, "max"), top
    for c, catalog in enumerate(_list(raw.get("catalogs"))):
        for e, entry in enumerate(_list(_dict(catalog).get("entries"))):
            for r, row in enumerate(_list(_dict(entry).get("rows"))):
                for col, spec in _dict(_dict(row).get("scaled")).items():
                    source = _dict(spec).get("from")
                    if isinstance(source, dict):
                        yield (
                            ("catalogs", c, "entries", e, "rows", r, "scaled", col, "from"),
                            source,
                        )


def _hide_whens(sheet: Mapping[str, Any]) -> Iterator[tuple[Path, Mapping[str, Any]]]:
    for group in ("fields", "derived", "lists"):
        for i, item in enumerate(_list(sheet.get(group))):
            hide = _dict(item).get("hideWhen")
            if hide:
                yield ("sheet", group, i, "hideWhen"), _dict(hide)
    live = _dict(sheet.get("live"))
    for group in ("pools", "tracks", "states"):
        for i, item in enumerate(_list(live.get(group))):
            hide = _dict(item).get("hideWhen")
            if hide:
                yield ("sheet", "live", group, i, "hideWhen"), _dict(hide)


def _sheet_features(raw: Mapping[str, Any]) -> Iterator[Feature]:
    sheet = _dict(raw.get("sheet"))
    at: Path = ("sheet",)
    for i, section in enumerate(_list(sheet.get("sections"))):
        if "untrained" in _dict(section):
            yield Feature("1.41", (*at, "sections", i, "untrained"), "untrained")
    for group in ("abilities", "skills", "saves"):
        for i, item in enumerate(_list(sheet.get(group))):
            item = _dict(item)
            if "section" in item:
                yield Feature("1.41", (*at, group, i, "section"), f"section on {group}")
            if group != "abilities" and "untrained" in item:
                yield Feature("1.41", (*at, group, i, "untrained"), "untrained")
            if group != "abilities" and "cap" in item:
                yield Feature("1.39", (*at, group, i, "cap"), "cap")
    for i, item in enumerate(_list(sheet.get("derived"))):
        if _dict(item).get("op") == "enumTable":
            yield Feature("1.42", (*at, "derived", i, "op"), "enumTable")
    for path, hide in _hide_whens(sheet):
        for key in ("notEquals", "in"):
            if key in hide:
                yield Feature("1.39", (*path, key), f"hideWhen {key}")
    live = _dict(sheet.get("live"))
    for i, item in enumerate(_list(live.get("tracks"))):
        track = _dict(item)
        here = (*at, "live", "tracks", i)
        if isinstance(track.get("max"), dict):
            yield Feature("1.39", (*here, "max"), "a track max read off the sheet")
        if "alwaysShow" in track:
            yield Feature("1.39", (*here, "alwaysShow"), "alwaysShow")
        for key in ("boxes", "fill", "onFull", "extra"):
            if key in track:
                yield Feature("1.40", (*here, key), key)
    if "states" in live:
        yield Feature("1.42", (*at, "live", "states"), "states")
    for path, ref in _ref_sites(raw):
        for source, version in (
            ("listSum", "1.39"),
            ("livePool", "1.39"),
            ("liveTrack", "1.39"),
            ("itemStat", "1.52"),
        ):
            if source in ref:
                yield Feature(version, (*path, source), source)


def _gm_features(raw: Mapping[str, Any]) -> Iterator[Feature]:
    gm = _dict(raw.get("gm"))
    if "worldGuidance" in gm:
        yield Feature("1.25", ("gm", "worldGuidance"), "gm.worldGuidance")
    lists_by_id: dict[str, Mapping[str, Any]] = {}
    for lst in map(_dict, _list(_dict(raw.get("sheet")).get("lists"))):
        if isinstance(lst.get("id"), str):
            lists_by_id.setdefault(lst["id"], lst)
    summary = _dict(gm.get("sheetSummary"))
    for i, item in enumerate(_list(summary.get("lists"))):
        item = _dict(item)
        here = ("gm", "sheetSummary", "lists", i)
        if "columns" in item:
            yield Feature("1.37", (*here, "columns"), "sheetSummary columns")
        list_id = item.get("list")
        decl = lists_by_id.get(list_id) if isinstance(list_id, str) else None
        columns = _list(_dict(decl).get("columns"))
        named = item.get("nameColumn")
        if any(_dict(c).get("id") == named and _dict(c).get("type") == "enum" for c in columns):
            yield Feature("1.37", (*here, "nameColumn"), "an enum nameColumn")


def _catalog_features(raw: Mapping[str, Any]) -> Iterator[Feature]:
    if "catalogs" not in raw:
        return
    yield Feature("1.21", ("catalogs",), "catalogs")
    for c, catalog in enumerate(_list(raw.get("catalogs"))):
        catalog = _dict(catalog)
        here: Path = ("catalogs", c)
        holds = catalog.get("holds")
        if holds == "creatures":
            yield Feature("1.27", (*here, "holds"), 'holds "creatures"')
        elif holds == "items":
            yield Feature("1.49", (*here, "holds"), 'holds "items"')
        for e, entry in enumerate(_list(catalog.get("entries"))):
            entry = _dict(entry)
            at = (*here, "entries", e)
            for r, row in enumerate(_list(entry.get("rows"))):
                if "scaled" in _dict(row):
                    yield Feature("1.23", (*at, "rows", r, "scaled"), "scaled")
            creature = _dict(entry.get("creature"))
            if "sheet" in creature:
                yield Feature("1.34", (*at, "creature", "sheet"), "creature.sheet")
            if "loot" in creature:
                yield Feature("1.63", (*at, "creature", "loot"), "creature.loot")
            gated = chain(
                creature_features(creature, (*at, "creature")),
                mechanics_features(_dict(entry.get("mechanics")), (*at, "mechanics")),
            )
            for version, path, name in gated:
                yield Feature(version, path, name)
            item = _dict(entry.get("item"))
            for key, version, name in _ITEM_KEYS:
                if key in item:
                    yield Feature(version, (*at, "item", key), name)
            check = _dict(_dict(entry.get("mechanics")).get("check"))
            for key in ("explode", "double"):
                if key in check:
                    yield Feature("1.37", (*at, "mechanics", "check", key), f"check.{key}")


def _top_features(raw: Mapping[str, Any]) -> Iterator[Feature]:
    yield Feature("1.20", (), "a ruleset")
    if "adjust" in _dict(raw.get("resolution")):
        yield Feature("1.38", ("resolution", "adjust"), "adjust")
    if "battle" in raw:
        yield Feature("1.22", ("battle",), "battle")
    for version, path, name in combat_features(raw):
        yield Feature(version, path, name)
    if "items" in raw:
        yield Feature("1.49", ("items",), "items")
        items = _dict(raw.get("items"))
        for key, version, name in _ITEMS_BLOCK_KEYS:
            if key in items:
                yield Feature(version, ("items", key), name)
    if "layers" in raw:
        yield Feature("1.25", ("layers",), "layers")
        for i, layer in enumerate(_list(raw.get("layers"))):
            if "currencies" in _dict(layer):
                yield Feature("1.64", ("layers", i, "currencies"), "layer currencies")


def ruleset_features(
    raw: Mapping[str, Any],
    kind: KindCompiler | None = None,
    block: Mapping[str, Any] | None = None,
) -> Iterator[Feature]:
    """Every Capability-API-gated feature the file uses, in document order.

    ``kind`` and ``block`` add the kind's own features; pass the block only when it is
    structurally valid (the kind reads it without further checks). Safe on any JSON.
    """
    yield from _top_features(raw)
    if kind is not None and block is not None:
        for version, path, name in kind.features(block):
            yield Feature(version, path, name)
        for version, path, name in bands_features(block.get("outcomes")):
            yield Feature(version, path, name)
        overrides = block.get("overrides")
        for version, path, name in overrides_features(
            overrides, kind_compiler=kind, resolution_block=block
        ):
            yield Feature(version, path, name)
    yield from _sheet_features(raw)
    yield from _gm_features(raw)
    yield from _catalog_features(raw)


def capability_problems(features: Iterator[Feature], declared: str) -> list[Problem]:
    """A ``needs-capability`` problem for every feature above the declared version."""
    out: list[Problem] = []
    seen: set[Path] = set()
    for feature in features:
        if feature.path in seen or not is_above(feature.version, declared):
            continue
        seen.add(feature.path)
        out.append(
            Problem(
                feature.path,
                NEEDS_CAPABILITY,
                f"{feature.name} needs Capability API {feature.version}; "
                f"this file is checked at {declared}.",
            )
        )
    return out


def version_problem(declared: object) -> Problem | None:
    """The problem with a declared version that is not one, or None."""
    if parse_version(declared) is not None:
        return None
    return Problem(
        (),
        BAD_CAPABILITY_API,
        f"{describe(declared)} is not a Capability API version; write numbers separated by "
        "dots, such as 1.38.",
    )
