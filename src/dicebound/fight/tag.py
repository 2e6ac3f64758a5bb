"""The ``[fight:]`` tag (FIGHTS §4): reading it, one step resolved against a fight, and
the answer it is rewritten as.

``step`` is pure: the fight (or None), the party and the dice come in; the new fight
and party go out with the step's events and sheet changes. A refused tag changes
nothing and throws no die.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from dicebound.dice import DiceSource
from dicebound.fight.act import check_choice, resolve_choice, resume_hit
from dicebound.fight.blow import drop
from dicebound.fight.context import Step
from dicebound.fight.dice import Thrower
from dicebound.fight.end import finish
from dicebound.fight.limits import within_limits
from dicebound.fight.lines import event_lines
from dicebound.fight.menu import (
    match_option,
    option_of,
    out_of_turn,
    window_options,
    window_targets,
)
from dicebound.fight.opponents import Refusal
from dicebound.fight.reasons import INSUFFICIENT
from dicebound.fight.rows import priced, resolve_pay
from dicebound.fight.start import start_fight
from dicebound.fight.state import (
    Fight,
    FightError,
    copy_state,
    find_combatant,
    health_of,
    standing,
)
from dicebound.fight.turns import advance, end_turn, revive
from dicebound.fight.windows import drop_asked, pass_event, window_line
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.sheet_commands.current import name_eq
from dicebound.sheet_commands.grammar import read_attributes
from dicebound.sheet_commands.written import cut, sanitise

__all__ = [
    "MAX_BODY",
    "FightStep",
    "FightTag",
    "answer",
    "combat_start",
    "read_fight_tag",
    "refused_step",
    "step",
]

MAX_BODY = 1500
MAX_NOW = 600
_HEAD = "[fight:"
_IGNORED = ("result", "now", "reason", "rolls", "next", "outcome", "seed", "forced", "raw", "via")
_OPS = {
    "start": "start",
    "act": "act",
    "pass": "pass",
    "end-turn": "end-turn",
    "endturn": "end-turn",
    "end_turn": "end-turn",
    "flee": "flee",
    "end": "end",
}


class FightTag(NamedTuple):
    """A ``[fight:]`` tag: where it stands and its body (``via`` names the ``[combat:]``
    tag it was read from)."""

    span: tuple[int, int]
    body: str
    via: str | None = None


class FightStep(NamedTuple):
    """One tag's step: the answer's attributes (in order, before ``result``), whether it
    resolved, the reason it did not (and a sentence for ``not-played``), its events,
    sheet changes and faces, and the fight and party after it."""

    asked: list[tuple[str, str]]
    ok: bool
    reason: str | None
    message: str | None
    events: list[dict[str, Any]]
    changes: list[dict[str, Any]]
    faces: list[int]
    fight: Fight | None
    party: tuple[Character, ...]
    next: str | None
    outcome: str | None


def read_fight_tag(text: str, start: int) -> FightTag | None:
    """The tag whose ``[fight:`` (any ASCII case) stands at ``start``: a body of at most
    ``MAX_BODY`` characters with no ``]``, then ``]``."""
    body_start = start + len(_HEAD)
    close = text.find("]", body_start, body_start + MAX_BODY + 1)
    if close < 0:
        return None
    return FightTag((start, close + 1), text[body_start:close])


def _read(body: str) -> tuple[str, dict[str, str]] | None:
    attributes = {k: v for k, v in read_attributes(body).items() if k not in _IGNORED}
    op = _OPS.get(attributes.pop("op", "").strip().lower())
    if op is None or (op == "act" and not attributes.get("option", "").strip()):
        return None
    if op == "start" and "enemies" not in attributes:
        return None
    return op, attributes


def _refused(
    asked: list[tuple[str, str]],
    reason: str,
    fight: Fight | None,
    party: Sequence[Character],
    message: str | None = None,
) -> FightStep:
    return FightStep(asked, False, reason, message, [], [], [], fight, tuple(party), None, None)


def step(
    ruleset: Ruleset,
    fight: Fight | None,
    party: Sequence[Character],
    tag: FightTag,
    dice: DiceSource,
    *,
    number: int = 1,
    owned: bool = False,
) -> FightStep:
    """Resolve one tag (FIGHTS §4.6's order of decisions). ``number`` is the id a new
    fight takes (``f<number>``) when there is no earlier one to count from.

    The fight given is left as it was (the step works on a copy), unless ``owned``: the
    caller holds the only use of it (a text's pass, whose steps follow one another), and
    a step that resolves changes it in place and answers it as its ``fight``. A refused
    step changes nothing either way: when reconciling the sheets would change the fight
    before the choice's checks, the step copies it first."""
    if fight is not None and fight.get("ruleset", {}).get("id") != ruleset.id:
        raise FightError(
            f'The fight was started under the ruleset "{fight.get("ruleset", {}).get("id")}", '
            f'not "{ruleset.id}"; play it on the ruleset it was started on.'
        )
    read = _read(tag.body)
    if read is None:
        return _refused([("raw", tag.body)], "malformed", fight, party)
    op, attributes = read
    asked: list[tuple[str, str]] = [("op", op)]
    if tag.via is not None:
        asked.append(("via", tag.via))
    if ruleset.combat is None:
        return _refused(asked + _written(op, attributes), "no-combat", fight, party)
    if op == "start":
        return _start(ruleset, fight, party, attributes, asked, dice, number)
    if fight is None:
        return _refused(asked + _written(op, attributes), "no-fight", fight, party)
    if fight["outcome"] != "ongoing":
        return _refused(asked + _written(op, attributes), "encounter-over", fight, party)
    if not owned or _unreconciled(ruleset, fight, party):
        fight = copy_state(fight)
    work = Step(ruleset, fight, party, Thrower(dice))
    if op in ("flee", "end"):
        _reconcile(work)
        finish(work, "fled" if op == "flee" else "ended")
        return _done(work, asked)
    if work.fight.get("window") is not None:
        return _in_window(work, fight, party, asked, op, attributes)
    current = work.fight["order"][work.fight["turn"]]
    who_written = attributes.get("who")
    actor = work.who(current) if who_written is None else find_combatant(work.fight, who_written)
    if actor is None:
        return _refused(asked + _written(op, attributes), "unknown-actor", fight, party)
    asked.append(("who", actor["name"]))
    if op == "pass":
        asked += _given(attributes, ("window",))
        return _refused(
            asked, "stale-window" if "window" in attributes else "unknown-option", fight, party
        )
    option_id = "end-turn" if op == "end-turn" else match_option(work, actor, attributes["option"])
    if op == "act":
        if option_id is None:
            return _refused(
                [*asked, ("option", attributes["option"].strip()), *_act_rest(attributes)],
                "ambiguous-option",
                fight,
                party,
            )
        asked.append(("option", option_id))
    if option_id == "end-turn":
        asked += _given(attributes, ("window",))
        if "window" in attributes:
            return _refused(asked, "stale-window", fight, party)
        if current != actor["id"]:
            return _refused(asked, "not-your-turn", fight, party)
        _reconcile(work)
        end_turn(work)
        return _done(work, asked)
    if option_id is None or option_id == "pass":
        return _refused(asked + _act_rest(attributes), "unknown-option", fight, party)
    _reconcile(work)
    checked = check_choice(work, actor, option_id, attributes)
    if isinstance(checked[0], str):
        reason, message = checked[0], checked[1]
        assert isinstance(message, str | None)
        return _refused(asked + _act_rest(attributes), reason, fight, party, message)
    chooser, option, targets = checked
    assert isinstance(targets, list) and isinstance(option, dict)
    if option["targets"]["count"] > 0:
        asked.append(("target", ", ".join(t["name"] for t in targets)))
    asked += _given(attributes, ("pay", "mode", "style", "window"))
    resolve_choice(work, (chooser, option, targets))
    return _done(work, asked)


def _in_window(
    work: Step,
    fight: Fight,
    party: Sequence[Character],
    asked: list[tuple[str, str]],
    op: str,
    attributes: dict[str, str],
) -> FightStep:
    """FIGHTS §9.2: a step while a window is open. Only the one it asks answers (``who``
    defaults to it): ``pass`` lets it go by, ``act`` answers from its menu; an
    ``end-turn`` waits until it closes. When the last one asked has answered, what the
    window held goes on: the next turn, or the held hit checked again."""
    window = work.fight["window"]
    asking = work.who(window["waiting"][0])
    written = attributes.get("who")
    actor = asking if written is None else find_combatant(work.fight, written)
    if actor is None:
        return _refused(asked + _written(op, attributes), "unknown-actor", fight, party)
    asked.append(("who", actor["name"]))
    if op == "act":
        value = attributes["option"].strip()
        option_id = _match_answer(work, actor, value)
        asked.append(("option", value if option_id is None else option_id))
        if option_id is None:
            return _refused(asked + _act_rest(attributes), "ambiguous-option", fight, party)
        tail = _act_rest(attributes)
    else:
        option_id = None
        tail = _given(attributes, ("window",))
    if op == "end-turn":
        return _refused(asked + tail, "window-open", fight, party)
    if "window" in attributes and attributes["window"].strip() != window["id"]:
        return _refused(asked + tail, "stale-window", fight, party)
    if actor["id"] != asking["id"]:
        return _refused(asked + tail, "window-open", fight, party)
    if op == "pass" or option_id == "pass":
        _reconcile(work)
        work.events.append(pass_event(actor))
        _close_window(work)
        return _done(work, asked + _given(attributes, ("window",)))
    assert option_id is not None
    checked = _check_answer(work, actor, option_id, attributes)
    if isinstance(checked, str):
        return _refused(asked + tail, checked, fight, party)
    action, targets = checked
    if action["targets"]["count"] > 0:
        asked.append(("target", ", ".join(t["name"] for t in targets)))
    asked += _given(attributes, ("pay", "mode", "style", "window"))
    _reconcile(work)
    if "signature" in action:
        points = actor["signature"]
        points["points"] -= action["signature"]
        work.events.append(
            {
                "type": "signature",
                "actorId": actor["id"],
                "actor": actor["name"],
                "actionId": action["id"],
                "label": action["label"],
                "cost": action["signature"],
                "points": points["points"],
            }
        )
        action = action | {"budget": None}  # bought with points, not a budget
    resolve_choice(work, (actor, action, targets))
    _close_window(work)
    return _done(work, asked)


def _match_answer(work: Step, c: dict[str, Any], value: str) -> str | None:
    """FIGHTS §4.2's matching for an answer: an id; else a label of the window's menu,
    then of all the chooser's actions; None when two fit."""
    menu = window_options(work, c, weigh=False)
    if value in [a["id"] for a in c["actions"]] or value == "pass":
        return value
    for labelled in (menu, c["actions"]):
        fits = [str(o["id"]) for o in labelled if name_eq(str(o["label"]), value)]
        if len(fits) == 1:
            return fits[0]
        if len(fits) > 1:
            return None
    return value


def _check_answer(
    work: Step, c: dict[str, Any], option_id: str, attributes: dict[str, str]
) -> tuple[dict[str, Any], list[dict[str, Any]]] | str:
    """The answer's action and targets, or why it is refused (§9.2: as on a turn)."""
    menu = [o["id"] for o in window_options(work, c, weigh=False)]
    action = option_of(work, c, option_id)
    if action is None or option_id not in menu:
        if not standing(c):
            return "down"
        if "cannot-act" in work.active_effects(c):
            return "cannot-act"
        if action is None or not out_of_turn(action):
            return "unknown-option"
        budget = action.get("budget")
        if "reaction" in action and budget is not None and c["budgets"].get(budget, 0) < 1:
            return "no-budget"
        return INSUFFICIENT
    if "mode" in attributes:
        return "unknown-mode"
    targets = window_targets(work, c, action, work.fight["window"], attributes.get("target"))
    if targets is None:
        return "bad-target"
    if "pay" in attributes:
        pool = resolve_pay(work.ruleset, work.member(c), action, attributes["pay"])
        if "entry" not in action or pool is None:
            return "bad-pool"
        action = action | {"pay": pool}
    if "style" in attributes:
        return "unknown-style"
    if "entry" in action:
        price = priced(work, c, action)
        if price is None or not within_limits(c, price):
            return INSUFFICIENT
    return action, targets


def _close_window(work: Step) -> None:
    """The one asked has answered: the next one is asked, or the window closes and what
    it held goes on (unless the answer ended the fight)."""
    if work.fight["outcome"] != "ongoing":
        work.fight["window"] = None
        return
    closed = drop_asked(work)
    if closed is None:
        return
    if closed["kind"] == "signature":
        advance(work)
    else:
        resume_hit(work, closed["resume"])


def _given(attributes: dict[str, str], keys: Sequence[str]) -> list[tuple[str, str]]:
    return [(k, attributes[k]) for k in keys if k in attributes]


def _act_rest(attributes: dict[str, str]) -> list[tuple[str, str]]:
    return _given(attributes, ("target", "pay", "mode", "style", "window"))


def _written(op: str, attributes: dict[str, str]) -> list[tuple[str, str]]:
    """A refused tag's attributes as written, in the answer's order."""
    if op == "start":
        return _given(attributes, ("party", "enemies"))
    if op == "act":
        return _given(attributes, ("who", "option")) + _act_rest(attributes)
    if op in ("pass", "end-turn"):
        return _given(attributes, ("who", "window"))
    return []


def _start(
    ruleset: Ruleset,
    fight: Fight | None,
    party: Sequence[Character],
    attributes: dict[str, str],
    asked: list[tuple[str, str]],
    dice: DiceSource,
    number: int,
) -> FightStep:
    if fight is not None and fight["outcome"] == "ongoing":
        return _refused(asked + _written("start", attributes), "fight-on", fight, party)
    if fight is not None:
        number = int(str(fight["id"]).lstrip("f") or 0) + 1
    made = start_fight(ruleset, party, attributes, Thrower(dice), number)
    if isinstance(made, Refusal):
        return _refused(
            asked + _written("start", attributes), made.reason, fight, party, made.message
        )
    members = [c["name"] for c in made.fight["combatants"] if c["side"] == "party"]
    asked += [("party", ", ".join(members)), ("enemies", attributes["enemies"])]
    made.events += [{"type": "adjustment"} | a for a in made.fight["adjustments"]]
    return _done(made, asked)


def _unreconciled(ruleset: Ruleset, fight: Fight, party: Sequence[Character]) -> bool:
    """Whether ``_reconcile`` would change anything."""
    for c in fight["combatants"]:
        if c["side"] == "party":
            value, top, _ = health_of(ruleset, c, party)
            if _goes_down(c, value, top) or _comes_up(c, value):
                return True
    return False


def _goes_down(c: dict[str, Any], value: int, top: int) -> bool:
    return standing(c) and value <= 0 < top


def _comes_up(c: dict[str, Any], value: int) -> bool:
    return bool(c["down"]) and not c["defeated"] and value > 0


def _reconcile(work: Step) -> None:
    """FIGHTS §5.6: a member a sheet command took to 0 goes down; one healed from 0
    comes back up."""
    for c in work.fight["combatants"]:
        if c["side"] != "party":
            continue
        value, top, _ = work.health(c)
        if _goes_down(c, value, top):
            drop(work, c)
        elif _comes_up(c, value):
            revive(work, c)


def _done(work: Step, asked: list[tuple[str, str]]) -> FightStep:
    fight = work.fight
    fight["cursor"] += len(work.dice.faces)
    over = fight["outcome"] != "ongoing"
    nxt = None if over else work.who(fight["order"][fight["turn"]])["name"]
    if not over and fight.get("window") is not None:
        nxt = window_line(fight, work.who(fight["window"]["waiting"][0])["name"])
    ended = fight["outcome"] if over and any(e["type"] == "outcome" for e in work.events) else None
    return FightStep(
        asked,
        True,
        None,
        None,
        work.events,
        work.changes,
        list(work.dice.faces),
        fight,
        tuple(work.party),
        nxt,
        ended,
    )


def refused_step(
    tag: FightTag,
    reason: str,
    fight: Fight | None,
    party: Sequence[Character],
    message: str | None = None,
) -> FightStep:
    """A tag refused before it is read further (``too-many``, or a surface that plays
    no fight): its attributes as written."""
    read = _read(tag.body)
    if read is None:
        return _refused([("raw", tag.body)], reason, fight, party, message)
    op, attributes = read
    asked = [("op", op), *_written(op, attributes)]
    return _refused(asked, reason, fight, party, message)


def combat_start(tag: FightTag) -> FightTag:
    """Marinara's ``[combat: enemies="Name:Level:HP:...", ...]`` read as a start of the
    opponents it names (FIGHTS §4.4): each entry's first field, no spec, the default
    party."""
    enemies = read_attributes(tag.body).get("enemies", "")
    names = [entry.split(":")[0].strip() for entry in enemies.split(",")]
    named = ", ".join(n.replace("(", " ").replace(")", " ").strip() for n in names if n.strip())
    body = f'op="start" enemies="{named}"' if named else 'op="start"'
    return FightTag(tag.span, body, "combat")


def answer(result: FightStep, mark: str | None) -> str:
    """The tag rewritten (FIGHTS §4.3). ``mark`` is ``seed="N"`` or ``forced="true"``,
    written only when the tag threw a die."""
    parts = [f'{k}="{sanitise(v)}"' for k, v in result.asked]
    if not result.ok:
        parts.append('result="refused"')
        parts.append(f'reason="{result.reason}"')
        return "[fight: " + " ".join(parts) + "]"
    parts.append('result="ok"')
    now = "; ".join(event_lines(result.events))
    if now:
        parts.append(f'now="{cut(sanitise(now, 10_000), MAX_NOW)}"')
    if result.faces:
        parts.append('rolls="' + "|".join(str(f) for f in result.faces) + '"')
    if result.next is not None:
        parts.append(f'next="{sanitise(result.next)}"')
    if result.outcome is not None:
        parts.append(f'outcome="{result.outcome}"')
    if result.faces and mark:
        parts.append(mark)
    return "[fight: " + " ".join(parts) + "]"
