"""Conditions a fight puts on and takes off (FIGHTS §8.2, §8.5): applying one (or
finding the target immune), the record the fight keeps time on (``tracked``), taking
one off with its reason, and the one-use conditions a save or an attack roll spends.

A party member's conditions live on its sheet and change only through the sheet's
``condition`` command; an opponent's live in its ``tracked`` records alone. Either way
the tracked record carries the clock, the save that ends it, its source and whether a
concentration holds it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from dicebound.fight.context import Step
from dicebound.sheet_commands.model import SheetRequest

__all__ = [
    "apply_condition",
    "condition_event",
    "ends_when_source_down",
    "one_use",
    "remove_condition",
    "spend_one_use",
]


def condition_event(
    step: Step, t: dict[str, Any], condition: str, *, active: bool, reason: str | None = None
) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": "condition",
        "targetId": t["id"],
        "target": t["name"],
        "condition": condition,
        "label": step.condition_label(condition),
        "active": active,
    }
    if reason is not None:
        event["reason"] = reason
    return event


def _immune(t: Mapping[str, Any], condition: str) -> bool:
    block = t.get("block") or {}
    folded = condition.strip().lower()
    return any(str(x).strip().lower() == folded for x in block.get("conditionImmunities", ()))


def apply_condition(
    step: Step,
    source: Mapping[str, Any],
    t: dict[str, Any],
    applied: Mapping[str, Any],
    difficulty: int | None,
    *,
    concentration: bool = False,
) -> None:
    """FIGHTS §8.2: an immune target takes nothing (an ``immune`` event); otherwise the
    condition goes on (the sheet's ``condition on`` for a party member) and its tracked
    record is replaced: a clock of ``{rounds}`` (at the holder's turn start when the
    duration says so), none for ``instant`` and ``until-save``."""
    condition = str(applied["condition"])
    if _immune(t, condition):
        step.events.append(condition_event(step, t, condition, active=False, reason="immune"))
        return
    if t["side"] == "party":
        step.write(t, SheetRequest(op="condition", who=t["character"], condition=condition))
    duration = applied["duration"]
    record: dict[str, Any] = {
        "condition": condition,
        "rounds": duration["rounds"] if isinstance(duration, dict) else None,
    }
    if isinstance(duration, dict) and duration.get("at") == "turn-start":
        record["clock"] = "turn-start"
    if applied.get("saveEnds") is not None:
        record["saveEnds"] = dict(applied["saveEnds"])
    if applied.get("endsAfter") is not None:
        record["endsAfter"] = applied["endsAfter"]
    if difficulty is not None:
        record["difficulty"] = difficulty
    record["source"] = source["id"]
    if concentration:
        record["concentration"] = True
    t["tracked"] = [x for x in t["tracked"] if x["condition"] != condition] + [record]
    step.events.append(condition_event(step, t, condition, active=True))


def remove_condition(step: Step, t: dict[str, Any], condition: str, reason: str) -> None:
    """Take a condition off (its tracked record and, for a party member, the sheet's
    ``condition off``), with the reason the ``off`` line gives."""
    t["tracked"] = [x for x in t["tracked"] if x["condition"] != condition]
    if t["side"] == "party":
        step.write(
            t, SheetRequest(op="condition", who=t["character"], condition=condition, on=False)
        )
    step.events.append(condition_event(step, t, condition, active=False, reason=reason))


def one_use(t: Mapping[str, Any], kind: str) -> list[dict[str, Any]]:
    """The tracked records of ``t`` that end after its next ``kind`` (``own-save``,
    ``own-attack``, ``attacked``), as they stand now."""
    return [x for x in t["tracked"] if x.get("endsAfter") == kind]


def spend_one_use(step: Step, t: dict[str, Any], records: Iterable[Mapping[str, Any]]) -> None:
    """FIGHTS §8.5: the one-use records taken before the roll come off (``spent``),
    those still on; a record put on by the same blow is not spent by it."""
    for record in records:
        if any(x is record for x in t["tracked"]):
            remove_condition(step, t, str(record["condition"]), "spent")


def ends_when_source_down(step: Step, source: Mapping[str, Any]) -> None:
    """FIGHTS §8.1: conditions ``source`` applied whose entry ends when it goes down
    come off (``expired``), on everybody, in fight order."""
    for holder in step.fight["combatants"]:
        for record in list(holder["tracked"]):
            rule = step.combat.condition(str(record["condition"]))
            if record.get("source") == source["id"] and rule and rule.ends_when_source_down:
                remove_condition(step, holder, str(record["condition"]), "expired")
