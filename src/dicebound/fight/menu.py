"""The menu (FIGHTS §6.2-6.3, §9.2): the options offered to the current actor, or to
the combatant an open window asks, the legal targets of a choice, and a written option
matched to an id (§4.2)."""

from __future__ import annotations

from typing import Any

from dicebound.fight.context import Step
from dicebound.fight.state import standing
from dicebound.sheet_commands.current import name_eq

__all__ = [
    "END_TURN",
    "PASS",
    "answers_to",
    "available",
    "legal_targets",
    "match_option",
    "offered",
    "option_of",
    "out_of_turn",
    "window_options",
]

END_TURN = {"id": "end-turn", "kind": "end-turn", "label": "End turn"}
PASS = {"id": "pass", "kind": "pass", "label": "Pass"}


def out_of_turn(a: dict[str, Any]) -> bool:
    """A signature action or a reaction: answered in a window, never on a turn's menu."""
    return "signature" in a or "reaction" in a


def available(c: dict[str, Any], a: dict[str, Any]) -> bool:
    """Uses left and not waiting on a recharge."""
    if "uses" in a and c["uses"].get(a["id"], 0) < 1:
        return False
    return a["id"] not in c["spent"]


def _in_hand(c: dict[str, Any], a: dict[str, Any]) -> bool:
    return "strikes" in a and c.get("strikesLeft", 0) > 0


def _option(a: dict[str, Any]) -> dict[str, Any]:
    option = {"id": a["id"], "kind": a["kind"], "label": a["label"], "targets": a["targets"]}
    if a.get("budget") is not None:
        option["budget"] = a["budget"]
    if "strikes" in a:
        option["strikes"] = a["strikes"]
    return option


def row_offer(step: Step, c: dict[str, Any], a: dict[str, Any]) -> dict[str, Any] | None:
    """An ability row's ``cost`` and ``payWith`` (each only when it has some), or None
    when its price does not plan on the sheet as it stands, within the chooser's spend
    limits (FIGHTS §6.2)."""
    from dicebound.fight.limits import within_limits
    from dicebound.fight.rows import pay_with, plan_price

    member = step.member(c)
    price = plan_price(step.ruleset, member, a)
    if price is None or not within_limits(c, price):
        return None
    made: dict[str, Any] = {}
    if price:
        made["cost"] = [{"pool": p.pool, "label": p.label, "amount": p.amount} for p in price]
    higher = pay_with(step.ruleset, member, a)
    if higher:
        made["payWith"] = [pool for pool, _ in higher]
    return made


def _weighed(
    step: Step, c: dict[str, Any], a: dict[str, Any], option: dict[str, Any]
) -> dict[str, Any]:
    """The option with its forecast (first legal target) and odds (every legal one)."""
    from dicebound.fight.forecast import forecast
    from dicebound.fight.leaning import attack_mode
    from dicebound.fight.modifiers import attack_bonus_dist, guards
    from dicebound.fight.odds import option_odds

    targets = legal_targets(step, c, a)
    if a["kind"] == "contest":
        from dicebound.fight.contests import win_chance
        from dicebound.fight.pool_odds import contest_weighed

        option.update(contest_weighed(step, c, a, targets, win_chance))
        return option
    if "sequence" in a:
        from dicebound.fight.sequence_odds import sequence_weighed

        option.update(sequence_weighed(step, c, a, targets))
        return option
    if step.combat.kind == "dice-pool":
        from dicebound.fight.pool_odds import pool_weighed

        option.update(pool_weighed(step, c, a, targets))
        return option
    first = next(iter(targets), None)
    mode = attack_mode(step, c, first) if first is not None else "normal"
    defense = first["defense"] + guards(step, first) if first is not None else None
    bonuses = attack_bonus_dist(step, c)
    made = forecast(step.combat.attack_roll, a, defense, mode, bonuses)
    if made is not None:
        option["forecast"] = made
    option.update(option_odds(step, c, a, targets))
    return option


def _parts_ready(c: dict[str, Any], a: dict[str, Any]) -> bool:
    """A sequence is offered when at least one of its parts is available (§6.2)."""
    if "sequence" not in a:
        return True
    from dicebound.fight.sequences import sequence_parts

    return any(available(c, p) for p in sequence_parts(c["actions"], a))


def offered(step: Step, c: dict[str, Any], *, weigh: bool = True) -> list[dict[str, Any]]:
    """The options of ``c`` now: empty unless it is on turn; End turn alone when it is
    down or cannot act. ``weigh``: with forecasts and odds (a choice checking its
    option against the menu needs neither)."""
    fight = step.fight
    if fight["outcome"] != "ongoing" or fight["order"][fight["turn"]] != c["id"]:
        return []
    if not standing(c) or "cannot-act" in step.active_effects(c):
        return [dict(END_TURN)]
    options: list[dict[str, Any]] = []
    for a in c["actions"]:
        if "notPlayed" in a or out_of_turn(a):
            continue
        budget = a.get("budget")
        paid = budget is None or _in_hand(c, a) or c["budgets"].get(budget, 0) >= 1
        priced = row_offer(step, c, a) if "entry" in a else {}
        ready = available(c, a) and _parts_ready(c, a)
        if paid and ready and priced is not None and _holders(step, c, a) != set():
            option = _weighed(step, c, a, _option(a)) if weigh else _option(a)
            options.append(option | priced)
    main = step.combat.main_budget.id
    if c["budgets"].get(main, 0) >= 1:
        for name in step.combat.standard:
            targets = (
                {"side": "ally", "count": 1} if name == "help" else {"side": "self", "count": 0}
            )
            options.append(
                {
                    "id": f"standard:{name}",
                    "kind": "standard",
                    "label": name,
                    "budget": main,
                    "targets": targets,
                }
            )
    options.append(dict(END_TURN))
    return options


def window_options(step: Step, c: dict[str, Any], *, weigh: bool = True) -> list[dict[str, Any]]:
    """FIGHTS §9.2: what the open window offers ``c`` (empty unless it is the one asked,
    and nothing but Pass when it has nothing to answer with): in a signature window its
    signature actions its points buy; in a reaction window its reactions to the
    window's moment that its budget, price and availability allow. Each aims at
    someone it may."""
    window = step.fight.get("window")
    if window is None or not window["waiting"] or window["waiting"][0] != c["id"]:
        return []
    return answers_to(step, c, window, weigh=weigh)


def answers_to(
    step: Step, c: dict[str, Any], window: dict[str, Any], *, weigh: bool = True
) -> list[dict[str, Any]]:
    """What ``c`` could answer ``window`` with (``window_options`` for the one asked),
    Pass last."""
    effects = step.active_effects(c)
    if not standing(c) or "cannot-act" in effects:
        return [dict(PASS)]
    options: list[dict[str, Any]] = []
    for a in c["actions"]:
        if "notPlayed" in a or not _answers(step, c, a, window, effects):
            continue
        priced = row_offer(step, c, a) if "entry" in a else {}
        if priced is None or not _aimable(step, c, a, window):
            continue
        option = _weighed(step, c, a, _option(a)) if weigh else _option(a)
        if "signature" in a:
            option["signature"] = a["signature"]
        options.append(option | priced)
    return [*options, dict(PASS)]


def _answers(
    step: Step, c: dict[str, Any], a: dict[str, Any], window: dict[str, Any], effects: set[str]
) -> bool:
    """Whether ``a`` answers this window: a signature action its points buy, or a
    reaction to the window's moment its budget allows; either available."""
    if not available(c, a):
        return False
    if window["kind"] == "signature":
        points = (c.get("signature") or {}).get("points", 0)
        return "signature" in a and points >= a["signature"]
    reaction = a.get("reaction")
    if reaction is None or "cannot-react" in effects:
        return False
    budget = a.get("budget")
    return reaction["on"] == window["trigger"]["kind"] and (
        budget is None or c["budgets"].get(budget, 0) >= 1
    )


def _aimable(step: Step, c: dict[str, Any], a: dict[str, Any], window: dict[str, Any]) -> bool:
    """Whether an answer has someone it may aim at."""
    if a["targets"]["count"] == 0 or a["targets"]["side"] == "self":
        return True
    reaction = a.get("reaction")
    if reaction is not None and reaction["at"] == "source":
        return window_targets(step, c, a, window, None) is not None
    return bool(legal_targets(step, c, a))


def window_targets(
    step: Step,
    c: dict[str, Any],
    a: dict[str, Any],
    window: dict[str, Any],
    written: str | None,
) -> list[dict[str, Any]] | None:
    """Whom an answer aims at (FIGHTS §9.2): a self reaction the chooser, a reaction at
    its source the moment's actor, otherwise the targets written (and
    when none is written: none); None when that is no legal target."""
    legal = legal_targets(step, c, a)
    if a["targets"]["count"] == 0:
        return []
    if a["targets"]["side"] == "self":
        return [c]
    reaction = a.get("reaction")
    if reaction is not None and reaction["at"] == "source":
        source = step.who(window["trigger"]["actorId"])
        return [source] if any(t is source for t in legal) else None
    if written is None:
        return None
    chosen: list[dict[str, Any]] = []
    for name in written.split(","):
        if not name.strip():
            continue
        t = next((x for x in legal if name_eq(x["name"], name) or x["id"] == name.strip()), None)
        if t is None:
            return None
        if all(t is not x for x in chosen):
            chosen.append(t)
    return chosen if 0 < len(chosen) <= a["targets"]["count"] else None


def option_of(step: Step, c: dict[str, Any], ident: str) -> dict[str, Any] | None:
    """The action or standard option ``ident`` names for ``c`` (offered or not)."""
    for a in c["actions"]:
        if a["id"] == ident:
            found: dict[str, Any] = a
            return found
    if ident.startswith("standard:") and ident[9:] in step.combat.standard:
        name = ident[9:]
        targets = {"side": "ally", "count": 1} if name == "help" else {"side": "self", "count": 0}
        return {
            "id": ident,
            "kind": "standard",
            "label": name,
            "budget": step.combat.main_budget.id,
            "targets": targets,
        }
    return None


def match_option(step: Step, c: dict[str, Any], written: str) -> str | None:
    """FIGHTS §4.2's option matching: the id, or None when two labels fit."""
    value = written.strip()
    ids = [a["id"] for a in c["actions"]] + [f"standard:{n}" for n in step.combat.standard]
    if value in ids or value in ("end-turn", "pass"):
        return value
    menu = offered(step, c, weigh=False)
    fits = [str(o["id"]) for o in menu if name_eq(o["label"], value)]
    if len(fits) == 1:
        return fits[0]
    if len(fits) > 1:
        return None
    every = [(str(a["id"]), str(a["label"])) for a in c["actions"]]
    every += [(f"standard:{n}", n) for n in step.combat.standard] + [("end-turn", "End turn")]
    fits = [ident for ident, label in every if name_eq(label, value)]
    if len(fits) == 1:
        return fits[0]
    if len(fits) > 1:
        return None
    return value


def legal_targets(step: Step, c: dict[str, Any], option: dict[str, Any]) -> list[dict[str, Any]]:
    """FIGHTS §6.3: in input order, not defeated, not a source the chooser may not
    target (its condition on the chooser says so), on the option's side."""
    side = option["targets"]["side"]
    forbidden = _forbidden_sources(step, c)
    held = _holders(step, c, option)
    found: list[dict[str, Any]] = []
    for t in step.fight["combatants"]:
        if t["defeated"] or t["id"] in forbidden:
            continue
        if option["id"] == "standard:help" and t["id"] == c["id"]:
            continue
        if held is not None and t["id"] not in held:
            continue
        if side == "self" and t["id"] != c["id"]:
            continue
        if side == "ally" and t["side"] != c["side"]:
            continue
        if side == "enemy" and t["side"] == c["side"]:
            continue
        found.append(t)
    return found


def _holders(step: Step, c: dict[str, Any], option: dict[str, Any]) -> set[str] | None:
    """A contest with ``from``: only who holds the chooser by it (None: anyone)."""
    if option.get("kind") != "contest":
        return None
    from dicebound.fight.contests import contest_of, holders

    contest = contest_of(step, option)
    return None if contest.holding is None else holders(step, c, contest)


def _forbidden_sources(step: Step, c: dict[str, Any]) -> set[str]:
    """The sources of the chooser's conditions that carry ``cannot-target-source``."""
    found: set[str] = set()
    for record in c["tracked"]:
        rule = step.combat.condition(str(record["condition"]))
        if rule is None or "cannot-target-source" not in rule.effects:
            continue
        if step.has_condition(c, rule.condition) and record.get("source") is not None:
            found.add(str(record["source"]))
    return found
