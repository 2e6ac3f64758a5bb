"""The whole lesson ``dicebound gm`` prints: what the Game Master is taught for a ruleset
(``teach.gm_text``) and, with a character, that character's exact chance at every
ladder step of one check and its sheet summary.

Kept apart from ``teach`` so the teaching text stays free of the odds arithmetic: this
module joins the two.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from dicebound.engine import ladder_in_force
from dicebound.errors import TagError
from dicebound.odds import check_odds
from dicebound.ruleset.model import LadderStep, Ruleset
from dicebound.sheet import Character
from dicebound.teach import example_target, gm_text, sheet_summary

__all__ = ["gm_lesson", "rollable_target"]


def rollable_target(ruleset: Ruleset, character: Character) -> str:
    """The first skill (else save, else ability) this character can roll."""
    sheet = ruleset.sheet
    labels = [i.label for i in (*sheet.skills, *sheet.saves)] + [a.label for a in sheet.abilities]
    first_step = ruleset.resolution.ladder[0].label
    for label in labels:
        try:
            check_odds(ruleset, character, f'skill="{label}" difficulty="{first_step}"')
        except TagError:
            continue
        return label
    return example_target(ruleset)


def gm_lesson(
    ruleset: Ruleset,
    *,
    layers: Sequence[str] = (),
    character: Character | None = None,
    skill: str | None = None,
) -> str:
    """The text ``dicebound gm`` prints (without its final newline).

    With ``character``, each ladder step carries its chance of success at ``skill``
    (default: the first check the character can roll), and the character's sheet
    summary follows under "The party:".

    Raises:
        UsageError: an unknown layer. TagError: ``skill`` names no check of the ruleset.
    """
    ladder = ladder_in_force(ruleset, layers)
    if character is None:
        return gm_text(ruleset, ladder=ladder, layers=layers)
    roller = character
    name = skill or rollable_target(ruleset, roller)

    def chance(step: LadderStep) -> Fraction | None:
        tag = f'skill="{name}" difficulty="{step.label}"'
        try:
            return check_odds(ruleset, roller, tag, layers=layers).success
        except TagError:
            return None  # the character cannot roll it (an untrained "refuse")

    text = gm_text(
        ruleset, ladder=ladder, chance=chance, who=f"{roller.name}'s {name}", layers=layers
    )
    return text + "\n\nThe party:\n" + sheet_summary(ruleset, roller)
