"""The exact ``odds`` (FIGHTS §14) of a summed fight's option whose blow asks a save,
carries clauses or heals: a spell that halves on a save, a debuff that a save negates,
a clause with its own type and save, a heal's amount.

It weighs what ``fight.act`` and ``fight.blow`` play, at one target alone, the state as
it is: the attack roll when the option rolls to hit (``fight.forecast.attack_ways``:
leaning, the chooser's attack modifier dice, the target's guards, the naturals), the
action's save (the saver's leaning and its modifiers to that save, a ``failsSaves``
source failing it with no dice), then each part in order: the first amount (a
critical's dice doubled or maximised, halved by a save that halves), each clause
(skipped or halved by its own save, else halved with the action's), each hidden by the
target's immunities and resistances, summed into what the blow takes off; and whether
the target is not standing after it. Chances are exact fractions throughout.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from dicebound.fight.context import Step
from dicebound.fight.forecast import attack_ways
from dicebound.fight.hide import hidden, hide_of
from dicebound.fight.leaning import attack_mode, save_mode
from dicebound.fight.modifiers import attack_bonus_dist, guards, save_bonus_dist
from dicebound.fight.saves import fails_save
from dicebound.fight.state import standing
from dicebound.fight.sums import add_chances, dice_sum, kept_sum
from dicebound.odds import fraction_text
from dicebound.sheet_commands.pools import MAX_AMOUNT

__all__ = ["asks_more", "blow_odds"]

Dist = dict[int, Fraction]


def asks_more(step: Step, action: Mapping[str, Any]) -> bool:
    """Whether this module weighs the option: a summed fight's option with a save, a
    clause or a heal."""
    if step.combat.attack_roll is None:
        return False
    return any(action.get(k) for k in ("save", "plus", "heal"))


def _size(step: Step, action: Mapping[str, Any]) -> int:
    """The distinct values the attack roll and each part can take, multiplied (a
    critical's doubled dice counted): what counting them costs, known before it is
    done."""
    roll = step.combat.attack_roll
    size = 1
    if roll is not None and action.get("toHit") is not None and not action.get("autoHit"):
        size *= roll.dice.count * (roll.dice.sides - 1) + 1
    for part in (action.get("damage"), *action.get("plus", ()), action.get("heal")):
        if part is not None:
            size *= max(1, 2 * part["count"] * (part["sides"] - 1) + 1)
    return size


def save_chance(step: Step, t: dict[str, Any], save: str, difficulty: int) -> Fraction:
    """The exact chance ``t`` makes ``save`` against ``difficulty`` (FIGHTS §7.4)."""
    roll = step.combat.attack_roll
    assert roll is not None
    if fails_save(step, t, save):
        return Fraction(0)
    kept = kept_sum(roll.dice.count, roll.dice.sides, save_mode(step, t, save))
    bonuses = save_bonus_dist(step, t, save)
    need = difficulty - int(t["saves"].get(save, 0))
    made = sum(
        n * m for v, n in kept.counts.items() for b, m in bonuses.counts.items() if v + b >= need
    )
    return Fraction(made, kept.total * bonuses.total)


def _amount(step: Step, part: Mapping[str, Any], critical: bool) -> Dist:
    """The thrown amount of one part (before halving): its dice and flat, a critical's
    extra dice or maximum added."""
    roll = step.combat.attack_roll
    count, sides, flat = part["count"], part["sides"], part["flat"]
    if critical and roll is not None and count:
        if roll.critical == "double-dice":
            count *= 2
        elif roll.critical == "max-dice":
            flat += count * sides
    ways = dice_sum(count, sides)
    return {v + flat: Fraction(n, ways.total) for v, n in ways.counts.items()}


def _dealt(
    step: Step, t: dict[str, Any], part: Mapping[str, Any], dist: Dist, halved: bool
) -> Dist:
    adjust = hide_of(step, t, part.get("type"))
    out: Dist = {}
    for amount, p in dist.items():
        d = hidden(max(0, amount // 2 if halved else amount), adjust)
        out[d] = out.get(d, Fraction(0)) + p
    return out


def _mix(into: Dist, dist: Dist, weight: Fraction) -> None:
    for d, p in dist.items():
        into[d] = into.get(d, Fraction(0)) + p * weight


def _parts(
    step: Step, t: dict[str, Any], action: Mapping[str, Any], critical: bool, halved: bool
) -> Dist:
    """What the blow's parts take off together, the action's save settled (``halved``
    when it halved)."""
    total: Dist = {0: Fraction(1)}
    damage = action.get("damage")
    if damage is not None:
        total = add_chances(total, _dealt(step, t, damage, _amount(step, damage, critical), halved))
    for clause in action.get("plus", ()):
        dist = _amount(step, clause, critical)
        own = clause.get("save")
        if own is None:
            total = add_chances(total, _dealt(step, t, clause, dist, halved))
            continue
        made = save_chance(step, t, own["save"], own["difficulty"])
        part: Dist = {}
        _mix(part, _dealt(step, t, clause, dist, False), 1 - made)
        if own["onSuccess"] == "half":
            _mix(part, _dealt(step, t, clause, dist, True), made)
        else:
            part[0] = part.get(0, Fraction(0)) + made
        total = add_chances(total, part)
    return total


def _falls(step: Step, t: dict[str, Any], d: int) -> bool:
    """As ``fight.odds``: not standing after a blow that dealt ``d``."""
    if not standing(t):
        return True
    value, _, temp = step.health(t)
    if d <= 0 or (t["side"] == "party" and d > MAX_AMOUNT):
        return False
    return value - max(0, d - temp) <= 0


def _heals(step: Step, heal: Mapping[str, Any]) -> dict[str, str]:
    """The heal's amount (never below 0)."""
    heals: Dist = {}
    for amount, p in _amount(step, heal, False).items():
        heals[max(0, amount)] = heals.get(max(0, amount), Fraction(0)) + p
    return {str(n): fraction_text(heals[n]) for n in sorted(heals)}


def _target(
    step: Step, c: dict[str, Any], action: Mapping[str, Any], t: dict[str, Any]
) -> dict[str, Any]:
    if action.get("damage") is None:
        return {"heals": _heals(step, action["heal"])}
    roll = step.combat.attack_roll
    assert roll is not None
    if not action.get("autoHit") and action.get("toHit") is not None:
        defense = t["defense"] + guards(step, t)
        mode = attack_mode(step, c, t)
        bonuses = attack_bonus_dist(step, c)
        miss, hit, crit, whole = attack_ways(roll, action["toHit"], defense, mode, bonuses)
        branches = [(False, Fraction(hit, whole)), (True, Fraction(crit, whole))]
        missed = Fraction(miss, whole)
    else:
        branches, missed = [(False, Fraction(1))], Fraction(0)
    save = action.get("save")
    saves = Fraction(0)
    if save is not None:
        saves = save_chance(step, t, save["save"], save["difficulty"])
    dealt: Dist = {0: missed} if missed else {}
    for critical, weight in branches:
        if not weight:
            continue
        if save is None:
            _mix(dealt, _parts(step, t, action, critical, False), weight)
            continue
        _mix(dealt, _parts(step, t, action, critical, False), weight * (1 - saves))
        if save["onSuccess"] == "negates":
            dealt[0] = dealt.get(0, Fraction(0)) + weight * saves
        else:
            halves = save["onSuccess"] == "half"
            _mix(dealt, _parts(step, t, action, critical, halves), weight * saves)
    made: dict[str, Any] = {
        "hit": fraction_text(sum((w for _, w in branches), Fraction(0))),
        "critical": fraction_text(next((w for crit, w in branches if crit), Fraction(0))),
    }
    if save is not None:
        made["save"] = fraction_text(saves)
    made["dealt"] = {str(d): fraction_text(dealt[d]) for d in sorted(dealt) if dealt[d]}
    drops = sum((p for d, p in dealt.items() if _falls(step, t, d)), Fraction(0))
    made["drops"] = fraction_text(drops)
    return made


def blow_odds(
    step: Step,
    c: dict[str, Any],
    action: Mapping[str, Any],
    targets: Sequence[dict[str, Any]],
    limit: int,
) -> dict[str, Any] | None:
    """``{target id: odds}`` of the first ``MAX_TARGETS`` targets, or None when the
    outcomes to count pass ``limit``."""
    if _size(step, action) > limit:
        return None
    return {t["id"]: _target(step, c, action, t) for t in targets}
