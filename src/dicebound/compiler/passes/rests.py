"""The rests pass: named rests, each step checked against what the sheet declares.

A rest is found by a sheet command through its id or its label, and each restore step
moves one pool, group of pools, list's row pools, track or state. Every step that
could never do anything is refused here, with its path: a name the sheet does not
declare, a filter nothing can pass, a value the target cannot take, a move of nothing
(docs/design/format.md "Rests").
"""

from __future__ import annotations

from typing import Any, Literal, cast

from dicebound.compiler.passes.context import PLACEHOLDER, Context, as_dict, as_list
from dicebound.compiler.schema import REST_TARGETS
from dicebound.problem_codes import (
    AMBIGUOUS_REST_NAME,
    LIST_HAS_NO_POOLS,
    MOVES_NOTHING,
    NO_RECHARGE_COLUMN,
    NOT_A_VALUE,
    NOT_WOUND_TRACK,
    OUT_OF_RANGE,
    UNKNOWN_ID,
    UNKNOWN_KIND,
)
from dicebound.problems import Path, did_you_mean, unknown_id
from dicebound.ruleset.model import Rest, RestStep, Rounding, Track
from dicebound.ruleset.spec import describe, is_int

__all__ = ["run"]

_Target = Literal["pool", "poolGroup", "listPools", "track", "state"]


def run(ctx: Context) -> None:
    """Compile the rests into ``ctx.rests``, refusing every step that could never fire."""
    rests = []
    for _, item, here in ctx.items(ctx.raw.get("rests"), ("rests",)):
        steps = tuple(
            _step(ctx, step, at)
            for _, step, at in ctx.items(item.get("restore"), (*here, "restore"))
        )
        clear = as_dict(item.get("clear"))
        _check_clear(ctx, clear, (*here, "clear"))
        conditions = clear.get("conditions", [])
        rests.append(
            Rest(
                str(item["id"]),
                str(item["label"]),
                steps,
                clear_text=tuple(str(t) for t in as_list(clear.get("text"))),
                clear_conditions="all"
                if conditions == "all"
                else tuple(str(c) for c in as_list(conditions)),
            )
        )
    _check_names(ctx)
    ctx.rests = tuple(rests)


def _step(ctx: Context, raw: dict[str, Any], here: Path) -> RestStep:
    on = cast(_Target, next(k for k in REST_TARGETS if k in raw))
    name = str(raw[on])
    by = as_dict(raw.get("by"))
    step = RestStep(
        on,
        name,
        recharge=None if "recharge" not in raw else tuple(str(v) for v in raw["recharge"]),
        kind=None if "kind" not in raw else str(raw["kind"]),
        to=None if "to" not in raw else raw["to"] if isinstance(raw["to"], str) else int(raw["to"]),
        by_const=None if "const" not in by else int(by["const"]),
        by_fraction=None if "fractionOfMax" not in by else float(by["fractionOfMax"]),
        round=cast(Rounding, by.get("round", "down")),
        by_min=int(by.get("min", 0)),
    )
    if step.by_const == 0:
        ctx.add(
            (*here, "by", "const"),
            MOVES_NOTHING,
            "a move by 0 changes nothing; give the step a number to move by, or drop it.",
        )
    if on == "pool":
        _check_pool(ctx, name, (*here, on))
    elif on == "poolGroup":
        _check_group(ctx, name, (*here, on))
    elif on == "listPools":
        _check_list(ctx, step, here)
    elif on == "track":
        _check_track(ctx, step, here)
    else:
        _check_state(ctx, step, here)
    return step


def _check_pool(ctx: Context, name: str, here: Path) -> None:
    if name in ctx.names["pools"]:
        return
    if name in _groups(ctx):
        ctx.add(here, UNKNOWN_ID, f'"{name}" is a pool group, not a pool; write "poolGroup".')
        return
    _unknown(ctx, here, name, "a pool", "pools")


def _unknown(ctx: Context, here: Path, name: str, what: str, group: str) -> None:
    """Report a name no declaration of ``group`` has, unless one of them has a faulty id
    (it may be the one meant, and its own problem is reported where it stands)."""
    decls = ctx.sheet_raw.get("lists") if group == "lists" else ctx.live_raw.get(group)
    if len(ctx.names[group]) == len(as_list(decls)):
        ctx.problems.append(unknown_id(here, name, what, ctx.names[group]))


def _check_group(ctx: Context, name: str, here: Path) -> None:
    groups = _groups(ctx)
    if name in groups:
        return
    if name in ctx.names["pools"]:
        ctx.add(here, UNKNOWN_ID, f'"{name}" is a pool, not a pool group; write "pool".')
        return
    ctx.add(
        here,
        UNKNOWN_ID,
        f'"{name}" is not the group of any pool, so the step would refill nothing.'
        f"{did_you_mean(name, groups)}",
    )


def _groups(ctx: Context) -> list[str]:
    return list(dict.fromkeys(p.group for p in ctx.sheet.pools if p.group is not None))


def _check_list(ctx: Context, step: RestStep, here: Path) -> None:
    at = (*here, "listPools")
    if step.id not in ctx.names["lists"]:
        _unknown(ctx, at, step.id, "a list", "lists")
        return
    decl = next((lst for lst in ctx.sheet.lists if lst.id == step.id), None)
    if decl is None:
        return  # its own shape is faulty, and reported there
    if decl.pools is None:
        ctx.add(
            at,
            LIST_HAS_NO_POOLS,
            f'the list "{step.id}" declares no "pools", so none of its rows is a pool to refill.',
        )
        return
    if step.recharge is None:
        return
    column_id = decl.pools.recharge_column
    if column_id is None:
        ctx.add(
            (*here, "recharge"),
            NO_RECHARGE_COLUMN,
            f'the list "{step.id}" names no rechargeColumn, so no row has a recharge value to '
            'match; add one to its "pools", or drop "recharge".',
        )
        return
    column = next((c for c in decl.columns if c.id == column_id), None)
    if column is None or column.type != "enum":
        return
    for i, value in enumerate(step.recharge):
        if value not in column.values:
            shown = ", ".join(f'"{v}"' for v in column.values)
            ctx.add(
                (*here, "recharge", i),
                NOT_A_VALUE,
                f'"{value}" is not a value of the column "{column_id}" ({shown}), so no row '
                f"could match it.{did_you_mean(value, column.values)}",
            )


def _check_track(ctx: Context, step: RestStep, here: Path) -> None:
    at = (*here, "track")
    if step.id not in ctx.names["tracks"]:
        _unknown(ctx, at, step.id, "a track", "tracks")
        return
    track = next((t for t in ctx.sheet.tracks if t.id == step.id), None)
    if track is None:
        return
    if step.kind is not None:
        if not (track.kinds or track.levels or track.boxes_by):
            ctx.add(
                (*here, "kind"),
                NOT_WOUND_TRACK,
                f'"{step.id}" is a plain track, which holds a number, not marks of a kind; '
                'drop "kind".',
            )
        elif track.kinds and step.kind not in {k.id for k in track.kinds}:
            kinds = [k.id for k in track.kinds]
            ctx.problems.append(
                unknown_id(
                    (*here, "kind"),
                    step.kind,
                    "a kind",
                    kinds,
                    of=f'the track "{step.id}"',
                    code=UNKNOWN_KIND,
                )
            )
    if track.is_wound_track and (step.by_fraction is not None or (step.by_const or 0) > 0):
        ctx.add(
            (*here, "by"),
            MOVES_NOTHING,
            f'"{step.id}" is a wound track, and a rest only heals one: a move by a fraction '
            'or a rise clears nothing. Write "by": { "const": -n } or "to".',
        )
    if is_int(step.to):
        _check_track_to(ctx, track, int(cast(int, step.to)), (*here, "to"))


def _check_track_to(ctx: Context, track: Track, to: int, here: Path) -> None:
    lo = 0 if track.is_wound_track else track.min
    fixed = track.max.source == "const" and track.max is not PLACEHOLDER
    hi = int(track.max.value) if fixed else None
    if to < lo or (hi is not None and to > hi):
        top = hi if hi is not None else "its max"
        ctx.add(
            here,
            OUT_OF_RANGE,
            f'{to} is outside {lo}..{top}, the values the track "{track.id}" holds; write '
            '"min" or "max" for its ends.',
        )


def _check_state(ctx: Context, step: RestStep, here: Path) -> None:
    at = (*here, "state")
    if step.id not in ctx.names["states"]:
        _unknown(ctx, at, step.id, "a live state", "states")
        return
    state = next((s for s in ctx.sheet.states if s.id == step.id), None)
    if state is None or step.to == "default" or step.to in state.values:
        return
    shown = ", ".join(f'"{v}"' for v in state.values)
    ctx.add(
        (*here, "to"),
        NOT_A_VALUE,
        f'{describe(step.to)} is not "default" nor one of the values of the state '
        f'"{step.id}": {shown}.{did_you_mean(str(step.to), ("default", *state.values))}',
    )


def _check_clear(ctx: Context, clear: dict[str, Any], here: Path) -> None:
    for i, name in enumerate(as_list(clear.get("text"))):
        if name not in ctx.names["text"]:
            _unknown(ctx, (*here, "text", i), str(name), "a live text", "text")
    for i, name in enumerate(as_list(clear.get("conditions"))):
        if name not in ctx.names["conditions"]:
            _unknown(ctx, (*here, "conditions", i), str(name), "a condition", "conditions")


def _check_names(ctx: Context) -> None:
    """A sheet command finds a rest by its id or its label (trimmed, in lower case),
    first rest first: a label that is another rest's label or id could never reach it."""
    seen: dict[str, tuple[int, str]] = {}  # a name as written in lower case -> rest, role
    items = ctx.items(ctx.raw.get("rests"), ("rests",))
    for i, item, _ in items:
        seen.setdefault(str(item["id"]).strip().lower(), (i, "id"))
    for i, item, here in items:
        name = str(item["label"]).strip().lower()
        found = seen.get(name)
        if found is not None and found[0] != i:
            ctx.add(
                (*here, "label"),
                AMBIGUOUS_REST_NAME,
                f"{describe(item['label'])} is also the {found[1]} of rest {found[0]}; a sheet "
                "command finds a rest by its id or label, so one of the two could never be "
                "reached. Give this rest a label of its own.",
            )
        elif found is None:
            seen[name] = (i, "label")
