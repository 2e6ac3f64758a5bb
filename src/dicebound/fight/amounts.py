"""What an action carries, read from the ruleset and the sheet: dice text (FIGHTS §6.4),
an amount with its damage type, a further damage part (a clause) and a condition an
action puts on, each as the plain JSON a fight's state keeps."""

from __future__ import annotations

import math
import re
from typing import Any

from dicebound.ruleset.combat import Amount, Applied, DamageClause

__all__ = ["DiceText", "amount_of", "applied_of", "clause_of", "read_dice"]

DiceText = tuple[int, int, int]
"""``(count, sides, flat)``; a flat-only amount has count and sides 0."""

_DICE = re.compile(r"\s*([0-9]{1,3})\s*d\s*([0-9]{1,4})\s*(?:([+-])\s*([0-9]{1,4}))?\s*", re.ASCII)
_FLAT = re.compile(r"\s*([+-]?[0-9]{1,9}(?:\.[0-9]+)?)\s*", re.ASCII)


def read_dice(value: object) -> DiceText | None:
    """Dice text as a dice column holds it (FIGHTS §6.4): ``NdS±F`` or a plain nonzero
    number (flat, truncated); anything else, or more than 40 characters, is no dice."""
    if not isinstance(value, str) or len(value.strip()) > 40:
        return None
    dice = _DICE.fullmatch(value)
    if dice is not None:
        count, sides = int(dice.group(1)), int(dice.group(2))
        if count < 1 or sides < 1:
            return None
        flat = int(dice.group(4) or 0) * (-1 if dice.group(3) == "-" else 1)
        return count, sides, flat
    flat_match = _FLAT.fullmatch(value)
    if flat_match is None:
        return None
    flat = math.trunc(float(flat_match.group(1)))
    return None if flat == 0 else (0, 0, flat)


def amount_of(amount: Amount, kind: str | None) -> dict[str, Any]:
    """An amount as an action carries it: dice read off its dice text, the flat parts
    added, and its damage type."""
    count, sides, flat = (read_dice(amount.dice) if amount.dice else None) or (0, 0, 0)
    return {"count": count, "sides": sides, "flat": flat + amount.flat, "type": kind}


def clause_of(clause: DamageClause, source_difficulty: int | None) -> dict[str, Any]:
    """A further part of a blow; its save's difficulty defaults to its source's."""
    made = amount_of(clause.amount, clause.type)
    if clause.save is not None:
        difficulty = clause.save.difficulty
        if difficulty is None:
            difficulty = source_difficulty or 0
        made["save"] = {
            "save": clause.save.save,
            "onSuccess": clause.save.on_success,
            "difficulty": difficulty,
        }
    return made


def applied_of(applied: Applied) -> dict[str, Any]:
    """A condition an action puts on, in the catalog's own words (FIGHTS §2.3)."""
    duration: str | dict[str, Any]
    if isinstance(applied.duration, int):
        duration = {"rounds": applied.duration}
        if applied.at_turn_start:
            duration["at"] = "turn-start"
    else:
        duration = applied.duration
    made: dict[str, Any] = {"condition": applied.condition, "duration": duration}
    if applied.save_ends is not None:
        made["saveEnds"] = {"save": applied.save_ends[0], "at": applied.save_ends[1]}
    if applied.ends_after is not None:
        made["endsAfter"] = applied.ends_after
    return made
