"""Throwing a dice-highest check."""

from __future__ import annotations

from dicebound.dice import DiceSource
from dicebound.kinds.base import Rolled
from dicebound.kinds.dice_highest.model import (
    HighestCheck,
    critical_hits,
    dark_wins,
    highest_faces,
    outcome_of,
    plan_of,
)


def roll(check: HighestCheck, dice: DiceSource) -> Rolled:
    """Throw the light dice (or the two fallback dice), then the dark dice, and read them."""
    config = check.config
    plan = plan_of(check)
    light = [dice.throw(config.sides) for _ in range(plan.light)]
    dark = [dice.throw(config.sides) for _ in range(plan.dark)]
    reading = light if config.light_only else light + dark
    if plan.zero:
        kept = [min(light)] if light else []
        hits = 0
    else:
        kept = highest_faces(reading, config.keep)
        hits = critical_hits(config, reading)
    out = outcome_of(check, plan.zero, sum(kept), hits, dark_wins(light, dark))
    extras: list[tuple[str, str]] = [("highest", str(config.keep))]
    if plan.zero:
        extras.append(("zeroDice", "true"))
    if plan.dark:
        extras.append(("dark", str(plan.dark)))
        if out.dark_highest:
            extras.append(("darkHighest", "true"))
        if config.light_only:
            extras.append(("darkOutcome", "light"))
    return Rolled(
        rolls=tuple(str(f) for f in (*light, *dark)),
        used=out.total,
        modifier=0,
        total=out.total,
        success=out.success,
        critical_success=out.critical_success,
        critical_failure=out.critical_failure,
        dice=f"{plan.light + plan.dark}d{config.sides}",
        extras=tuple(extras),
        outcome=out,
    )
