"""Reading what a tag asks, shared by every kind's ``prepare``.

Models write numbers loosely ("15", "+2", " -3 ", "15.0") and name ladder steps in any
case; an attribute that reads as nothing is ignored, never guessed at.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from dicebound.ruleset.model import LadderStep
from dicebound.tags.names import normalize

__all__ = ["clamp", "int_value", "ladder_labels", "step_by_label", "written_int"]


def int_value(text: str | None) -> int | None:
    """A whole number as a model writes one, or None."""
    if text is None:
        return None
    match = re.fullmatch(r"\s*([+-]?)\s*(\d{1,9})(?:\.0*)?\s*", text)
    if match is None:
        return None
    return int(match.group(1) + match.group(2))


def written_int(attrs: Mapping[str, str], key: str) -> int | None:
    """The whole number written for ``key``, or None."""
    return int_value(attrs.get(key))


def clamp(value: int, low: int, high: int) -> int:
    """Pull a value back to the nearest end of low..high (the page: never refuse)."""
    return max(low, min(high, value))


def step_by_label(ladder: Sequence[LadderStep], label: str | None) -> LadderStep | None:
    """The one ladder step a ``difficulty=`` names; a name no step or two steps answer
    to is ignored (the page)."""
    if label is None:
        return None
    hits = [s for s in ladder if normalize(s.label) == normalize(label)]
    return hits[0] if len(hits) == 1 else None


def ladder_labels(ladder: Sequence[LadderStep]) -> str:
    return ", ".join(f'"{s.label}"' for s in ladder)
