"""The maxima pass: skills' and saves' caps, pools' and tracks' maxima."""

from __future__ import annotations

from typing import Any

from dicebound.compiler.passes.context import (
    PLACEHOLDER,
    Context,
    as_dict,
    as_list,
)
from dicebound.problem_codes import (
    CAP_READS_CHECK_NUMBER,
    READS_LIVE,
)
from dicebound.ruleset.model import (
    SkillDef,
)
from dicebound.ruleset.refs import LIVE_READS, describe_chain, trace
from dicebound.values import replace

__all__ = ["run"]


def run(ctx: Context) -> None:
    """The caps and maxima read derived values, so they compile once those exist; none
    may read a check's number or live state."""
    ctx.sheet = replace(
        ctx.sheet,
        skills=tuple(_with_cap(ctx, item, "skills") for item in ctx.sheet.skills),
        saves=tuple(_with_cap(ctx, item, "saves") for item in ctx.sheet.saves),
    )
    ctx.sheet = replace(
        ctx.sheet,
        pools=tuple(_with_max(ctx, p, "pools") for p in ctx.sheet.pools),
        tracks=tuple(_with_max(ctx, t, "tracks") for t in ctx.sheet.tracks),
    )
    _check_caps_and_maxima(ctx)


def _with_cap(ctx: Context, item: SkillDef, group: str) -> SkillDef:
    index = ctx.index_of(ctx.sheet_raw.get(group), item.id)
    raw = as_dict(as_list(ctx.sheet_raw.get(group))[index]).get("cap")
    if not isinstance(raw, dict):
        return item
    cap = ctx.ref(raw, ("sheet", group, index, "cap"))
    return replace(item, cap=cap)


def _with_max(ctx: Context, item: Any, group: str) -> Any:
    index = ctx.index_of(ctx.live_raw.get(group), item.id)
    raw = as_dict(as_list(ctx.live_raw.get(group))[index]).get("max")
    if not isinstance(raw, dict):
        return item
    top = ctx.ref(raw, ("sheet", "live", group, index, "max"))
    return replace(item, max=top if top is not None else PLACEHOLDER)


def _check_caps_and_maxima(ctx: Context) -> None:
    for group, items in (("skills", ctx.sheet.skills), ("saves", ctx.sheet.saves)):
        for item in items:
            if item.cap is None:
                continue
            chain = trace(item.cap, ctx.sheet, lambda r: r.source in ("skillMod", "saveMod"))
            if chain is not None:
                index = ctx.index_of(ctx.sheet_raw.get(group), item.id)
                ctx.add(
                    ("sheet", group, index, "cap"),
                    CAP_READS_CHECK_NUMBER,
                    f"{describe_chain(chain)}; a cap cannot read a skill or save modifier, "
                    "even through a derived value, so the sheet is worked out once, top to bottom.",
                )
    for group, decls in (("pools", ctx.sheet.pools), ("tracks", ctx.sheet.tracks)):
        for decl in decls:
            chain = trace(decl.max, ctx.sheet, lambda r: r.source in LIVE_READS)
            if chain is not None:
                index = ctx.index_of(ctx.live_raw.get(group), decl.id)
                ctx.add(
                    ("sheet", "live", group, index, "max"),
                    READS_LIVE,
                    f"{describe_chain(chain)}, which changes in play; a maximum is worked "
                    "out before there is any live state.",
                )
