"""Turns and rounds (FIGHTS §10.1-10.3): ending a turn (the leaving actor's clocks),
the next actor, refills, the recharge rolls, the new actor's clocks and the death save
at a turn's start."""

from __future__ import annotations

from typing import Any

from dicebound.fight.clocks import run_clocks
from dicebound.fight.conditions import condition_event
from dicebound.fight.context import Step
from dicebound.fight.end import check_outcome
from dicebound.fight.limits import refill_limits
from dicebound.fight.start import initiative_event, sort_order, throw_initiative
from dicebound.fight.windows import open_window
from dicebound.fight.wounds import clear_one_mark
from dicebound.sheet import SheetView
from dicebound.sheet_commands.model import SheetRequest

__all__ = ["advance", "end_turn", "revive"]


def _can_take_turn(c: dict[str, Any]) -> bool:
    return not c["defeated"] and (not c["down"] or (c["dying"] and not c["stable"]))


def end_turn(step: Step) -> None:
    """The current actor's turn ends; a between-turns window opens for everybody else
    who could buy a signature action now (FIGHTS §10.1), else the next turn begins."""
    fight = step.fight
    leaving = step.who(fight["order"][fight["turn"]])
    run_clocks(step, leaving, "turn-end")
    leaving.pop("strikesLeft", None)
    others = [step.who(i) for i in fight["order"] if i != leaving["id"]]
    trigger = {"kind": "between-turns", "nextActorId": _next_actor_id(step)}
    if not open_window(step, "signature", trigger, others):
        advance(step)


def _next_actor_id(step: Step) -> str:
    """Who the next turn goes to, as a between-turns window names it: "" when it
    begins a round that throws initiative again."""
    fight = step.fight
    order, turn = fight["order"], fight["turn"]
    for _ in range(len(order)):
        turn += 1
        if turn >= len(order):
            if step.combat.initiative.each == "round":
                return ""
            turn = 0
        if _can_take_turn(step.who(order[turn])):
            return str(order[turn])
    return ""


def advance(step: Step) -> None:
    """The next turn begins (FIGHTS §10.2): the next combatant who can take one, a new
    round when the order wraps."""
    fight = step.fight
    order = fight["order"]
    turn = fight["turn"]
    for _ in range(2 * len(order) + 1):
        turn += 1
        if turn >= len(order):
            _new_round(step)
            order = fight["order"]
            turn = 0
            if _can_take_turn(step.who(order[0])):
                break
            continue
        if _can_take_turn(step.who(order[turn])):
            break
    fight["turn"] = turn
    _begin_turn(step, step.who(order[turn]))
    check_outcome(step)


def _new_round(step: Step) -> None:
    fight = step.fight
    fight["round"] += 1
    round_budgets = [b for b in step.combat.budgets if b.per == "round"]
    for c in fight["combatants"]:
        for b in round_budgets:
            c["budgets"][b.id] = b.count
        refill_limits(c, "round")
    step.events.append({"type": "round", "round": fight["round"]})
    if step.combat.initiative.each == "round":
        live = [c for c in fight["combatants"] if not c["defeated"]]
        for c in live:
            throw_initiative(c, step.ruleset, step.combat, step.dice)
        ordered = sort_order(fight["combatants"])
        fight["order"] = ordered
        step.events.append(initiative_event(fight, step.combat.initiative.pool is not None))


def _begin_turn(step: Step, c: dict[str, Any]) -> None:
    for b in step.combat.budgets:
        if b.per == "turn":
            c["budgets"][b.id] = b.count
    refill_limits(c, "turn")
    if "signature" in c:
        c["signature"]["points"] = c["signature"]["max"]
    helped = c["flags"].get("helped")
    c["flags"] = {"helped": True} if helped else {}
    step.events.append({"type": "turn", "actorId": c["id"], "name": c["name"]})
    for action_id in list(c["spent"]):
        action = next(a for a in c["actions"] if a["id"] == action_id)
        spec = action["recharge"]
        rolls = step.dice.dice(spec["count"], spec["sides"])
        back = sum(rolls) >= spec["from"]
        if back:
            c["spent"].remove(action_id)
        step.events.append(
            {
                "type": "recharge",
                "actorId": c["id"],
                "actionId": action_id,
                "label": action["label"],
                "rolls": rolls,
                "from": spec["from"],
                "back": back,
            }
        )
    run_clocks(step, c, "turn-start")
    if c["side"] == "party" and c["dying"] and not c["stable"] and not c["defeated"]:
        _death_save(step, c)


def _track_max(step: Step, c: dict[str, Any], track: str) -> int:
    return SheetView(step.ruleset, step.member(c)).track_max(track)


def _death_save(step: Step, c: dict[str, Any]) -> None:
    """FIGHTS §8.2: one death save at a dying, not stable member's turn start."""
    dying = step.combat.dying
    assert dying is not None
    who = c["character"]
    rolls = step.dice.dice(dying.count, dying.sides)
    kept = sum(rolls)
    one = len(rolls) == 1
    failures = 0
    result = "success"
    if one and rolls[0] == dying.sides and dying.natural_max == "revive-1":
        heal(step, c, 1, [], 1)
        result = "revived"
    elif one and rolls[0] == 1 and dying.natural_min == "two-failures":
        failures = 2
    elif one and rolls[0] == 1 and dying.natural_min == "one-failure":
        failures = 1
    elif one and rolls[0] == dying.sides and dying.natural_max == "success":
        result = "success"
    elif kept < dying.succeed_at:
        failures = 1
    event: dict[str, Any] = {
        "type": "dying",
        "actorId": c["id"],
        "name": c["name"],
        "rolls": rolls,
        "difficulty": dying.succeed_at,
    }
    if failures:
        if not add_failures(step, c, failures):  # a death says only that
            step.events.append(event | {"result": "failure"})
        return
    if result == "revived":
        step.events.append(event | {"result": "revived"})
        return
    step.write(c, SheetRequest(op="track", who=who, track=dying.successes, by=1))
    view = SheetView(step.ruleset, step.member(c))
    if view.track_value(dying.successes) >= view.track_max(dying.successes):
        c["stable"] = True
        _reset_tracks(step, c)
        step.events.append(event | {"result": "stable"})
    else:
        step.events.append(event | {"result": "success"})


def add_failures(step: Step, c: dict[str, Any], n: int) -> bool:
    """``n`` death-save failures; at the track's maximum the member dies (True)."""
    dying = step.combat.dying
    assert dying is not None
    step.write(c, SheetRequest(op="track", who=c["character"], track=dying.failures, by=n))
    view = SheetView(step.ruleset, step.member(c))
    if view.track_value(dying.failures) >= view.track_max(dying.failures):
        c["defeated"] = True
        c["dying"] = False
        step.events.append(
            {"type": "dying", "actorId": c["id"], "name": c["name"], "rolls": [], "result": "dead"}
        )
        return True
    return False


def _reset_tracks(step: Step, c: dict[str, Any]) -> None:
    dying = step.combat.dying
    assert dying is not None
    for track in (dying.successes, dying.failures):
        decl = next(t for t in step.ruleset.sheet.tracks if t.id == track)
        start = decl.min if decl.default is None else decl.default
        step.write(c, SheetRequest(op="track", who=c["character"], track=track, to=start))


def heal(step: Step, c: dict[str, Any], amount: int, rolls: list[int], flat: int) -> None:
    """Heal a combatant (FIGHTS §8.2), reviving one that was down."""
    amount = max(0, amount)
    if c["side"] == "enemy":
        h = c["health"]
        h["value"] = min(h["max"], h["value"] + amount)
    elif step.combat.health.kind == "track":
        clear_one_mark(step, c)
    else:
        pool = step.combat.health.name
        step.write(c, SheetRequest(op="restore", who=c["character"], pool=pool, amount=amount))
    value, top, _ = step.health(c)
    step.events.append(
        {
            "type": "heal",
            "targetId": c["id"],
            "target": c["name"],
            "rolls": rolls,
            "flat": flat,
            "amount": amount,
            "health": value,
            "maxHealth": top,
        }
    )
    if c["down"] and not c["defeated"] and value > 0:
        revive(step, c)


def revive(step: Step, c: dict[str, Any]) -> None:
    """Back up: down, dying and stable cleared, both death tracks to their default, the
    dying condition off."""
    c["down"] = False
    c["dying"] = False
    c["stable"] = False
    dying = step.combat.dying
    if c["side"] == "party" and dying is not None:
        _reset_tracks(step, c)
        if dying.condition is not None and step.has_condition(c, dying.condition):
            step.write(
                c,
                SheetRequest(
                    op="condition", who=c["character"], condition=dying.condition, on=False
                ),
            )
            step.events.append(
                condition_event(step, c, dying.condition, active=False, reason="revived")
            )
    value, _, _ = step.health(c)
    step.events.append({"type": "revived", "actorId": c["id"], "name": c["name"], "health": value})
