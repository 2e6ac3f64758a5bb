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
from dicebound.fight.act import check_choice, resolve_choice
from dicebound.fight.blow import drop
from dicebound.fight.context import Step
from dicebound.fight.dice import Thrower
from dicebound.fight.end import finish
from dicebound.fight.lines import event_lines
from dicebound.fight.menu import match_option
from dicebound.fight.opponents import Refusal
from dicebound.fight.start import start_fight
from dicebound.fight.state import (
    Fight,
    FightError,
    copy_state,
    find_combatant,
    health_of,
    standing,
)
from dicebound.fight.turns import end_turn, revive
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
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
