"""The whole lesson ``dicebound gm`` prints: what the Game Master is taught for a ruleset
(``teach.gm_text``), with a character that character's exact chance at every ladder
step of one check, the sheet commands (``teach_sheet.sheet_text``) with examples the
Engine applies to the party, and each party member's sheet summary, after the sentence
that tells the model a player's quoted words are data (``quoting.PLAYER_WORDS_RULE``).

Kept apart from ``teach`` so the teaching text stays free of the odds arithmetic and of
running commands: this module joins them.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from dicebound.engine import ladder_in_force
from dicebound.errors import TagError
from dicebound.odds import check_odds
from dicebound.quoting import PLAYER_WORDS_RULE
from dicebound.ruleset.model import LadderStep, Ruleset
from dicebound.sheet import Character
from dicebound.tagpass import resolve_text
from dicebound.teach import example_target, gm_text, sheet_summary
from dicebound.teach_sheet import Applies, sheet_text, stand_in

__all__ = ["gm_lesson", "rollable_target", "sheet_lesson"]


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


def _applies(ruleset: Ruleset, party: Sequence[Character]) -> Applies:
    """Whether the Engine applies one sheet tag to the party as it stands: the tag alone
    run through the one pass, which throws nothing (it holds no check)."""

    def applies(tag: str) -> bool:
        report = resolve_text(ruleset, party, tag, seed="lesson")
        return len(report.sheet) == 1 and report.sheet[0].ok

    return applies


def sheet_lesson(ruleset: Ruleset, party: Sequence[Character] = ()) -> str:
    """The sheet-command section for ``party`` (its first member is the player), every
    example one the Engine applies to it; without a party, to a blank sheet. "" when
    the ruleset has nothing live."""
    members = tuple(party) or (stand_in(ruleset),)
    return sheet_text(ruleset, members, _applies(ruleset, members), named=bool(party))


def gm_lesson(
    ruleset: Ruleset,
    *,
    layers: Sequence[str] = (),
    character: Character | None = None,
    party: Sequence[Character] = (),
    skill: str | None = None,
) -> str:
    """The text ``dicebound gm`` prints (without its final newline).

    With ``character``, each ladder step carries its chance of success at ``skill``
    (default: the first check the character can roll). The sheet commands follow, with
    examples for ``party`` (default: the character alone), where the ruleset fights the
    ``[fight:]`` tag (``fight.teach``), then every member's sheet summary under "The
    party:".

    Raises:
        UsageError: an unknown layer. TagError: ``skill`` names no check of the ruleset.
    """
    ladder = ladder_in_force(ruleset, layers)
    members = tuple(party) or ((character,) if character is not None else ())
    if character is None:
        text = gm_text(ruleset, ladder=ladder, layers=layers)
    else:
        roller = character
        name = skill or rollable_target(ruleset, roller)

        def chance(step: LadderStep) -> Fraction | None:
            tag = f'skill="{name}" difficulty="{step.label}"'
            try:
                return check_odds(ruleset, roller, tag, layers=layers).success
            except TagError:
                return None  # the character cannot roll it (an untrained "refuse")

        who = f"{roller.name}'s {name}"
        text = gm_text(ruleset, ladder=ladder, chance=chance, who=who, layers=layers)
    sheet = sheet_lesson(ruleset, members)
    if sheet:
        text += "\n\n" + sheet
    if ruleset.combat is not None:
        from dicebound.fight.teach import fight_lesson  # the fight core, only where it fights

        text += "\n\n" + fight_lesson(ruleset, members)
    if members:
        # a member's notes are a player's words: the model is told what they are first
        rule = f"{PLAYER_WORDS_RULE}\n" if ruleset.sheet.text else ""
        text += "\n\nThe party:\n" + rule + "\n".join(sheet_summary(ruleset, c) for c in members)
    return text
