"""Wound-track health (FIGHTS §3, §7.6, §8.2): what a blow marks on a party member's
wound track, and how a heal clears one mark.

``per-point`` marks on a sequential track are written part by part, ``max(1, dealt)``
of the part's kind at once. ``per-blow`` marks, and every mark on an indexed track, are
one mark at the end of the blow, of the most severe kind that landed (on an indexed
track at box ``max(1, total dealt)`` when marks are per point); every damage event of
the blow is then given the health left. A mark the track refuses overwhelms the target.
"""

from __future__ import annotations

from typing import Any

from dicebound.fight.context import Step
from dicebound.fight.pools import damage_kind, wound_mark

__all__ = ["Wounding", "clear_one_mark", "mark_blow", "mark_part"]


class Wounding:
    """One blow on one target: the kinds that landed, what they dealt, the damage
    events to give the health left, and whether a mark was refused."""

    __slots__ = ("dealt", "events", "kinds", "overwhelmed")

    def __init__(self) -> None:
        self.kinds: list[str] = []
        self.dealt = 0
        self.events: list[dict[str, Any]] = []
        self.overwhelmed = False


def _track(step: Step) -> Any:
    name = step.combat.health.name
    return next(t for t in step.ruleset.sheet.tracks if t.id == name)


def _at_once(step: Step) -> bool:
    kinds = step.combat.damage_kinds
    per_point = kinds is not None and kinds.marks == "per-point"
    return per_point and _track(step).fill == "sequential"


def mark_part(
    step: Step, t: dict[str, Any], wounding: Wounding, damage_type: str | None, dealt: int
) -> None:
    """A part that dealt ``dealt`` > 0 to a party member whose health is a track."""
    kind = damage_kind(step, damage_type) or ""
    if _at_once(step):
        if not wound_mark(step, t, kind, max(1, dealt), None):
            wounding.overwhelmed = True
        return
    wounding.kinds.append(kind)
    wounding.dealt += dealt


def mark_blow(step: Step, t: dict[str, Any], wounding: Wounding) -> None:
    """The one mark of a per-blow (or indexed) blow, at its end."""
    if not wounding.kinds:
        return
    track = _track(step)
    severity = {k.id: k.severity for k in track.kinds}
    kind = max(wounding.kinds, key=lambda k: severity.get(k, 0))
    box = None
    if track.fill == "indexed":
        kinds = step.combat.damage_kinds
        per_point = kinds is not None and kinds.marks == "per-point"
        box = max(1, wounding.dealt) if per_point else 1
    if not wound_mark(step, t, kind, 1, box):
        wounding.overwhelmed = True
    value, _, _ = step.health(t)
    for event in wounding.events:
        event["health"] = value


def clear_one_mark(step: Step, t: dict[str, Any]) -> None:
    """A heal on a wound track clears one mark, lightest first, whatever the amount."""
    wound_mark(step, t, "", -1, None)
