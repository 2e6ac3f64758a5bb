"""The exact ``odds`` of an option (FIGHTS §14): for each legal target (at most 12), the
chance the option lands, lands a critical, the distribution of what the blow takes off
the target's health and temporary points, and the chance the target is not standing
after it. Nothing is thrown and nothing changes.

The odds weigh what the resolver (``fight.act``) plays and nothing else: the attack
roll (its leaning, the chooser's attack modifiers, the target's guards and the
naturals), the damage dice and flat, a critical's extra dice (or maximum), the target's
hide, its temporary points, and going down. Each target is taken alone, the state as it
is. The numbers are whole counts of equally likely face sequences (``fight.sums``) until
they are written as fractions.

Where the count of distinct outcomes (the values each independent part of the blow can
take, multiplied) or the running sums counted to find them pass 1,000,000, the option's
odds are refused as ``too large`` instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from dicebound.fight.context import Step
from dicebound.fight.forecast import attack_ways
from dicebound.fight.hide import hidden, hide_of
from dicebound.fight.leaning import attack_mode
from dicebound.fight.modifiers import attack_bonus_dist, guards
from dicebound.fight.state import standing
from dicebound.fight.sums import Ways, dice_sum, partial_sums, point, shift
from dicebound.odds import fraction_text
from dicebound.sheet_commands.pools import MAX_AMOUNT

__all__ = [
    "MAX_OUTCOMES",
    "MAX_TARGETS",
    "TOO_LARGE",
    "falls_after",
    "option_odds",
    "target_odds",
]

MAX_OUTCOMES = 1_000_000
MAX_TARGETS = 12
TOO_LARGE = "too large"


class Blow(NamedTuple):
    """What an option throws, whoever it is aimed at: whether it rolls to hit, the
    chooser's attack bonuses, and the amount on a plain hit and on a critical."""

    rolls: bool
    bonuses: Ways
    plain: Ways
    critical: Ways


def _can_crit(step: Step, action: dict[str, Any]) -> bool:
    roll = step.combat.attack_roll
    return (
        roll is not None
        and roll.dice.count == 1
        and roll.natural_max == "critical"
        and roll.critical != "none"
        and action["damage"]["count"] > 0
    )


def _too_large(step: Step, action: dict[str, Any], bonuses: Ways, rolls: bool) -> bool:
    """The distinct outcomes (kept roll, bonuses, plain and critical amounts) multiplied,
    or the running sums counted for them, past ``MAX_OUTCOMES``: known before any is
    counted."""
    damage = action["damage"]
    count, sides = damage["count"], damage["sides"]
    size = max(1, count * (sides - 1) + 1)
    work = partial_sums(count, sides)
    if rolls:
        roll = step.combat.attack_roll
        assert roll is not None
        dice = roll.dice
        size *= (dice.count * (dice.sides - 1) + 1) * len(bonuses.counts)
        work += partial_sums(dice.count, dice.sides)
        if _can_crit(step, action) and roll.critical == "double-dice":
            size *= 2 * count * (sides - 1) + 1
            work += partial_sums(2 * count, sides)
    return size > MAX_OUTCOMES or work > MAX_OUTCOMES


def _blow(step: Step, c: dict[str, Any], action: dict[str, Any]) -> Blow | None:
    """The option's blow, or None when its outcomes are too many to count."""
    rolls = not action.get("autoHit") and action.get("toHit") is not None
    bonuses = attack_bonus_dist(step, c) if rolls else point(0)
    if _too_large(step, action, bonuses, rolls):
        return None
    damage = action["damage"]
    count, sides, flat = damage["count"], damage["sides"], damage["flat"]
    plain = shift(dice_sum(count, sides), flat)
    critical = plain  # a natural top face with nothing to add (no dice) deals as a hit
    if rolls and _can_crit(step, action):
        roll = step.combat.attack_roll
        assert roll is not None
        if roll.critical == "double-dice":
            critical = shift(dice_sum(2 * count, sides), flat)
        else:
            critical = shift(dice_sum(count, sides), flat + count * sides)
    return Blow(rolls, bonuses, plain, critical)


def falls_after(step: Step, t: dict[str, Any]) -> Callable[[int], bool]:
    """Whether ``t`` is not standing after a blow that dealt ``d``: temporary points
    first, then health; a standing target reaching 0 goes down (an opponent is
    defeated). A party member's damage is the sheet's command, which takes 1..100,000."""
    if not standing(t):
        return lambda d: True
    value, _, temp = step.health(t)
    member = t["side"] == "party"

    def falls(d: int) -> bool:
        if d <= 0 or (member and d > MAX_AMOUNT):
            return False
        return value - max(0, d - temp) <= 0

    return falls


def target_odds(
    step: Step, c: dict[str, Any], action: dict[str, Any], t: dict[str, Any], blow: Blow
) -> dict[str, Any]:
    """``{hit, critical, dealt, drops}`` of ``blow`` at ``t`` alone."""
    roll = step.combat.attack_roll
    if blow.rolls and roll is not None:
        defense = t["defense"] + guards(step, t)
        mode = attack_mode(step, c, t)
        miss, hit, critical, total = attack_ways(roll, action["toHit"], defense, mode, blow.bonuses)
    else:
        miss, hit, critical, total = 0, 1, 0, 1
    adjust = hide_of(step, t, action["damage"].get("type"))
    plain, crit = blow.plain, blow.critical
    # Every count is over the one denominator: attack ways x plain ways x critical ways
    # (the last only when a critical can happen).
    crit_total = crit.total if critical else 1
    whole = total * plain.total * crit_total
    dealt: dict[int, int] = {}
    if miss:
        dealt[0] = miss * plain.total * crit_total
    for branch, ways, other in ((hit, plain, crit_total), (critical, crit, plain.total)):
        if not branch:
            continue
        for amount, n in ways.counts.items():
            d = hidden(max(0, amount), adjust)
            dealt[d] = dealt.get(d, 0) + branch * n * other
    falls = falls_after(step, t)
    drops = sum(n for d, n in dealt.items() if falls(d))
    return {
        "hit": fraction_text(Fraction(hit + critical, total)),
        "critical": fraction_text(Fraction(critical, total)),
        "dealt": {str(d): fraction_text(Fraction(dealt[d], whole)) for d in sorted(dealt)},
        "drops": fraction_text(Fraction(drops, whole)),
    }


def option_odds(
    step: Step, c: dict[str, Any], action: dict[str, Any], targets: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """``{"odds": {target id: ...}}`` for the first 12 of ``targets``, or ``{"odds":
    None, "oddsRefused": "too large"}``; ``{}`` for an option that deals no damage (or
    one the fights do not play)."""
    if (action.get("damage") is None and action.get("heal") is None) or "notPlayed" in action:
        return {}
    from dicebound.fight.blow_odds import asks_more, blow_odds  # saves, clauses, heals

    if asks_more(step, action):
        made = blow_odds(step, c, action, targets[:MAX_TARGETS], MAX_OUTCOMES)
        return {"odds": None, "oddsRefused": TOO_LARGE} if made is None else {"odds": made}
    if action.get("damage") is None:
        return {}
    blow = _blow(step, c, action)
    if blow is None:
        return {"odds": None, "oddsRefused": TOO_LARGE}
    return {"odds": {t["id"]: target_odds(step, c, action, t, blow) for t in targets[:MAX_TARGETS]}}
