"""Sequences (FIGHTS §6.1, §6.2, §7.3, §14): a stat block action that resolves other
actions of the same block in order, for the one budget. Its parts are the named actions
repeated ``times`` (a part that names no action, or names a sequence, is skipped); it
aims at as many targets as its parts take together, each part at the next slice when
enough are named, else every part at the first ones. Here: its parts, its target count,
what it forecasts (the sum of its available parts' averages) and its exact odds at each
target alone (its parts' throws are independent: each lands or not, and their damage
adds up)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from dicebound.fight.odds import TOO_LARGE
from dicebound.fight.sums import add_chances
from dicebound.odds import fraction_text

__all__ = [
    "DEPENDENT",
    "combined_odds",
    "forecast_average",
    "part_slices",
    "sequence_count",
    "sequence_parts",
]


def sequence_parts(
    actions: Sequence[Mapping[str, Any]], sequence: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Each part of ``sequence``, in order, once per time it is taken; a part that
    names no action of the block, or a sequence, is left out."""
    by_id = {str(a["id"]): a for a in actions}
    parts: list[dict[str, Any]] = []
    for step in sequence["sequence"]:
        part = by_id.get(str(step["action"]))
        if part is None or "sequence" in part:
            continue
        parts += [dict(part)] * int(step["times"])
    return parts


def sequence_count(actions: Sequence[Mapping[str, Any]], sequence: Mapping[str, Any]) -> int:
    """How many targets a sequence takes: ``max(1, Σ part counts × times)``, at most
    20 (an action's most)."""
    total = sum(int(p["targets"]["count"]) for p in sequence_parts(actions, sequence))
    return min(20, max(1, total))


def part_slices(parts: Sequence[Mapping[str, Any]], targets: Sequence[str]) -> list[list[str]]:
    """The targets of each part (FIGHTS §7.3): with at least as many targets as all the
    parts take, each part takes the next slice; otherwise every part the first ones."""
    needed = sum(int(p["targets"]["count"]) for p in parts)
    slices: list[list[str]] = []
    at = 0
    for p in parts:
        count = int(p["targets"]["count"])
        if len(targets) >= needed:
            slices.append(list(targets[at : at + count]))
            at += count
        else:
            slices.append(list(targets[:count]))
    return slices


def _taken(c: Mapping[str, Any], parts: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The parts a turn can take now: a recharging part once (not while it waits), a
    part with uses as often as it has left."""
    taken: list[Mapping[str, Any]] = []
    left = dict(c["uses"])
    once: set[str] = set()
    for p in parts:
        ident = str(p["id"])
        if ident in c["spent"] or ident in once:
            continue
        if "uses" in p:
            if left.get(ident, 0) < 1:
                continue
            left[ident] -= 1
        if "recharge" in p:
            once.add(ident)
        taken.append(p)
    return taken


def forecast_average(
    c: Mapping[str, Any],
    parts: Sequence[Mapping[str, Any]],
    average: Callable[[Mapping[str, Any]], Fraction | None],
) -> Fraction:
    """FIGHTS §14: the sum of the averages of the parts a turn can take now."""
    return sum((average(p) or Fraction(0) for p in _taken(c, parts)), Fraction(0))


DEPENDENT = "parts depend on each other"
"""Why a sequence carries no exact odds at a target: an earlier part could drop it, or
puts a condition on, so what the later parts do depends on how the earlier ones fell."""


def combined_odds(
    c: Mapping[str, Any],
    parts: Sequence[Mapping[str, Any]],
    part_odds: Callable[[Mapping[str, Any]], Mapping[str, Any] | None],
    falls: Callable[[int], bool],
) -> dict[str, Any] | str:
    """A sequence's odds at one target alone, from each part's: it lands when any part
    does, lands a critical when any does; what it deals is the sum of what each part
    deals; it drops the target when that sum does. That holds while the parts do not
    touch each other: when a part before the last could drop the target or puts a
    condition on, the reason (``DEPENDENT``, or ``too large`` when a damaging part has
    no exact odds of its own) instead."""
    miss = no_critical = Fraction(1)
    dealt: dict[int, Fraction] = {0: Fraction(1)}
    taken = _taken(c, parts)
    for i, p in enumerate(taken):
        if i and (falls(max(dealt)) or taken[i - 1].get("applies")):
            return DEPENDENT
        odds = part_odds(p)
        if odds is None:
            if p.get("damage") is not None:
                return TOO_LARGE
            continue
        miss *= 1 - Fraction(str(odds["hit"]))
        no_critical *= 1 - Fraction(str(odds.get("critical", "0")))
        part = {int(d): Fraction(str(q)) for d, q in odds["dealt"].items()}
        dealt = add_chances(dealt, part)
    drops = sum((q for d, q in dealt.items() if falls(d)), Fraction(0))
    return {
        "hit": fraction_text(1 - miss),
        "critical": fraction_text(1 - no_critical),
        "dealt": {str(d): fraction_text(dealt[d]) for d in sorted(dealt)},
        "drops": fraction_text(drops),
    }
