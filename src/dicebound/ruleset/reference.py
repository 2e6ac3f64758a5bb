"""A value reference as compiled: what a number on a sheet is read from.

Its own module so the compiled parts of a ruleset that read numbers (the sheet, the
combat block) share it without importing each other.
"""

from __future__ import annotations

from typing import Literal

from dicebound.values import frozen

__all__ = ["ValueRef", "ValueSource"]

ValueSource = Literal[
    "const",
    "field",
    "derived",
    "abilityScore",
    "abilityMod",
    "abilityModFromField",
    "skillMod",
    "saveMod",
    "liveTrack",
    "livePool",
    "listSum",
    "itemStat",
]


@frozen
class ValueRef:
    """A value reference: exactly one source. ``name`` is the id it reads (or None).

    ``const`` carries its number in ``value``; ``liveTrack`` its ``read``; ``listSum``
    its ``column`` and ``only_when``; ``itemStat`` its ``value`` default (characters
    carry no inventory in dicebound, so an item stat reads its default).
    """

    source: ValueSource
    name: str | None = None
    value: float = 0
    read: Literal["value", "filled", "remaining", "penalty"] = "value"
    column: str | None = None
    only_when: str | None = None

    @property
    def is_live(self) -> bool:
        return self.source in ("liveTrack", "livePool")
