"""The end of a fight (FIGHTS §11): victory, defeat, fled, ended."""

from __future__ import annotations

from dicebound.fight.context import Step
from dicebound.fight.state import standing

__all__ = ["check_outcome", "finish"]


def check_outcome(step: Step) -> None:
    """After every step: victory when no opponent stands (read first, so a blow that
    drops both sides wins), defeat when no party member stands."""
    fight = step.fight
    if fight["outcome"] != "ongoing":
        return
    enemies = [c for c in fight["combatants"] if c["side"] == "enemy"]
    members = [c for c in fight["combatants"] if c["side"] == "party"]
    if not any(standing(c) for c in enemies):
        finish(step, "victory")
    elif not any(standing(c) for c in members):
        finish(step, "defeat")


def finish(step: Step, outcome: str) -> None:
    """Set the outcome; an open window is discarded. No loot: no bestiary here rolls
    one yet (items are not played)."""
    step.fight["outcome"] = outcome
    step.fight["window"] = None
    step.events.append({"type": "outcome", "outcome": outcome})
