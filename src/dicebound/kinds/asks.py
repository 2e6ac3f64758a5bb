"""Reading what a tag asks, shared by every kind's ``prepare``.

Models write numbers loosely ("15", "+2", " -3 ", "15.0") and name ladder steps in any
case; an attribute that reads as nothing is ignored, never guessed at.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from dicebound.kinds.base import CheckAsk
from dicebound.ruleset.model import LadderStep
from dicebound.sheet import CheckNumber, SheetView
from dicebound.tags.names import step_by_label, step_named

__all__ = [
    "ability_label",
    "asked_step",
    "clamp",
    "int_value",
    "ladder_labels",
    "next_step_dc",
    "sheet_extras",
    "step_by_label",
    "written_int",
]


INT_CEILING = 10**9
"""Where a written whole number stops growing: past every range a ruleset can hold, so
clamping pulls it back to the range's end, and no work depends on its size."""


def int_value(text: str | None) -> int | None:
    """A whole number as a model writes one, or None. Any number of digits is a whole
    number; one beyond ``INT_CEILING`` reads as the ceiling (its sign kept), to be
    pulled back to the nearest end of its range like any other out of it."""
    if text is None:
        return None
    if len(text) < 10 and text.isascii() and text.isdigit():
        return int(text)  # the usual "15", read as the pattern below reads it
    match = re.fullmatch(r"\s*([+-]?)\s*(\d+)(?:\.0*)?\s*", text)
    if match is None:
        return None
    digits = match.group(2).lstrip("0") or "0"
    value = INT_CEILING if len(digits) > 9 else min(int(digits), INT_CEILING)
    return -value if match.group(1) == "-" else value


def written_int(attrs: Mapping[str, str], key: str) -> int | None:
    """The whole number written for ``key``, or None."""
    text = attrs.get(key)
    if text is None:
        return None
    if len(text) < 10 and text.isascii() and text.isdigit():
        return int(text)  # the usual "15" (``int_value``'s first case, without a call)
    return int_value(text)


def clamp(value: int, low: int, high: int) -> int:
    """Pull a value back to the nearest end of low..high (the page: never refuse)."""
    return max(low, min(high, value))


def asked_step(ask: CheckAsk) -> LadderStep | None:
    """The one ladder step the tag's ``difficulty=`` names (``step_by_label``), read
    off the ruleset's memo when it was written before."""
    return step_named(ask.view.ruleset, ask.ladder, ask.attrs.get("difficulty"))


def ladder_labels(ladder: Sequence[LadderStep]) -> str:
    return ", ".join(f'"{s.label}"' for s in ladder)


def next_step_dc(dc: int, ladder: Iterable[LadderStep]) -> int:
    """One step harder: the dc of the next ladder step above ``dc`` (unchanged at the top)."""
    above = sorted(s.dc for s in ladder if s.dc is not None and s.dc > dc)
    return above[0] if above else dc


def ability_label(view: SheetView, ability_id: str) -> str:
    ability = view.ruleset.sheet.ability(ability_id)
    return ability.label if ability is not None else ability_id


def sheet_extras(
    view: SheetView, number: CheckNumber, penalty: int = 0, adjust: int = 0
) -> list[tuple[str, str | int]]:
    """The record attributes every kind writes from the sheet's side of a check: the
    ability ``with=`` swapped in, the wound ``penalty``, the ``adjust`` and an untrained
    ``reason`` (the record orders them)."""
    extras: list[tuple[str, str | int]] = []
    if number.swapped and number.ability is not None:
        extras.append(("with", ability_label(view, number.ability)))
    if penalty:
        extras.append(("penalty", penalty))
    if adjust:
        extras.append(("adjust", adjust))
    if number.untrained and number.untrained_rule in ("harder", "by"):
        extras.append(("reason", "untrained"))
    return extras
