"""step-pool's words: how a ladder step reads, the attributes the lesson teaches and what it says of effort after the roll."""

from __future__ import annotations

from dicebound.kinds.base import KindPlayer
from dicebound.kinds.step_pool.model import StepCheck, StepConfig, StepOutcome
from dicebound.ruleset.model import LadderStep, Ruleset


class StepPoolWords(KindPlayer[StepConfig, StepCheck, StepOutcome]):
    """The words step-pool adds to the Game Master's lesson, the report and the dice card."""

    def step_words(self, step: LadderStep) -> str:
        return f"target {step.dc}"

    def ladder_words(self, step: LadderStep) -> str:
        return f"{step.label}: target number {step.dc}"

    def attribute_lines(self, ruleset: Ruleset, config: StepConfig) -> list[str]:
        lines = []
        if config.quality_label is not None:
            lines.append(
                f'quality="field": the {config.quality_label} the task leans on, a number '
                "field of the sheet (such as agility); it raises one die after the roll."
            )
        if config.tool_label is not None:
            lines.append(
                f'tool="N": the {config.tool_label}, 0 to {config.tool_max}; it raises one '
                "other die after the roll."
            )
        return lines

    def after_roll_lines(self, ruleset: Ruleset, config: StepConfig) -> list[str]:
        if not config.spend:
            return []
        labels = {p.id: p.label for p in ruleset.sheet.pools}
        pools = ", ".join(labels.get(s.pool, s.pool) for s in config.spend)
        return [
            "",
            "After the roll the player may spend points of "
            f"{pools} on one die to raise it. That is the player's choice, once the dice are "
            "seen: the record offers what a spend could still buy. Never spend for them.",
        ]
