"""Concentration (FIGHTS §8.3): an action that concentrates holds what it applied
while its user keeps it. Starting one ends the one held; a blow that hurts a standing
concentrator asks a save against a difficulty the damage sets; going down ends it
with no save. Ending it takes off every condition it held, on anybody.

A party member's concentration is also written on its sheet (the ruleset's
concentration text, through the sheet's ``note`` command), so the sheet shows it.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from dicebound.fight.conditions import remove_condition
from dicebound.fight.context import Step
from dicebound.fight.saves import make_save
from dicebound.sheet_commands.model import SheetRequest

__all__ = ["concentration_check", "end_concentration", "start_concentration"]


def _event(c: dict[str, Any], label: str, result: str, reason: str | None = None) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": "concentration",
        "actorId": c["id"],
        "actor": c["name"],
        "label": label,
        "result": result,
    }
    if reason is not None:
        event["reason"] = reason
    return event


def _note(step: Step, c: dict[str, Any], text: str) -> None:
    rule = step.combat.concentration
    if c["side"] == "party" and rule is not None:
        step.write(c, SheetRequest(op="note", who=c["character"], field=rule.text, value=text))


def start_concentration(step: Step, c: dict[str, Any], action: dict[str, Any]) -> None:
    """``c`` concentrates on ``action``: the one it held ends (``replaced``) first."""
    if c["concentrating"] is not None:
        end_concentration(step, c, "replaced")
    c["concentrating"] = {"actionId": action["id"], "label": action["label"]}
    _note(step, c, str(action["label"]))
    step.events.append(_event(c, str(action["label"]), "started"))


def end_concentration(step: Step, c: dict[str, Any], reason: str) -> None:
    """``c``'s concentration ends: every condition it held comes off, on everybody in
    fight order (``concentration``), the sheet's note is cleared, then the ``ended``
    event with its reason."""
    held = c["concentrating"]
    if held is None:
        return
    for holder in step.fight["combatants"]:
        for record in list(holder["tracked"]):
            if record.get("concentration") and record.get("source") == c["id"]:
                remove_condition(step, holder, str(record["condition"]), "concentration")
    c["concentrating"] = None
    _note(step, c, "")
    step.events.append(_event(c, str(held["label"]), "ended", reason))


def concentration_check(step: Step, t: dict[str, Any], dealt: int) -> None:
    """A standing concentrator hurt by ``dealt``: a save of the ruleset's concentration
    save against ``max(floor, floor(dealt × fromDamage))``; kept on a success, ended
    (``damage``) on a failure."""
    rule = step.combat.concentration
    held = t["concentrating"]
    if rule is None or held is None or dealt <= 0:
        return
    difficulty = max(rule.floor, math.floor(dealt * Fraction(repr(rule.from_damage))))
    if make_save(step, t, rule.save, difficulty):
        step.events.append(_event(t, str(held["label"]), "kept"))
    else:
        end_concentration(step, t, "damage")
