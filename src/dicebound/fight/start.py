"""Starting a fight (FIGHTS §5): the party, the opponents, initiative and the opening.

Every reason to refuse a start is found before the first die is thrown. Then the
combatants are built in input order (party, then opponents), each throwing its
initiative dice as it is built and an opponent its health dice after them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from dicebound.fight.actions import member_actions
from dicebound.fight.contests import contest_actions, member_checks
from dicebound.fight.context import Step
from dicebound.fight.dice import Thrower
from dicebound.fight.opponents import Opponent, Refusal, plan_opponents
from dicebound.fight.pools import pool_initiative
from dicebound.fight.state import Fight, combatant_id
from dicebound.ruleset.combat import Combat
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character, SheetView
from dicebound.sheet_commands.model import SheetRequest
from dicebound.sheet_commands.targets import character_key

__all__ = [
    "HARDNESS_NOT_PLAYED",
    "RESOURCE_NOT_PLAYED",
    "check_playable",
    "pick_party",
    "start_fight",
]

RESOURCE_NOT_PLAYED = (
    "Initiative as a resource (initiative.resource) is not played yet: this ruleset's "
    "attacks move initiative numbers; tell the fight in words for now."
)
HARDNESS_NOT_PLAYED = (
    "Hardness in a dice-pool fight is not played yet: this ruleset gives combatants a "
    "hardness that stops small blows; tell the fight in words for now."
)


def half_up(x: Fraction) -> int:
    return math.floor(x + Fraction(1, 2))


def check_playable(combat: Combat) -> Refusal | None:
    """Why this core cannot play the ruleset's fights at all, or None."""
    if combat.played:
        return None
    if combat.initiative.resource is not None:
        return Refusal("not-played", RESOURCE_NOT_PLAYED)
    return Refusal("not-played", HARDNESS_NOT_PLAYED)


def pick_party(party: Sequence[Character], written: str | None) -> list[Character] | Refusal:
    """The members ``party=`` names (NAME-EQ by character key; a name twice kept once),
    or every character of the game in game order."""
    if written is None:
        chosen: list[Character] = []
        keys: set[str] = set()
        for member in party:
            if character_key(member.name) not in keys:
                keys.add(character_key(member.name))
                chosen.append(member)
        return chosen if chosen else Refusal("no-party")
    picked: list[Character] = []
    for name in written.split(","):
        key = character_key(name)
        if not key:
            continue
        answers = [m for m in party if character_key(m.name) == key]
        if not answers:
            return Refusal("unknown-character")
        if len({m.name for m in answers}) > 1:
            return Refusal("ambiguous-character")
        if all(character_key(p.name) != key for p in picked):
            picked.append(answers[0])
    return picked if picked else Refusal("no-party")


def _member(ruleset: Ruleset, combat: Combat, member: Character) -> dict[str, Any]:
    view = SheetView(ruleset, member)
    initiative = combat.initiative.pool or combat.initiative.modifier
    modifier = half_up(view.value(initiative)) if initiative is not None else 0
    saves = {s.id: view.check_number("save", s.id).number for s in ruleset.sheet.saves}
    actions = member_actions(ruleset, combat, member)
    made = _combatant(
        member.name,
        "party",
        combat,
        modifier,
        half_up(view.value(combat.defense)),
        actions + contest_actions(combat, actions),
        saves,
    ) | {"character": member.name, "items": []}
    if combat.checks:
        made["checks"] = member_checks(ruleset, combat, view)
    if combat.spend_limits:  # FIGHTS §2.1: each read once, half up
        made["limits"] = {
            limit.pool: {"max": half_up(view.value(limit.max)), "per": limit.per, "spent": 0}
            for limit in combat.spend_limits
        }
    rules = combat.pool
    if rules is not None and (rules.soak_all is not None or rules.soak_by_kind):
        soak: dict[str, Any] = {}
        if rules.soak_all is not None:
            soak["all"] = half_up(view.value(rules.soak_all))
        if rules.soak_by_kind:
            soak["byKind"] = {k: half_up(view.value(v)) for k, v in rules.soak_by_kind.items()}
        made["soak"] = soak
    return made


def _combatant(
    name: str,
    side: str,
    combat: Combat,
    modifier: int,
    defense: int,
    actions: list[dict[str, Any]],
    saves: dict[str, int],
) -> dict[str, Any]:
    return {
        "id": combatant_id(name),
        "name": name,
        "side": side,
        "initiative": 0,
        "initiativeRoll": [],
        "initiativeModifier": modifier,
        "budgets": {b.id: b.count for b in combat.budgets},
        "actions": actions,
        "uses": {a["id"]: a["uses"] for a in actions if "uses" in a},
        "spent": [],
        "tracked": [],
        "concentrating": None,
        "flags": {},
        "down": False,
        "dying": False,
        "stable": False,
        "defeated": False,
        "defense": defense,
        "saves": saves,
    }


def throw_initiative(c: dict[str, Any], ruleset: Ruleset, combat: Combat, dice: Thrower) -> None:
    """A summed initiative: its dice plus its modifier; a pool's: ``modifier`` dice of
    the ruleset's pool, its successes plus ``plus`` (FIGHTS §5.4)."""
    if combat.initiative.pool is not None:
        thrown = pool_initiative(ruleset, c["initiativeModifier"], dice)
        c["initiativeRoll"] = thrown.faces
        c["initiative"] = thrown.successes + combat.initiative.plus
        return
    spec = combat.initiative.dice
    faces = dice.dice(spec.count, spec.sides) if spec is not None else []
    c["initiativeRoll"] = faces
    c["initiative"] = sum(faces) + c["initiativeModifier"]


def sort_order(combatants: Sequence[dict[str, Any]]) -> list[str]:
    """Total descending, then modifier descending, then input position."""
    ranked = sorted(
        enumerate(combatants),
        key=lambda p: (-p[1]["initiative"], -p[1]["initiativeModifier"], p[0]),
    )
    return [c["id"] for _, c in ranked]


def initiative_event(fight: Fight, pooled: bool = False) -> dict[str, Any]:
    """The order with each entry's faces and total; ``pooled``: thrown as pools (its
    line writes no modifier)."""
    entries = []
    for ident in fight["order"]:
        c = next(x for x in fight["combatants"] if x["id"] == ident)
        if c["defeated"]:
            continue
        entries.append(
            {
                "actorId": ident,
                "name": c["name"],
                "roll": list(c["initiativeRoll"]),
                "modifier": c["initiativeModifier"],
                "total": c["initiative"],
            }
        )
    return {"type": "initiative", "entries": entries, "pool": pooled}


def start_fight(
    ruleset: Ruleset,
    game_party: Sequence[Character],
    attributes: dict[str, str],
    dice: Thrower,
    number: int,
) -> Step | Refusal:
    """A new fight, ``f<number>``: the step that started it, or why it was refused."""
    combat = ruleset.combat
    assert combat is not None
    refusal = check_playable(combat)
    if refusal is not None:
        return refusal
    members = pick_party(game_party, attributes.get("party"))
    if isinstance(members, Refusal):
        return members
    ids = {combatant_id(m.name) for m in members}
    planned = plan_opponents(combat, attributes.get("enemies", ""), ids)
    if isinstance(planned, Refusal):
        return planned
    opponents, refused, adjustments = planned
    combatants: list[dict[str, Any]] = []
    for member in members:
        c = _member(ruleset, combat, member)
        throw_initiative(c, ruleset, combat, dice)
        combatants.append(c)
    for opponent in opponents:
        combatants.append(_opponent(ruleset, combat, opponent, dice))
    fight: Fight = {
        "v": 1,
        "id": f"f{number}",
        "ruleset": {"id": ruleset.id, "version": ruleset.version},
        "outcome": "ongoing",
        "round": 1,
        "turn": 0,
        "order": sort_order(combatants),
        "cursor": 0,
        "windows": 0,
        "window": None,
        "combatants": combatants,
        "opening": [],
        "adjustments": adjustments,
    }
    step = Step(ruleset, fight, game_party, dice)
    step.events.extend(refused)
    for c in combatants:
        if c["side"] == "party":
            _down_at_start(step, c)
    first = step.who(fight["order"][0])
    step.events += [
        initiative_event(fight, combat.initiative.pool is not None),
        {"type": "round", "round": 1},
        {"type": "turn", "actorId": first["id"], "name": first["name"]},
    ]
    fight["opening"] = [e for e in step.events if e["type"] != "condition"]
    return step


def _opponent(ruleset: Ruleset, combat: Combat, o: Opponent, dice: Thrower) -> dict[str, Any]:
    actions = o.actions + contest_actions(combat, o.actions)
    c = _combatant(o.name, "enemy", combat, o.initiative_modifier, o.defense, actions, o.saves)
    if "checks" in o.block:
        c["checks"] = dict(o.block["checks"])
    if o.signature_points:  # FIGHTS §3: bought back to the maximum at each own turn
        c["signature"] = {"points": o.signature_points, "max": o.signature_points}
    throw_initiative(c, ruleset, combat, dice)
    health = o.health
    if o.health_dice is not None:
        count, sides, flat = o.health_dice
        health = max(1, sum(dice.dice(count, sides)) + flat)
    c["block"] = o.block
    if "soak" in o.block:
        c["soak"] = o.block["soak"]
    c["health"] = {"value": health, "max": health, "temp": 0}
    return c


def _down_at_start(step: Step, c: dict[str, Any]) -> None:
    """A member whose health reads 0 (maximum above 0) starts down, dying when the
    ruleset has ``dying`` (its condition written on)."""
    value, top, _ = step.health(c)
    if value > 0 or top <= 0:
        return
    c["down"] = True
    dying = step.combat.dying
    if dying is not None:
        c["dying"] = True
        if dying.condition is not None and not step.has_condition(c, dying.condition):
            step.write(
                c, SheetRequest(op="condition", who=c["character"], condition=dying.condition)
            )
