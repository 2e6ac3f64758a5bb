"""dice-highest's words: the attributes the lesson teaches and what its marks mean at the table."""

from __future__ import annotations

from collections.abc import Sequence

from dicebound.kinds.base import KindPlayer
from dicebound.kinds.dice_highest.model import HighestCheck, HighestConfig, HighestOutcome
from dicebound.kinds.words import situational_lines
from dicebound.ruleset.model import Ruleset
from dicebound.spend import Spend


class DiceHighestWords(KindPlayer[HighestConfig, HighestCheck, HighestOutcome]):
    """The words dice-highest adds to the Game Master's lesson, the report and the dice card."""

    def attribute_lines(self, ruleset: Ruleset, config: HighestConfig) -> list[str]:
        lines = situational_lines(config.situational)
        if config.dark is not None:
            lines.append(f'dark="N": add up to {config.dark.max} {config.dark.label} dice.')
        return lines

    def spends(self, config: HighestConfig) -> Sequence[Spend]:
        return config.spend

    def mark_texts(self, config: HighestConfig) -> list[str]:
        dark = config.dark
        return [f"- {dark.label}: {dark.text}"] if dark is not None and dark.text else []
