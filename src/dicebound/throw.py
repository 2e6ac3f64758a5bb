"""Throwing a ruleset's dice by name, outside a check (the page; issue 6).

The composer's custom dice field, the Game Master's ``roll_dice`` tool and ``dicebound
roll`` read text such as ``2 ability 1 proficiency vs 2 difficulty``. How the text is
read and the dice counted is the kind's own (its ``thrower`` hook); a kind without one
refuses with a clear error.
"""

from __future__ import annotations

from typing import Any

from dicebound.dice import DiceSource, SeededDice
from dicebound.kinds.base import Thrown
from dicebound.kinds.registry import player_of
from dicebound.ruleset.model import Ruleset

__all__ = ["roll_json", "throw_by_name", "throw_odds"]


def throw_by_name(ruleset: Ruleset, text: str, dice: DiceSource) -> Thrown:
    """Throw the dice a text names, in the order written, and read them as a check does.

    Raises:
        UsageError: the ruleset's kind throws no dice by name, or the text cannot be read.
        DiceError: forced faces ran out or name a face a die lacks.
    """
    return player_of(ruleset.resolution.kind).thrower(ruleset).throw(text, dice)


def throw_odds(ruleset: Ruleset, text: str) -> Thrown:
    """The exact odds of ``throw_by_name`` with the same text (computed, not sampled).

    Raises:
        UsageError: the ruleset's kind throws no dice by name, or the text cannot be read.
    """
    return player_of(ruleset.resolution.kind).thrower(ruleset).odds(text)


def roll_json(ruleset: Ruleset, text: str, *, seed: str | int) -> dict[str, Any]:
    """What ``dicebound roll --json`` prints: the throw from ``seed`` as JSON, with the
    seed that replays it. The edge picks a fresh seed when none is given."""
    thrown = throw_by_name(ruleset, text, SeededDice(str(seed)))
    return {**thrown.to_json(), "seed": str(seed)}
