"""The sheet pass: what a character sheet declares, and the names those declarations use.

Live pools and tracks come next (``passes.tracks``); derived values, and the caps and
maxima that read them, after that.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Literal

from dicebound.compiler.passes.context import (
    ColumnLike,
    Context,
    as_dict,
    as_list,
    declared_ids,
    hide_rule,
    misfit,
    number,
    untrained_rule,
)
from dicebound.problem_codes import (
    DEFAULT_DOES_NOT_FIT,
    DUPLICATE_ID,
    NEVER_MATCHES,
    NOT_A_VALUE,
    SECTION_ORDER,
    UNKNOWN_ID,
    WRONG_COLUMN_TYPE,
)
from dicebound.problems import (
    Path,
    did_you_mean,
    min_above_max,
    out_of_range,
    unknown_id,
)
from dicebound.ruleset.model import (
    Ability,
    Condition,
    Field,
    ListColumn,
    ListDecl,
    ListPools,
    LiveState,
    Section,
    Sheet,
    SkillDef,
)
from dicebound.ruleset.spec import describe
from dicebound.values import replace

__all__ = ["run"]


def run(ctx: Context) -> None:
    """Declare the sheet's sections, abilities, fields, lists, live states, conditions,
    texts, skills, saves, tiers and bonus range; check the names they use."""
    s = ctx.sheet_raw
    at: Path = ("sheet",)
    version = int(s["version"]) if ctx.clean((*at, "version")) and "version" in s else 1
    ctx.sheet = Sheet(version=version)
    sections = tuple(
        Section(str(item["id"]), str(item["label"]), untrained_rule(item.get("untrained")))
        for _, item, _ in ctx.items(s.get("sections"), (*at, "sections"))
    )
    ctx.sheet = replace(ctx.sheet, sections=sections)
    abilities = tuple(
        _ability(ctx, item, here)
        for _, item, here in ctx.items(s.get("abilities"), (*at, "abilities"))
    )
    fields = tuple(
        _field(ctx, item, here) for _, item, here in ctx.items(s.get("fields"), (*at, "fields"))
    )
    lists = tuple(
        _list_decl(ctx, item, here) for _, item, here in ctx.items(s.get("lists"), (*at, "lists"))
    )
    live: Path = (*at, "live")
    states = tuple(
        _state(ctx, item, here)
        for _, item, here in ctx.items(ctx.live_raw.get("states"), (*live, "states"))
    )
    conditions = tuple(
        Condition(str(item["id"]), str(item["label"]))
        for _, item, _ in ctx.items(ctx.live_raw.get("conditions"), (*live, "conditions"))
    )
    text = tuple(
        (str(item["id"]), str(item["label"]), int(item["maxLength"]))
        for _, item, _ in ctx.items(ctx.live_raw.get("text"), (*live, "text"))
    )
    skills = tuple(
        _skill(ctx, item, here, "skill")
        for _, item, here in ctx.items(s.get("skills"), (*at, "skills"))
    )
    saves = tuple(
        _skill(ctx, item, here, "save")
        for _, item, here in ctx.items(s.get("saves"), (*at, "saves"))
    )
    ctx.sheet = replace(
        ctx.sheet,
        abilities=abilities,
        fields=fields,
        lists=lists,
        states=states,
        conditions=conditions,
        text=text,
        skills=skills,
        saves=saves,
    )
    _check_tiers_and_bonus(ctx)
    _check_sections(ctx)
    _check_hide_whens(ctx)
    _check_skill_save_ids(ctx)


def _ability(ctx: Context, item: dict[str, Any], here: Path) -> Ability:
    lo, hi, default = int(item["min"]), int(item["max"]), int(item["default"])
    if lo > hi:
        ctx.problems.append(min_above_max((*here, "min"), lo, hi, "a score"))
    elif not lo <= default <= hi:
        ctx.problems.append(out_of_range((*here, "default"), default, lo, hi, "the default score"))
    return Ability(
        str(item["id"]),
        str(item["label"]),
        item.get("short"),
        lo,
        hi,
        default,
        item.get("section"),
    )


def _typed(
    ctx: Context,
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
        min=None if "min" not in item else number(item["min"]),
        max=None if "max" not in item else number(item["max"]),
        default=item.get("default"),
        integer=bool(item.get("integer", True)),
        values=values,
        max_length=None if max_length is None else int(max_length),
        **extra,
    )
    if kind == "number" and decl.min is not None and decl.max is not None and decl.min > decl.max:
        ctx.problems.append(
            min_above_max((*here, "min"), describe(decl.min), describe(decl.max), "the value")
        )
    elif "default" in item:
        why = misfit(decl, item["default"])
        if why is not None:
            ctx.add(
                (*here, "default"),
                DEFAULT_DOES_NOT_FIT,
                f"{describe(item['default'])} is not a value this {kind} can hold: {why}.",
            )
    for key in as_dict(item.get("valueLabels")):
        if key != "$comment" and key not in values:
            ctx.add(
                (*here, "valueLabels", key),
                NOT_A_VALUE,
                f'"{key}" is not one of the values, so it needs no label.'
                f"{did_you_mean(key, values)}",
            )
    return decl


def _field(ctx: Context, item: dict[str, Any], here: Path) -> Field:
    decl = _typed(ctx, item, here, Field, {})
    assert isinstance(decl, Field)
    return decl


def _list_decl(ctx: Context, item: dict[str, Any], here: Path) -> ListDecl:
    columns = []
    for _, col, col_here in ctx.items(item["columns"], (*here, "columns")):
        decl = _typed(
            ctx, col, col_here, ListColumn, {"required": bool(col.get("required", False))}
        )
        assert isinstance(decl, ListColumn)
        columns.append(decl)
    pools = None
    spec = item.get("pools")
    if isinstance(spec, dict) and ctx.clean((*here, "pools")):
        by_id = {c.id: c for c in columns}
        all_ids = declared_ids(item["columns"])
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
                ctx.add(
                    (*here, "pools", key),
                    UNKNOWN_ID,
                    f'"{name}" is not a column of this list.{did_you_mean(name, all_ids)}',
                )
            elif column is not None and column.type not in types:
                said = " or ".join(types)
                ctx.add(
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
        str(item["id"]),
        str(item["label"]),
        int(item["maxItems"]),
        tuple(columns),
        pools,
        hide_rule(item.get("hideWhen")),
    )


def _state(ctx: Context, item: dict[str, Any], here: Path) -> LiveState:
    values = tuple(str(v) for v in item["values"])
    default = item.get("default", values[0])
    if default not in values:
        shown = ", ".join(f'"{v}"' for v in values)
        ctx.add(
            (*here, "default"),
            NOT_A_VALUE,
            f"{describe(default)} is not one of this state's values: {shown}."
            f"{did_you_mean(str(default), values)}",
        )
    labels: dict[str, str] = {}
    for key, label in as_dict(item.get("valueLabels")).items():
        if key == "$comment":
            continue
        if key in values:
            labels[key] = str(label)
        else:
            ctx.add(
                (*here, "valueLabels", key),
                NOT_A_VALUE,
                f'"{key}" is not one of this state\'s values, so its label could never be '
                f"shown.{did_you_mean(key, values)}",
            )
    return LiveState(
        str(item["id"]),
        str(item["label"]),
        values,
        str(default),
        MappingProxyType(labels),
        hide_rule(item.get("hideWhen")),
    )


def _skill(
    ctx: Context, item: dict[str, Any], here: Path, group: Literal["skill", "save"]
) -> SkillDef:
    ability = item.get("ability")
    if ability is not None and ability not in ctx.names["abilities"]:
        ctx.problems.append(
            unknown_id((*here, "ability"), str(ability), "an ability", ctx.names["abilities"])
        )
    section_id = item.get("section")
    untrained = untrained_rule(item.get("untrained"))
    if untrained is None and section_id is not None:
        section = next((s for s in ctx.sheet.sections if s.id == section_id), None)
        untrained = section.untrained if section is not None else None
    return SkillDef(
        str(item["id"]),
        str(item["label"]),
        group,
        ability=None if ability is None else str(ability),
        section=None if section_id is None else str(section_id),
        untrained=untrained,
    )


def _check_tiers_and_bonus(ctx: Context) -> None:
    s = ctx.sheet_raw
    for key in ("skillTiers", "saveTiers"):
        if not ctx.clean(("sheet", key)):
            continue
        for i, tier in enumerate(as_list(s.get(key))):
            if tier not in ctx.names["tiers"]:
                ctx.problems.append(
                    unknown_id(
                        ("sheet", key, i), str(tier), "a proficiency tier", ctx.names["tiers"]
                    )
                )
    tiers = (
        tuple(str(t) for t in as_list(s.get("skillTiers"))),
        tuple(str(t) for t in as_list(s.get("saveTiers"))),
    )
    bonus = as_dict(s.get("bonusRange"))
    lo, hi = -20, 40
    if bonus and ctx.clean(("sheet", "bonusRange")):
        lo, hi = int(bonus["min"]), int(bonus["max"])
        if lo > hi:
            ctx.problems.append(min_above_max(("sheet", "bonusRange", "min"), lo, hi, "the bonus"))
    ctx.sheet = replace(
        ctx.sheet, skill_tiers=tiers[0], save_tiers=tiers[1], bonus_min=lo, bonus_max=hi
    )


def _check_sections(ctx: Context) -> None:
    s = ctx.sheet_raw
    order = list(s)
    declared_at = order.index("sections") if "sections" in order else None
    for group in ("abilities", "skills", "saves", "fields", "derived", "lists"):
        for _, item, here in ctx.items(s.get(group), ("sheet", group)):
            if "section" not in item:
                continue
            name = str(item["section"])
            if name not in ctx.names["sections"]:
                ctx.problems.append(
                    unknown_id((*here, "section"), name, "a section", ctx.names["sections"])
                )
            elif declared_at is not None and order.index(group) < declared_at:
                ctx.add(
                    (*here, "section"),
                    SECTION_ORDER,
                    f'"{name}" is named here before sheet.sections declares it; a section is '
                    f'declared before anything names it, so put "sections" above "{group}".',
                )


def _check_hide_whens(ctx: Context) -> None:
    sites: list[tuple[object, Path]] = [
        (ctx.sheet_raw.get(g), ("sheet", g)) for g in ("fields", "derived", "lists")
    ]
    sites += [(ctx.live_raw.get(g), ("sheet", "live", g)) for g in ("pools", "tracks", "states")]
    fields = {f.id: f for f in ctx.sheet.fields}
    for raw, at in sites:
        for _, item, here in ctx.items(raw, at):
            hide = item.get("hideWhen")
            if not isinstance(hide, dict):
                continue
            name = str(hide["field"])
            where = (*here, "hideWhen")
            if name not in ctx.names["fields"]:
                ctx.problems.append(
                    unknown_id((*where, "field"), name, "a field", ctx.names["fields"])
                )
                continue
            decl = fields.get(name)
            if decl is None:
                continue
            compared: list[tuple[Path, object]] = []
            for key in ("equals", "notEquals"):
                if key in hide:
                    compared.append(((*where, key), hide[key]))
            compared += [((*where, "in", i), v) for i, v in enumerate(as_list(hide.get("in")))]
            for path, value in compared:
                why = misfit(decl, value)
                if why is not None:
                    ctx.add(
                        path,
                        NEVER_MATCHES,
                        f'{describe(value)} is not a value the field "{name}" can hold '
                        f"({why}), so the rule could never match.",
                    )


def _check_skill_save_ids(ctx: Context) -> None:
    skills = set(ctx.names["skills"])
    for _, item, here in ctx.items(ctx.sheet_raw.get("saves"), ("sheet", "saves")):
        if item["id"] in skills:
            ctx.add(
                (*here, "id"),
                DUPLICATE_ID,
                f'"{item["id"]}" is already a skill; skills and saves share one bonuses map, '
                "so their ids differ.",
            )
