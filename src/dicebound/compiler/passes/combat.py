"""The combat pass: the ``combat`` block cross-checked and compiled, with what a fight
reads of the catalogs, and ``battle`` checked and kept (docs/design/fights-schema.md).

Which kinds may fight is the kind's to say (``refused_fights``, ``fights``,
``pool_fights``); the block's own shape is checked with the whole file.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Literal

from dicebound.compiler.combat.block import compile_block
from dicebound.compiler.combat.catalog import compile_catalogs
from dicebound.compiler.combat.parts import Names
from dicebound.compiler.passes.context import Context, as_dict, as_list, declared_ids
from dicebound.problem_codes import NOT_WOUND_TRACK
from dicebound.ruleset.combat import Battle, Health
from dicebound.values import replace

__all__ = ["run"]


def run(ctx: Context) -> None:
    """Refuse a combat block the ruleset's kind cannot have beside it; compile one it
    can into ``ctx.combat``, and ``battle`` into ``ctx.battle``."""
    refused = [] if ctx.kind is None else list(ctx.kind.refused_fights(ctx.raw))
    ctx.problems.extend(refused)
    raw = ctx.raw.get("combat")
    if "battle" in ctx.raw and ctx.clean(("battle",)) and _sheet_sound(ctx):
        ctx.battle = _battle(ctx, ctx.raw["battle"])
    whole = any(p.path == ("combat",) for p in refused)
    if not isinstance(raw, dict) or whole or not ctx.clean(("combat",)) or not _sheet_sound(ctx):
        return
    names = Names(ctx, _own_names(raw))
    combat = compile_block(ctx, raw, names)
    if combat is None:
        return
    read = compile_catalogs(ctx, combat, names)
    if read is not None:
        mechanics, creatures = read
        ctx.combat = replace(
            combat, mechanics=MappingProxyType(mechanics), creatures=MappingProxyType(creatures)
        )


def _sheet_sound(ctx: Context) -> bool:
    """Whether the sheet the block names has no problem: a faulty sheet is reported
    alone, not again through every combat key that names what it failed to declare."""
    return ctx.clean(("sheet",)) and not any(p.path[:1] == ("sheet",) for p in ctx.problems)


def _own_names(raw: dict[str, Any]) -> dict[str, list[str]]:
    """The ids the block declares, which its keys and the catalogs may name."""
    types = [str(t) for t in as_list(raw.get("damageTypes")) if isinstance(t, str)]
    return {
        "budgets": declared_ids(as_dict(raw.get("economy")).get("budgets")),
        "checks": declared_ids(raw.get("checks")),
        "tiers": declared_ids(as_dict(raw.get("threat")).get("tiers")),
        "damage types": types,
    }


def _battle(ctx: Context, raw: dict[str, Any]) -> Battle | None:
    """``battle`` names a live pool or wound track for health, live pools, and lists
    (with a boolean column to filter on); kept, never played."""
    names = Names(ctx, {})
    before = len(ctx.problems)
    health_raw = raw["health"]
    kind: Literal["pool", "track"] = "pool" if "pool" in health_raw else "track"
    here = ("battle", "health", kind)
    name = str(health_raw[kind])
    if names.known("pools" if kind == "pool" else "tracks", name, here) and kind == "track":
        track = next((t for t in ctx.sheet.tracks if t.id == name), None)
        if track is not None and not track.is_wound_track:
            ctx.add(
                here, NOT_WOUND_TRACK, f'"{name}" is a plain track; battle health is a wound track.'
            )
    if "energy" in raw:
        names.known("pools", raw["energy"]["pool"], ("battle", "energy", "pool"))
    for i, slot in enumerate(as_list(raw.get("slots"))):
        names.known("pools", slot["pool"], ("battle", "slots", i, "pool"))
    for i, skill in enumerate(as_list(raw.get("skills"))):
        at = ("battle", "skills", i)
        list_id = str(skill["list"])
        if names.known("lists", list_id, (*at, "list")):
            if "onlyWhen" in skill:
                ctx.check_columns(list_id, [("onlyWhen", skill["onlyWhen"], ("boolean",))], at)
            if "alwaysWhen" in skill:
                ctx.check_columns(
                    list_id, [("column", skill["alwaysWhen"]["column"], ())], (*at, "alwaysWhen")
                )
    if len(ctx.problems) > before:
        return None
    return Battle(
        health=Health(kind, name),
        energy=as_dict(raw.get("energy")).get("pool"),
        slots=tuple((str(s["pool"]), int(s["level"])) for s in as_list(raw.get("slots"))),
        skills=tuple(str(s["list"]) for s in as_list(raw.get("skills"))),
    )
