"""roll-against's words: how a ladder step reads and the attributes the lesson teaches."""

from __future__ import annotations

from collections.abc import Sequence

from dicebound.kinds.base import KindPlayer
from dicebound.kinds.roll_against.model import AgainstCheck, AgainstConfig, AgainstOutcome
from dicebound.ruleset.model import LadderStep, Ruleset


class RollAgainstWords(KindPlayer[AgainstConfig, AgainstCheck, AgainstOutcome]):
    """The words roll-against adds to the Game Master's lesson, the report and the dice card."""

    def step_words(self, step: LadderStep) -> str:
        base = f"number ÷ {step.divide}" if step.divide else "number"
        shift = step.dc or 0
        return base + (f" {shift:+d}" if shift else "")

    def ladder_words(self, step: LadderStep) -> str:
        parts = [f"{step.dc:+d} to the target"] if step.dc else []
        if step.divide:
            parts.insert(0, f"the sheet's number divided by {step.divide}")
        return f"{step.label}: " + (", ".join(parts) or "the sheet's number as it is")

    def step_by_dc(
        self, kind: str, ladder: Sequence[LadderStep], step: LadderStep, shared: str
    ) -> list[tuple[str, str]] | str:
        """``dc=`` shifts the target rather than naming a step."""
        return f"{shared}, and dc= does not name a step on a {kind} check."

    def attribute_lines(self, ruleset: Ruleset, config: AgainstConfig) -> list[str]:
        if config.tens_max is None:
            return []
        return [
            f'bonus="+N" or "-N": up to {config.tens_max} bonus or penalty tens dice '
            "(keep the best or the worst roll)."
        ]
