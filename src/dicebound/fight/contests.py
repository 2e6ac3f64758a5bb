"""Contests (FIGHTS §9.1, §6.1): both sides throw their best check, the attacker first;
the actor wins on a margin above 0 (or 0 when ties go to the attacker), and a win takes
the named conditions off and puts the contest's own on the target.

A check number is read once at the start: a party member's ``half-up`` value of the
check's reference plus ``adjust`` for the ability it reads; an opponent's its block's
own (0 when unnamed). Summed, a side throws the attack roll's dice (twice when it
leans) plus the number and its modifiers to checks; in a pool it throws the number (plus
bonus dice and the wound penalty) as dice and counts successes, a botch counting 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from dicebound.fight.conditions import apply_condition, remove_condition
from dicebound.fight.context import Step
from dicebound.fight.leaning import leaning_sum, leans
from dicebound.fight.modifiers import attack_bonus_dist, check_bonuses
from dicebound.fight.pools import (
    leaning_throw,
    pool_check,
    pool_config,
    pool_fields,
    wound_penalty,
)
from dicebound.fight.sums import add, kept_sum
from dicebound.ruleset.combat import Combat, Contest
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import SheetView

__all__ = [
    "contest_actions",
    "contest_of",
    "holders",
    "member_checks",
    "resolve_contest",
    "win_chance",
]


def _abilities_of(ruleset: Ruleset, ref: Any) -> tuple[str, ...]:
    """The ability a check's reference reads (a skill's own ability), for ``adjust``."""
    if ref.source in ("abilityMod", "abilityScore") and ref.name:
        return (ref.name,)
    if ref.source == "skillMod" and ref.name:
        skill = next((s for s in ruleset.sheet.skills if s.id == ref.name), None)
        return (skill.ability,) if skill is not None and skill.ability else ()
    return ()


def member_checks(ruleset: Ruleset, combat: Combat, view: SheetView) -> dict[str, int]:
    """Every declared check's number off a member's sheet, read once at the start."""
    return {
        check.id: math.floor(view.value(check.value) + Fraction(1, 2))
        + view.adjust_for(_abilities_of(ruleset, check.value))
        for check in combat.checks
    }


def contest_actions(combat: Combat, actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``contest:<id>`` for every contest, added after a combatant's own actions: its
    budget, one enemy; with ``strike``, the most strikes of its own actions on that
    budget."""
    made: list[dict[str, Any]] = []
    for contest in combat.contests:
        action: dict[str, Any] = {
            "id": f"contest:{contest.id}",
            "kind": "contest",
            "label": contest.label,
            "budget": contest.budget,
            "targets": {"side": "enemy", "count": 1},
        }
        if contest.strike:
            strikes = [a.get("strikes", 1) for a in actions if a.get("budget") == contest.budget]
            if max(strikes, default=1) > 1:
                action["strikes"] = max(strikes)
        made.append(action)
    return made


def contest_of(step: Step, option: Mapping[str, Any]) -> Contest:
    ident = str(option["id"]).removeprefix("contest:")
    return next(x for x in step.combat.contests if x.id == ident)


def holders(step: Step, c: Mapping[str, Any], contest: Contest) -> set[str]:
    """Who holds the chooser by the contest's ``from`` condition (its source, while
    the condition is on the chooser and the source is not defeated)."""
    if contest.holding is None or not step.has_condition(dict(c), contest.holding):
        return set()
    return {
        str(r["source"])
        for r in c["tracked"]
        if r["condition"] == contest.holding
        and r.get("source") is not None
        and not step.who(str(r["source"]))["defeated"]
    }


def _mode(step: Step, c: dict[str, Any]) -> str:
    """A contest's check leans from un-narrowed modifiers to checks with a mode and
    un-narrowed ``own-checks-*`` effects."""
    if not leans(step):
        return "normal"
    up = down = False
    for s in step.sources(c):
        up = up or "own-checks-advantage" in s.effects
        down = down or "own-checks-disadvantage" in s.effects
        for m in s.modifiers:
            if m.to == "checks" and m.mode is not None and not m.skills:
                up = up or m.mode == "advantage"
                down = down or m.mode == "disadvantage"
    return "advantage" if up and not down else "disadvantage" if down and not up else "normal"


def _best(c: Mapping[str, Any], checks: tuple[str, ...]) -> tuple[str, int]:
    numbers = c.get("checks") or {}
    values = [(check, int(numbers.get(check, 0))) for check in checks]
    best = max(v for _, v in values)
    return next((check, v) for check, v in values if v == best)


def _side(step: Step, c: dict[str, Any], checks: tuple[str, ...]) -> dict[str, Any]:
    """One side's throw: its best check, the dice, the total."""
    check, number = _best(c, checks)
    mode = _mode(step, c)
    bonuses = check_bonuses(step, c)
    if step.combat.kind == "dice-pool":
        penalty = wound_penalty(step, c)
        size = number + sum(b["value"] for b in bonuses) + penalty
        pool = pool_check(pool_config(step.ruleset), size)
        rolls, kept = leaning_throw(step, pool, mode)
        total = kept.successes
        side = {"rolls": rolls, "kept": total, "pool": pool_fields(pool, penalty, kept)}
    else:
        rolls, kept_faces = leaning_sum(step, mode)
        total = sum(kept_faces) + number + sum(b["value"] for b in bonuses)
        side = {"rolls": rolls, "kept": sum(kept_faces)}
    return side | {
        "check": check,
        "modifier": number,
        "bonuses": bonuses,
        "total": total,
        "mode": mode,
    }


def resolve_contest(
    step: Step, c: dict[str, Any], option: Mapping[str, Any], t: dict[str, Any]
) -> None:
    """FIGHTS §9.1: the attacker's throw, then the defender's; a win's ``ends``, then
    its ``applies``; a ``contest`` event."""
    contest = contest_of(step, option)
    attacker = _side(step, c, contest.attacker)
    defender = _side(step, t, contest.defender)
    margin = attacker["total"] - defender["total"]
    wins = margin > 0 or (margin == 0 and contest.ties == "attacker")
    step.events.append(
        {
            "type": "contest",
            "actorId": c["id"],
            "actor": c["name"],
            "targetId": t["id"],
            "target": t["name"],
            "contestId": contest.id,
            "label": contest.label,
            "attacker": attacker,
            "defender": defender,
            "margin": margin,
            "winner": "actor" if wins else "target",
        }
    )
    if not wins:
        return
    for condition, on in contest.ends:
        holder = c if on == "actor" else t
        if step.has_condition(holder, condition):
            remove_condition(step, holder, condition, "contest")
    for condition, rounds in contest.applies:
        duration: Any = {"rounds": rounds} if rounds is not None else "instant"
        apply_condition(step, c, t, {"condition": condition, "duration": duration}, None)


def _totals(step: Step, c: dict[str, Any], checks: tuple[str, ...]) -> dict[int, Fraction]:
    """One side's total, exactly: a pool's kept successes (a botch 0), or the kept sum
    of the attack roll's dice plus the check and its bonuses."""
    _, number = _best(c, checks)
    mode = _mode(step, c)
    bonus = attack_bonus_dist(step, c, "checks")
    if step.combat.kind == "dice-pool":
        from dicebound.fight.pool_odds import throw_odds

        (flat,) = bonus.counts  # a pool fight's modifiers are flat
        size = number + flat + wound_penalty(step, c)
        totals: dict[int, Fraction] = {}
        for (fine, successes), p in throw_odds(
            pool_check(pool_config(step.ruleset), size), mode
        ).items():
            value = successes if fine else 0
            totals[value] = totals.get(value, Fraction(0)) + p
        return totals
    roll = step.combat.attack_roll
    assert roll is not None
    ways = add(kept_sum(roll.dice.count, roll.dice.sides, mode), bonus)
    return {v + number: Fraction(n, ways.total) for v, n in ways.counts.items()}


def win_chance(
    step: Step, c: dict[str, Any], option: Mapping[str, Any], t: dict[str, Any]
) -> Fraction:
    """The exact chance the actor wins the contest against ``t`` (FIGHTS §14)."""
    contest = contest_of(step, option)
    mine = _totals(step, c, contest.attacker)
    theirs = _totals(step, t, contest.defender)
    ties = contest.ties == "attacker"
    return sum(
        (p * q for a, p in mine.items() for d, q in theirs.items() if a > d or (ties and a == d)),
        Fraction(0),
    )
