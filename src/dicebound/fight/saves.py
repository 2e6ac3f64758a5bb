"""A save (FIGHTS §7.4): the target throws the attack roll's dice (twice when the save
leans), adds its save number and what its conditions and levels add to that save, and
succeeds at the difficulty or more. A ``failsSaves`` source makes it fail with no dice.
Conditions that end after their holder's next save are spent by it.

Gates (an item's check before it works) are the same throw on a check number; items
are not played yet, so no gate is thrown.
"""

from __future__ import annotations

from typing import Any

from dicebound.fight.conditions import one_use, spend_one_use
from dicebound.fight.context import Step
from dicebound.fight.leaning import leaning_sum, save_mode
from dicebound.fight.modifiers import save_bonuses
from dicebound.fight.pools import pool_save

__all__ = ["fails_save", "make_save", "save_label"]


def save_label(step: Step, save: str) -> str:
    return next((s.label for s in step.ruleset.sheet.saves if s.id == save), save)


def fails_save(step: Step, t: dict[str, Any], save: str) -> bool:
    """Whether a ``failsSaves`` source makes ``t`` fail ``save`` with no dice."""
    return any(save in s.fails_saves for s in step.sources(t))


def make_save(step: Step, t: dict[str, Any], save: str, difficulty: int) -> bool:
    """One save by ``t`` against ``difficulty`` (a ``save`` event): True on a success."""
    spent = one_use(t, "own-save")
    event: dict[str, Any] = {
        "type": "save",
        "targetId": t["id"],
        "target": t["name"],
        "save": save,
        "label": save_label(step, save),
        "difficulty": difficulty,
    }
    if fails_save(step, t, save):
        event |= {"rolls": [], "kept": 0, "modifier": 0, "bonuses": [], "total": 0}
        event |= {"success": False, "automatic": True, "mode": "normal"}
        step.events.append(event)
        spend_one_use(step, t, spent)
        return False
    if step.combat.kind == "dice-pool":
        event |= pool_save(step, t, save, difficulty)
        step.events.append(event)
        spend_one_use(step, t, spent)
        return bool(event["success"])
    mode = save_mode(step, t, save)
    rolls, kept_faces = leaning_sum(step, mode)
    kept = sum(kept_faces)
    modifier = int(t["saves"].get(save, 0))
    bonuses = save_bonuses(step, t, save)
    total = kept + modifier + sum(b["value"] for b in bonuses)
    success = bool(total >= difficulty)
    event |= {
        "rolls": rolls,
        "kept": kept,
        "modifier": modifier,
        "bonuses": bonuses,
        "total": total,
        "success": success,
        "mode": mode,
    }
    step.events.append(event)
    spend_one_use(step, t, spent)
    return success
