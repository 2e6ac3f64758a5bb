"""The checks that read a compiled ruleset's blank sheet: an attack source's ``strikes``
must strike at least once on a character nobody has filled in (FIGHTS §2.1)."""

from __future__ import annotations

from dicebound.errors import UsageError
from dicebound.problem_codes import TOO_SMALL
from dicebound.problems import Problem
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character, SheetView, blank_build

__all__ = ["blank_sheet_problems"]


def blank_sheet_problems(ruleset: Ruleset) -> list[Problem]:
    """Each attack source whose ``strikes`` reads below 1 on a blank sheet."""
    combat = ruleset.combat
    if combat is None or not any(a.strikes is not None for a in combat.attacks):
        return []
    view = SheetView(ruleset, Character("blank", blank_build(ruleset)))
    out = []
    for i, attack in enumerate(combat.attacks):
        if attack.strikes is None:
            continue
        try:
            strikes = view.value(attack.strikes)
        except (UsageError, ArithmeticError, ValueError):  # a sheet that cannot be read blank
            continue
        if strikes < 1:
            out.append(
                Problem(
                    ("combat", "attacks", i, "strikes"),
                    TOO_SMALL,
                    f"reads {float(strikes):g} on a blank sheet; an attack strikes at least once, "
                    "so a new character could never attack with it.",
                )
            )
    return out
