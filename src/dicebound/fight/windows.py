"""Windows (FIGHTS §9.2, §10.1): a question the fight keeps open for combatants other
than the one acting. A window opens at a moment only when somebody in it has a legal
answer, never inside another; it asks the first of ``waiting``, who answers (``act``)
or lets it go by (``pass``); each answered drops off, and so does every next one with
nothing to answer with. The window closes when nobody is left waiting, and what it held
goes on (``fight.tag`` resumes it: the next turn, or a held hit checked again).

Two moments open one here: **between turns** (a signature window, for everybody who
could buy a signature action now) and **hit** (a reaction window, for the target of an
attack that just hit it, when it holds a reaction to a hit)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dicebound.fight.context import Step
from dicebound.fight.menu import PASS, answers_to

__all__ = ["ask_window", "asked", "drop_asked", "open_window", "pass_event", "window_line"]


def asked(step: Step) -> dict[str, Any] | None:
    """The combatant the open window asks, or None when no window is open."""
    window = step.fight.get("window")
    return None if window is None else step.who(window["waiting"][0])


def _answerable(step: Step, c: dict[str, Any], window: dict[str, Any]) -> bool:
    """Whether ``c`` has anything but Pass to answer ``window`` with."""
    return any(o["id"] != PASS["id"] for o in answers_to(step, c, window, weigh=False))


def open_window(
    step: Step,
    kind: str,
    trigger: dict[str, Any],
    candidates: Sequence[dict[str, Any]],
    resume: dict[str, Any] | None = None,
) -> bool:
    """Opens a window asking, in the order given, those of ``candidates`` with an
    answer now; True when it opened (none opens while another is open, or when nobody
    could answer)."""
    fight = step.fight
    if fight.get("window") is not None or fight["outcome"] != "ongoing":
        return False
    number = int(fight.get("windows", 0)) + 1
    window: dict[str, Any] = {"id": f"w{number}", "kind": kind, "trigger": trigger}
    window["waiting"] = [c["id"] for c in candidates if _answerable(step, c, window)]
    if not window["waiting"]:
        return False
    if resume is not None:
        window["resume"] = resume
    fight["window"] = window
    fight["windows"] = number
    ask_window(step)
    return True


def ask_window(step: Step) -> None:
    """A ``window`` event: the open window, and whom it asks now."""
    window = step.fight["window"]
    who = step.who(window["waiting"][0])
    step.events.append(
        {
            "type": "window",
            "id": window["id"],
            "kind": window["kind"],
            "trigger": dict(window["trigger"]),
            "askingId": who["id"],
            "asking": who["name"],
        }
    )


def drop_asked(step: Step) -> dict[str, Any] | None:
    """The one asked drops off, then every next one with nothing to answer with (a
    ``pass`` event each). Returns the window when that closed it (nobody left), else
    None (the next one asked: a ``window`` event)."""
    fight = step.fight
    window = fight["window"]
    window["waiting"].pop(0)
    while window["waiting"]:
        nxt = step.who(window["waiting"][0])
        if _answerable(step, nxt, window):
            ask_window(step)
            return None
        window["waiting"].pop(0)
        step.events.append(pass_event(nxt))
    fight["window"] = None
    closed: dict[str, Any] = window
    return closed


def pass_event(c: dict[str, Any]) -> dict[str, Any]:
    return {"type": "pass", "actorId": c["id"], "name": c["name"]}


def window_line(fight: dict[str, Any], who: str) -> str:
    """The answer's ``next`` while a window waits: ``window w3: Snag``."""
    return f"window {fight['window']['id']}: {who}"
