"""A fight as a table sees it between tags: the state, its summary, and the current
actor's menu with forecasts and odds (the shape the command line's ``dicebound fight``
prints, and the service's view of a fight). Nothing is thrown."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dicebound.dice import ForcedFaces
from dicebound.fight.context import Step
from dicebound.fight.dice import Thrower
from dicebound.fight.menu import offered, window_options
from dicebound.fight.state import Fight, FightError, summary
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character

__all__ = ["current_actor", "fight_view", "options_of"]


def fight_view(ruleset: Ruleset, fight: Fight | None, party: Sequence[Character]) -> dict[str, Any]:
    """``{fight, summary, current: {who, options} | None, window: {id, kind, trigger,
    asking, options} | None}``: ``current`` is the actor on turn while the fight is on
    (no options while a window waits), ``window`` the open one and the menu of the one
    it asks.

    Raises:
        FightError: the fight was started under another ruleset, or the party lacks a
            member the fight holds.
    """
    if fight is None:
        return {"fight": None, "summary": None, "current": None, "window": None}
    started = fight.get("ruleset", {}).get("id")
    if started != ruleset.id or ruleset.combat is None:
        raise FightError(
            f'The fight was started under the ruleset "{started}", not "{ruleset.id}"; '
            "show it with the ruleset it was started on."
        )
    current = window = None
    if fight["outcome"] == "ongoing":
        work = Step(ruleset, fight, party, Thrower(ForcedFaces(())))
        actor = work.who(fight["order"][fight["turn"]])
        current = {"who": actor["name"], "options": offered(work, actor)}
        held = fight.get("window")
        if held is not None:  # the actor on turn waits for the window's answers
            current["options"] = []
            asking = work.who(held["waiting"][0])
            window = {
                "id": held["id"],
                "kind": held["kind"],
                "trigger": held["trigger"],
                "asking": asking["name"],
                "options": window_options(work, asking),
            }
    return {
        "fight": fight,
        "summary": summary(ruleset, fight, party),
        "current": current,
        "window": window,
    }


def current_actor(fight: Fight) -> dict[str, Any] | None:
    """The combatant whose turn it is; None once the fight is over."""
    if fight["outcome"] != "ongoing":
        return None
    ident = fight["order"][fight["turn"]]
    found: dict[str, Any] = next(c for c in fight["combatants"] if c["id"] == ident)
    return found


def options_of(
    ruleset: Ruleset, fight: Fight, party: Sequence[Character], who: dict[str, Any]
) -> list[dict[str, Any]]:
    """Any combatant's menu now (its turn's, or the open window's when it asks it;
    empty otherwise), as ``fight_view`` gives the current actor's: each option with its
    forecast and odds. Nothing is thrown."""
    work = Step(ruleset, fight, party, Thrower(ForcedFaces(())))
    if fight.get("window") is not None:
        return window_options(work, work.who(who["id"]))
    return offered(work, work.who(who["id"]))
