"""How a roll leans (FIGHTS §7.5): read by the choice that throws it and by the
forecast that weighs it, so both lean alike. Only a ruleset whose attack roll allows
advantage ever leans; any advantage with any disadvantage is a normal roll."""

from __future__ import annotations

from typing import Any

from dicebound.fight.context import Step
from dicebound.fight.modifiers import saves_narrowed

__all__ = ["attack_mode", "leaning_sum", "leans", "save_mode"]


def _lean(up: bool, down: bool) -> str:
    if up and not down:
        return "advantage"
    if down and not up:
        return "disadvantage"
    return "normal"


def leans(step: Step) -> bool:
    """Whether rolls may lean at all: ``attackRoll.advantage`` or ``pool.advantage``."""
    roll, pool = step.combat.attack_roll, step.combat.pool
    return (roll is not None and roll.advantage) or (pool is not None and pool.advantage)


def leaning_sum(step: Step, mode: str) -> tuple[list[int], list[int]]:
    """The attack roll's dice thrown (twice when ``mode`` leans; the higher or lower
    sum kept, the first of equals): every face thrown, and the faces kept."""
    roll = step.combat.attack_roll
    assert roll is not None  # a summed fight always has one
    first = step.dice.dice(roll.dice.count, roll.dice.sides)
    if mode == "normal":
        return list(first), first
    second = step.dice.dice(roll.dice.count, roll.dice.sides)
    kept = second if (mode == "advantage") == (sum(second) > sum(first)) else first
    return first + second, kept


def attack_mode(step: Step, c: dict[str, Any], t: dict[str, Any]) -> str:
    """FIGHTS §7.5: how an attack leans."""
    if not leans(step):
        return "normal"
    mine, theirs = step.active_effects(c), step.active_effects(t)
    up = (
        "own-attacks-advantage" in mine
        or "attacks-against-advantage" in theirs
        or bool(c["flags"].get("helped"))
    )
    down = (
        "own-attacks-disadvantage" in mine
        or "attacks-against-disadvantage" in theirs
        or bool(t["flags"].get("dodging"))
    )
    return _lean(up, down)


def save_mode(step: Step, t: dict[str, Any], save: str) -> str:
    """FIGHTS §7.5: how a save leans: the saver's ``own-saves-*`` effects and its
    modifiers to saves with a ``mode`` (each narrowed to the saves it names), and
    advantage on a dodge save while dodging."""
    if not leans(step):
        return "normal"
    up = bool(t["flags"].get("dodging")) and save in step.combat.dodge_saves
    down = False
    for s in step.sources(t):
        if saves_narrowed(s, None, save):
            up = up or "own-saves-advantage" in s.effects
            down = down or "own-saves-disadvantage" in s.effects
        for m in s.modifiers:
            if m.to == "saves" and m.mode is not None and saves_narrowed(s, m, save):
                up = up or m.mode == "advantage"
                down = down or m.mode == "disadvantage"
    return _lean(up, down)
