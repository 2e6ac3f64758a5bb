"""``[sheet: op="rest" rest="long"]``: a named rest refills, heals and clears what its
definition names, and nothing else (docs/design/sheet-commands.md "Rests").

The rest is found by id or label (NAME-EQ), else ``unknown-rest``, which is the only
way a rest is refused. Its steps run in order on one working sheet, so two steps on one
pool compound; then ``clear`` empties text fields and conditions. A rest never touches a
pool, track, state, text field or condition its definition does not name, and never a
temporary buffer. ``now`` lists what changed (``Long rest: Hit points 31/31, ...``);
clearing is not mentioned.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from functools import lru_cache

from dicebound.ruleset.model import Rest, RestStep, Rounding, Ruleset
from dicebound.sheet import exact
from dicebound.sheet_commands.current import (
    PoolSpec,
    SheetLayout,
    StateSpec,
    TrackSpec,
    WorkingSheet,
    kept_per,
)
from dicebound.sheet_commands.model import Refused, SheetRequest
from dicebound.sheet_commands.reasons import UNKNOWN_REST
from dicebound.sheet_commands.wounds import heal
from dicebound.values import frozen

__all__ = ["find_rest", "moved_value", "rest_command", "wound_clear_count"]

_INDEX = ("sheet_commands.rests", "by name")
_TARGETS = "sheet_commands rest targets"


def find_rest(ruleset: Ruleset, written: str) -> Rest | None:
    """The first rest, in definition order, whose id or label is NAME-EQ to ``written``.

    The folded names are kept on ``ruleset.memo``, so a reply of forty rests folds the
    definition's names once."""
    index: dict[str, Rest] | None = ruleset.memo.get(_INDEX)
    if index is None:
        index = {}
        for rest in ruleset.rests:
            index.setdefault(rest.id.strip().lower(), rest)
            index.setdefault(rest.label.strip().lower(), rest)
        ruleset.memo[_INDEX] = index
    return index.get(written.strip().lower())


def moved_value(step: RestStep, current: int, maximum: int, minimum: int) -> int | None:
    """Where a step moves a value of ``current`` between ``minimum`` and ``maximum``,
    before any clamping: ``to`` max, min or a number; ``by`` a constant; or ``by`` the
    larger of the step's ``min`` and its fraction of the maximum, rounded its way. None
    for a step that names no move a number can make (a state's value on a pool)."""
    if step.to is not None:
        if step.to == "max":
            return maximum
        if step.to == "min":
            return minimum
        return step.to if isinstance(step.to, int) else None
    if step.by_const is not None:
        return current + step.by_const
    if step.by_fraction is not None:
        return current + max(step.by_min, _share(maximum, step.by_fraction, step.round))
    return None


def _share(maximum: int, fraction: float, how: Rounding) -> int:
    """``round_number(maximum * exact(fraction), how)`` in whole numbers: the fraction as
    the decimal written, ``p/q``, then ``maximum * p`` divided by ``q`` rounded ``how``."""
    p, q = _ratio(fraction)
    if how == "up":
        return -(-maximum * p // q)
    if how == "nearest":
        return (2 * maximum * p + q) // (2 * q)
    return maximum * p // q


@lru_cache(maxsize=256)
def _ratio(fraction: float) -> tuple[int, int]:
    """The decimal a rest's ``fractionOfMax`` was written as, ``(p, q)`` in lowest terms."""
    return exact(fraction).as_integer_ratio()


def wound_clear_count(step: RestStep, filled: int, levels: int, overflow: int) -> int:
    """How many marks (overflow first) a rest step clears from a wound track: a rest only
    heals. With ``to``, the marks above the target and all overflow (``to: "max"`` on a
    full track clears exactly the overflow); with ``by``, how far the unclamped move goes
    below the marks, so only a negative constant clears anything. 0 or less clears
    nothing."""
    moved = moved_value(step, filled, levels, 0)
    if moved is None:
        return 0
    if step.to is not None:
        return filled - min(max(moved, 0), levels) + overflow
    return math.trunc(filled - moved)


@frozen
class _Targets:
    """A layout's pools, tracks and states as rest steps look them up: declared pools by
    group, row pools by list, visible tracks and states by id. Made once per layout (a
    layout is made once per build) and kept on ``ruleset.memo``."""

    groups: Mapping[str, tuple[PoolSpec, ...]]
    lists: Mapping[str, tuple[PoolSpec, ...]]
    tracks: Mapping[str, TrackSpec]
    states: Mapping[str, StateSpec]


def _targets(layout: SheetLayout) -> _Targets:
    groups: dict[str, tuple[PoolSpec, ...]] = {}
    lists: dict[str, tuple[PoolSpec, ...]] = {}
    for pool in layout.pools:
        if pool.list is not None:
            lists[pool.list] = (*lists.get(pool.list, ()), pool)
        elif pool.group is not None:
            groups[pool.group] = (*groups.get(pool.group, ()), pool)
    return _Targets(
        groups=groups,
        lists=lists,
        tracks={track.id: track for track in layout.tracks},
        states={state.id: state for state in layout.states},
    )


def _pool_step(sheet: WorkingSheet, targets: _Targets, step: RestStep) -> list[str]:
    """Refill (or drain) the pools the step names: a declared pool by key, every pool
    of a group, or a list's row pools (only those whose recharge value the step lists,
    when it lists any). Hidden and zero-maximum pools are not there to refill."""
    pools: tuple[PoolSpec, ...]
    if step.on == "pool":
        one = sheet.layout.pool_by_key.get(step.id)
        pools = () if one is None or one.is_row else (one,)
    elif step.on == "poolGroup":
        pools = targets.groups.get(step.id, ())
    else:
        pools = targets.lists.get(step.id, ())
        if step.recharge is not None:
            pools = tuple(p for p in pools if p.recharge in step.recharge)
    changes = []
    for pool in pools:
        value = sheet.pool_value(pool)
        moved = moved_value(step, value, pool.max, 0)
        if moved is None:
            continue
        new = min(max(moved, 0), pool.max)
        sheet.set_pool(pool, new, sheet.pool_temp(pool))  # the buffer stays as it is
        if new != value:
            changes.append(f"{pool.label} {new}/{pool.max}")
    return changes


def _track_step(sheet: WorkingSheet, targets: _Targets, step: RestStep) -> list[str]:
    """Move a plain track within its range, or heal a wound track (a rest never marks
    one): overflow first, then the lightest marks, of the step's kind when it names one.
    A hidden track is not there."""
    track = targets.tracks.get(step.id)
    if track is None:
        return []
    if not track.is_wound:
        value = sheet.track_value(track)
        moved = moved_value(step, value, track.max, track.min)
        if moved is None:
            return []
        new = min(max(moved, track.min), track.max)
        sheet.set_track(track, new)
        return [f"{track.label} {new}"] if new != value else []
    work = sheet.wound_track(track)
    count = wound_clear_count(step, work.filled, work.length, work.overflow)
    if count <= 0:
        return []
    kind = track.kind_named(step.kind) if step.kind else None
    heal(work, count, None if kind is None else kind.severity)
    sheet.set_wounds(track, work)
    return [f"{track.label} {work.filled}/{work.length}"]  # said even if nothing was there


def _state_step(sheet: WorkingSheet, targets: _Targets, step: RestStep) -> list[str]:
    """Set a visible state to its default (``"default"``) or to one of its values; a
    value it does not offer, or a hidden state, is passed over."""
    state = targets.states.get(step.id)
    if state is None or not isinstance(step.to, str):
        return []
    target = state.default if step.to == "default" else step.to
    if target not in state.values:
        return []
    before = sheet.state_value(state)
    sheet.set_state(state, target)
    return [f"{state.label} {state.value_label(target)}"] if target != before else []


_STEPS: dict[str, Callable[[WorkingSheet, _Targets, RestStep], list[str]]] = {
    "pool": _pool_step,
    "poolGroup": _pool_step,
    "listPools": _pool_step,
    "track": _track_step,
    "state": _state_step,
}


def rest_command(sheet: WorkingSheet, request: SheetRequest) -> str | Refused:
    """Take the rest the request names on the working sheet: its ``now``, or
    ``unknown-rest`` when no rest answers to the name (then nothing changed)."""
    rest = find_rest(sheet.ruleset, request.rest or "")
    if rest is None:
        return Refused(UNKNOWN_REST)
    targets = kept_per(sheet.ruleset, _TARGETS, sheet.layout, _targets)
    changes = [change for step in rest.restore for change in _STEPS[step.on](sheet, targets, step)]
    for text_id in rest.clear_text:
        sheet.set_text(text_id, "")
    if rest.clear_conditions == "all":
        sheet.clear_conditions()  # undeclared ids too
    else:
        for condition_id in rest.clear_conditions:
            sheet.set_condition(condition_id, False)
    return f"{rest.label}: {', '.join(changes)}" if changes else rest.label
