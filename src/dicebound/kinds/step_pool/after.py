"""step-pool's spend after the roll: effort raises the dice already thrown."""

from __future__ import annotations

from dicebound.errors import TagError, UsageError
from dicebound.kinds.step_pool.model import (
    AfterResult,
    SpendRate,
    StepCheck,
    StepConfig,
    StepOutcome,
    placement_of,
)
from dicebound.kinds.step_pool.offer import or_list
from dicebound.kinds.step_pool.roll import rolled_of
from dicebound.problems import did_you_mean
from dicebound.sheet import SheetView
from dicebound.tags.names import normalize


def spend_entry(config: StepConfig, pool: str) -> SpendRate:
    """The spend entry a pool id (any case) names; a TagError with a "did you mean"."""
    wanted = normalize(pool)
    for entry in config.spend:
        if normalize(entry.pool) == wanted:
            return entry
    names = [e.pool for e in config.spend]
    if not names:
        raise TagError("this check offers no spending after the roll.")
    listed = or_list([f'"{n}"' for n in names])
    raise TagError(
        f'"{pool}" is not a pool this check spends after the roll; it spends {listed}.'
        f"{did_you_mean(pool, names)}"
    )


def spend_after(
    check: StepCheck, outcome: StepOutcome, pool_id: str, points: int, view: SheetView
) -> AfterResult:
    """The player spends up to ``points`` of one pool on one die after the roll.

    Every raise is placed afresh (free and paid) for the most EFFORT and the fewest
    points; the pool pays only what the raised die lacks (times the pool's rate), only
    when the EFFORT rises, and all or nothing. ``view`` is the roller's sheet, read for
    what the pool holds now.

    Raises:
        TagError: the pool is not one the check spends, the points are not 1 or more,
            or the check has already been spent on.
        UsageError: ``outcome`` is not a thrown outcome of this check.
    """
    placement = outcome.placement
    faces = outcome.faces
    if placement is None or len(faces) != len(check.dice):
        raise UsageError("spend_after needs the thrown outcome of this check")
    if placement.paid_die is not None:
        raise TagError(
            f"this check was already spent on ({placement.paid_pool}:{placement.paid_points}); "
            "a check takes one spend."
        )
    entry = spend_entry(check.config, pool_id)
    if isinstance(points, bool) or not isinstance(points, int) or points < 1:
        raise TagError(f"{points} is not a number of points to spend: spend 1 or more.")
    label = view.pool_label(entry.pool)
    holds = view.pool_value(entry.pool)
    budget = min(points, holds)
    before = rolled_of(check, faces, placement)
    after = placement_of(check, faces, budget // entry.rate, entry)
    if after.paid_die is not None and after.effort > placement.effort:
        rolled = rolled_of(check, faces, after)
        assert isinstance(rolled.outcome, StepOutcome)
        message = (
            f"{after.paid_points} {label} raised die {after.paid_die + 1} by "
            f"{after.paid_raise}: {after.effort} EFFORT."
        )
        return AfterResult(rolled.outcome, after, (entry.pool, after.paid_points), rolled, message)
    cheapest = placement_of(check, faces, check.target, entry)
    if cheapest.paid_die is None or cheapest.effort <= placement.effort:
        message = f"{entry.pool}:{points} buys nothing: no raise can add EFFORT to this roll."
    elif holds < cheapest.paid_points:
        message = (
            f"{label} holds {holds}, less than the {cheapest.paid_points} the cheapest raise "
            "that adds EFFORT costs, so nothing was paid."
        )
    else:
        message = (
            f"{entry.pool}:{points} buys nothing: the cheapest raise that adds EFFORT costs "
            f"{cheapest.paid_points} {label}, so nothing was paid."
        )
    return AfterResult(outcome, placement, None, before, message)
