"""A step's ``now`` (FIGHTS §4.5): one line per event, in order, joined with ``; ``.

Faces are written ``(a,b,...)`` in throw order, modifiers as signed integers, names as
the combatants' names; events with no line (``budget``, ``strikes``) are skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["event_lines", "faces_text"]

Event = Mapping[str, Any]


def faces_text(rolls: Sequence[int]) -> str:
    return "(" + ",".join(str(f) for f in rolls) + ")"


def _amount(e: Event) -> str:
    if e.get("rolls"):
        return f"{faces_text(e['rolls'])}{e['flat']:+d}={e['amount']}"
    return str(e["amount"])


def _initiative(e: Event) -> str:
    if e.get("pool"):
        parts = [f"{x['name']} {faces_text(x['roll'])}={x['total']}" for x in e["entries"]]
    else:
        parts = [
            f"{x['name']} {faces_text(x['roll'])}{x['modifier']:+d}={x['total']}"
            for x in e["entries"]
        ]
    return "initiative: " + ", ".join(parts)


def _successes(e: Event) -> tuple[str, str]:
    """A pool throw: ``(faces) N successes``, and `` botch`` when it botched."""
    botch = " botch" if e["pool"].get("botch") else ""
    return f"{faces_text(e['rolls'])} {e['total']} successes", botch


def _rolled(e: Event) -> str:
    """``(faces)±m`` and each bonus ``±v (Source)``, then ``=``; nothing when no die."""
    bonus = "".join(f" {b['value']:+d} ({b['label']})" for b in e.get("bonuses", ()))
    return f"{faces_text(e['rolls'])}{e['modifier']:+d}{bonus}=" if e["rolls"] else ""


def _lean(e: Event) -> str:
    return f" ({e['mode']})" if e["mode"] != "normal" else ""


def _save(e: Event) -> str:
    if e.get("automatic"):
        return f"{e['target']} {e['label']}: fails automatically"
    result = "success" if e["success"] else "failure"
    if "pool" in e:
        counted, botch = _successes(e)
        return (
            f"{e['target']} {e['label']}: {counted} vs {e['difficulty']} {result}{botch}{_lean(e)}"
        )
    return (
        f"{e['target']} {e['label']}: {_rolled(e)}{e['total']} vs {e['difficulty']} "
        f"{result}{_lean(e)}"
    )


def _concentration(e: Event) -> str:
    line = f"{e['actor']} concentration on {e['label']} {e['result']}"
    return line + (f" ({e['reason']})" if e.get("reason") else "")


def _attack(e: Event) -> str:
    rolled, lean = _rolled(e), _lean(e)
    if "pool" in e:
        counted, botch = _successes(e)
        return (
            f"{e['actor']} {e['label']} at {e['target']}: {counted} vs {e['defense']} "
            f"{e['outcome']}{botch}{lean}"
        )
    return (
        f"{e['actor']} {e['label']} at {e['target']}: {rolled}{e['total']} vs {e['defense']} "
        f"{e['outcome']}{lean}"
    )


def _pool_amount(e: Event) -> str:
    """``(faces) N successes`` (no faces when none was thrown) and `` (k automatic)``."""
    faces = f"{faces_text(e['rolls'])} " if e["rolls"] else ""
    automatic = f" ({e['flat']} automatic)" if e["flat"] > 0 else ""
    return f"{faces}{e['amount']} successes{automatic}"


def _soak(e: Event) -> str:
    soak = e.get("soak")
    if soak is None:
        return ""
    rolls = soak.get("rolls")
    thrown = f" {faces_text(rolls)}" if rolls else ""
    return f" soak {soak['value']}{thrown} took {soak['taken']}"


def _damage(e: Event) -> str:
    line = f"{e['target']}: {_pool_amount(e) if 'pool' in e else _amount(e)}"
    if e.get("damageType"):
        line += f" {e['damageType']}"
    if e.get("critical"):
        line += " critical"
    if e.get("saved"):
        line += " saved"
    if e.get("adjust", "none") != "none":
        line += f" ({e['adjust']})"
    line += _soak(e) + f", takes {e['dealt']}"
    if e.get("toTemp"):
        line += f" ({e['toTemp']} temporary)"
    return line + f", {e['health']}/{e['maxHealth']}"


def _condition(e: Event) -> str:
    if e.get("reason") == "immune":
        return f"{e['target']} immune to {e['label']}"
    if e["active"]:
        return f"{e['target']} {e['label']} on"
    return f"{e['target']} {e['label']} off ({e['reason']})"


def _dying(e: Event) -> str:
    if e["result"] == "dead":
        return f"{e['name']} dies"
    return f"{e['name']} death save {faces_text(e['rolls'])} vs {e['difficulty']}: {e['result']}"


def _standard(e: Event) -> str:
    if e.get("target"):
        return f"{e['actor']} {e['name']} {e['target']}"
    return f"{e['actor']} {e['name']}"


def _recharge(e: Event) -> str:
    back = "back" if e["back"] else "not back"
    return f"{e['label']} recharge {faces_text(e['rolls'])} vs {e['from']}: {back}"


def _contest_side(name: str, side: Event) -> str:
    if "pool" in side:
        return f"{name} {faces_text(side['rolls'])} {side['total']}"
    return f"{name} {faces_text(side['rolls'])}{side['modifier']:+d}={side['total']}"


def _contest(e: Event) -> str:
    """``Label: Actor (faces)±m=T vs Target (faces)±m=T`` (a pool: ``(faces) N``), then
    who won."""
    won = f"{e['actor']} wins" if e["winner"] == "actor" else f"{e['target']} holds"
    return (
        f"{e['label']}: {_contest_side(e['actor'], e['attacker'])} vs "
        f"{_contest_side(e['target'], e['defender'])}, {won}"
    )


_LINES: dict[str, Callable[[Event], str]] = {
    "contest": _contest,
    "refused": lambda e: f"{e['name']} left out ({e['reason']})",
    "initiative": _initiative,
    "round": lambda e: f"round {e['round']}",
    "turn": lambda e: f"turn: {e['name']}",
    "attack": _attack,
    "damage": _damage,
    "heal": lambda e: f"{e['target']} heals {_amount(e)}, {e['health']}/{e['maxHealth']}",
    "temporary": lambda e: f"{e['target']} gains {_amount(e)} temporary",
    "spend": lambda e: f"{e['actor']} spends {e['amount']} {e['label']}",
    "condition": _condition,
    "save": _save,
    "concentration": _concentration,
    "standard": _standard,
    "uses": lambda e: f"{e['label']}: {e['left']} of {e['max']} left",
    "recharge": _recharge,
    "down": lambda e: f"{e['name']} is down" + (", dying" if e["dying"] else ""),
    "defeated": lambda e: f"{e['name']} is defeated",
    "revived": lambda e: f"{e['name']} is back up, {e['health']}",
    "dying": _dying,
    "outcome": lambda e: f"outcome {e['outcome']}",
    "adjustment": lambda e: f"adjusted {e['opponent']}: {e['what']} {e['from']} -> {e['to']}",
    "window": lambda e: f"window {e['id']} asks {e['asking']}",
    "pass": lambda e: f"{e['name']} passes",
    "signature": lambda e: (
        f"{e['actor']} spends {e['cost']} signature point" + ("" if e["cost"] == 1 else "s")
    ),
    "recheck": lambda e: (
        f"recheck {e['label']} at {e['target']}: {e['total']} vs {e['defense']} {e['outcome']}"
    ),
}


def event_lines(events: Sequence[Event]) -> list[str]:
    """The lines of ``events`` (events without a line give none)."""
    return [_LINES[e["type"]](e) for e in events if e["type"] in _LINES]
