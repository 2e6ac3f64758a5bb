"""The ``[sheet:]`` family: each tag a command on a character's live state.

A command applies to the party as the tags before it left it, on the working sheets
the pass carries from command to command; a refused command is an outcome, not an
error. A command that names nobody is about the party's first member. Sheet commands
throw no dice and take no place in the count of seeded tags. The commands themselves
(``dicebound.sheet_commands``) load on a text's first one: a text without one never
imports them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from dicebound.sheet_commands.grammar import SheetTag, read_sheet_tag
from dicebound.tagpass.family import Found, PassState, SeededText
from dicebound.values import new_tuple

if TYPE_CHECKING:
    from dicebound.sheet_commands.resolve import SheetsOfText
    from dicebound.tagpass.report import CheckReport

__all__ = ["SHEET", "SheetFamily"]


class SheetFamily:
    """``[sheet: ...]``, read to its first ``]`` (``dicebound.sheet_commands.grammar``)."""

    heads = ("sheet",)

    def read(self, text: str, start: int) -> Found | None:
        tag = read_sheet_tag(text, start)
        if tag is None:
            return None
        found: Found = new_tuple(Found, (self, tag.span, tag))
        return found

    def admit(self, found: Sequence[Found]) -> None:
        """Any number: the service stores past its cap as nothing (a record of none)."""

    def resolve_alone(self, ask: SeededText, found: Sequence[Found]) -> CheckReport | None:
        """None: commands are applied one by one."""
        return None

    def open(self, state: PassState) -> SheetTurn:
        return SheetTurn(state)


SHEET = SheetFamily()


class SheetTurn:
    """The sheet commands of one text, applied in turn to the working party."""

    __slots__ = ("sheets", "state")

    def __init__(self, state: PassState) -> None:
        from dicebound.sheet_commands.resolve import SheetsOfText

        self.state = state
        self.sheets: SheetsOfText = SheetsOfText(state.ruleset)

    def resolve(self, found: Found) -> str:
        state = self.state
        tag: SheetTag = found.reading
        state.sheet_party.append(tuple(state.members))
        outcome, after = self.sheets.apply(state.members, state.player, tag, len(state.sheet) + 1)
        state.members = list(after)
        state.sheet.append(outcome)
        state.sheet_after.append(len(state.items))
        return outcome.tag
