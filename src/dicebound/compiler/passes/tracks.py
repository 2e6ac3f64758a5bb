"""The tracks pass: live pools and tracks, wound tracks' kinds, levels and boxes."""

from __future__ import annotations

from typing import Any

from dicebound.compiler.passes.context import (
    PLACEHOLDER,
    Context,
    as_dict,
    hide_rule,
)
from dicebound.problem_codes import (
    DUPLICATE_SEVERITY,
    EXTRA_NEEDS_LEVELS,
    GROUP_IS_POOL,
    INDEXED_REFUSES,
    KINDS_NEED_MARKS,
    LEVELS_AND_BOXES,
    LEVELS_LENGTH,
    NEEDS_KINDS,
    TOO_MANY,
    WOUND_TRACK_HIDDEN,
    WOUND_TRACK_MIN,
)
from dicebound.problems import (
    Path,
    min_above_max,
    out_of_range,
    unknown_id,
)
from dicebound.ruleset.model import (
    LivePool,
    Track,
    TrackKind,
    TrackLevel,
    ValueRef,
)
from dicebound.ruleset.spec import describe, is_int
from dicebound.values import replace

__all__ = ["run"]


def run(ctx: Context) -> None:
    """Declare the live pools and tracks, their maxima held back until the derived
    values they may read exist (``passes.maxima``)."""
    live: Path = ("sheet", "live")
    pools = tuple(
        _pool_shell(ctx, item, here)
        for _, item, here in ctx.items(ctx.live_raw.get("pools"), (*live, "pools"))
    )
    tracks = tuple(
        _track_shell(ctx, item, here)
        for _, item, here in ctx.items(ctx.live_raw.get("tracks"), (*live, "tracks"))
    )
    ctx.sheet = replace(ctx.sheet, pools=pools, tracks=tracks)


def _pool_shell(ctx: Context, item: dict[str, Any], here: Path) -> LivePool:
    group = item.get("group")
    if group is not None and group in ctx.names["pools"]:
        ctx.add(
            (*here, "group"),
            GROUP_IS_POOL,
            f'"{group}" is also a pool id; a cost names a pool or a group, so the two may not '
            "share a name.",
        )
    return LivePool(
        str(item["id"]),
        str(item["label"]),
        PLACEHOLDER,
        allow_temp=bool(item.get("allowTemp", False)),
        group=None if group is None else str(group),
        start=item.get("start", "full"),
        hide_when=hide_rule(item.get("hideWhen")),
    )


def _track_shell(ctx: Context, item: dict[str, Any], here: Path) -> Track:
    levels = tuple(
        TrackLevel(str(lv["label"]), int(lv["penalty"])) for lv in item.get("levels", ())
    )
    kinds = tuple(
        TrackKind(str(k["id"]), str(k["label"]), int(k["severity"])) for k in item.get("kinds", ())
    )
    boxes = as_dict(as_dict(item.get("boxes")).get("penalty"))
    lo = int(item["min"])
    top = item["max"]
    fixed_max = int(top) if is_int(top) else None
    default = item.get("default")
    _check_track(ctx, item, here, lo, fixed_max, levels, kinds)
    extra = as_dict(item.get("extra"))
    return Track(
        str(item["id"]),
        str(item["label"]),
        lo,
        ValueRef("const", value=fixed_max) if fixed_max is not None else PLACEHOLDER,
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
        hide_when=hide_rule(item.get("hideWhen")),
    )


def _check_track(
    ctx: Context,
    item: dict[str, Any],
    here: Path,
    lo: int,
    fixed_max: int | None,
    levels: tuple[TrackLevel, ...],
    kinds: tuple[TrackKind, ...],
) -> None:
    has = {key: key in item for key in ("levels", "boxes", "kinds", "extra", "fill", "onFull")}
    if has["levels"] and has["boxes"]:
        ctx.add((*here, "boxes"), LEVELS_AND_BOXES, "a track has levels or boxes, never both.")
    if has["kinds"] and not (has["levels"] or has["boxes"]):
        ctx.add(
            (*here, "kinds"),
            KINDS_NEED_MARKS,
            "kinds need levels or boxes to be marked on; give the track one of them.",
        )
    for key in ("levels", "boxes", "fill", "onFull"):
        if has[key] and not has["kinds"]:
            ctx.add(
                (*here, key),
                NEEDS_KINDS,
                f"{key} needs kinds: a mark on a wound track has to be of some kind.",
            )
    if has["extra"] and not has["levels"]:
        ctx.add(
            (*here, "extra"),
            EXTRA_NEEDS_LEVELS,
            "extra lengthens a track with named levels, and this one has none.",
        )
    if item.get("fill") == "indexed" and item.get("onFull") != "refuse":
        if "onFull" in item:
            ctx.add(
                (*here, "onFull"),
                INDEXED_REFUSES,
                'an indexed track always refuses a mark with no box free; write "refuse".',
            )
        else:
            ctx.add(
                here,
                INDEXED_REFUSES,
                'an indexed track always refuses a mark with no box free; add "onFull": "refuse".',
            )
    wound = has["kinds"] and (has["levels"] or has["boxes"])
    if wound:
        if lo != 0:
            ctx.add(
                (*here, "min"),
                WOUND_TRACK_MIN,
                f"{lo} is not 0; a wound track starts unmarked, so its min is 0.",
            )
        if has["levels"] and fixed_max != len(levels):
            shown = describe(item["max"]) if fixed_max is not None else "a value off the sheet"
            ctx.add(
                (*here, "max"),
                LEVELS_LENGTH,
                f"{shown} is not {len(levels)}, the number of levels; a track with named "
                "levels is as long as its levels.",
            )
        if has["boxes"] and fixed_max is not None and fixed_max > 64:
            ctx.add(
                (*here, "max"),
                TOO_MANY,
                f"{fixed_max} boxes is more than the 64 a track may have.",
            )
        seen: dict[int, int] = {}
        for i, kind in enumerate(kinds):
            if kind.severity in seen:
                ctx.add(
                    (*here, "kinds", i, "severity"),
                    DUPLICATE_SEVERITY,
                    f"{kind.severity} is already the severity of kind {seen[kind.severity]}; "
                    "severities are distinct, since marks are ordered by them.",
                )
            else:
                seen[kind.severity] = i
        if "hideWhen" in item:
            ctx.add(
                (*here, "hideWhen"),
                WOUND_TRACK_HIDDEN,
                "a wound track cannot be hidden: rolls and fights read it whatever the sheet shows.",
            )
    if fixed_max is not None and lo > fixed_max:
        ctx.problems.append(min_above_max((*here, "min"), lo, fixed_max, "a track"))
    elif "default" in item:
        default = int(item["default"])
        if default < lo or (fixed_max is not None and default > fixed_max):
            top = fixed_max if fixed_max is not None else "its max"
            ctx.problems.append(
                out_of_range((*here, "default"), default, lo, top, "a track's default")
            )
    if has["extra"] and ctx.clean((*here, "extra")):
        _check_extra(ctx, as_dict(item["extra"]), (*here, "extra"))


def _check_extra(ctx: Context, extra: dict[str, Any], here: Path) -> None:
    list_id = str(extra["list"])
    if list_id not in ctx.names["lists"]:
        ctx.problems.append(unknown_id((*here, "list"), list_id, "a list", ctx.names["lists"]))
        return
    ctx.check_columns(
        list_id, [(k, extra[k], ("number",)) for k in ("countColumn", "penaltyColumn")], here
    )
