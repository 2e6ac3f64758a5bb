"""A blow on one target (FIGHTS §7.3 3-8, §7.6, §8.1): its damage parts (the first
amount, then each clause with its own save), each hidden by the target's immunities,
resistances and vulnerabilities and taken off temporary points first; then what
follows the blow (conditions that end on damage, a concentration save, going down) and
the conditions it applies.

Amounts are thrown per target when the action rolls to hit, otherwise once, at the
first target that needs them, and every later target takes the same faces (``Once``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dicebound.fight.concentration import concentration_check, end_concentration
from dicebound.fight.conditions import (
    apply_condition,
    condition_event,
    ends_when_source_down,
    remove_condition,
)
from dicebound.fight.context import Step
from dicebound.fight.hide import hidden, hide_of
from dicebound.fight.pools import pool_damage
from dicebound.fight.saves import make_save
from dicebound.fight.turns import add_failures, heal
from dicebound.fight.wounds import Wounding, mark_blow, mark_part
from dicebound.sheet_commands.model import SheetRequest

__all__ = ["Once", "after_blow", "blow", "drop"]

Once = dict[int, list[int]]
"""Faces of amounts thrown once for every target, by part (0 the first amount, then
the clauses)."""


def _faces(
    step: Step, amount: Mapping[str, Any], part: int, once: Once | None, critical: bool
) -> tuple[list[int], int]:
    """The faces and flat part of one amount: thrown now (or the once-thrown faces
    reused), a critical's extra dice or maximum added."""
    roll = step.combat.attack_roll
    count, sides, flat = amount["count"], amount["sides"], amount["flat"]
    extra = amount.get("upcast")
    if once is not None and part in once:
        rolls = list(once[part])
    else:
        rolls = step.dice.dice(count, sides) if count else []
        if extra is not None:
            rolls += step.dice.dice(extra["count"], extra["sides"])
        if once is not None:
            once[part] = list(rolls)
    if critical and roll is not None and count:
        if roll.critical == "double-dice":
            rolls += step.dice.dice(count, sides)
            if extra is not None:
                rolls += step.dice.dice(extra["count"], extra["sides"])
        elif roll.critical == "max-dice":
            flat += count * sides
            if extra is not None:
                flat += extra["count"] * extra["sides"]
    return rolls, flat


def _thrown(
    step: Step,
    t: dict[str, Any],
    amount: Mapping[str, Any],
    part: int,
    once: Once | None,
    *,
    critical: bool,
    extra: int,
) -> tuple[dict[str, Any], int]:
    """What one part threw (its event's fields) and the amount before halving."""
    if step.combat.kind == "dice-pool":
        reused = once.get(part) if once is not None else None
        fields, left, faces = pool_damage(step, t, amount, extra, reused)
        if once is not None:  # once-thrown faces reused for every later target
            once[part] = faces
        return fields, left
    rolls, flat = _faces(step, amount, part, once, critical)
    amount_value = sum(rolls) + flat
    return {"rolls": rolls, "flat": flat, "amount": amount_value}, amount_value


def _part(
    step: Step,
    c: dict[str, Any],
    t: dict[str, Any],
    amount: Mapping[str, Any],
    thrown: tuple[dict[str, Any], int],
    wounding: Wounding,
    *,
    critical: bool,
    saved: bool,
) -> int:
    """One damage part taken off: the event, and what it dealt."""
    roll = step.combat.attack_roll
    fields, amount_value = thrown
    if saved:
        amount_value //= 2  # halved, floored
    if "pool" not in fields:  # a summed amount is written halved; a pool's as counted
        fields["amount"] = amount_value
    adjust = hide_of(step, t, amount.get("type"))
    dealt = hidden(max(0, amount_value), adjust)
    _, _, temp = step.health(t)
    to_temp = min(temp, dealt)
    if t["side"] == "enemy":
        h = t["health"]
        h["temp"] -= to_temp
        h["value"] = max(0, h["value"] - (dealt - to_temp))
    elif dealt > 0 and step.combat.health.kind == "track":
        mark_part(step, t, wounding, amount.get("type"), dealt)
    elif dealt > 0:
        step.write(
            t,
            SheetRequest(
                op="damage", who=t["character"], pool=step.combat.health.name, amount=dealt
            ),
        )
    value, top, _ = step.health(t)
    event: dict[str, Any] = {
        "type": "damage",
        "actorId": c["id"],
        "targetId": t["id"],
        "target": t["name"],
        **fields,
        "damageType": amount.get("type"),
        "critical": critical and roll is not None and roll.critical != "none",
        "adjust": adjust,
        "dealt": dealt,
        "toTemp": to_temp,
        "health": value,
        "maxHealth": top,
    }
    if saved:
        event["saved"] = True
    step.events.append(event)
    wounding.events.append(event)
    return dealt


def blow(
    step: Step,
    c: dict[str, Any],
    option: Mapping[str, Any],
    t: dict[str, Any],
    *,
    critical: bool,
    saved: bool | None,
    once: Once | None,
    extra: int = 0,
) -> None:
    """The damage parts of one blow, what follows it, then the conditions it applies
    unless the target saved. ``saved`` is the action's save (None: it asks none);
    ``once`` is None when every target throws its own amounts; ``extra`` is a pool
    attack's successes past those needed (dice added to the first amount)."""
    save = option.get("save")
    halved = bool(saved) and save is not None and save["onSuccess"] == "half"
    was_down = t["down"]
    dealt = 0
    wounding = Wounding()
    damage = option.get("damage")
    if damage is not None:
        thrown = _thrown(step, t, damage, 0, once, critical=critical, extra=extra)
        dealt += _part(step, c, t, damage, thrown, wounding, critical=critical, saved=halved)
    for index, clause in enumerate(option.get("plus", ())):
        own = clause.get("save")
        clause_halved = halved
        if own is not None:
            if make_save(step, t, own["save"], own["difficulty"]):
                if own["onSuccess"] != "half":
                    continue
                clause_halved = True
            else:
                clause_halved = False
        thrown = _thrown(step, t, clause, index + 1, once, critical=critical, extra=0)
        dealt += _part(step, c, t, clause, thrown, wounding, critical=critical, saved=clause_halved)
    mark_blow(step, t, wounding)
    if dealt > 0:
        after_blow(step, t, was_down, dealt, critical=critical, overwhelmed=wounding.overwhelmed)
    _mend(step, option, t, once)
    if not saved:
        difficulty = save["difficulty"] if save is not None else option.get("saveDifficulty")
        for applied in option.get("applies", ()):
            apply_condition(
                step,
                c,
                t,
                applied,
                difficulty,
                concentration=bool(option.get("concentration")),
            )


def _mend(step: Step, option: Mapping[str, Any], t: dict[str, Any], once: Once | None) -> None:
    """FIGHTS §7.3 7: the action's heal, then its temporary points (parts -1 and -2 of
    the once-thrown faces)."""
    heal_amount = option.get("heal")
    if heal_amount is not None:
        rolls, flat = _faces(step, heal_amount, -1, once, False)
        heal(step, t, sum(rolls) + flat, rolls, flat)
    temporary = option.get("temporary")
    if temporary is None:
        return
    rolls, flat = _faces(step, temporary, -2, once, False)
    amount = max(0, sum(rolls) + flat)
    _, _, temp = step.health(t)
    if amount > temp and step.combat.health.kind == "pool":
        if t["side"] == "enemy":
            t["health"]["temp"] = amount
        else:
            pool = step.combat.health.name
            step.write(t, SheetRequest(op="temp", who=t["character"], pool=pool, amount=amount))
    step.events.append(
        {
            "type": "temporary",
            "targetId": t["id"],
            "target": t["name"],
            "rolls": rolls,
            "flat": flat,
            "amount": amount,
        }
    )


def after_blow(
    step: Step,
    t: dict[str, Any],
    was_down: bool,
    dealt: int,
    *,
    critical: bool = False,
    overwhelmed: bool = False,
) -> None:
    """FIGHTS §8.1, after a blow that dealt ``dealt`` > 0: ``ends-on-damage`` conditions
    off; then a target still up makes its concentration save, one that is out goes
    down, and one already down and dying may take failures."""
    _ends_on_damage(step, t)
    value, _, _ = step.health(t)
    if was_down:
        dying = step.combat.dying
        if t["side"] == "party" and t["dying"] and dying is not None:
            rule = dying.critical_while_down if critical else dying.damage_while_down
            if rule != "none":
                t["stable"] = False
                add_failures(step, t, 2 if rule == "two-failures" else 1)
        return
    if value <= 0 or overwhelmed:
        drop(step, t)
    else:
        concentration_check(step, t, dealt)


def _ends_on_damage(step: Step, t: dict[str, Any]) -> None:
    names = [x["condition"] for x in t["tracked"]]
    if t["side"] == "party":
        names += list(step.member(t).live.conditions)
    for name in dict.fromkeys(names):
        rule = step.combat.condition(name)
        if rule is not None and "ends-on-damage" in rule.effects:
            remove_condition(step, t, name, "damage")


def drop(step: Step, t: dict[str, Any]) -> None:
    """Down: its concentration ends with no save, conditions it applied that end when
    their source goes down come off; then an opponent is defeated at once, a party
    member is dying when the ruleset has ``dying`` (its condition written on), else
    simply down."""
    t["down"] = True
    end_concentration(step, t, "down")
    ends_when_source_down(step, t)
    if t["side"] == "enemy":
        t["defeated"] = True
        step.events.append({"type": "defeated", "actorId": t["id"], "name": t["name"]})
        return
    dying = step.combat.dying
    if dying is not None:
        t["dying"] = True
        t["stable"] = False
        if dying.condition is not None and not step.has_condition(t, dying.condition):
            step.write(
                t, SheetRequest(op="condition", who=t["character"], condition=dying.condition)
            )
            step.events.append(condition_event(step, t, dying.condition, active=True))
    step.events.append({"type": "down", "actorId": t["id"], "name": t["name"], "dying": t["dying"]})
