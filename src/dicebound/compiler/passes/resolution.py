"""The resolution pass: tiers, the proficiency bonus, penalties, adjustments, and the
kind's own compile with its outcome bands and overrides.
"""

from __future__ import annotations

from types import MappingProxyType

from dicebound.bands import naturals_none
from dicebound.compiler.passes.context import (
    Context,
    as_dict,
    number,
)
from dicebound.kinds.bands import compile_bands, single_die_of
from dicebound.kinds.base import CompileContext
from dicebound.overrides import Override, compile_overrides
from dicebound.problem_codes import (
    BONUS_READS_CHECK_NUMBER,
    NEEDS_BONUS,
    NEVER_HARDER,
    NOT_WOUND_TRACK,
    READS_LIVE,
)
from dicebound.problems import (
    Path,
    unknown_id,
)
from dicebound.ruleset.model import (
    AbilityModifier,
    Adjust,
    Resolution,
    Tier,
    ValueRef,
)
from dicebound.ruleset.refs import LIVE_READS, describe_chain, trace
from dicebound.ruleset.spec import describe

__all__ = ["run"]


def run(ctx: Context) -> None:
    """Compile the resolution block into ``ctx.resolution`` (None when it cannot be)."""
    ctx.resolution = _build_resolution(ctx)


def _build_resolution(ctx: Context) -> Resolution | None:
    res = ctx.res_raw
    at: Path = ("resolution",)
    if not isinstance(ctx.raw.get("resolution"), dict):
        return None
    ability_modifier = None
    if ctx.clean((*at, "abilityModifier")) and "abilityModifier" in res:
        spec = res["abilityModifier"]
        ability_modifier = AbilityModifier(
            spec["op"], tuple((float(a), float(b)) for a, b in spec.get("table", ()))
        )
    tiers = tuple(
        Tier(
            str(t["id"]),
            str(t["label"]),
            multiplier=number(t.get("multiplier", 0)),
            round=t.get("round", "down"),
            flat=int(t.get("flat", 0)),
        )
        for _, t, _ in ctx.items(res.get("proficiencyTiers"), (*at, "proficiencyTiers"))
    )
    if "proficiency" not in res:
        for _, t, here in ctx.items(res.get("proficiencyTiers"), (*at, "proficiencyTiers")):
            if t.get("multiplier", 0) != 0:
                ctx.add(
                    (*here, "multiplier"),
                    NEEDS_BONUS,
                    f"{describe(t['multiplier'])} multiplies the proficiency bonus, and "
                    'resolution.proficiency names none; add "proficiency": { "bonus": ... } '
                    "or drop the multiplier.",
                )
    bonus = _proficiency_bonus(ctx)
    penalty_from = _penalty_from(ctx)
    adjust = _adjust(ctx)
    _check_untrained_harder(ctx)
    kind = ctx.kind
    if kind is None or not ctx.clean(at):
        return None
    kind_ctx = CompileContext(sheet=ctx.sheet, path=at)
    config, problems = kind.compile(res, kind_ctx)
    ctx.problems.extend(problems)
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
        ctx.problems.extend(problems)
    overrides: tuple[Override, ...] = ()
    if "overrides" in res:
        overrides, problems = compile_overrides(
            res["overrides"],
            (*at, "overrides"),
            resolution_block=res,
            kind_compiler=kind,
            ctx=kind_ctx,
            scope=ctx.scope(),
        )
        ctx.problems.extend(problems)
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


def _proficiency_bonus(ctx: Context) -> ValueRef | None:
    path: Path = ("resolution", "proficiency", "bonus")
    raw = as_dict(ctx.res_raw.get("proficiency")).get("bonus")
    if not isinstance(raw, dict) or not ctx.clean(path):
        return None
    bonus = ctx.ref(raw, path)
    if bonus is None:
        return None
    chain = trace(bonus, ctx.sheet, lambda r: r.source in ("skillMod", "saveMod"))
    if chain is not None:
        ctx.add(
            path,
            BONUS_READS_CHECK_NUMBER,
            f"{describe_chain(chain)}; the proficiency bonus feeds every skill and save "
            "modifier, so it cannot read one.",
        )
    chain = trace(bonus, ctx.sheet, lambda r: r.source in LIVE_READS)
    if chain is not None:
        ctx.add(
            path,
            READS_LIVE,
            f"{describe_chain(chain)}, which changes in play; the proficiency bonus is "
            "worked out before there is any live state.",
        )
    return bonus


def _penalty_from(ctx: Context) -> str | None:
    path: Path = ("resolution", "penaltyFrom")
    name = ctx.res_raw.get("penaltyFrom")
    if name is None or not ctx.clean(path):
        return None
    name = str(name)
    if name not in ctx.names["tracks"]:
        ctx.problems.append(unknown_id(path, name, "a live track", ctx.names["tracks"]))
        return None
    track = next((t for t in ctx.sheet.tracks if t.id == name), None)
    if track is not None and not track.is_wound_track:
        ctx.add(
            path,
            NOT_WOUND_TRACK,
            f'"{name}" is a plain track, which carries no penalty; penaltyFrom names a wound '
            "track (one with kinds and levels or boxes).",
        )
    return name


def _adjust(ctx: Context) -> tuple[Adjust, ...]:
    out = []
    for _, item, here in ctx.items(ctx.res_raw.get("adjust"), ("resolution", "adjust")):
        value = ctx.ref(item["value"], (*here, "value"))
        abilities = tuple(str(a) for a in item.get("abilities", ()))
        for j, name in enumerate(abilities):
            if name not in ctx.names["abilities"]:
                ctx.problems.append(
                    unknown_id((*here, "abilities", j), name, "an ability", ctx.names["abilities"])
                )
        if value is not None:
            out.append(Adjust(value, abilities))
    return tuple(out)


def _check_untrained_harder(ctx: Context) -> None:
    """The page: "harder" raises a pool's per-die target, so it needs a target that can
    move; on a pool whose target is fixed it could never change a roll."""
    if ctx.kind is None or not ctx.kind.harder_moves_target:
        return
    target = ctx.res_raw.get("target")
    if not ctx.clean(("resolution", "target")) or not isinstance(target, dict):
        return
    if target.get("min") != target.get("max"):
        return
    for group in ("sections", "skills", "saves"):
        for _, item, here in ctx.items(ctx.sheet_raw.get(group), ("sheet", group)):
            if item.get("untrained") == "harder":
                ctx.add(
                    (*here, "untrained"),
                    NEVER_HARDER,
                    f'"harder" raises the per-die target, and this pool\'s target is fixed at '
                    f"{describe(target.get('min'))}, so it could never change a roll.",
                )
