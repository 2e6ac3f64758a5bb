"""Dice-pool fights (FIGHTS §7.3, §7.4, §7.6, §7.7): an attack, a save or an initiative
thrown through the ruleset's own pool roller, damage dice counted against the damage
target, soak, and the marks a blow leaves on a wound track.

Every number a pool roll adds is dice and every number it meets is successes. The
roller is the check's own (``kinds.dice_pool.roll``: the clamp, explosions, cancels and
the botch in the check's dice order), thrown for one success needed, with nothing
bought and no re-throw; damage and soak dice only count faces at the damage target.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from dicebound.fight.context import Step
from dicebound.fight.dice import Thrower
from dicebound.fight.leaning import attack_mode, save_mode
from dicebound.fight.modifiers import attack_bonuses, guards, save_bonuses
from dicebound.kinds.asks import clamp
from dicebound.kinds.dice_pool.model import PoolCheck, PoolConfig, PoolOutcome
from dicebound.kinds.dice_pool.roll import roll
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import SheetView
from dicebound.sheet_commands.model import SheetRequest

__all__ = [
    "Thrown",
    "attack_head",
    "damage_kind",
    "damage_target",
    "leaning_throw",
    "pool_attack",
    "pool_check",
    "pool_config",
    "pool_damage",
    "pool_fields",
    "pool_initiative",
    "pool_save",
    "soak_of",
    "throw_pool",
    "wound_mark",
    "wound_penalty",
]


def pool_config(ruleset: Ruleset) -> PoolConfig:
    config = ruleset.resolution.config
    assert isinstance(config, PoolConfig)  # a dice-pool fight stands only beside dice-pool
    return config


def pool_check(config: PoolConfig, dice: int, target: int | None = None) -> PoolCheck:
    """``dice`` dice of the ruleset's pool as a check needing one success: the pool's
    clamp, its target (a weapon's own held into the target's range), explosions capped
    at ``pool.max`` added dice, cancels and the botch; nothing bought, no re-throw."""
    face = config.target_default
    if target is not None:
        face = clamp(target, config.target_min, config.target_max)
    return PoolCheck(
        sides=config.sides,
        dice=clamp(dice, config.pool_min, config.pool_max),
        target=face,
        needed=1,
        explode_from=config.explode.from_face if config.explode is not None else None,
        double_from=config.double.from_face if config.double is not None else None,
        cancel_up_to=config.cancel_up_to,
        botch_up_to=config.botch_up_to,
        botch_rule=config.botch_rule,
        exact=None if config.exact is None else config.exact.counts,
        max_extra=config.pool_max,
    )


class Thrown(NamedTuple):
    """One throw of a pool: every face shown (explosions included), the net successes
    and whether it botched."""

    faces: list[int]
    successes: int
    botch: bool


def thrown_of(outcome: PoolOutcome, faces: list[int]) -> Thrown:
    return Thrown(faces, 0 if outcome.critical_failure else outcome.total, outcome.critical_failure)


def throw_pool(dice: Thrower, check: PoolCheck) -> Thrown:
    before = len(dice.faces)
    outcome = roll(check, dice).outcome
    assert isinstance(outcome, PoolOutcome)
    return thrown_of(outcome, dice.faces[before:])


def pool_initiative(ruleset: Ruleset, size: int, dice: Thrower) -> Thrown:
    """An initiative thrown as ``size`` dice of the ruleset's pool (FIGHTS §5.4)."""
    return throw_pool(dice, pool_check(pool_config(ruleset), size))


def rank(t: Thrown) -> tuple[int, int]:
    """How good a throw is: a botch worse than anything, then more successes."""
    return (0 if t.botch else 1, t.successes)


def leaning_throw(step: Step, check: PoolCheck, mode: str) -> tuple[list[int], Thrown]:
    """The pool thrown, twice when it leans (the better or worse kept, the first of
    equals): every face shown, and the throw kept."""
    first = throw_pool(step.dice, check)
    if mode == "normal":
        return list(first.faces), first
    second = throw_pool(step.dice, check)
    better = rank(second) > rank(first)
    worse = rank(second) < rank(first)
    kept = second if (better if mode == "advantage" else worse) else first
    return first.faces + second.faces, kept


def wound_penalty(step: Step, c: Mapping[str, Any]) -> int:
    """``resolution.penaltyFrom``'s penalty off a party member's sheet (dice off the
    pool); an opponent's is 0."""
    if c["side"] != "party":
        return 0
    return SheetView(step.ruleset, step.member(dict(c))).penalty()


def pool_fields(check: PoolCheck, penalty: int, kept: Thrown) -> dict[str, Any]:
    made: dict[str, Any] = {"dice": check.dice, "target": check.target}
    if penalty:
        made["penalty"] = penalty
    if kept.botch:
        made["botch"] = True
    return made


def attack_head(
    c: Mapping[str, Any], option: Mapping[str, Any], t: Mapping[str, Any]
) -> dict[str, Any]:
    """The fields every attack event opens with, summed or pool: who, at whom, with what."""
    return {
        "type": "attack",
        "actorId": c["id"],
        "actor": c["name"],
        "targetId": t["id"],
        "target": t["name"],
        "actionId": option["id"],
        "label": option["label"],
    }


def pool_attack(
    step: Step, c: dict[str, Any], option: Mapping[str, Any], t: dict[str, Any]
) -> tuple[str, int]:
    """FIGHTS §7.3 1 in a pool: ``toHit`` plus the bonus dice plus the wound penalty,
    needing ``max(1, defense)`` successes and no botch. The outcome (``hit`` or
    ``miss``, never critical) and the successes past those needed (``extraDice``)."""
    config = pool_config(step.ruleset)
    mode = attack_mode(step, c, t)
    bonuses = attack_bonuses(step, c)
    penalty = wound_penalty(step, c)
    size = option["toHit"] + sum(b["value"] for b in bonuses) + penalty
    check = pool_check(config, size, option.get("target"))
    faces, kept = leaning_throw(step, check, mode)
    needed = max(1, t["defense"] + guards(step, t))
    hit = not kept.botch and kept.successes >= needed
    c["flags"].pop("helped", None)
    step.events.append(
        attack_head(c, option, t)
        | {
            "rolls": faces,
            "kept": kept.successes,
            "modifier": option["toHit"],
            "bonuses": bonuses,
            "total": kept.successes,
            "defense": needed,
            "outcome": "hit" if hit else "miss",
            "mode": mode,
            "pool": pool_fields(check, penalty, kept),
        }
    )
    return ("hit", kept.successes - needed) if hit else ("miss", 0)


def pool_save(step: Step, t: dict[str, Any], save: str, difficulty: int) -> dict[str, Any]:
    """FIGHTS §7.4 in a pool: the save's number plus bonus dice plus the wound penalty,
    needing ``max(1, difficulty)`` successes and no botch. The event's fields."""
    config = pool_config(step.ruleset)
    mode = save_mode(step, t, save)
    modifier = int(t["saves"].get(save, 0))
    bonuses = save_bonuses(step, t, save)
    penalty = wound_penalty(step, t)
    check = pool_check(config, modifier + sum(b["value"] for b in bonuses) + penalty)
    faces, kept = leaning_throw(step, check, mode)
    needed = max(1, difficulty)
    return {
        "rolls": faces,
        "kept": kept.successes,
        "modifier": modifier,
        "bonuses": bonuses,
        "total": kept.successes,
        "difficulty": needed,
        "success": not kept.botch and kept.successes >= needed,
        "mode": mode,
        "pool": pool_fields(check, penalty, kept),
    }


def damage_target(step: Step) -> int:
    rules = step.combat.pool
    config = pool_config(step.ruleset)
    if rules is not None and rules.damage_target is not None:
        return rules.damage_target
    return config.target_default


def damage_kind(step: Step, kind: str | None) -> str | None:
    """The wound kind a damage type marks (``damageKinds``: by type, ignoring case,
    else the default); None without ``damageKinds``."""
    kinds = step.combat.damage_kinds
    if kinds is None:
        return None
    if kind:
        wanted = kind.strip().lower()
        for name, mark in kinds.by_type.items():
            if name.strip().lower() == wanted:
                return mark
    return kinds.default


def soak_of(step: Step, t: Mapping[str, Any], kind: str | None) -> int:
    """The target's soak for a part of this wound kind: ``byKind[kind]``, else
    ``all``, else 0 (read once at the start, kept on the combatant)."""
    soak = t.get("soak") or {}
    by_kind = soak.get("byKind") or {}
    if kind is not None and kind in by_kind:
        return int(by_kind[kind])
    return int(soak.get("all", 0))


def pool_damage(
    step: Step,
    t: Mapping[str, Any],
    amount: Mapping[str, Any],
    extra: int,
    faces: list[int] | None,
) -> tuple[dict[str, Any], int, list[int]]:
    """One damage part thrown in a pool (FIGHTS §7.3 3, §7.6 soak): its dice (plus
    ``extra`` on the first amount) capped at ``pool.max``, each at or above the damage
    target one success, plus the flat part as automatic successes; then soak. ``faces``
    are the once-thrown faces to reuse (None: throw). The event's fields, the successes
    left after soak, and the faces the amount threw (for the next target)."""
    config = pool_config(step.ruleset)
    rules = step.combat.pool
    assert rules is not None
    face = damage_target(step)
    auto = max(0, int(amount["flat"]))
    count = min(max(0, int(amount["count"]) + extra), config.pool_max)
    soak = soak_of(step, t, damage_kind(step, amount.get("type")))
    taken_before = min(count, soak) if soak > 0 and not rules.soak_roll else 0
    if faces is None:
        faces = step.dice.dice(count - taken_before, config.sides)
    successes = sum(1 for f in faces if f >= face) + auto
    fields: dict[str, Any] = {
        "rolls": list(faces),
        "flat": auto,
        "amount": successes,
        "pool": {"target": face, "successes": successes},
    }
    left = successes
    if soak > 0 and not rules.soak_roll:
        fields["soak"] = {"value": soak, "taken": taken_before}
    elif soak > 0:
        rolls = step.dice.dice(soak, config.sides) if successes > 0 else []
        taken = min(successes, sum(1 for f in rolls if f >= face))
        fields["soak"] = {"value": soak, "rolls": rolls, "taken": taken}
        left = successes - taken
    return fields, left, faces


def wound_mark(step: Step, t: dict[str, Any], kind: str, amount: int, box: int | None) -> bool:
    """Marks on a party member's wound track (FIGHTS §7.6): True when the track took
    them, False when it refused (``no-box``: the target is overwhelmed)."""
    health = step.combat.health
    request = SheetRequest(
        op="damage", who=t["character"], track=health.name, kind=kind, amount=amount, box=box
    )
    return step.write(t, request)
