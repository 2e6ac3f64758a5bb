"""What the Game Master is taught for a ruleset: the text a platform puts in the prompt.

Built from the compiled ruleset, never from the file's prose alone: the tag shape,
``gm.checkGuidance``, the ladder, only the attributes this ruleset really offers (and
their ranges), the outcome bands and their text, and the rule that the model never
writes dice or results. With a character, each ladder step carries that character's
exact chance of success beside it (a caller passes the chances in; this module does
no arithmetic of its own).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

from dicebound.ruleset.model import LadderStep, Ruleset

__all__ = ["gm_text"]


def _step_text(kind: str, step: LadderStep) -> str:
    if kind == "dice-pool":
        target = f" (target {step.target})" if step.target is not None else ""
        return f"{step.label}: {step.successes} successes{target}"
    return f"{step.label}: DC {step.dc}"


def _percent(p: Fraction) -> str:
    return f"{float(p) * 100:.1f}%"


def _attribute_lines(ruleset: Ruleset) -> list[str]:
    """One line per tag attribute this ruleset offers, and nothing it does not."""
    res = ruleset.resolution
    lines = [
        'skill="Name": a skill, a save or an ability of the sheet.',
        'dc="N": the difficulty as a number'
        + (" of successes needed." if res.kind == "dice-pool" else " the total must reach."),
        'difficulty="Label": a step of the ladder instead of a number; dc wins if both.',
        'who="Name": the character who rolls; leave it out for the player.',
    ]
    config = res.config
    if getattr(config, "advantage", False):
        lines.append(
            'mode="advantage" or mode="disadvantage": roll twice, keep the better or worse.'
        )
    if len(ruleset.sheet.abilities) >= 2 and (ruleset.sheet.skills or ruleset.sheet.saves):
        lines.append('with="Ability": roll a skill or save with another ability.')
    return lines


def gm_text(
    ruleset: Ruleset,
    *,
    ladder: Sequence[LadderStep] | None = None,
    chance: Callable[[LadderStep], Fraction] | None = None,
    who: str | None = None,
) -> str:
    """The teaching text. ``chance`` gives a character's chance of success at a step."""
    ladder = ruleset.resolution.ladder if ladder is None else ladder
    kind = ruleset.resolution.kind
    out = [
        f"Checks in {ruleset.name}: write one tag per check, for example",
        f'[skill_check: skill="{_example_skill(ruleset)}" difficulty="{ladder[0].label}"]',
        ruleset.gm.check_guidance,
        "",
        "Difficulty ladder" + (f" (chance of success for {who})" if chance and who else "") + ":",
    ]
    for step in ladder:
        line = f"- {_step_text(kind, step)}"
        if chance is not None:
            line += f" ({_percent(chance(step))})"
        out.append(line)
    out += ["", "Attributes you may write:"]
    out += [f"- {line}" for line in _attribute_lines(ruleset)]
    out += [
        "",
        "The Engine throws every die and applies the sheet. Never write dice, rolls, "
        "modifiers, totals or results yourself: write the ask and narrate the outcome "
        "the Engine reports.",
    ]
    return "\n".join(out)


def _example_skill(ruleset: Ruleset) -> str:
    sheet = ruleset.sheet
    for group in (sheet.skills, sheet.saves):
        if group:
            return group[0].label
    return sheet.abilities[0].label if sheet.abilities else "Name"
