"""The forecast and exact odds of an option in a dice-pool fight (FIGHTS §14).

An attack is the pool's exact distribution of net successes and botches (explosions
to their cap, the check's own ``distribution``), thrown twice and the better or worse
kept when it leans; it lands with no botch and ``max(1, defense)`` successes, and each
success past those adds a die to the first amount. A damage part counts its dice at
the damage target (a binomial count) plus its automatic successes, less soak (dice
taken off before the throw, or soak dice thrown after it); then the save's halving,
the target's hide, and going down (a wound track's marks included). Each target alone,
the state as it is; nothing is thrown. Chances are exact fractions throughout.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

from dicebound.errors import LimitExceeded
from dicebound.fight.context import Step
from dicebound.fight.forecast import half_up
from dicebound.fight.hide import hidden, hide_of
from dicebound.fight.leaning import attack_mode, save_mode
from dicebound.fight.modifiers import guards, saves_narrowed
from dicebound.fight.odds import MAX_TARGETS, TOO_LARGE, falls_after
from dicebound.fight.pools import (
    damage_kind,
    damage_target,
    pool_check,
    pool_config,
    soak_of,
    wound_penalty,
)
from dicebound.fight.state import standing
from dicebound.fight.sums import add_chances
from dicebound.kinds.dice_pool.model import PoolCheck, PoolOutcome
from dicebound.kinds.dice_pool.odds import distribution
from dicebound.odds import fraction_text

__all__ = [
    "contest_weighed",
    "part_average",
    "pool_weighed",
    "throw_odds",
]

Chances = dict[int, Fraction]
"""A value's exact distribution: value -> chance."""


def _flat_bonus(step: Step, c: dict[str, Any], to: str, save: str | None = None) -> int:
    """What the chooser's (or saver's) sources add to a pool, in dice (a pool fight's
    modifiers are flat: ``dice`` is refused there)."""
    total = 0
    for s in step.sources(c):
        for m in s.modifiers:
            if m.to != to:
                continue
            if save is not None and not saves_narrowed(s, m, save):
                continue
            total += m.flat
    return total


@lru_cache(maxsize=256)
def _ranked(check: PoolCheck) -> tuple[tuple[tuple[int, int], Fraction], ...]:
    """The throw's ``(not botched, successes)`` and their chances."""
    spread: dict[tuple[int, int], Fraction] = {}
    dist = distribution(check)
    for outcome, weight in dist.items():
        assert isinstance(outcome, PoolOutcome)
        key = (0, 0) if outcome.critical_failure else (1, outcome.total)
        spread[key] = spread.get(key, Fraction(0)) + Fraction(weight, dist.total)
    return tuple(sorted(spread.items()))


def throw_odds(check: PoolCheck, mode: str) -> dict[tuple[int, int], Fraction]:
    """The kept throw of a pool, leaning or not: ``(not botched, successes)`` -> chance.
    Raises ``LimitExceeded`` when the pool's own odds would take too long."""
    one = _ranked(check)
    if mode == "normal":
        return dict(one)
    kept: dict[tuple[int, int], Fraction] = {}
    for a, p in one:
        for b, q in one:
            key = max(a, b) if mode == "advantage" else min(a, b)
            kept[key] = kept.get(key, Fraction(0)) + p * q
    return kept


def _binomial(n: int, p: Fraction) -> Chances:
    return {k: math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)}


def _mixed(parts: Sequence[tuple[Fraction, Chances]]) -> Chances:
    out: Chances = {}
    for weight, chances in parts:
        for v, p in chances.items():
            out[v] = out.get(v, Fraction(0)) + weight * p
    return out


def _part(
    step: Step, t: dict[str, Any], amount: Mapping[str, Any], extra: int, halved: bool
) -> Chances:
    """What one damage part deals ``t``, exactly as ``pools.pool_damage`` and the blow
    count it (soak, halving, hide)."""
    config = pool_config(step.ruleset)
    rules = step.combat.pool
    assert rules is not None
    p = Fraction(config.sides - damage_target(step) + 1, config.sides)
    auto = max(0, int(amount["flat"]))
    count = min(max(0, int(amount["count"]) + extra), config.pool_max)
    soak = soak_of(step, t, damage_kind(step, amount.get("type")))
    adjust = hide_of(step, t, amount.get("type"))
    thrown = count - (min(count, soak) if soak > 0 and not rules.soak_roll else 0)
    out: Chances = {}
    for k, q in _binomial(thrown, p).items():
        n = k + auto
        lefts: Chances = {n: Fraction(1)}
        if soak > 0 and rules.soak_roll and n > 0:
            # Soak successes past the count all leave 0: their chances add up.
            lefts = {}
            for s, r in _binomial(soak, p).items():
                lefts[n - min(n, s)] = lefts.get(n - min(n, s), Fraction(0)) + r
        for left, r in lefts.items():
            value = left // 2 if halved else left
            d = hidden(max(0, value), adjust)
            out[d] = out.get(d, Fraction(0)) + q * r
    return out


def _save_chance(step: Step, t: dict[str, Any], save: Mapping[str, Any]) -> Fraction:
    """The chance ``t`` makes a pool save (a ``failsSaves`` source: none)."""
    name = str(save["save"])
    if any(name in s.fails_saves for s in step.sources(t)):
        return Fraction(0)
    size = int(t["saves"].get(name, 0)) + _flat_bonus(step, t, "saves", name)
    check = pool_check(pool_config(step.ruleset), size + wound_penalty(step, t))
    needed = max(1, int(save["difficulty"]))
    kept = throw_odds(check, save_mode(step, t, name))
    return sum((p for (fine, s), p in kept.items() if fine and s >= needed), Fraction(0))


def _blow(step: Step, t: dict[str, Any], action: Mapping[str, Any], extra: int) -> Chances:
    """What a landed blow deals ``t`` with ``extra`` dice: the action's save first."""
    save = action.get("save")
    branches: list[tuple[Fraction, bool]] = [(Fraction(1), False)]
    if save is not None:
        saves = _save_chance(step, t, save)
        branches = [(1 - saves, False), (saves, True)]
    parts: list[tuple[Fraction, Chances]] = []
    for weight, saved in branches:
        if not weight:
            continue
        if saved and save is not None and save["onSuccess"] == "negates":
            parts.append((weight, {0: Fraction(1)}))
            continue
        halved = saved and save is not None and save["onSuccess"] == "half"
        dealt: Chances = {0: Fraction(1)}
        damage = action.get("damage")
        if damage is not None:
            dealt = add_chances(dealt, _part(step, t, damage, extra, halved))
        for clause in action.get("plus", ()):
            dealt = add_chances(dealt, _clause(step, t, clause, halved))
        parts.append((weight, dealt))
    return _mixed(parts)


def _clause(step: Step, t: dict[str, Any], clause: Mapping[str, Any], halved: bool) -> Chances:
    own = clause.get("save")
    if own is None:
        return _part(step, t, clause, 0, halved)
    saves = _save_chance(step, t, own)
    kept = _part(step, t, clause, 0, False)
    on_save = _part(step, t, clause, 0, True) if own["onSuccess"] == "half" else {0: Fraction(1)}
    return _mixed([(1 - saves, kept), (saves, on_save)])


def _falls(step: Step, t: dict[str, Any]) -> Callable[[int], bool]:
    """Whether ``t`` is not standing after a blow that dealt ``d``: a wound track's
    marks (one a blow when marks are per blow or the track is indexed), else as a
    summed fight reads health (``odds.falls_after``)."""
    if not standing(t) or t["side"] != "party" or step.combat.health.kind != "track":
        return falls_after(step, t)
    value, _, _ = step.health(t)
    kinds = step.combat.damage_kinds
    name = step.combat.health.name
    track = next(x for x in step.ruleset.sheet.tracks if x.id == name)
    one_mark = kinds is None or kinds.marks == "per-blow" or track.fill == "indexed"
    return lambda d: d > 0 and value - (1 if one_mark else d) <= 0


def _attack(
    step: Step, c: dict[str, Any], action: Mapping[str, Any], t: dict[str, Any]
) -> dict[tuple[int, int], Fraction]:
    size = action["toHit"] + _flat_bonus(step, c, "attacks") + wound_penalty(step, c)
    check = pool_check(pool_config(step.ruleset), size, action.get("target"))
    return throw_odds(check, attack_mode(step, c, t))


def target_odds(
    step: Step, c: dict[str, Any], action: Mapping[str, Any], t: dict[str, Any]
) -> dict[str, Any]:
    """``{hit, critical, save?, dealt, drops}`` of ``action`` at ``t`` alone."""
    rolls = not action.get("autoHit") and action.get("toHit") is not None
    landed: list[tuple[Fraction, int]] = [(Fraction(1), 0)]
    missed = Fraction(0)
    if rolls:
        needed = max(1, t["defense"] + guards(step, t))
        landed = []
        for (fine, successes), p in _attack(step, c, action, t).items():
            if fine and successes >= needed:
                landed.append((p, successes - needed))
            else:
                missed += p
    blows: dict[int, Chances] = {}  # one blow a number of extra dice
    for _, extra in landed:
        if extra not in blows:
            blows[extra] = _blow(step, t, action, extra)
    dealt = _mixed([(p, blows[extra]) for p, extra in landed])
    if missed:
        dealt[0] = dealt.get(0, Fraction(0)) + missed
    falls = _falls(step, t)
    hit = sum((p for p, _ in landed), Fraction(0))
    made: dict[str, Any] = {"hit": fraction_text(hit), "critical": "0"}
    save = action.get("save")
    if save is not None:
        made["save"] = fraction_text(hit * _save_chance(step, t, save))
    made["dealt"] = {str(d): fraction_text(dealt[d]) for d in sorted(dealt) if dealt[d]}
    made["drops"] = fraction_text(sum((p for d, p in dealt.items() if falls(d)), Fraction(0)))
    return made


def part_average(step: Step, t: dict[str, Any] | None, amount: Mapping[str, Any]) -> Fraction:
    """``dice × P(die ≥ damage target) + max(0, flat)`` less the target's average
    soak (dice off when soak is not rolled), never below 0."""
    config = pool_config(step.ruleset)
    rules = step.combat.pool
    assert rules is not None
    p = Fraction(config.sides - damage_target(step) + 1, config.sides)
    count = max(0, int(amount["count"]))
    soak = soak_of(step, t, damage_kind(step, amount.get("type"))) if t is not None else 0
    if rules.soak_roll:
        average = count * p + max(0, int(amount["flat"])) - soak * p
    else:
        average = max(0, count - soak) * p + max(0, int(amount["flat"]))
    return max(Fraction(0), average)


def pool_weighed(
    step: Step, c: dict[str, Any], action: Mapping[str, Any], targets: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """``forecast`` (first legal target) and ``odds`` (every legal one, at most 12) of a
    pool fight's option; ``{}`` for one that deals no damage."""
    damage = action.get("damage")
    if damage is None and not action.get("plus"):
        return {}
    first = next(iter(targets), None)
    parts = ([damage] if damage is not None else []) + list(action.get("plus", ()))
    forecast: dict[str, float] = {}
    try:
        if first is not None and not action.get("autoHit") and action.get("toHit") is not None:
            needed = max(1, first["defense"] + guards(step, first))
            hit = sum(
                (
                    p
                    for (fine, s), p in _attack(step, c, action, first).items()
                    if fine and s >= needed
                ),
                Fraction(0),
            )
            forecast["hitChance"] = half_up(hit, 3)
        average = sum((part_average(step, first, part) for part in parts), Fraction(0))
        forecast["averageDamage"] = half_up(average, 2)
        odds = {t["id"]: target_odds(step, c, action, t) for t in targets[:MAX_TARGETS]}
    except LimitExceeded:
        return {"odds": None, "oddsRefused": TOO_LARGE}
    return {"forecast": forecast, "odds": odds}


def contest_weighed(
    step: Step,
    c: dict[str, Any],
    action: Mapping[str, Any],
    targets: Sequence[dict[str, Any]],
    win: Callable[[Step, dict[str, Any], Mapping[str, Any], dict[str, Any]], Fraction],
) -> dict[str, Any]:
    """A contest's forecast (the chance to win against its first legal target, no
    damage) and its odds (``hit``: the chance to win, each legal target alone; nothing
    dealt, nobody dropped); summed or pool."""
    if not targets:
        return {}
    try:
        chances = {t["id"]: win(step, c, action, t) for t in targets[:MAX_TARGETS]}
    except LimitExceeded:
        return {"odds": None, "oddsRefused": TOO_LARGE}
    first = chances[targets[0]["id"]]
    # A contest deals nothing and takes nobody down: those parts are sure.
    sure = {"critical": "0", "dealt": {"0": "1"}, "drops": "0"}
    return {
        "forecast": {"hitChance": half_up(first, 3), "averageDamage": 0.0},
        "odds": {ident: {"hit": fraction_text(p)} | sure for ident, p in chances.items()},
    }
