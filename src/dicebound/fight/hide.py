"""How a target's hide changes a blow (FIGHTS §7.6): read once per target and type, so
the blow and the odds of it change damage alike."""

from __future__ import annotations

from typing import Any

from dicebound.fight.context import Step

__all__ = ["hidden", "hide_of"]


def hide_of(step: Step, t: dict[str, Any], kind: str | None) -> str:
    """The adjustment a typed part gets on ``t``: immune, resist or vulnerable (types
    matched trimmed, ignoring case), then ``resist-all`` (a plain part is resisted, a
    vulnerable one taken as it is)."""
    adjust = "none"
    block = t.get("block") or {}
    if kind:
        folded = kind.strip().lower()
        if any(r["type"].strip().lower() == folded for r in block.get("immune", ())):
            return "immune"
        if any(r["type"].strip().lower() == folded for r in block.get("resist", ())):
            adjust = "resist"
        elif any(v.strip().lower() == folded for v in block.get("vulnerable", ())):
            adjust = "vulnerable"
    if "resist-all" in step.active_effects(t):
        adjust = {"none": "resist", "vulnerable": "none"}.get(adjust, adjust)
    return adjust


def hidden(amount: int, adjust: str) -> int:
    """What a part of ``amount`` deals after ``adjust``: immune 0, resist halved (down),
    vulnerable doubled; a vulnerable part resisted by ``resist-all`` is ``2d // 2 = d``."""
    if adjust == "immune":
        return 0
    if adjust == "resist":
        return amount // 2
    if adjust == "vulnerable":
        return amount * 2
    return amount
