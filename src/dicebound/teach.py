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

__all__ = ["example_target", "gm_text"]


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
        f'[skill_check: skill="{example_target(ruleset)}" difficulty="{ladder[0].label}"]',
        ruleset.gm.check_guidance,
        "",
        "Difficulty ladder" + (f" (chance of success for {who})" if chance and who else "") + ":",
    ]
    for step in ladder:
        line = f"- {_step_text(kind, step)}"
        if chance is not None:
            line += f" ({_percent(chance(step))})"
        out.append(line)
    bands = ruleset.resolution.outcomes
    if bands is not None:
        out += ["", "Outcomes: the Engine reports one of these bands; narrate the band it names."]
        for band in bands.tiers:
            text = f": {band.text}" if band.text else ""
            choice = " (the player chooses)" if band.choice else ""
            out.append(f"- {band.label}{choice}{text}")
    overrides = ruleset.resolution.overrides
    if overrides:
        out += ["", "Checks that roll their own way (the Engine knows which):"]
        for override in overrides:
            names = ", ".join(_names(ruleset, override))
            text = f": {override.text}" if override.text else ""
            out.append(f"- {override.label} ({names}){text}")
    unmodified = sorted(getattr(ruleset.resolution.config, "unmodified", ()))
    if unmodified:
        faces = ", ".join(str(f) for f in unmodified)
        out += [
            "",
            f"When the record says unmodified= one of {faces}, the die showed that face "
            "before any modifier: apply what the rules say about it.",
        ]
    out += ["", "Attributes you may write:"]
    out += [f"- {line}" for line in _attribute_lines(ruleset)]
    out += [
        "",
        "The Engine throws every die and applies the sheet. Never write dice, rolls, "
        "modifiers, totals or results yourself: write the ask and narrate the outcome "
        "the Engine reports.",
    ]
    return "\n".join(out)


def example_target(ruleset: Ruleset) -> str:
    sheet = ruleset.sheet
    for group in (sheet.skills, sheet.saves):
        if group:
            return group[0].label
    return sheet.abilities[0].label if sheet.abilities else "Name"


def _names(ruleset: Ruleset, override: object) -> list[str]:
    sheet = ruleset.sheet
    labels: dict[str, str] = {s.id: s.label for s in (*sheet.skills, *sheet.saves)}
    labels.update({a.id: a.label for a in sheet.abilities})
    ids = (
        *getattr(override, "skills", ()),
        *getattr(override, "saves", ()),
        *getattr(override, "abilities", ()),
    )
    return [labels.get(i, i) for i in ids]
