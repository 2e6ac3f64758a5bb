"""Marinara's ``forecast`` of an attack option (FIGHTS §14), computed exactly: the
chance it lands on its first legal target and its average damage, rounded half up to
three and two places. Nothing is thrown; the exact ``odds`` are ``fight.odds``'s."""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from dicebound.fight.sums import Ways, kept_sum, point
from dicebound.ruleset.combat import AttackRoll

__all__ = ["attack_ways", "average_damage", "forecast", "half_up", "hit_chance"]


def attack_ways(
    roll: AttackRoll, to_hit: int, defense: int, mode: str, bonuses: Ways | None = None
) -> tuple[int, int, int, int]:
    """``(miss, hit, critical, total)``: how many of ``total`` equally likely throws of
    an attack (its kept dice and the bonuses' dice) miss, hit, and land a critical.
    The total (kept + ``to_hit`` + bonus) at least the defense hits; with one die a
    natural top face takes ``naturals.max`` (a critical, or a plain hit) and a natural 1
    misses when ``naturals.min`` says so."""
    kept = kept_sum(roll.dice.count, roll.dice.sides, mode)
    spread = bonuses or point(0)
    one_die = roll.dice.count == 1
    need = defense - to_hit
    # How many bonus ways reach each needed margin: bonus >= need - kept.
    ordered = sorted(spread.counts.items(), reverse=True)
    miss = hit = critical = 0
    for value, n in kept.counts.items():
        if one_die and value == roll.dice.sides and roll.natural_max != "none":
            if roll.natural_max == "critical":
                critical += n * spread.total
            else:
                hit += n * spread.total
            continue
        if one_die and value == 1 and roll.natural_min == "miss":
            miss += n * spread.total
            continue
        landing = sum(m for b, m in ordered if value + b >= need)
        hit += n * landing
        miss += n * (spread.total - landing)
    return miss, hit, critical, kept.total * spread.total


def hit_chance(
    roll: AttackRoll, to_hit: int, defense: int, mode: str, bonuses: Ways | None = None
) -> Fraction:
    """The exact chance an attack roll lands (a hit or a critical)."""
    _, hit, critical, total = attack_ways(roll, to_hit, defense, mode, bonuses)
    return Fraction(hit + critical, total)


def average_damage(action: Mapping[str, Any]) -> Fraction | None:
    """The exact average of a summed action's first amount and its clauses (a heal's:
    the heal's); None when it has neither."""
    damage = action.get("damage")
    if damage is None:
        damage = action.get("heal")  # a heal's forecast averages the heal
    if damage is None:
        return None
    parts = [damage, *action.get("plus", ())]  # the first amount and its clauses
    return sum(
        (Fraction(part["count"] * (part["sides"] + 1), 2) + part["flat"] for part in parts),
        Fraction(0),
    )


def half_up(x: Fraction, places: int) -> float:
    """``x`` rounded half up to ``places`` decimals, as Marinara writes a forecast."""
    scale: int = 10**places
    whole: int = math.floor(x * scale + Fraction(1, 2))
    return whole / scale


def forecast(
    roll: AttackRoll | None,
    action: Mapping[str, Any],
    defense: int | None,
    mode: str,
    bonuses: Ways | None = None,
) -> dict[str, float] | None:
    """``{hitChance?, averageDamage}`` of an action with damage (the average sums the
    first amount and its clauses) or a heal (the heal's average)."""
    average = average_damage(action)
    if average is None:
        return None
    made: dict[str, float] = {}
    rolls = not action.get("autoHit") and action.get("toHit") is not None
    if rolls and roll is not None and defense is not None:
        made["hitChance"] = half_up(hit_chance(roll, action["toHit"], defense, mode, bonuses), 3)
    made["averageDamage"] = half_up(average, 2)
    return made
