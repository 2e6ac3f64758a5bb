"""One choice (FIGHTS §7): the checks in order, then a standard action, or an action
on each target: the attack roll against a defense, the action's save, the blow
(``blow``). A refusal is found before any die is thrown or anything changed."""

from __future__ import annotations

from typing import Any

from dicebound.fight.blow import Once, blow
from dicebound.fight.concentration import start_concentration
from dicebound.fight.conditions import one_use, spend_one_use
from dicebound.fight.contests import resolve_contest
from dicebound.fight.context import Step
from dicebound.fight.end import check_outcome
from dicebound.fight.leaning import attack_mode
from dicebound.fight.limits import within_limits
from dicebound.fight.menu import available, legal_targets, offered, option_of
from dicebound.fight.modifiers import attack_bonuses, guards
from dicebound.fight.pools import attack_head, pool_attack
from dicebound.fight.reasons import INSUFFICIENT
from dicebound.fight.rows import give, pay_row, priced, resolve_pay
from dicebound.fight.saves import make_save
from dicebound.fight.sequences import part_slices, sequence_parts
from dicebound.fight.state import standing
from dicebound.fight.windows import open_window
from dicebound.sheet_commands.current import name_eq

__all__ = ["Choice", "check_choice", "choose_targets", "resolve_choice", "resume_hit"]

Choice = tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]
"""The chooser, the option and its targets, once every check passed."""


def check_choice(
    step: Step, c: dict[str, Any], option_id: str, attributes: dict[str, str]
) -> Choice | tuple[str, str | None]:
    """FIGHTS §7.1 (6)-(15) for a choice other than End turn: the choice, or the reason
    it is refused (and for ``not-played`` its sentence)."""
    fight = step.fight
    if "window" in attributes:
        return "stale-window", None
    option = option_of(step, c, option_id)
    if option is not None and "signature" in option:
        return "not-your-turn", None  # a signature action is bought between turns
    if fight["order"][fight["turn"]] != c["id"]:
        return "not-your-turn", None
    if not standing(c):
        return "down", None
    if option is not None and "notPlayed" in option:
        return "not-played", str(option["notPlayed"])
    menu_ids = [o["id"] for o in offered(step, c, weigh=False)]
    if option is None or option_id not in menu_ids:
        if "cannot-act" in step.active_effects(c):
            return "cannot-act", None
        if option is None:
            return "unknown-option", None
        budget = option.get("budget")
        in_hand = "strikes" in option and c.get("strikesLeft", 0) > 0
        if budget is not None and not in_hand and c["budgets"].get(budget, 0) < 1:
            return "no-budget", None
        return INSUFFICIENT, None
    if "mode" in attributes:
        return "unknown-mode", None
    targets = choose_targets(step, c, option, attributes.get("target"))
    if targets is None:
        return "bad-target", None
    if "pay" in attributes:
        pool = resolve_pay(step.ruleset, step.member(c), option, attributes["pay"])
        if "entry" not in option or pool is None:
            return "bad-pool", None
        option = option | {"pay": pool}
    if "style" in attributes:
        return "unknown-style", None
    if "entry" in option:
        price = priced(step, c, option)
        if price is None or not within_limits(c, price):
            return INSUFFICIENT, None
    return c, option, targets


def choose_targets(
    step: Step, c: dict[str, Any], option: dict[str, Any], written: str | None
) -> list[dict[str, Any]] | None:
    count = option["targets"]["count"]
    if count == 0:
        return []
    if written is None:
        return [c] if option["targets"]["side"] == "self" else None
    legal = legal_targets(step, c, option)
    chosen: list[dict[str, Any]] = []
    for name in written.split(","):
        if not name.strip():
            continue
        t = next(
            (
                x
                for x in step.fight["combatants"]
                if name_eq(x["name"], name) or x["id"] == name.strip()
            ),
            None,
        )
        if t is None or all(t is not x for x in legal):
            return None
        if all(t is not x for x in chosen):
            chosen.append(t)
    if not chosen or len(chosen) > count:
        return None
    return chosen


def resolve_choice(step: Step, choice: Choice) -> None:
    """FIGHTS §7.2: budget, strikes, availability, then the action on each target."""
    c, option, targets = choice
    budget = option.get("budget")
    in_hand = "strikes" in option and c.get("strikesLeft", 0) > 0
    if in_hand:
        c["strikesLeft"] -= 1
        step.events.append({"type": "strikes", "actorId": c["id"], "left": c["strikesLeft"]})
    elif budget is not None:
        c["budgets"][budget] -= 1
        step.events.append(
            {"type": "budget", "actorId": c["id"], "budget": budget, "left": c["budgets"][budget]}
        )
        if option.get("strikes", 1) > 1:
            c["strikesLeft"] = option["strikes"] - 1
            step.events.append({"type": "strikes", "actorId": c["id"], "left": c["strikesLeft"]})
    if option["kind"] in ("standard", "contest"):
        if option["kind"] == "standard":
            _standard(step, c, option, targets)
        else:
            resolve_contest(step, c, option, targets[0])
        check_outcome(step)
        return
    if "entry" in option:
        option = pay_row(step, c, option)
    _spend_availability(step, c, option)
    if "sequence" in option:  # FIGHTS §7.3: its parts in order, for the one budget
        parts = sequence_parts(c["actions"], option)
        slices = part_slices(parts, [t["id"] for t in targets])
        _play_parts(
            step, c, [{"action": p, "targets": ids} for p, ids in zip(parts, slices, strict=True)]
        )
        return
    if option.get("gives"):
        give(step, c, option)
    if option.get("concentration"):
        start_concentration(step, c, option)
    once: Once | None = None if _rolls_to_hit(option) else {}
    _strike_each(step, c, option, targets, once, [])


def _spend_availability(step: Step, c: dict[str, Any], option: dict[str, Any]) -> None:
    """An action's availability spent (FIGHTS §7.2 3): a use (a ``uses`` event), a
    recharging action marked spent."""
    if "uses" in option:
        c["uses"][option["id"]] -= 1
        step.events.append(
            {
                "type": "uses",
                "actorId": c["id"],
                "actionId": option["id"],
                "label": option["label"],
                "left": c["uses"][option["id"]],
                "max": option["uses"],
            }
        )
    if "recharge" in option:
        c["spent"].append(option["id"])


Queue = list[dict[str, Any]]
"""A sequence's parts still to play: ``{action, targets (ids)}`` each, in order."""


def _strike_each(
    step: Step,
    c: dict[str, Any],
    option: dict[str, Any],
    targets: list[dict[str, Any]],
    once: Once | None,
    after: Queue,
) -> None:
    """The action on each target still up, in order, then a sequence's parts after it,
    then the outcome; a hit a window holds stops here (the window's answer resumes it,
    ``resume_hit``)."""
    for i, t in enumerate(targets):
        if not t["defeated"] and _strike(step, c, option, t, once, targets[i + 1 :], after):
            return
    _play_parts(step, c, after)


def _play_parts(step: Step, c: dict[str, Any], queue: Queue) -> None:
    """A sequence's parts in order (FIGHTS §7.3): a part with no target still up, or
    not available, is skipped free; each other part spends its own availability and
    strikes its targets. Then the outcome."""
    for i, item in enumerate(queue):
        part: dict[str, Any] = item["action"]
        live = [t for t in (step.who(x) for x in item["targets"]) if not t["defeated"]]
        if not live or not available(c, part):
            continue
        _spend_availability(step, c, part)
        once: Once | None = None if _rolls_to_hit(part) else {}
        for j, t in enumerate(live):
            if not t["defeated"] and _strike(step, c, part, t, once, live[j + 1 :], queue[i + 1 :]):
                return
    check_outcome(step)


def _rolls_to_hit(option: dict[str, Any]) -> bool:
    return not option.get("autoHit") and option.get("toHit") is not None


def _standard(
    step: Step, c: dict[str, Any], option: dict[str, Any], targets: list[dict[str, Any]]
) -> None:
    name = option["label"]
    event: dict[str, Any] = {
        "type": "standard",
        "actorId": c["id"],
        "actor": c["name"],
        "name": name,
    }
    if name == "help":
        t = targets[0]
        t["flags"]["helped"] = True
        event |= {"targetId": t["id"], "target": t["name"]}
    else:
        flag = {"dodge": "dodging", "dash": "dashed", "disengage": "disengaged"}.get(name, name)
        flag = {"hide": "hidden"}.get(name, flag)
        c["flags"][flag] = True
    step.events.append(event)


def _strike(
    step: Step,
    c: dict[str, Any],
    option: dict[str, Any],
    t: dict[str, Any],
    once: Once | None,
    rest: list[dict[str, Any]],
    after: Queue,
) -> bool:
    """One target (FIGHTS §7.3): the attack roll (unless it lands by itself), the
    action's save, the blow; then the one-use conditions the roll spent (those on the
    roller that end after its own attack, on the target after being attacked). True
    when the hit opened a window (§9.2): the rest waits on its answer."""
    if once is None:
        spends = one_use(c, "own-attack"), one_use(t, "attacked")
        extra = 0
        if step.combat.kind == "dice-pool":
            outcome, extra = pool_attack(step, c, option, t)
        else:
            outcome = _attack_roll(step, c, option, t)
        if outcome != "miss" and _hold_hit(step, c, option, t, extra, rest, after):
            return True
        if outcome != "miss":
            _saved_blow(step, c, option, t, once, critical=outcome == "critical", extra=extra)
        spend_one_use(step, c, spends[0])
        spend_one_use(step, t, spends[1])
        return False
    _saved_blow(step, c, option, t, once, critical=False)
    return False


def _hold_hit(
    step: Step,
    c: dict[str, Any],
    option: dict[str, Any],
    t: dict[str, Any],
    extra: int,
    rest: list[dict[str, Any]],
    after: Queue,
) -> bool:
    """An attack roll that just hit a target holding a reaction to a hit opens a
    window asking it; the hit, the action and the targets after it wait in the window
    (``resume``)."""
    attack = step.events[-1]
    roll = step.combat.attack_roll
    natural = (
        roll is not None
        and roll.dice.count == 1
        and attack["kept"] == roll.dice.sides
        and roll.natural_max != "none"
    )
    trigger = {"kind": "hit", "actorId": c["id"], "targetId": t["id"], "actionId": option["id"]}
    resume = {
        "actorId": c["id"],
        "action": option,
        "targetId": t["id"],
        "rest": [x["id"] for x in rest],
        "after": after,
        "attack": {
            "outcome": attack["outcome"],
            "total": attack["total"],
            "natural": natural,
            "extra": extra,
        },
    }
    return open_window(step, "reaction", trigger, [t], resume)


def resume_hit(step: Step, resume: dict[str, Any]) -> None:
    """FIGHTS §9.2: a held hit checked again against the target's defense now (a pool
    needs ``max(1, defense)``; a natural face keeps its result), a ``recheck`` event;
    the blow when it still lands, the one-use conditions spent; then the targets after
    it, and the outcome."""
    c, t = step.who(resume["actorId"]), step.who(resume["targetId"])
    option: dict[str, Any] = resume["action"]
    held = resume["attack"]
    if not t["defeated"]:
        spends = one_use(c, "own-attack"), one_use(t, "attacked")
        defense = t["defense"] + guards(step, t)
        if step.combat.kind == "dice-pool":
            defense = max(1, defense)
        if held["natural"]:
            outcome = held["outcome"]
        else:
            outcome = "hit" if held["total"] >= defense else "miss"
        step.events.append(
            attack_head(c, option, t)
            | {"type": "recheck", "total": held["total"], "defense": defense, "outcome": outcome}
        )
        if outcome != "miss":
            extra = held["total"] - defense if step.combat.kind == "dice-pool" else 0
            _saved_blow(step, c, option, t, None, critical=outcome == "critical", extra=extra)
        spend_one_use(step, c, spends[0])
        spend_one_use(step, t, spends[1])
    rest = [step.who(i) for i in resume["rest"]]
    _strike_each(step, c, option, rest, None, list(resume.get("after", ())))


def _saved_blow(
    step: Step,
    c: dict[str, Any],
    option: dict[str, Any],
    t: dict[str, Any],
    once: Once | None,
    *,
    critical: bool,
    extra: int = 0,
) -> None:
    """The action's save (a success that negates ends it here), then the blow."""
    save = option.get("save")
    saved = None
    if save is not None:
        saved = make_save(step, t, save["save"], save["difficulty"])
        if saved and save["onSuccess"] == "negates":
            return
    blow(step, c, option, t, critical=critical, saved=saved, once=once, extra=extra)


def _attack_roll(step: Step, c: dict[str, Any], option: dict[str, Any], t: dict[str, Any]) -> str:
    roll = step.combat.attack_roll
    assert roll is not None
    mode = attack_mode(step, c, t)
    first = step.dice.dice(roll.dice.count, roll.dice.sides)
    rolls = list(first)
    kept_faces = first
    if mode != "normal":
        second = step.dice.dice(roll.dice.count, roll.dice.sides)
        rolls += second
        better = sum(second) > sum(first)
        if (mode == "advantage") == better:
            kept_faces = second
    kept = sum(kept_faces)
    bonuses = attack_bonuses(step, c)
    total = kept + option["toHit"] + sum(b["value"] for b in bonuses)
    defense = t["defense"] + guards(step, t)
    outcome = "hit" if total >= defense else "miss"
    if roll.dice.count == 1:
        if kept == roll.dice.sides and roll.natural_max != "none":
            outcome = roll.natural_max
        elif kept == 1 and roll.natural_min == "miss":
            outcome = "miss"
    c["flags"].pop("helped", None)
    step.events.append(
        attack_head(c, option, t)
        | {
            "rolls": rolls,
            "kept": kept,
            "modifier": option["toHit"],
            "bonuses": bonuses,
            "total": total,
            "defense": defense,
            "outcome": outcome,
            "mode": mode,
        }
    )
    return outcome
