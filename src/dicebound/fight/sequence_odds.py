"""A sequence's forecast and exact odds (FIGHTS §14): its average damage is the sum of
the averages of the parts a turn can take now; its odds at each legal target alone come
from its parts' own odds at that target (``fight.sequences.combined_odds``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from dicebound.fight.context import Step
from dicebound.fight.forecast import average_damage, half_up
from dicebound.fight.odds import MAX_TARGETS, falls_after, option_odds
from dicebound.fight.sequences import combined_odds, forecast_average, sequence_parts

__all__ = ["sequence_weighed"]


def _part_odds(
    step: Step, c: dict[str, Any], part: Mapping[str, Any], t: dict[str, Any]
) -> Mapping[str, Any] | None:
    """One part's exact odds at ``t`` alone (None when it has none)."""
    if step.combat.kind == "dice-pool":
        from dicebound.fight.pool_odds import pool_weighed

        made = pool_weighed(step, c, part, [t])
    else:
        made = option_odds(step, c, dict(part), [t])
    odds = made.get("odds")
    found: Mapping[str, Any] | None = None if odds is None else odds.get(t["id"])
    return found


def sequence_weighed(
    step: Step, c: dict[str, Any], a: Mapping[str, Any], targets: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """``forecast {averageDamage}`` (at the first legal target) and ``odds`` (each legal
    target alone, at most 12) of a sequence."""
    parts = sequence_parts(c["actions"], a)
    first = next(iter(targets), None)

    def average(part: Mapping[str, Any]) -> Fraction | None:
        if step.combat.kind == "dice-pool":
            from dicebound.fight.pool_odds import part_average

            amounts = [part["damage"]] if part.get("damage") else []
            amounts += list(part.get("plus", ()))
            return sum((part_average(step, first, x) for x in amounts), Fraction(0))
        return average_damage(part)

    made: dict[str, Any] = {
        "forecast": {"averageDamage": half_up(forecast_average(c, parts, average), 2)}
    }
    odds: dict[str, Any] = {}
    for t in targets[:MAX_TARGETS]:

        def at_t(part: Mapping[str, Any], t: dict[str, Any] = t) -> Mapping[str, Any] | None:
            return _part_odds(step, c, part, t)

        at = combined_odds(c, parts, at_t, falls_after(step, t))
        if isinstance(at, str):  # no exact odds at some target: none at all
            return made | {"odds": None, "oddsRefused": at}
        odds[t["id"]] = at
    return made | {"odds": odds}
