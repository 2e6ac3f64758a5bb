"""Throwing a step-pool check: the talent die and the training dice, placed where they
count most."""

from __future__ import annotations

from collections.abc import Sequence

from dicebound.dice import DiceSource
from dicebound.kinds.base import Rolled
from dicebound.kinds.step_pool.model import Placement, StepCheck, outcome_of, placement_of, signed
from dicebound.kinds.step_pool.offer import offer_of


def _extras(
    check: StepCheck, faces: Sequence[int], placement: Placement
) -> tuple[tuple[str, str], ...]:
    """The kind's record attributes (module docstring), in the record's order."""
    out: list[tuple[str, str]] = []
    if check.quality_field is not None:
        where = "" if placement.quality_die is None else f"@{placement.quality_die + 1}"
        out.append(("quality", f"{check.quality_field}:{signed(check.quality)}{where}"))
    if check.tool:
        where = "" if placement.tool_die is None else f"@{placement.tool_die + 1}"
        out.append(("tool", f"{signed(check.tool)}{where}"))
    out.append(("effort", str(placement.effort)))
    raised = _raises(check, len(faces), placement)
    if any(raised):
        out.append(("raises", "|".join(signed(r) for r in raised)))
    offer = offer_of(check, faces, placement)
    if offer is not None:
        out.append(("offer", offer.text))
    if placement.paid_die is not None:
        out.append(
            ("after", f"{placement.paid_pool}:{placement.paid_points}@{placement.paid_die + 1}")
        )
    return tuple(out)


def _raises(check: StepCheck, count: int, placement: Placement) -> tuple[int, ...]:
    """What each die was raised by, in throw order."""
    out = [0] * count
    if placement.quality_die is not None:
        out[placement.quality_die] = check.free_quality
    if placement.tool_die is not None:
        out[placement.tool_die] = check.tool
    if placement.paid_die is not None:
        out[placement.paid_die] = placement.paid_raise
    return tuple(out)


def rolled_of(check: StepCheck, faces: tuple[int, ...], placement: Placement) -> Rolled:
    out = outcome_of(placement.effort, faces, placement)
    return Rolled(
        rolls=tuple(str(f) for f in faces),
        used=out.total,
        modifier=0,
        total=out.total,
        success=out.success,
        critical_success=False,
        critical_failure=False,
        dice=check.dice_text,
        resolution="successes",
        extras=_extras(check, faces, placement),
        outcome=out,
    )


# -- play ------------------------------------------------------------------------------


def roll(check: StepCheck, dice: DiceSource) -> Rolled:
    """Throw the talent die, then the training dice; place the free raises."""
    faces = tuple(dice.throw(sides) for sides in check.dice)
    return rolled_of(check, faces, placement_of(check, faces))
