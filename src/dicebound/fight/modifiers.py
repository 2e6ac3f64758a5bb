"""Numbers conditions and levels change (FIGHTS §8.4), read where the number is used:
a target's defense (``guards``) and an attack's bonuses (flat, and dice thrown now).

The sources are a combatant's active conditions (its sheet's and the fight's tracked
ones, in the block's order) and, for a party member, the levels its tracks and derived
values have reached. Modifiers to saves are narrowed to one save (the modifier's own
``saves``, else its source's); modifiers to checks wait for contests and gates, which
are not played; modifiers to speed are inert.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dicebound.fight.amounts import read_dice
from dicebound.fight.context import Source, Step
from dicebound.fight.sums import Ways, add, dice_sum, point
from dicebound.ruleset.combat import Modifier

__all__ = [
    "attack_bonus_dist",
    "attack_bonuses",
    "check_bonuses",
    "guards",
    "save_bonus_dist",
    "save_bonuses",
    "saves_narrowed",
]


def guards(step: Step, t: dict[str, Any]) -> int:
    """What a target's active sources add to its defense."""
    return sum(m.flat for s in step.sources(t) for m in s.modifiers if m.to == "defense")


def attack_bonuses(step: Step, c: dict[str, Any]) -> list[dict[str, Any]]:
    """Each modifier to the chooser's attacks as a bonus, its dice thrown now."""
    return _bonuses(step, c, lambda s, m: m.to == "attacks")


def saves_narrowed(source: Source, m: Modifier | None, save: str) -> bool:
    """Whether a source's effect (``m`` None) or modifier reaches ``save``: narrowed
    by the modifier's own ``saves``, else by its source's; nothing named, every save."""
    named = (m.saves if m is not None else ()) or source.saves
    return not named or save in named


def _adds_to_save(save: str) -> Callable[[Source, Modifier], bool]:
    """A modifier to saves that reaches ``save`` and adds a number (a ``mode`` alone
    only leans the save)."""
    return lambda s, m: (
        m.to == "saves" and (m.flat != 0 or m.dice is not None) and saves_narrowed(s, m, save)
    )


def save_bonuses(step: Step, c: dict[str, Any], save: str) -> list[dict[str, Any]]:
    """Each modifier to ``c``'s saves that reaches ``save`` and adds a number, its dice
    thrown now."""
    return _bonuses(step, c, _adds_to_save(save))


def check_bonuses(step: Step, c: dict[str, Any]) -> list[dict[str, Any]]:
    """Each modifier to ``c``'s checks narrowed to no skill (a contest's), as a bonus,
    its dice thrown now."""
    return _bonuses(
        step,
        c,
        lambda s, m: m.to == "checks" and not m.skills and (m.flat != 0 or m.dice is not None),
    )


def _bonuses(
    step: Step, c: dict[str, Any], keep: Callable[[Source, Modifier], bool]
) -> list[dict[str, Any]]:
    bonuses: list[dict[str, Any]] = []
    for s in step.sources(c):
        for m in s.modifiers:
            if not keep(s, m):
                continue
            value = m.flat
            bonus: dict[str, Any] = {s.kind: s.name, "label": s.label}
            dice = read_dice(m.dice) if m.dice else None
            if dice is not None:
                rolls = step.dice.dice(dice[0], dice[1]) if dice[0] else []
                thrown = sum(rolls) + dice[2]
                value += -thrown if m.minus else thrown
                bonus["rolls"] = rolls
            bonus["value"] = value
            bonuses.append(bonus)
    return bonuses


def attack_bonus_dist(step: Step, c: dict[str, Any], to: str = "attacks") -> Ways:
    """The exact distribution of the sum of the chooser's attack bonuses (``to``
    ``checks``: its bonuses to a contest's check, those narrowed to no skill)."""
    return _bonus_dist(step, c, lambda s, m: m.to == to and not m.skills)


def save_bonus_dist(step: Step, c: dict[str, Any], save: str) -> Ways:
    """The exact distribution of the sum of what ``c``'s sources add to ``save``: the
    bonuses ``save_bonuses`` throws, weighed."""
    return _bonus_dist(step, c, _adds_to_save(save))


def _bonus_dist(step: Step, c: dict[str, Any], keep: Callable[[Source, Modifier], bool]) -> Ways:
    dist = point(0)
    for s in step.sources(c):
        for m in s.modifiers:
            if not keep(s, m):
                continue
            parts = point(m.flat)
            dice = read_dice(m.dice) if m.dice else None
            if dice is not None:
                sign = -1 if m.minus else 1
                sums = dice_sum(dice[0], dice[1])
                parts = Ways(
                    {m.flat + sign * (k + dice[2]): n for k, n in sums.counts.items()}, sums.total
                )
            dist = add(dist, parts)
    return dist
