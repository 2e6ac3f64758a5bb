"""A combatant's actions, every number resolved once at the start (FIGHTS §6.1): a
party member's attack rows and ability rows, an opponent's stat block actions.

An action is a JSON object. What this core does not play yet (a block action that is a
reaction, or that does nothing it can play; an ability row
that is a reaction, ``fight.rows``) is kept with ``notPlayed``, the sentence a choice
of it is refused with, and never offered on a menu. What an action carries is read by
``fight.amounts``.
"""

from __future__ import annotations

import math
from typing import Any

from dicebound.fight.amounts import amount_of, applied_of, clause_of, read_dice
from dicebound.fight.rows import ability_rows
from dicebound.fight.sequences import sequence_count
from dicebound.ruleset.combat import Combat, CreatureAction
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character, SheetView

__all__ = ["block_actions", "member_actions"]


def _number(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return math.floor(value)


def _mod(view: SheetView, ability: object) -> int:
    if not isinstance(ability, str) or view.ruleset.sheet.ability(ability) is None:
        return 0
    return math.floor(view.ability_mod(ability))


def member_actions(ruleset: Ruleset, combat: Combat, member: Character) -> list[dict[str, Any]]:
    """Attack rows, then ability rows (``fight.rows``), of one party member's sheet."""
    view = SheetView(ruleset, member)
    actions: list[dict[str, Any]] = []
    for i, source in enumerate(combat.attacks):
        for r, row in enumerate(view.list_rows(source.list)):
            name = str(row.cells.get(source.name) or "").strip()
            dice = read_dice(row.cells.get(source.damage_dice))
            if not name or dice is None:
                continue
            cells = row.cells
            to_hit = 0
            skill = cells.get(source.to_hit_skill) if source.to_hit_skill else None
            ability = cells.get(source.to_hit_ability) if source.to_hit_ability else None
            if isinstance(skill, str) and any(s.id == skill for s in ruleset.sheet.skills):
                swap = (
                    ability if isinstance(ability, str) and ruleset.sheet.ability(ability) else None
                )
                number = view.check_number("skill", skill, swap)
                to_hit = number.number + view.adjust_for(number.abilities)
            elif isinstance(ability, str) and ruleset.sheet.ability(ability) is not None:
                to_hit = _mod(view, ability) + view.adjust_for((ability,))
            if source.to_hit_proficiency and cells.get(source.to_hit_proficiency) is True:
                to_hit += math.floor(view.proficiency_bonus())
            if source.to_hit_bonus:
                to_hit += _number(cells.get(source.to_hit_bonus))
            flat = dice[2]
            if source.damage_ability:
                flat += _mod(view, cells.get(source.damage_ability))
            if source.damage_bonus:
                flat += _number(cells.get(source.damage_bonus))
            kind = cells.get(source.damage_type) if source.damage_type else None
            action: dict[str, Any] = {
                "id": f"attack:{i}:{r}",
                "kind": "attack",
                "label": name,
                "budget": source.budget,
                "targets": {"side": "enemy", "count": 1},
                "toHit": to_hit,
                "damage": {
                    "count": dice[0],
                    "sides": dice[1],
                    "flat": flat,
                    "type": str(kind).strip() if kind else None,
                },
            }
            if source.strikes is not None:
                capped = source.strikes_capped_by and cells.get(source.strikes_capped_by) is True
                if not capped:
                    action["strikes"] = max(1, math.trunc(view.value(source.strikes)))
            actions.append(action)

    actions.extend(ability_rows(ruleset, combat, view))
    return actions


_BLOCK_NOT_PLAYED = (
    'The action "{label}" {why}, which fights do not play yet; choose another action, '
    "a standard action or End turn."
)


def block_actions(combat: Combat, actions: tuple[CreatureAction, ...]) -> list[dict[str, Any]]:
    """A stat block's actions whose budget the economy declares."""
    made: list[dict[str, Any]] = []
    for index, a in enumerate(actions):
        if combat.budget(a.budget) is None:
            continue
        action: dict[str, Any] = {
            "id": a.id or f"block:{index}",
            "kind": "block",
            "label": a.name,
            "budget": a.budget,
            "targets": (
                {"side": "self", "count": 0}
                if a.self_only
                else {"side": "enemy", "count": max(1, a.target_count)}
            ),
            "toHit": a.to_hit,
            "autoHit": a.auto_hit,
            "damage": (None if a.damage is None else amount_of(a.damage, a.damage_type)),
        }
        if a.save is not None:
            difficulty = a.save.difficulty
            if difficulty is None:
                difficulty = a.save_difficulty or 0
            action["save"] = {
                "save": a.save.save,
                "onSuccess": a.save.on_success,
                "difficulty": difficulty,
            }
        if a.save_difficulty is not None:
            action["saveDifficulty"] = a.save_difficulty
        if a.plus:
            action["plus"] = [clause_of(p, a.save_difficulty) for p in a.plus]
        if a.applies:
            action["applies"] = [applied_of(x) for x in a.applies]
        if a.uses is not None:
            action["uses"] = a.uses[1]
        if a.recharge is not None:
            action["recharge"] = {
                "count": a.recharge[0],
                "sides": a.recharge[1],
                "from": a.recharge[2],
            }
        if a.signature_cost is not None:
            action["signature"] = a.signature_cost
        if a.sequence:
            action["sequence"] = [{"action": name, "times": times} for name, times in a.sequence]
            for key in ("toHit", "autoHit", "damage"):
                action.pop(key)
        why = _block_not_played(a)
        if why is not None:
            action["notPlayed"] = _BLOCK_NOT_PLAYED.format(label=a.name, why=why)
        made.append(action)
    for action in made:  # FIGHTS §6.1: a sequence aims at what its parts take together
        if "sequence" in action:
            action["targets"] = {"side": "enemy", "count": sequence_count(made, action)}
    return made


def _block_not_played(a: CreatureAction) -> str | None:
    if a.reaction is not None:
        return "is a reaction"
    if a.damage is None and not a.applies and not a.sequence:
        return "neither deals damage nor applies a condition"
    return None
