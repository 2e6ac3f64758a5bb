"""symbol-pool's words: how a ladder step reads, the attributes and marks the lesson teaches, and a record's symbols on the dice card."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from dicebound.errors import DiceboundError
from dicebound.kinds.base import KindPlayer
from dicebound.ruleset.model import LadderStep, Ruleset
from dicebound.spend import Spend

if TYPE_CHECKING:
    from dicebound.record import Record
from dicebound.kinds.symbol_pool.details import symbols_in_words
from dicebound.kinds.symbol_pool.model import SymbolCheck, SymbolConfig, SymbolOutcome


class SymbolPoolWords(KindPlayer[SymbolConfig, SymbolCheck, SymbolOutcome]):
    """The words symbol-pool adds to the Game Master's lesson, the report and the dice card."""

    def step_words(self, step: LadderStep) -> str:
        noun = "difficulty die" if step.dc == 1 else "difficulty dice"
        return f"{step.dc} {noun}"

    def ladder_words(self, step: LadderStep) -> str:
        return f"{step.label}: {step.dc} difficulty dice"

    def attribute_lines(self, ruleset: Ruleset, config: SymbolConfig) -> list[str]:
        lines = []
        if config.boost is not None or config.setback is not None:
            lines.append('bonus="+N" or "-N": boost or setback dice for the situation.')
        if config.setback is not None:
            lines.append('setback="N": setback dice beside a bonus.')
        if config.difficulty.upgrade is not None:
            lines.append('upgrade="N": upgrade that many difficulty dice.')
        if config.allow_own_upgrade:
            lines.append('upgradeOwn="N": upgrade that many of the character\'s own dice.')
        return lines

    def spends(self, config: SymbolConfig) -> Sequence[Spend]:
        return config.spend

    def mark_texts(self, config: SymbolConfig) -> list[str]:
        return [f"- {symbol.label}: {symbol.text}" for symbol in config.symbols if symbol.text]

    def card_words(self, record: Record) -> str | None:
        """The net symbols in words ("2 Success, 1 Advantage"), with the labels the
        record's ``symbolDetails`` keeps; None when the details cannot be read."""
        try:
            return symbols_in_words(record.get("symbols") or "", record.get("symbolDetails"))
        except DiceboundError:
            return None
