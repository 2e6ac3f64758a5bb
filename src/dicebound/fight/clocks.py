"""Clocks on conditions (FIGHTS §8.5), run at a holder's turn end and turn start: the
repeated save that ends a condition, then the rounds counted down, off at none left."""

from __future__ import annotations

from typing import Any, Literal

from dicebound.fight.conditions import remove_condition
from dicebound.fight.context import Step
from dicebound.fight.saves import make_save

__all__ = ["run_clocks"]


def run_clocks(step: Step, c: dict[str, Any], moment: Literal["turn-end", "turn-start"]) -> None:
    """For each record ``c`` holds, in order: its repeated save when it ends on a save
    at this moment and its difficulty is known (success: off, ``save``); then, when
    its clock runs at this moment (a turn's end unless it says its start), one round
    off, off at 0 or below (``expired``). A record whose condition a sheet command
    already took off a party member is dropped with no save and no line."""
    for record in list(c["tracked"]):
        if all(x is not record for x in c["tracked"]):
            continue  # taken off by an earlier save of this moment
        condition = str(record["condition"])
        if not step.has_condition(c, condition):
            # a sheet command took it off a party member: its clock goes with it
            c["tracked"] = [x for x in c["tracked"] if x is not record]
            continue
        ends = record.get("saveEnds")
        if ends is not None and ends.get("at") == moment and record.get("difficulty") is not None:
            if make_save(step, c, str(ends["save"]), int(record["difficulty"])):
                remove_condition(step, c, condition, "save")
                continue
            if all(x is not record for x in c["tracked"]):
                continue  # spent by that very save (it ends after its holder's save)
        clock = record.get("clock", "turn-end")
        if record.get("rounds") is not None and clock == moment:
            record["rounds"] -= 1
            if record["rounds"] <= 0:
                remove_condition(step, c, condition, "expired")
